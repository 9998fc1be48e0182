"""Which memories say the same thing, and which contradict each other (SPEC H2, H3) — offline.

Two stages, so that 10,000 memories cost one pass of matrix products rather than 50 million
string comparisons:

1. **Candidates.** Pairs of the same type whose embeddings are closer than the policy's
   threshold *for this embedder* (``duplicates.similarity``: each model spreads cosines
   differently), plus pairs whose normalised text is identical whatever their vectors say.
   Rows are compared in blocks so memory stays ``O(block × n)``.
2. **Relation.** Each candidate pair is classified by comparing content words (stop words
   dropped, CJK split into characters):

   * ``duplicate`` — same normalised text, the same content words in the same order ("rather
     than", "instead of" count as "not"), or one adds words to the other (the longer one is
     the more specific wording) without adding a negation;
   * ``replace`` — one value swapped for another (``pnpm`` ↔ ``npm``, ``15`` ↔ ``16``,
     ``always`` ↔ ``never``) in otherwise equal statements: a change of mind, the newer wins;
   * ``unclear`` — a few words differ on both sides (often a condition: "personal projects:
     pnpm" vs "work projects: npm"), the same words in another order, or an added negation.
     Offline nothing can tell these apart, so both are marked ``tentative`` for the person;
     with an LLM the judge decides (``judge.py``);
   * ``unrelated`` — similar vectors, different statements.

``RELATION_RULES`` names this rule set; it is recorded in every plan.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import numpy as np

__all__ = [
    "RELATION_RULES",
    "Relation",
    "candidate_pairs",
    "content_tokens",
    "normalise",
    "relate",
]

RELATION_RULES = "relate-v2"
Relation = Literal["duplicate", "replace", "unclear", "unrelated"]
BLOCK = 512

_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_WORD = re.compile(rf"[{_CJK}]|[^\W_]+")
# function words that never make two statements differ; negations are deliberately absent
_STOP = frozenset(
    """a an the of to in on at for by with from and or as is are was were be been it its this
    that these those we i our my you your they their all also instead then so use uses used
    的 了 是 在 和 都 也 就 把 被""".split()
)
NEGATIONS = frozenset("not never no don dont t without avoid stop 不 别 没 勿 禁".split())
# ways of saying "A, not B": read as "not" so the phrasings compare equal (relate-v2)
_CONTRAST = re.compile(r"\b(?:rather than|instead of|in place of)\b", re.IGNORECASE)


def normalise(text: str) -> str:
    """Lowercase, NFKC, punctuation dropped, whitespace collapsed: equal means the same text."""
    return " ".join(_WORD.findall(unicodedata.normalize("NFKC", text).lower()))


def content_tokens(text: str) -> list[str]:
    """The words that carry meaning, in order ("rather than", "instead of" and "in place of"
    read as "not": "use pnpm rather than npm" says what "use pnpm, not npm" says)."""
    text = _CONTRAST.sub(" not ", unicodedata.normalize("NFKC", text))
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP]


def relate(a: str, b: str) -> Relation:
    """How statement ``b`` relates to statement ``a`` by the offline rules above."""
    if normalise(a) == normalise(b):
        return "duplicate"
    ta, tb = content_tokens(a), content_tokens(b)
    sa, sb = set(ta), set(tb)
    if sa == sb:
        return "duplicate" if ta == tb else "unclear"
    only_a, only_b = sa - sb, sb - sa
    shared = len(sa & sb)
    if not only_a or not only_b:
        added = only_a | only_b
        if added & NEGATIONS:
            return "unclear"
        return "duplicate" if shared >= 1 else "unrelated"
    if shared >= 2 and len(only_a) == 1 and len(only_b) == 1:
        return "replace"
    if shared >= 1 and len(only_a) <= 3 and len(only_b) <= 3:
        return "unclear"
    return "unrelated"


def candidate_pairs(
    names: Sequence[str],
    matrix: np.ndarray[Any, Any],
    threshold: float,
    *,
    groups: Iterable[Sequence[str]] = (),
) -> list[tuple[str, str, float]]:
    """``(a, b, cosine)`` with ``a`` before ``b`` in ``names``, for every pair of rows of
    ``matrix`` (unit vectors) at or above ``threshold``, plus every pair inside ``groups``
    (memories with identical normalised text; cosine 1)."""
    out: dict[tuple[str, str], float] = {}
    n = len(names)
    for start in range(0, n, BLOCK):
        block = matrix[start : start + BLOCK] @ matrix.T
        rows, cols = np.nonzero(block >= threshold)
        for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
            i = start + r
            if c > i:
                out[(names[i], names[c])] = float(block[r, c])
    order = {name: i for i, name in enumerate(names)}
    for group in groups:
        members = sorted(group, key=lambda x: (order.get(x, n), x))
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                out.setdefault((a, b), 1.0)
    return [(a, b, cos) for (a, b), cos in out.items()]
