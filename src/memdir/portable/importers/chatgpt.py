"""ChatGPT's data export: ``conversations.json``, alone or inside the export zip.

The file is a list of conversations. Each holds its messages as a tree, ``mapping`` (node id →
``{message, parent, children}``): editing a message or regenerating an answer adds a branch,
and ``current_node`` is the leaf of the branch the person last saw. That branch is the
conversation — found by following ``parent`` up from ``current_node`` — and the abandoned
branches are left out (a regenerated answer the person rejected is not what was said). A
conversation whose ``current_node`` is missing falls back to the newest leaf.

A message's ``content`` has a ``content_type``: ``text`` and ``multimodal_text`` carry
``parts`` (strings, and image or file pointers, which are skipped); ``user_editable_context`` is
the person's custom instructions (``user_profile``, ``user_instructions``): their own words about
themselves, read as a message of theirs. Code, tool output and browsing results are not words of
the person and count only as context. Hidden messages (``is_visually_hidden_from_conversation``)
are left out.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..chats import Conversation, Message, Skipped
from .common import MAX_JSON_BYTES, Unreadable, iso, load_json

__all__ = ["read", "read_conversation"]

FORMAT = "chatgpt"


def _load(path: Path) -> Any:
    if path.is_dir():
        path = path / "conversations.json"
    if path.suffix.lower() == ".zip":
        try:
            with zipfile.ZipFile(path) as zf:
                inner = next((n for n in zf.namelist() if n.endswith("conversations.json")), None)
                if inner is None:
                    raise Unreadable("the zip holds no conversations.json")
                with zf.open(inner) as handle:  # bounded: a zip bomb stops at the limit
                    data = handle.read(MAX_JSON_BYTES + 1)
                if len(data) > MAX_JSON_BYTES:
                    raise Unreadable(
                        f"its conversations.json is over the {MAX_JSON_BYTES >> 30} GiB limit"
                    )
                return json.loads(data)
        except (zipfile.BadZipFile, OSError, ValueError, KeyError) as exc:
            raise Unreadable(f"not a readable export zip ({exc.__class__.__name__})") from None
    return load_json(path)


def read(path: Path) -> Iterator[Conversation | Skipped]:
    return conversations_in(path, "mapping", dict, "ChatGPT", read_conversation)


def conversations_in(
    path: Path,
    key: str,
    shape: type,
    label: str,
    convert: Callable[[dict[str, Any], str], Conversation | Skipped],
) -> Iterator[Conversation | Skipped]:
    """Each conversation of an export that is a list of them (``conversations.json``, alone or
    in the zip; ChatGPT's and Claude's alike), recognised by ``key`` holding a ``shape``."""
    try:
        data = _load(path)
    except Unreadable as exc:
        yield Skipped(str(path), str(exc))
        return
    if isinstance(data, dict):
        data = data.get("conversations", data)
    if not isinstance(data, list):
        yield Skipped(str(path), "not a list of conversations (is it conversations.json?)")
        return
    for position, item in enumerate(data):
        where = f"{path}[{position}]"
        if not isinstance(item, dict) or not isinstance(item.get(key), shape):
            yield Skipped(where, f"not a {label} conversation (no {key})")
            continue
        yield convert(item, where)


def _branch(mapping: dict[str, Any], current: Any) -> list[dict[str, Any]]:
    """The nodes from the root to ``current`` (or to the newest leaf), oldest first."""
    if not isinstance(current, str) or current not in mapping:
        leaves = [n for n in mapping.values() if isinstance(n, dict) and not n.get("children")]

        def when(node: dict[str, Any]) -> float:
            t = (node.get("message") or {}).get("create_time")
            return t if isinstance(t, int | float) else 0.0

        current = max(leaves, key=when).get("id") if leaves else None
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    while isinstance(current, str) and current in mapping and current not in seen:
        seen.add(current)
        node = mapping[current]
        if not isinstance(node, dict):
            break
        path.append(node)
        current = node.get("parent")
    return path[::-1]


def _text(message: dict[str, Any]) -> tuple[str, bool]:
    """The message's text, and whether it is the person's own words about themselves."""
    content = message.get("content")
    if not isinstance(content, dict):
        return "", False
    kind = content.get("content_type")
    if kind == "user_editable_context":
        own = [content.get("user_profile"), content.get("user_instructions")]
        return "\n".join(t for t in own if isinstance(t, str) and t.strip()), True
    if kind in ("text", "multimodal_text"):
        parts = content.get("parts")
        if isinstance(parts, list):
            return "\n".join(p for p in parts if isinstance(p, str) and p), False
    text = content.get("text")
    return (text if isinstance(text, str) else ""), False


def read_conversation(item: dict[str, Any], where: str) -> Conversation:
    conv_id = str(item.get("conversation_id") or item.get("id") or where)
    conv = Conversation(FORMAT, conv_id, str(item.get("title") or ""))
    for node in _branch(item["mapping"], item.get("current_node")):
        message = node.get("message")
        if not isinstance(message, dict):
            continue  # the root node, or a placeholder
        meta = message.get("metadata") or {}
        if isinstance(meta, dict) and meta.get("is_visually_hidden_from_conversation"):
            continue
        role = (message.get("author") or {}).get("role")
        text, own = _text(message)
        if not text.strip():
            continue
        if own:
            role = "user"  # custom instructions: what the person wrote about themselves
        if role not in ("user", "assistant"):
            role = "tool" if role == "tool" else "system"
        msg_id = str(message.get("id") or node.get("id") or "")
        conv.messages.append(Message(msg_id, role, text, iso(message.get("create_time"))))
    return conv
