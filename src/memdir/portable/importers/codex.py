"""OpenAI Codex CLI sessions: ``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl``.

One file per session. Each line is ``{timestamp, type, payload}``: ``session_meta`` (the
session ``id``, ``cwd``, …), ``response_item`` (``payload.type`` ``message`` with ``role`` and
``content`` parts ``input_text`` / ``output_text``, or ``function_call``,
``function_call_output``, ``reasoning``), ``event_msg`` (UI events that repeat the messages)
and ``turn_context``. Only ``response_item`` messages are read — the events would count every
message twice. The CLI's injected context (``<environment_context>``, ``<user_instructions>``,
the AGENTS.md it prepends) is not the person speaking and is left out. Older rollouts wrote the
items directly (``{type: "message", role, content}``) and are read the same way.

Codex's memory — ``AGENTS.md`` — is Markdown: ``markdown.py`` imports it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..chats import Conversation, Message, Skipped
from .common import each_line, iso, parts_text

__all__ = ["read"]

FORMAT = "codex"
_INJECTED = ("<environment_context>", "<user_instructions>", "# AGENTS.md", "<permissions")


def read(path: Path) -> Iterator[Conversation | Skipped]:
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*.jsonl") if p.is_file())
    if not files:
        yield Skipped(str(path), "no .jsonl rollouts here")
    for file in files:
        yield from _read_file(file)


def _read_file(file: Path) -> Iterator[Conversation | Skipped]:
    conv = Conversation(FORMAT, file.stem.removeprefix("rollout-"))

    def take(number: int, line: dict[str, Any]) -> None:
        payload = line.get("payload") if "payload" in line else line
        if not isinstance(payload, dict):
            return
        if line.get("type") == "session_meta" and isinstance(payload.get("id"), str):
            conv.id = payload["id"]
            return
        msg = _message(payload, line, number)
        if msg is not None:
            conv.messages.append(msg)

    return each_line(file, conv, take)


def _message(payload: dict[str, Any], line: dict[str, Any], number: int) -> Message | None:
    if (
        line.get("type") not in ("response_item", "message", None)
        or payload.get("type") != "message"
    ):
        return None
    role = payload.get("role")
    if role not in ("user", "assistant"):
        return None
    text = parts_text(payload.get("content"))
    if not text.strip() or text.lstrip().startswith(_INJECTED):
        return None
    msg_id = str(payload.get("id") or f"line-{number}")
    return Message(msg_id, str(role), text, iso(line.get("timestamp")))
