"""Claude's data export (claude.ai → Settings → Privacy → Export data): ``conversations.json``,
alone or in the export zip.

A list of conversations (``uuid``, ``name``, ``chat_messages``); each message has ``sender``
(``human`` | ``assistant``), ``text`` and, in newer exports, ``content``: a list of parts
(``text``, ``thinking``, ``tool_use``, ``tool_result``). Only the text parts are words; when
there are none, ``text`` is used. ``attachments`` (with their ``extracted_content``) and
``files`` are documents the person pasted, not statements of theirs: they are left out.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..chats import Conversation, Message, Skipped
from .chatgpt import conversations_in
from .common import iso, parts_text

__all__ = ["read"]

FORMAT = "claude"
_ROLES = {"human": "user", "user": "user", "assistant": "assistant"}


def read(path: Path) -> Iterator[Conversation | Skipped]:
    return conversations_in(path, "chat_messages", list, "Claude", _conversation)


def _conversation(item: dict[str, Any], where: str) -> Conversation:
    conv = Conversation(FORMAT, str(item.get("uuid") or where), str(item.get("name") or ""))
    for position, message in enumerate(item["chat_messages"]):
        if not isinstance(message, dict):
            continue
        role = _ROLES.get(str(message.get("sender")), "system")
        text = parts_text(message.get("content"))
        if not text.strip():
            raw = message.get("text")
            text = raw if isinstance(raw, str) else ""
        if not text.strip():
            continue
        msg_id = str(message.get("uuid") or position)
        conv.messages.append(Message(msg_id, role, text, iso(message.get("created_at"))))
    return conv
