"""Generic JSONL of messages: one ``{role, content}`` object per line.

``role`` is ``user`` (also ``human``) or ``assistant`` (also ``ai``, ``bot``, ``model``);
anything else is context. ``content`` is text or a list of parts (``{"type": "text", "text"}``).
Optional: ``conversation`` (or ``conversation_id``, ``session``, ``session_id``, ``thread``) to
split one file into several conversations (default: one per file), ``id`` for the message, and
``time`` / ``timestamp`` / ``created_at``. A line may also hold a whole conversation as
``{"id", "messages": [...]}``. A folder is read file by file (``*.jsonl``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..chats import Conversation, Message, Skipped
from .common import bad_lines, iso, json_lines, parts_text

__all__ = ["read"]

FORMAT = "jsonl"
_ROLES = {"user": "user", "human": "user", "assistant": "assistant", "ai": "assistant"}
_ROLES |= {"bot": "assistant", "model": "assistant"}
_GROUP = ("conversation", "conversation_id", "session", "session_id", "thread")


def read(path: Path) -> Iterator[Conversation | Skipped]:
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*.jsonl") if p.is_file())
    if not files:
        yield Skipped(str(path), "no .jsonl files here")
    for file in files:
        yield from _read_file(file)


def _message(line: dict[str, Any], number: int) -> Message | None:
    role = _ROLES.get(str(line.get("role", "")).lower(), "system")
    text = parts_text(line.get("content"))
    if not text.strip():
        return None
    when = iso(line.get("time") or line.get("timestamp") or line.get("created_at"))
    return Message(str(line.get("id") or f"line-{number}"), role, text, when)


def _read_file(file: Path) -> Iterator[Conversation | Skipped]:
    groups: dict[str, Conversation] = {}
    bad: dict[str, int] = {}
    try:
        for number, line in json_lines(file):
            if isinstance(line, str):
                bad[line] = bad.get(line, 0) + 1
                continue
            if isinstance(line.get("messages"), list):
                conv = Conversation(FORMAT, str(line.get("id") or f"{file.stem}:{number}"))
                for k, item in enumerate(line["messages"]):
                    msg = _message(item, k) if isinstance(item, dict) else None
                    if msg is not None:
                        conv.messages.append(msg)
                groups[conv.id] = conv
                continue
            key = next((str(line[k]) for k in _GROUP if line.get(k) is not None), file.stem)
            msg = _message(line, number)
            if msg is None:
                if "role" not in line:
                    why = "not a message (no role)"
                    bad[why] = bad.get(why, 0) + 1
                continue
            groups.setdefault(key, Conversation(FORMAT, key)).messages.append(msg)
    except OSError as exc:
        yield Skipped(str(file), f"cannot be read ({exc.strerror or exc})")
        return
    yield from bad_lines(file, bad)
    yield from (c for c in groups.values() if c.messages)
