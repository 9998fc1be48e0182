"""What the importers share: bounded reading of JSON and JSONL, text out of content parts."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..chats import Conversation, Skipped

__all__ = [
    "MAX_JSON_BYTES",
    "MAX_LINE_BYTES",
    "bad_lines",
    "each_line",
    "first_json_lines",
    "iso",
    "json_lines",
    "load_json",
    "parts_text",
]

# a whole-file JSON export is read at once: past this it is refused (counted as skipped)
MAX_JSON_BYTES = 1024 * 1024 * 1024
# one JSONL line past this is not a message anyone typed (a pasted dump): skipped, counted
MAX_LINE_BYTES = 8 * 1024 * 1024


class Unreadable(Exception):
    """A file an importer cannot read; the message is the reason it reports (not raised out)."""


def load_json(path: Path, *, quiet: bool = False) -> Any:
    """The JSON in ``path``; ``Unreadable`` with the reason (``None`` when ``quiet``)."""
    try:
        size = path.stat().st_size
        if size > MAX_JSON_BYTES:
            raise Unreadable(f"{size / 1e9:.1f} GB is over the {MAX_JSON_BYTES >> 30} GiB limit")
        return json.loads(path.read_bytes())
    except (OSError, ValueError, Unreadable) as exc:
        if quiet:
            return None
        if isinstance(exc, Unreadable):
            raise
        raise Unreadable(f"not readable JSON ({exc.__class__.__name__}: {exc})"[:300]) from None


def json_lines(path: Path) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """``(line number, object)`` per line of ``path``; a line that is not a JSON object, or is
    too long, gives ``(number, reason)`` instead."""
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, 1):
            if len(raw) > MAX_LINE_BYTES:
                yield number, f"line over {MAX_LINE_BYTES >> 20} MiB"
                continue
            if not raw.strip():
                continue
            try:
                data = json.loads(raw)
            except ValueError:
                yield number, "not a JSON line (torn or corrupt)"
                continue
            yield number, data if isinstance(data, dict) else "not a JSON object"


def first_json_lines(path: Path, count: int = 10) -> list[dict[str, Any]]:
    """The first ``count`` JSON object lines of ``path`` (for format detection)."""
    found: list[dict[str, Any]] = []
    try:
        for _, data in json_lines(path):
            if isinstance(data, dict):
                found.append(data)
                if len(found) >= count:
                    break
    except OSError:
        pass
    return found


def iso(value: Any) -> str | None:
    """A timestamp (epoch seconds or ISO text) as ISO 8601 UTC, or ``None``."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(value, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str) and value:
        try:
            when = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return None


def parts_text(
    content: Any, *, kinds: tuple[str, ...] = ("text", "input_text", "output_text")
) -> str:
    """The text of a message's content: a string, or a list of parts of which only the text
    kinds count (tool calls, tool results, images and thinking are not the person's words)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    out = []
    for part in content:
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, dict) and part.get("type") in kinds:
            text = part.get("text")
            if isinstance(text, str):
                out.append(text)
    return "\n".join(t for t in out if t)


def each_line(
    file: Path, conv: Conversation, take: Callable[[int, dict[str, Any]], None]
) -> Iterator[Conversation | Skipped]:
    """A one-conversation JSONL transcript (Claude Code, Codex): ``take`` is handed each JSON
    object with its line number and fills ``conv``; torn lines are counted, not fatal; ``conv``
    comes out when it holds a message."""
    bad: dict[str, int] = {}
    try:
        for number, line in json_lines(file):
            if isinstance(line, str):
                bad[line] = bad.get(line, 0) + 1
            else:
                take(number, line)
    except OSError as exc:
        yield Skipped(str(file), f"cannot be read ({exc.strerror or exc})")
        return
    yield from bad_lines(file, bad)
    if conv.messages:
        yield conv


def bad_lines(file: Path, bad: dict[str, int]) -> Iterator[Skipped]:
    """One ``Skipped`` per reason lines of ``file`` were left out for, with how many."""
    for reason, count in sorted(bad.items()):
        yield Skipped(str(file), f"{count} line(s) skipped: {reason}")
