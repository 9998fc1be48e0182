"""One module per export format. Each reads its input and yields ``chats.Conversation`` (or
``chats.Skipped`` with a reason) — nothing else: extraction, the guard and the writes are the
shared pipeline's (``chats.py``). ``detect`` names the format of a path from its content."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

from ...errors import ValidationError
from ..chats import Conversation, Skipped
from . import chatgpt, claude, claude_code, codex, jsonl
from .common import first_json_lines, load_json

__all__ = ["CHAT_FORMATS", "detect", "reader"]

Reader = Callable[[Path], Iterator[Conversation | Skipped]]

CHAT_FORMATS: dict[str, Reader] = {
    "chatgpt": chatgpt.read,
    "claude": claude.read,
    "claude-code": claude_code.read,
    "codex": codex.read,
    "jsonl": jsonl.read,
}


def reader(fmt: str) -> Reader:
    return CHAT_FORMATS[fmt]


def _json_kind(data: object) -> str | None:
    items = data.get("conversations") if isinstance(data, dict) else data
    if not isinstance(items, list):
        return None
    for item in items[:20]:
        if isinstance(item, dict) and "mapping" in item:
            return "chatgpt"
        if isinstance(item, dict) and "chat_messages" in item:
            return "claude"
    return None


def _line_kind(line: dict[str, object]) -> str | None:
    if line.get("type") in ("session_meta", "response_item", "turn_context", "event_msg"):
        return "codex"
    if "sessionId" in line or ("message" in line and "parentUuid" in line):
        return "claude-code"
    if "role" in line and "content" in line:
        return "jsonl"
    return None


def detect(path: Path) -> str:
    """The format of ``path``: ``archive``, ``markdown`` or one of ``CHAT_FORMATS``; a
    ``ValidationError`` naming ``--format`` when it cannot tell."""
    name = path.name.lower()
    if name.endswith((".tar.gz", ".tgz")):
        return "archive"
    if path.is_dir():
        jsonls = list(path.rglob("*.jsonl"))[:50]
        if jsonls:
            kinds = {_line_kind(line) for f in jsonls for line in first_json_lines(f)}
            for kind in ("codex", "claude-code", "jsonl"):
                if kind in kinds:
                    return kind
        return "markdown"
    if name.endswith(".zip"):
        try:
            with zipfile.ZipFile(path) as zf:
                inner = next((n for n in zf.namelist() if n.endswith("conversations.json")), None)
                if inner is not None:
                    found = _json_kind(json.loads(zf.read(inner)))
                    if found:
                        return found
        except (zipfile.BadZipFile, OSError, ValueError):
            pass
    elif name.endswith(".json"):
        found = _json_kind(load_json(path, quiet=True))
        if found:
            return found
    elif name.endswith(".jsonl"):
        kinds = {_line_kind(line) for line in first_json_lines(path)}
        for kind in ("codex", "claude-code", "jsonl"):
            if kind in kinds:
                return kind
    elif name.endswith(".md"):
        return "markdown"
    raise ValidationError(
        f"cannot tell what {path} is: pass --format (archive, chatgpt, claude, claude-code, "
        "codex, markdown or jsonl)"
    )
