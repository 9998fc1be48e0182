"""What argues for or against two statements being one fact (the second half of ``relate``).

``wording.py`` turns each statement into units; this module reads the *structure* of the two
unit lists against each other, evidence that no cosine gives:

* against one fact — a name or a value on one side only (``anchor``), a negation on one side
  (``negations``), a change marker in the newer one (``changed_marker``), two roles exchanged
  around what relates them (``role_swap``), one short span swapped in an otherwise equal
  statement (``swap``, ``one_slot``), one frame with another filler (``filler``), numbers
  changed while the rest only grows (``numbers_changed``); relate-v9/v10: another owner of the
  same thing (``new_owner``), "only" on one side (``narrowed``), two roles exchanged in part of
  the statements (``part_swap``), a Chinese word rewritten in place (``word_swap``);
* for one fact where the words share little — the store vouches for the pair (each the other's
  nearest memory by a margin) and none of the above holds (``vouched``, relate-v8).

Split out of ``similar.py`` in relate-v8.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence

from .wording import (
    _CHANGED,
    _CJK,
    _DAYS,
    _GENERIC,
    _NUMERAL,
    _WORD,
    ANTONYMS,
    _stem,
)


def _anchor(unit: str, original: str) -> bool:
    """A name or a value: a number, a weekday, an ASCII word inside CJK text, or a word that
    is capitalised (not as the first word), all capitals, or has a digit or a dot in it."""
    if _NUMERAL.match(unit) or unit in _DAYS or f"{unit}s" in _DAYS:
        return True
    if re.search(rf"[{_CJK}]", original):  # a Latin word as written (not a canonical one)
        return bool(re.match(r"[a-z0-9]", unit)) and unit in original.lower()
    for i, word in enumerate(re.findall(r"[\w.+#/-]*\w", original)):
        if word.lower() != unit and _stem(word.lower()) != unit:
            continue
        if re.search(r"\d|\w\.\w", word) or any(c.isupper() for c in word[1:]):
            return True
        if i > 0 and word[:1].isupper():
            return True
    return False


# relate-v3 reads "don't" as "not" before this (so a word such as "don" is just a word)
_NEGATING = frozenset("not no never without avoid stop 不 别 没 勿".split())


def _negations(seq: Sequence[str]) -> int:
    return sum(1 for u in seq if u in _NEGATING)


def _changed_marker(text: str, *, strict: bool = False) -> bool:
    """Whether ``text`` says something changed; ``strict``: not by a single Chinese character
    ("改" is in "改动", a change as a noun; "换" in "交换")."""
    text = unicodedata.normalize("NFKC", text).lower()
    cjk = re.compile(rf"[{_CJK}]")
    if any(w in _CHANGED and not (strict and cjk.match(w)) for w in _WORD.findall(text)):
        return True
    # relate-v5: Chinese markers are words of several characters, never one token
    return any(w in text for w in _CHANGED if len(w) > 1 and re.match(rf"[{_CJK}]", w))


def _role_swap(ua: Sequence[str], ub: Sequence[str]) -> bool:
    """relate-v7: ``b`` is ``a`` with two spans exchanged around a middle that says how they
    relate ("Ana mentors Ben" / "Ben mentors Ana", "小红值班时小军做备份" / "小军值班时小红做备份"):
    the same words, other roles — two facts that can both hold, never one. A middle of function
    words or a negation only ("English and French", "classes, not functions") is no relation:
    a list in another order, or a preference turned round (``_swap``'s and the negation's)."""
    if len(ua) != len(ub) or ua == ub or sorted(ua) != sorted(ub):
        return False
    n = len(ua)
    lead = next(i for i in range(n) if ua[i] != ub[i])  # the first span starts where they differ
    for j in range(lead + 1, n):
        first = list(ua[lead:j])
        for k in range(j + 1, n):
            middle = list(ua[j:k])
            if not set(middle) - _GENERIC:
                continue
            for end in range(k + 1, n + 1):
                second = list(ua[k:end])
                if first != second and [*ua[:lead], *second, *middle, *first, *ua[end:]] == ub:
                    return True
    return False


def _part_swap(ua: Sequence[str], ub: Sequence[str]) -> bool:
    """relate-v10: two roles exchanged in the opening (or closing) part of two statements that
    go on to say different things: "Marta approves Tom's expense claims" / "Tom approves
    Marta's holiday requests", "小李把需求交给小陈开发" / "小陈把需求交给小李测试" — whatever
    follows, the two are about other roles, never one fact."""
    n = min(len(ua), len(ub))
    for k in range(n, 2, -1):
        for x, y in ((ua[:k], ub[:k]), (ua[-k:], ub[-k:])):
            if x != y and sorted(x) == sorted(y) and _role_swap(x, y):
                return True
    return False


# a passive turns the roles round in the words ("Alice owns it" / "it is owned by Alice",
# "packages are installed with pnpm" / "use pnpm for installing packages")
_PASSIVE = re.compile(
    r"\bby\b|\b(?:is|are|was|were|be|been|being|gets?|got)\s+(?:\w+ly\s+)?\w+(?:ed|en|wn|lt)\b"
    r"|被|由",
    re.IGNORECASE,
)


def _passive(text: str) -> int:
    return len(_PASSIVE.findall(text))


def _swap(ua: Sequence[str], ub: Sequence[str]) -> tuple[list[str], list[str]] | None:
    """The one short span ``a`` has where ``b`` has another, the rest equal (else ``None``)."""
    ops = [
        op
        for op in difflib.SequenceMatcher(None, ua, ub, autojunk=False).get_opcodes()
        if op[0] != "equal"
    ]
    if len(ops) != 1 or ops[0][0] != "replace":
        return None
    _, i1, i2, j1, j2 = ops[0]
    left, right = list(ua[i1:i2]), list(ub[j1:j2])
    if len(ua) - len(left) < 1 or set(left) & set(right):
        return None
    cjk = all(re.match(rf"[{_CJK}]", u) for u in (*left, *right))
    limit = 3 if cjk else 2
    if len(left) > limit or len(right) > limit:
        return None
    return left, right


def _word_swap(ua: Sequence[str], ub: Sequence[str]) -> tuple[list[str], list[str]] | None:
    """relate-v10: in Chinese, compared by characters, one word rewritten in place is not one
    opcode ("父亲" / "岳父" keeps 父 and moves it): what lies between the two statements' common
    start and common end, when that is at most three characters on each side."""
    n = min(len(ua), len(ub))
    head = next((i for i in range(n) if ua[i] != ub[i]), n)
    tail = next((i for i in range(n - head) if ua[-1 - i] != ub[-1 - i]), n - head)
    left, right = list(ua[head : len(ua) - tail]), list(ub[head : len(ub) - tail])
    if not left or not right or len(left) > 3 or len(right) > 3 or head + tail < 2:
        return None
    if not all(re.match(rf"[{_CJK}]", u) for u in (*left, *right)):
        return None
    if set(left + right) & _NEGATING:
        return None  # "名不要" / "命名别": a negation reworded is the negation's to weigh
    if set(left) <= set(right) or set(right) <= set(left):
        return None  # "每天晚上" / "每晚": characters only dropped, nothing put in their place
    return left, right


def _one_slot(ua: Sequence[str], ub: Sequence[str]) -> bool:
    """relate-v7: one short span of ``a`` stands where ``b`` has another, about a content word
    both state, whatever else one of them adds ("the user drinks their coffee black" / "the
    user takes their coffee with milk"); or the two differ only in slots filled differently,
    each word in its place ("unit tests run on every push" / "integration tests run every
    night"): values in a frame, which no cosine vouches for."""
    ops = difflib.SequenceMatcher(None, ua, ub, autojunk=False).get_opcodes()
    swapped = [op for op in ops if op[0] == "replace"]
    if len(swapped) >= 2 and all(op[0] in ("equal", "replace") for op in ops):
        return bool(set(ua) & set(ub) - _GENERIC)
    if len(swapped) != 1:
        return False
    _, i1, i2, j1, j2 = swapped[0]
    left, right = set(ua[i1:i2]), set(ub[j1:j2])
    limit = 3 if _script(" ".join((*left, *right))) else 2
    if len(left) > limit or len(right) > limit or left & right:
        return False
    return bool(set(ua) & set(ub) - _GENERIC)


def _numbers_changed(ua: Sequence[str], ub: Sequence[str]) -> bool:
    """Each side has a number the other lacks, and besides the numbers one only adds words to
    the other (so the numbers are what changed, not another subject's)."""
    na = Counter(u for u in ua if _NUMERAL.match(u))
    nb = Counter(u for u in ub if _NUMERAL.match(u))
    if not (na - nb and nb - na):
        return False
    rest_a, rest_b = set(ua) - set(na), set(ub) - set(nb)
    return rest_a <= rest_b or rest_b <= rest_a


def _filler(ua: Sequence[str], ub: Sequence[str]) -> bool:
    """relate-v6: one frame, another filler — the statements share a content word and differ
    in one place only, where they put three or more content words between them
    ("don't query the database in a loop" / "don't print logs in a loop", "the admin dashboard
    is built with React" / "the marketing site is built with React"): two facts of one frame,
    whatever their cosine. A one-word difference is ``_swap``'s (a value or a synonym); words
    only added on one side are a more specific wording."""
    ops = [
        op
        for op in difflib.SequenceMatcher(None, ua, ub, autojunk=False).get_opcodes()
        if op[0] != "equal"
    ]
    if len(ops) != 1 or ops[0][0] != "replace":
        return False  # a paraphrase moves and adds words; a look-alike changes one slot
    _, i1, i2, j1, j2 = ops[0]
    left, right = set(ua[i1:i2]) - _GENERIC, set(ub[j1:j2]) - _GENERIC
    if left & right or not left or not right or len(left) + len(right) < 3:
        return False

    return bool(set(ua) & set(ub) - _GENERIC)


def _script(text: str) -> bool:
    """Whether ``text`` is Chinese (or Japanese, Korean): it has a CJK character."""
    return re.search(rf"[{_CJK}]", text) is not None


def _spans(ua: Sequence[str], ub: Sequence[str]) -> int:
    """How many spans of ``a`` stand where ``b`` has other words (a reordering is not one)."""
    ops = difflib.SequenceMatcher(None, ua, ub, autojunk=False).get_opcodes()
    return sum(1 for op in ops if op[0] == "replace" and not set(ua[op[1] : op[2]]) & set(ub))


# relate-v9: whose thing it is. "the user's cat is called Mochi" / "the user's cousin's cat is
# called Mochi", "用户的猫" / "用户表妹的猫", "the Asia cluster runs in Singapore" / "the Asia
# cluster's backups are stored in Singapore": one adds an owner (or a part) to what the other
# says, and so speaks of another thing — not a more specific wording of the same fact
_OWNER_EN = re.compile(r"(\w+)'s\s+(?=(\w+))")
_OWNER_CJK = re.compile(rf"([{_CJK}])的(?=([{_CJK}]))")


def _owners(text: str) -> set[tuple[str, str]]:
    """The (owner, thing) pairs a statement writes: "X's Y", "X的Y" (by the characters around)."""
    text = unicodedata.normalize("NFKC", text).replace("\u2019", "'").lower()
    return set(_OWNER_EN.findall(text)) | set(_OWNER_CJK.findall(text))


def _new_owner(ua: Sequence[str], ub: Sequence[str], a: str, b: str) -> bool:
    """relate-v9: both write whose one thing is, and name another owner of it ("the user's
    cat" / "the user's cousin's cat", "用户的狗" / "用户邻居的狗"), and besides the owner one
    says (almost) everything the other says: the same words about another owner's thing. (A
    paraphrase turns "the user has a dog" into "the user's dog" — no owner on the other side.)"""
    oa, ob = _owners(a), _owners(b)
    things = {t for _, t in oa} & {t for _, t in ob}
    if not any((o, t) not in ob for o, t in oa if t in things):
        return False
    if not any((o, t) not in oa for o, t in ob if t in things):
        return False
    sa, sb = set(ua), set(ub)
    return min(len(sa - sb - _GENERIC), len(sb - sa - _GENERIC)) <= 1


def owned_part(short: Sequence[str], long: str) -> bool:
    """relate-v9: the longer statement writes "X's Y" (X的Y) where the shorter speaks of X
    and never of Y: "the Asia cluster runs in Singapore" / "the Asia cluster's backups are
    stored in Singapore" — a part or a belonging of the shorter one's subject, another thing."""
    have = set(short)
    text = unicodedata.normalize("NFKC", long).replace("\u2019", "'").lower()
    # (English only: "的" also ties an adjective to its noun, "辣的东西" is "spicy things")
    return any(
        _stem(o) in have and _stem(t) not in have and t not in have
        for o, t in _OWNER_EN.findall(text)
    )


# relate-v9: "only" narrows what the other says ("paste the whole traceback" / "paste only the
# last line of it"): like a negation on one side, it is a change, not the same fact. "一只猫"
# counts a cat, it does not narrow anything
_ONLY = re.compile(r"\bonly\b|\bsolely\b|(?<![一二两三四五六七八九十几每这那哪半有了])只|仅")


def _restricted(text: str) -> bool:
    return _ONLY.search(unicodedata.normalize("NFKC", text).lower()) is not None


def narrowed(ua: Sequence[str], ub: Sequence[str], a: str, b: str) -> bool:
    """relate-v9: "only" on one side, about what both mostly say (half the content units of
    the shorter one shared): "一个页面只用系统字体" beside "不要再引入 Bloc" narrows nothing."""
    if _restricted(a) == _restricted(b):
        return False
    ca, cb = set(ua) - _GENERIC - _NEGATING, set(ub) - _GENERIC - _NEGATING
    shared = ca & cb
    return len(shared) >= 2 and len(shared) >= 0.5 * min(len(ca), len(cb))


# relate-v9: a file-name pattern is a value as written: "test_*.py" and "*_test.py" read as the
# same words once punctuation is dropped, and are two rules
_PATTERN = re.compile(r"[\w*]*[*_./][\w*./]*\w[\w*./]*|[\w*]*\w[\w*]*[*_][\w*./]*")


def _patterns(text: str) -> list[str]:
    return sorted(t for t in _PATTERN.findall(text) if re.search(r"[*_]|\w\.\w", t))


def pattern_changed(a: str, b: str) -> bool:
    """Both write a name pattern, made of the same words but not the same pattern."""
    pa, pb = _patterns(a), _patterns(b)
    if not pa or not pb or pa == pb:
        return False
    words = re.compile(r"[^\W_]+")
    same_words = sorted(words.findall(" ".join(pa).lower()))
    return same_words == sorted(words.findall(" ".join(pb).lower()))


MARGIN = 0.1  # relate-v7: how much closer the two are to each other than to any third memory
VOUCH_COSINE = 0.45  # relate-v8: below this the store's vouch is not heard (v7: 0.6)


def vouched(
    ua: Sequence[str], ub: Sequence[str], a: str, b: str, cosine: float | None, nearest: float
) -> bool:
    """relate-v8: the store vouches for ``a`` and ``b`` as one fact — each the other's nearest
    memory by ``nearest`` ≥ ``MARGIN`` (twice that where two spans differ), at a cosine of
    ``VOUCH_COSINE`` or more — and nothing in their words argues against it (``against``).

    This is how paraphrases that share no content word merge ("the user is an introvert" /
    "user is shy and recharges alone"): their words say nothing, their vectors are only
    moderately close (USE: 0.45–0.7), but no other memory of the store is as close to either."""
    if cosine is None or cosine < VOUCH_COSINE or nearest < MARGIN:
        return False
    if _spans(ua, ub) >= 2 and nearest < 2 * MARGIN:
        return False
    return against(ua, ub, a, b) is None


def against(ua: Sequence[str], ub: Sequence[str], a: str, b: str) -> str | None:
    """What in the words of ``a`` and ``b`` (newer) argues against one fact, or ``None``:
    two roles exchanged, a value (a number, a weekday) on one side only or a name on each side
    that the other lacks (a name on one side alone is often the other's description of it:
    "设计稿" / "UI 设计图"), a change marker, an antonym,
    numbers changed — and, where the two share a content word (something both are about), a
    negation on one side, or the structure of a look-alike: one span swapped, one frame with
    another filler, or words only added or dropped in one place (the shorter one states less:
    "the user drinks coffee in the morning" / "the user runs in the morning")."""
    if (_role_swap(ua, ub) or _part_swap(ua, ub)) and _passive(a) == _passive(b):
        return "roles"
    pa = [u for u in ua if u not in _NEGATING]
    pb = [u for u in ub if u not in _NEGATING]
    sa, sb = set(pa), set(pb)
    only_a = [u for u in sa - sb if _anchor(u, a)]
    only_b = [u for u in sb - sa if _anchor(u, b)]
    if (only_a and only_b) or any(_NUMERAL.match(u) or u in _DAYS for u in (*only_a, *only_b)):
        return "name"
    if _changed_marker(b, strict=True):
        return "change"
    if _new_owner(pa, pb, a, b):
        return "owner"
    if narrowed(pa, pb, a, b):
        return "only"
    if any(frozenset((x, y)) in ANTONYMS for x in sa for y in sb):
        return "antonym"
    if _numbers_changed(pa, pb):
        return "number"
    if not (sa & sb) - _GENERIC:
        return None  # nothing both are about: no frame whose slot could differ
    if (_negations(ua) % 2) != (_negations(ub) % 2):
        return "negation"
    if _one_slot(pa, pb) or _filler(pa, pb) or _one_place(pa, pb):
        return "slot"
    return None


def _one_place(ua: Sequence[str], ub: Sequence[str]) -> bool:
    """The two differ in one place only (a span replaced, added or dropped)."""
    ops = difflib.SequenceMatcher(None, ua, ub, autojunk=False).get_opcodes()
    return sum(1 for op in ops if op[0] != "equal") <= 1
