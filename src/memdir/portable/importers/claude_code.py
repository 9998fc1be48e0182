"""Claude Code's project transcripts: ``~/.claude/projects/<project>/<session>.jsonl``.

One file per session, one JSON object per line: ``type`` (``user`` | ``assistant`` |
``summary`` | ``system`` …), ``uuid``, ``parentUuid``, ``sessionId``, ``timestamp``, and
``message`` — ``{role, content}`` where content is a string or a list of parts (``text``,
``thinking``, ``tool_use``, ``tool_result``, ``image``). A ``user`` line whose parts are only
tool results is the tool answering, not the person; lines of a sub-agent (``isSidechain``) and
meta lines (``isMeta``: caveats, command wrappers) are left out, as are the CLI's own wrappers
of slash commands (``<command-name>…``, ``<local-command-stdout>…``).

The path may be one transcript, one project's folder or the whole ``projects`` folder. Claude
Code's memory files (``CLAUDE.md``, the auto-memory folder) are Markdown: ``markdown.py``
imports those.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..chats import Conversation, Message, Skipped
from .common import each_line, iso, parts_text

__all__ = ["read", "transcripts"]

FORMAT = "claude-code"
_WRAPPERS = (
    "<command-name>",
    "<command-message>",
    "<local-command-",
    "Caveat: ",
    "[Request interrupted",
)


def transcripts(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*.jsonl") if p.is_file())


def read(path: Path) -> Iterator[Conversation | Skipped]:
    files = transcripts(path)
    if not files:
        yield Skipped(str(path), "no .jsonl transcripts here")
    for file in files:
        yield from _read_file(file)


def _read_file(file: Path) -> Iterator[Conversation | Skipped]:
    conv = Conversation(FORMAT, file.stem)

    def take(number: int, line: dict[str, Any]) -> None:
        msg = _message(line, number)
        if isinstance(line.get("sessionId"), str):
            conv.id = line["sessionId"]
        if line.get("type") == "summary" and isinstance(line.get("summary"), str):
            conv.title = conv.title or line["summary"]
        if msg is not None:
            conv.messages.append(msg)

    return each_line(file, conv, take)


def _message(line: dict[str, Any], number: int) -> Message | None:
    kind = line.get("type")
    if kind not in ("user", "assistant") or line.get("isSidechain") or line.get("isMeta"):
        return None
    message = line.get("message")
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    text = parts_text(content)
    role = "user" if kind == "user" else "assistant"
    if role == "user" and isinstance(content, list) and not text:
        role = "tool"  # only tool results: the tool speaking, not the person
    if not text.strip() or text.lstrip().startswith(_WRAPPERS):
        return None
    return Message(
        str(line.get("uuid") or f"line-{number}"), role, text, iso(line.get("timestamp"))
    )
