"""Word alignment of two statements through the index's own dictionary (relate-v12, issue 22 §2).

``evidence.against`` calls two statements a look-alike when they differ in one place only
("the docs site is hosted on Netlify" / "the web shop is hosted on Netlify"): a frame both keep,
another filler. But a paraphrase that keeps nothing but a name differs in one place too — the
whole rest of the sentence, reworded ("The podcast is edited in Audacity" / "episodes get cut
and cleaned up using Audacity", "密钥存在 Doppler 里" / "凭据统一放 Doppler 管理"). What tells
them apart is what is left once the two are aligned word by word:

* a look-alike keeps a *frame*: content words (or, in Chinese, characters) both state besides
  the name — "hosted", "每 30 秒跑一次", a shared "don't";
* a rewording keeps only the name, and each side says the rest in two or more words of its own
  that align with nothing on the other side.

Alignment is exact unit, stem (``wording.units``) and, for Chinese, the words' English senses
in CC-CEDICT (``index.translate``: "轮渡" and "渡船" are both "ferry"), so a Chinese rewording
is measured in words rather than characters, and two Chinese words for one thing count as a
frame both keep — never as the rewording's own words. Names (``evidence._anchor``) align only
with themselves and are never the frame.

``reworded`` is only ever asked about a pair whose other evidence is silent (no name or number
on one side, no negation, change marker, antonym, owner, "only" or role swap: ``against``
reached its look-alike test) and that the store vouches for (``evidence.vouched``'s margin):
it lifts the look-alike test, nothing else.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Sequence

from ..index.translate import translate
from .evidence import _NEGATING, MARGIN, VOUCH_COSINE, _anchor, _script, against
from .wording import _stem, units

__all__ = ["reworded", "vouched_reworded"]

# words a sense of CC-CEDICT spends on grammar or on the person, not on the fact
_LIGHT = frozenset("user every day go have one get make do put use exist thing kind time".split())
_LATIN = re.compile(r"^[a-z0-9]+$")


@functools.lru_cache(maxsize=4096)
def _concepts(text: str) -> frozenset[str]:
    """The statement's content words to align: Chinese through their English senses (and
    the Latin names written inside), English as ``units`` without negations."""
    if _script(text):
        english = {_stem(w.lower()) for w in translate(text)}
        return frozenset((english | {u for u in units(text) if _LATIN.match(u)}) - _LIGHT)
    return frozenset(set(units(text)) - _LIGHT - _NEGATING)


def _places(ua: Sequence[str], ub: Sequence[str]) -> int:
    ops = difflib.SequenceMatcher(None, ua, ub, autojunk=False).get_opcodes()
    return sum(1 for op in ops if op[0] != "equal")


OWN_WORDS = 2  # content words each side says that align with nothing on the other


def reworded(ua: Sequence[str], ub: Sequence[str], a: str, b: str) -> bool:
    """relate-v12: ``a`` and ``b`` share a name and nothing else, and reword all the rest —
    differing in one place, as a look-alike does, but keeping no frame around it."""
    if _places(ua, ub) != 1:
        return False  # two places: a name in a kept frame ("X uses Redis for Y")
    ca, cb = _concepts(a), _concepts(b)
    names = {u for u in ca if _anchor(u, a)} | {u for u in cb if _anchor(u, b)}
    if not names & ca & cb:
        return False  # (a name both write is what the pair is about)
    if (ca & cb) - names:
        return False  # a content word both keep: a frame
    if min(len(ca - cb), len(cb - ca)) < OWN_WORDS:
        return False
    kept = {u for u in set(ua) & set(ub) if not (_anchor(u, a) or _anchor(u, b))} - {"user"}
    # (Chinese compared by characters shares one by chance: 稿 in 设计稿 / 稿件)
    return len(kept) <= (1 if _script(a) and _script(b) else 0)


def vouched_reworded(
    ua: Sequence[str], ub: Sequence[str], a: str, b: str, cosine: float | None, nearest: float
) -> bool:
    """relate-v12: the store vouches for the pair (``evidence.vouched``'s cosine and margin),
    the only evidence against one fact is a look-alike's structure, and the pair is
    ``reworded``: a name kept, the rest said in other words."""
    if cosine is None or cosine < VOUCH_COSINE or nearest < MARGIN:
        return False
    return against(ua, ub, a, b) == "slot" and reworded(ua, ub, a, b)
