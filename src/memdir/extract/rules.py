"""PLACEHOLDER until the `rules` branch lands (replaced whole at merge)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..records import Confidence, MemoryType

__all__ = ["RULES_VERSION", "Candidate", "extract"]

RULES_VERSION = "rules-v0"


@dataclass(frozen=True)
class Candidate:
    text: str
    type: MemoryType
    confidence: Confidence
    quote: str
    explicit: bool
    rule: str
    why: str | None = None
    how_to_apply: str | None = None


def extract(text: str, *, previous_assistant: str | None = None) -> list[Candidate]:
    m = re.match(r"\s*(?:please )?remember(?: that)?[:,]?\s+(.+)", text, re.I)
    if m:
        return [Candidate(m.group(1).strip(), "project", "confirmed", text, True, "en.remember")]
    m = re.match(r"\s*I (?:always|prefer) (.+)", text, re.I)
    if m:
        return [Candidate(text.strip(), "feedback", "confirmed", text, False, "en.preference")]
    return []
