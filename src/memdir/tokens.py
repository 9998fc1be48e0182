"""Offline token estimates, for deciding when to compact (SPEC C7).

memdir must decide "is this context too big?" with no network, so it cannot load a real
tokenizer (``tiktoken`` downloads its encodings on first use). The estimate is::

    tokens ≈ CJK characters + other characters / 4

The issue that specified it (#3) measured it within ±16% of cl100k; every budget check therefore
adds a 20% margin (``with_margin``), so an estimate that says "fits" fits. (memdir has not
re-measured it: the real encodings cannot be loaded offline.)

A message counts as its JSON text, which is close to what a provider bills (keys, quotes and
brackets included) and needs no knowledge of either provider's shape.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["MARGIN", "TOKENS_VERSION", "count_messages", "count_text", "with_margin"]

TOKENS_VERSION = "cjk+other/4 v1"  # recorded next to compaction results; bump if the rule changes
MARGIN = 1.2

# Ideographs, kana, hangul, CJK punctuation and full-width forms: about one token each.
_CJK_RANGES = (
    (0x1100, 0x11FF),
    (0x2E80, 0x2FDF),
    (0x3000, 0x30FF),
    (0x3100, 0x31FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xA960, 0xA97F),
    (0xAC00, 0xD7AF),
    (0xF900, 0xFAFF),
    (0xFE30, 0xFE4F),
    (0xFF00, 0xFFEF),
    (0x20000, 0x3FFFF),
)


def _is_cjk(char: str) -> bool:
    code = ord(char)
    if code < 0x1100:
        return False
    return any(low <= code <= high for low, high in _CJK_RANGES)


def count_text(text: str) -> int:
    """Estimated tokens of ``text``, without margin."""
    if text.isascii():
        return math.ceil(len(text) / 4)
    cjk = sum(1 for char in text if _is_cjk(char))
    return cjk + math.ceil((len(text) - cjk) / 4)


def count_messages(messages: Iterable[Mapping[str, Any] | str]) -> int:
    """Estimated tokens of a list of messages (each as its JSON text), without margin."""
    total = 0
    for message in messages:
        text = message if isinstance(message, str) else json.dumps(message, ensure_ascii=False)
        total += count_text(text) + 4  # a few tokens of per-message framing
    return total


def with_margin(tokens: int) -> int:
    """``tokens`` plus the 20% safety margin used for every budget decision."""
    return math.ceil(tokens * MARGIN)
