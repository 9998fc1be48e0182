"""Did the answer use what was read? An offline overlap measure (issue 25).

``used(statement, later)`` compares the *content words* of a memory's statement with what came
after it was read in the same turn — the model's text and the arguments of its later tool calls.

**Content words.** Lower-cased runs of letters or digits; Latin words of at least 3 letters
that are not in a small stop list, with a plural ``s`` and the endings ``ing``/``ed`` cut (so
"runs" meets "run" and "deployed" meets "deploy"); numbers of any length ("15", "7"); and each
pair of adjacent CJK characters (Chinese has no spaces: "数据库" gives "数据", "据库").

**The measure** is the share of the statement's distinct content words found in the later text.
**The threshold**: used when that share is at least ``THRESHOLD`` (0.5) *and* at least
``MIN_SHARED`` (2) words are shared — or every word, for a statement of one content word. A
statement that shares one common word ("service") with a reply is not counted as used; a
reply that repeats half of what the memory says is.

It is a measure of *reuse in words*, not of understanding: a paraphrase with none of the
memory's words reads as not used, and an answer that repeats the words to contradict them reads
as used. ``MEASURE_VERSION`` is recorded with every trace so numbers from different versions
are never compared as one.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["MEASURE_VERSION", "MIN_SHARED", "THRESHOLD", "Overlap", "content_words", "used"]

MEASURE_VERSION = "overlap-v1"
THRESHOLD = 0.5
MIN_SHARED = 2

_RUN = re.compile(r"[^\W_]+", re.UNICODE)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_STOP = frozenset(
    """the and for are but not you your yours our ours they them their this that these those
    with from into onto about over under than then there here what which who whom whose when
    where why how all any both each few more most other some such only own same can will just
    should would could does did doing done has have had having was were been being its it's
    also very too use uses used using one two per via may might must shall let lets like
    person people memory memories answer answers always never every""".split()
)


def _stem(word: str) -> str:
    for ending in ("ing", "ed"):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return word[: -len(ending)]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def content_words(text: str) -> set[str]:
    """The content words of ``text`` (see the module docstring)."""
    found: set[str] = set()
    for run in _RUN.findall(text.lower()):
        if _CJK.search(run):
            chars = [c for c in run if _CJK.match(c)]
            found.update(a + b for a, b in itertools.pairwise(chars))
            if len(chars) == 1:
                found.add(chars[0])
            continue
        if run.isdigit():
            found.add(run)
        elif len(run) >= 3 and run not in _STOP:
            found.add(_stem(run))
    return found


@dataclass(frozen=True)
class Overlap:
    """How much of a statement the later text repeats: ``shared`` of ``total`` content words."""

    shared: int
    total: int

    @property
    def share(self) -> float:
        return self.shared / self.total if self.total else 0.0

    @property
    def used(self) -> bool:
        if self.total == 0:
            return False
        enough = self.shared >= min(MIN_SHARED, self.total)
        return enough and self.share >= THRESHOLD


def used(statement: str, later: Iterable[str]) -> Overlap:
    """How much of ``statement`` the texts in ``later`` repeat (``.used``: over the threshold)."""
    mine = content_words(statement)
    theirs: set[str] = set()
    for text in later:
        theirs |= content_words(text)
    return Overlap(len(mine & theirs), len(mine))
