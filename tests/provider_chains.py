"""What a provider accepts as a message chain, written out independently of memdir's code.

The rules the OpenAI and Anthropic APIs enforce on tool use, checked on a request as memdir
would send it. Used by the session and context tests; kept separate from ``memdir.chain`` so a
bug there cannot hide itself here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def _blocks(message: Mapping[str, Any], kind: str) -> list[dict[str, Any]]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == kind]


def assert_valid_openai(messages: Sequence[Mapping[str, Any]]) -> None:
    """Every ``tool_calls`` id is answered by the ``role: tool`` messages right after it, and
    every ``role: tool`` message answers a call of that group."""
    i = 0
    while i < len(messages):
        message = messages[i]
        assert message.get("role") != "tool", f"message {i}: tool result without a call"
        calls = [c["id"] for c in message.get("tool_calls") or []]
        i += 1
        answered: list[str] = []
        while i < len(messages) and messages[i].get("role") == "tool":
            answered.append(messages[i]["tool_call_id"])
            i += 1
        assert sorted(answered) == sorted(calls), f"calls {calls} answered by {answered}"


def assert_valid_anthropic(messages: Sequence[Mapping[str, Any]]) -> None:
    """Each assistant ``tool_use`` is answered by ``tool_result`` blocks in the very next user
    message, and every ``tool_result`` answers a ``tool_use`` of the message before it."""
    for i, message in enumerate(messages):
        results = [b["tool_use_id"] for b in _blocks(message, "tool_result")]
        if results:
            assert message["role"] == "user"
            before = messages[i - 1] if i else {}
            calls = [b["id"] for b in _blocks(before, "tool_use")]
            assert sorted(results) == sorted(calls), f"message {i}: {results} vs {calls}"
        uses = [b["id"] for b in _blocks(message, "tool_use")]
        if uses:
            assert message["role"] == "assistant"
            after = messages[i + 1] if i + 1 < len(messages) else {}
            answered = [b["tool_use_id"] for b in _blocks(after, "tool_result")]
            assert sorted(answered) == sorted(uses), f"message {i}: {uses} answered {answered}"
