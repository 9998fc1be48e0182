"""Turns: the unit extraction reads (SPEC G1).

A *turn* runs from a person's message to the model's answer that calls no tool. Between them
the model may call tools any number of times; their results are part of the turn but are
**external** content (a tool result, a fetched page, a file): the extractor is told so, and the
provenance check in ``llm.py`` makes sure nothing found only there is stored as the person's words.

``finished_turns(messages)`` is a pure function of the session's messages (OpenAI or Anthropic
shape, as stored), so the same file always yields the same turns with the same bounds — which is
what lets a crashed process's pending turns be found again from the file alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..chain import call_ids, is_result, message_text

__all__ = ["Turn", "finished_turns"]


@dataclass(frozen=True)
class Turn:
    """Messages ``start`` (a person's message) to ``end`` (exclusive; the last is the model's
    answer without tool calls) of a session."""

    start: int
    end: int
    user: tuple[str, ...]  # what the person wrote, in order
    assistant: tuple[str, ...]  # the model's text replies, in order
    external: tuple[str, ...]  # tool results seen during the turn

    @property
    def key(self) -> str:
        return f"{self.start}-{self.end}"

    def transcript(self, *, external_chars: int = 2000) -> str:
        """The turn as the extractor reads it; tool output is fenced and labelled external."""
        lines: list[str] = []
        for text in self.user:
            lines.append(f"[person] {text}")
        for text in self.external:
            cut = text if len(text) <= external_chars else text[:external_chars] + " …[cut]"
            lines.append(f"[tool output — external, not the person's words]\n<<<\n{cut}\n>>>")
        for text in self.assistant:
            lines.append(f"[assistant] {text}")
        return "\n".join(lines)


def _is_person(message: Mapping[str, Any]) -> bool:
    return message.get("role") == "user" and not is_result(message)


def finished_turns(messages: Sequence[Mapping[str, Any]]) -> list[Turn]:
    """Every turn of ``messages`` that has ended, oldest first. A turn still waiting for the
    model (or cut by a crash mid tool call) is not finished and is not returned."""
    turns: list[Turn] = []
    start: int | None = None
    user: list[str] = []
    assistant: list[str] = []
    external: list[str] = []
    for i, message in enumerate(messages):
        if _is_person(message):
            if start is None:
                start, user, assistant, external = i, [], [], []
            user.append(message_text(message))
        elif start is None:
            continue  # a reply before any person's message (e.g. a resumed tail): no turn
        elif is_result(message):
            external.append(message_text(message))
        elif message.get("role") == "assistant":
            text = message_text(message)
            if text.strip():
                assistant.append(text)
            if not call_ids(message):
                turns.append(Turn(start, i + 1, tuple(user), tuple(assistant), tuple(external)))
                start = None
    return turns
