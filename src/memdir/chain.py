"""The message chain a provider accepts: tool calls, their results, and repair (SPEC C5).

Session files keep messages exactly as the provider sent them, in either shape:

* OpenAI: an assistant message with ``tool_calls: [{"id", "function": {...}}]``, answered by
  one ``{"role": "tool", "tool_call_id": ...}`` message per call, right after it;
* Anthropic: an assistant message with ``{"type": "tool_use", "id"}`` content blocks, answered by
  the next user message's ``{"type": "tool_result", "tool_use_id"}`` blocks.

A provider rejects a chain in which a call has no result, or a result has no call. A crash
between appending a call and appending its result leaves exactly that, so ``repair`` returns the
chain to send: a call without a result gets an "interrupted" result (an error result in the
Anthropic shape), a result whose call is gone is cut. It never modifies the stored messages —
it builds ``Entry`` items pointing back at them (``origin``) — and it is a pure function of
them, so every resume sends the same bytes and the provider's prompt cache keeps hitting.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "INTERRUPTED",
    "Entry",
    "call_ids",
    "is_result",
    "message_text",
    "repair",
    "result_ids",
    "tool_names",
]

INTERRUPTED = (
    "interrupted: this tool call did not complete — the session ended before its result was "
    "recorded. Run it again if it is still needed."
)


def _blocks(message: Mapping[str, Any]) -> list[Any]:
    content = message.get("content")
    return content if isinstance(content, list) else []


def call_ids(message: Mapping[str, Any]) -> list[str]:
    """Ids of the tool calls an assistant message makes (OpenAI ``tool_calls`` or Anthropic
    ``tool_use`` blocks)."""
    if message.get("role") != "assistant":
        return []
    ids = [
        call["id"]
        for call in message.get("tool_calls") or []
        if isinstance(call, dict) and isinstance(call.get("id"), str)
    ]
    ids += [
        block["id"]
        for block in _blocks(message)
        if isinstance(block, dict)
        and block.get("type") == "tool_use"
        and isinstance(block.get("id"), str)
    ]
    return ids


def result_ids(message: Mapping[str, Any]) -> list[str]:
    """Ids of the calls a message answers (``role: tool`` or ``tool_result`` blocks)."""
    if message.get("role") == "tool":
        rid = message.get("tool_call_id")
        return [rid] if isinstance(rid, str) else [""]
    if message.get("role") != "user":
        return []
    return [
        str(block.get("tool_use_id", ""))
        for block in _blocks(message)
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]


def is_result(message: Mapping[str, Any]) -> bool:
    return message.get("role") in ("tool", "function") or bool(result_ids(message))


def tool_names(message: Mapping[str, Any]) -> dict[str, str]:
    """``{call id: tool name}`` for the calls an assistant message makes (both shapes)."""
    names: dict[str, str] = {}
    for call in message.get("tool_calls") or []:
        if isinstance(call, dict) and isinstance(call.get("function"), dict):
            names[str(call.get("id"))] = str(call["function"].get("name", "?"))
    content = message.get("content")
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "tool_use":
            names[str(block.get("id"))] = str(block.get("name", "?"))
    return names


def message_text(message: Mapping[str, Any]) -> str:
    """The readable text of a message: a string content, or its text blocks joined."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in _blocks(message):
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif isinstance(block, dict) and block.get("type") == "tool_result":
            parts.append(message_text({"content": block.get("content")}))
    return "\n".join(p for p in parts if p)


def _anthropic_results(ids: Sequence[str]) -> dict[str, Any]:
    blocks = [
        {"type": "tool_result", "tool_use_id": i, "content": INTERRUPTED, "is_error": True}
        for i in ids
    ]
    return {"role": "user", "content": blocks}


def _fix_result_message(message: Mapping[str, Any], pending: list[str]) -> dict[str, Any]:
    """A copy of an Anthropic result message answering exactly ``pending``: missing results
    become "interrupted", results for other calls are cut; other blocks are kept in place."""
    kept: list[Any] = []
    answered: set[str] = set()
    for block in _blocks(message):
        if isinstance(block, dict) and block.get("type") == "tool_result":
            rid = block.get("tool_use_id")
            if rid not in pending or rid in answered:
                continue
            answered.add(str(rid))
        kept.append(block)
    missing = [i for i in pending if i not in answered]
    return {**message, "content": _anthropic_results(missing)["content"] + kept}


def _take_results(
    messages: Sequence[Mapping[str, Any]], i: int, out: list[Entry], repairs: list[str]
) -> int:
    """Append the results answering ``messages[i]``'s calls; return the next index."""
    call = messages[i]
    pending = call_ids(call)
    j = i + 1
    if call.get("tool_calls"):
        while j < len(messages) and messages[j].get("role") == "tool":
            rid = messages[j].get("tool_call_id")
            if rid in pending:
                out.append(Entry("message", messages[j], j))
                pending.remove(str(rid))
            else:
                repairs.append(f"message {j + 1}: result for unknown call {rid!r} cut")
            j += 1
        for rid in pending:
            synthetic = {"role": "tool", "tool_call_id": rid, "content": INTERRUPTED}
            out.append(Entry("message", synthetic, i, synthetic=True))
            repairs.append(f"message {i + 1}: call {rid!r} had no result: marked interrupted")
        return j
    if j < len(messages) and messages[j].get("role") == "user" and result_ids(messages[j]):
        got = result_ids(messages[j])
        if sorted(got) == sorted(pending):
            out.append(Entry("message", messages[j], j))
        else:
            out.append(Entry("message", _fix_result_message(messages[j], pending), j))
            repairs.append(f"message {j + 1}: results did not match the calls: repaired")
        return j + 1
    out.append(Entry("message", _anthropic_results(pending), i, synthetic=True))
    repairs.append(f"message {i + 1}: call(s) {', '.join(pending)} had no result: interrupted")
    return j


def repair(messages: Sequence[Mapping[str, Any]]) -> tuple[list[Entry], list[str]]:
    """The chain a provider accepts, as entries pointing back at ``messages`` (``origin``),
    and one line per repair made. Messages themselves are never modified."""
    out: list[Entry] = []
    repairs: list[str] = []
    i = 0
    while i < len(messages):
        message = messages[i]
        if call_ids(message):
            out.append(Entry("message", message, i))
            i = _take_results(messages, i, out, repairs)
            continue
        if is_result(message):
            repairs.append(f"message {i + 1}: tool result without its call: cut")
            others = [
                b
                for b in _blocks(message)
                if not (isinstance(b, dict) and b.get("type") == "tool_result")
            ]
            if message.get("role") == "user" and others:
                out.append(Entry("message", {**message, "content": others}, i))
        else:
            out.append(Entry("message", message, i))
        i += 1
    return out, repairs


@dataclass(frozen=True)
class Entry:
    """One item of the chain sent to a model: a provider ``message`` (``content`` is the
    message dict), the compaction ``summary`` or a ``note`` (``content`` is text). ``origin`` is
    the index in ``Session.messages`` of the message it is or follows."""

    kind: Literal["message", "summary", "note"]
    content: Any
    origin: int
    synthetic: bool = False
