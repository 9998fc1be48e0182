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

relate-v6 (issue 22 §2, developed on ``bench/sleep_pairs/dev3.yaml`` and the spent sets) adds
evidence by kind: one frame with another filler of several words is two facts whatever the
cosine (``_filler``); verbs of change ("replaced", "升级到") mark a change, and only about a
close fact; Chinese numbers read as digits ("十点" = "10 点", "星期天" = "周日"); the recall
stack's glossary makes two Chinese words for one thing one unit (线上 / 生产环境, 发版 / 上线);
and a name either side writes, or two content words, is shared evidence beside the cosine.

relate-v7 (developed on ``dev4.yaml``, ``dev3.yaml`` and ``dev.yaml``): the same words with two
roles exchanged around what relates them ("Ana mentors Ben" / "Ben mentors Ana") are two facts
(``_role_swap``), unless one side is passive ("… is reviewed by …"); a number changed while the
rest only grows ("三月三号" / "推迟到三月十七号") is a change, not a more specific wording;
"on"/"off" ending a clause are values ("default to on" / "… off"); a number and its unit are
one value whether spaced or not ("8am" / "8 am"), English number words are their digits, and
a few more canonical groups of the words people swap for one another (client/customer,
bike/bicycle, adore/love, monthly/every month).

``RELATION_RULES`` names this rule set; it is recorded in every plan.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

import numpy as np

from ..index.glossary import GLOSSARY

__all__ = [
    "RELATION_RULES",
    "Relation",
    "calibrated",
    "candidate_pairs",
    "content_tokens",
    "mutual_nearest",
    "neighbour_pairs",
    "normalise",
    "relate",
]

RELATION_RULES = "relate-v7"
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


# -- relate-v3: evidence, not a word count ------------------------------------------------------
# General equivalences of how people phrase memories (not a thesaurus: the words memory
# statements are made of). Multi-word phrases first, then single words → one canonical word.
# relate-v7: one unit however it is written ("40 minutes" / "40 min")
_UNIT = {"minute": "min", "minutes": "min", "mins": "min", "hour": "h", "hours": "h"}
_UNIT |= {"hr": "h", "hrs": "h"}
_PHRASES: list[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]] = [
    (re.compile(r"\bpull requests?\b", re.I), " pr "),
    (re.compile(r"\bcode reviews?\b", re.I), " review "),
    (re.compile(r"\btime ?zone\b", re.I), " timezone "),
    (
        re.compile(r"\b(?:doesn'?t|does not|do not|don'?t|didn'?t|won'?t|isn'?t|aren'?t)\b", re.I),
        " not ",
    ),
    # relate-v4: "prefer X over Y" says "prefer X, not Y"
    (re.compile(r"\b((?:prefer|favou?r|like|choose|pick)\w*\b.{1,40}?)\bover\b", re.I), r"\1 not "),
    (re.compile(r"\bcommit messages?\b", re.I), " commitmessage "),
    # "every commit" / "always … before committing": a habit said two ways
    (re.compile(r"\b(?:every|each)\b", re.I), " always "),
    # relate-v7: "on"/"off" ending a clause, or after "turn"/"set"/"default (to)", are values
    (
        re.compile(
            r"\b((?:turn|switch|set|default)\w*\s+(?:to\s+)?)?on\b(?=\s*(?:$|[.,;!?)]))", re.I
        ),
        r"\1 enable ",
    ),
    (
        re.compile(
            r"\b((?:turn|switch|set|default)\w*\s+(?:to\s+)?)?off\b(?=\s*(?:$|[.,;!?)]))", re.I
        ),
        r"\1 disable ",
    ),
    (re.compile(r"\b(?:turn|switch)\w*\s+on\b", re.I), " enable "),
    (re.compile(r"\b(?:turn|switch)\w*\s+off\b", re.I), " disable "),
    (re.compile(r"\b(?:grew|grown|growing) up\b", re.I), " grewup "),
    (re.compile(r"\b(?:brought|bringing) up\b", re.I), " broughtup "),
    # "was raised in Toronto" is where someone grew up, not a value raised
    (re.compile(r"\b(?:was|were|been) raised (?=in\b)", re.I), " grewup "),
    # a number and its unit are one value, spaced or not ("8am" / "8 am", "10MB" / "10 MB")
    (
        re.compile(
            r"\b(\d+(?:\.\d+)?)\s*(am|pm|kb|mb|gb|tb|ms|km|kg|minutes?|mins?|hours?|hrs?|h)\b", re.I
        ),
        lambda m: f"{m.group(1)}{_UNIT.get(m.group(2).lower(), m.group(2).lower())}",
    ),
    # "monthly" is "every month": the time word, without its adverb ending
    (re.compile(r"\b(hour|week|month|year|night)ly\b", re.I), r" always \1 "),
    (re.compile(r"\bdaily\b", re.I), " always day "),
]
# relate-v4: Chinese ways of saying "A, not B" / "A is better than B" (= prefer A, not B)
_CJK_CONTRAST = [
    (re.compile(rf"([{_CJK}]{{1,8}})优于([{_CJK}]{{1,8}})"), r"优先\1而不是\2"),
    (re.compile(r"而不是|而非|不是用"), " 不 "),
]
_SAME = {
    "like": "like likes liked prefer prefers preferred favor favors favour favours want wants "
    "wanted love loves enjoy enjoys adore adores fan fans 喜欢 偏好 偏爱 倾向 爱 想要 希望 优先",
    "user": "user 用户",
    "locate": "based located live lives living 住在 住 位于",
    "dislike": "dislike dislikes hate hates 讨厌 反感 不喜欢",
    "short": "short shorter concise brief terse succinct minimal 简洁 简短 简练 精简",
    "long": "long longer detailed verbose lengthy thorough 详细 冗长 长篇",
    "answer": "answer answers reply replies response responses respond 回答 答复 回复 回应",
    "database": "db dbs database databases 数据库",
    "doc": "doc docs document documents documentation 文档",
    "pr": "pr prs",
    "child": "kid kids child children 孩子 小孩",
    "developer": "engineer engineers developer developers dev devs 工程师 开发者",
    "start": "start starts started begin begins began beginning 开始 开工",
    "own": "own owns owned owner owners 负责 负责人",
    "store": "store stores stored keep keeps kept stay stays save saves saved 存放 保存 存",
    "always": "always 总是 一律 始终",
    "never": "never 从不 从来不 永不",
    "allow": "allow allows allowed permit permitted 允许",
    "forbid": "forbid forbids forbidden disallow disallowed ban banned 禁止",
    "enable": "enable enables enabled 开启 启用 打开",
    "disable": "disable disables disabled 关闭 禁用",
    "light": "light 浅色",
    "dark": "dark 深色",
    "few": "few fewer 少",
    "many": "many more 多",
    # relate-v4: more of the words memory statements are made of
    "lint": "lint lints linter linters linting",
    "production": "production prod 线上 生产环境 生产",
    "error": "error errors exception exceptions 报错 错误 异常",
    "commitmessage": "commitmessage 提交信息",
    "api": "api apis 接口",
    "emoji": "emoji emojis 表情符号 表情",
    "releasenote": "releasenote 发布说明 版本说明 更新说明",
    # relate-v7: English number words are values like their digits ("three bikes" / "3 bikes")
    **{
        str(i): w
        for i, w in enumerate("_ _ two three four five six seven eight nine ten".split())
        if i > 1
    },
    # relate-v7: words people swap for one another in memories (a reworded memory keeps its
    # value: "client portal" is the "customer portal")
    "customer": "customer customers client clients 客户",
    "bike": "bike bikes bicycle bicycles 自行车 单车",
    "office": "office offices workplace 办公室 办公楼",
    "raise": "raise raised grewup broughtup 长大",
    "option": "option options alternative alternatives choice choices 选项 选择",
    "quick": "quick quickly fast rapid rapidly 快",
    "delete": "delete deletes deleted remove removes removed 删除 删掉 移除",
    "image": "image images picture pictures photo photos 图片 照片",
    "tester": "tester testers qa 测试人员",
    "theme": "theme themes mode modes 主题",
    "prepare": "prepare prepares preparing prepared training 备战",
}
# relate-v4: light verbs and place fillers that carry no fact of their own in a memory ("is
# managed with", "goes through", "是用…开发的", "放在…目录"): dropped before comparing, so
# "前端用 React 开发" and "前端是 React 写的" compare equal. A fact needs more than these.
_LIGHT_EN = (
    frozenset(
        """run runs ran running go goes went going handle handles handled handling manage manages
    managed managing via through into done make makes made has have had""".split()
    )
    | frozenset(  # filler people type around a fact, and the tails of contractions
        """fyi btw basically actually really pretty quite generally typically normally currently
    re ll ve d m""".split()
    )
    | frozenset(  # relate-v7: "takes about 40 minutes" / "runs for roughly 40 min"
        "take takes took taking roughly approximately around".split()
    )
)
_LIGHT_CJK = (
    "开发 编写 写成 写 记录 使用 采用 管理 发到 送到 推到 上报到 上报 发 送 放在 放 目录 下面 "
    "里面 统一 所有 其实 一般 通常 平时 大概 左右 就是 一下 那种 这种 的话 顺便"
)
_CANON = {word: canon for canon, words in _SAME.items() for word in words.split()}
# words that say "this replaced something": the statement is a change of mind
_CHANGED = frozenset(
    "now anymore longer switched moved migrated 现在 改用 改成 改 换成 换 已经 迁移".split()
    # relate-v6: the verbs of a change ("we replaced Kong with Envoy", "升级到 17 了")
    + "replaced replace replacing changed upgraded downgraded raised lowered bumped".split()
    + "升级到 升级 调整为 调整成 调到 迁到 迁移到 换到 改为 变成 变为".split()
    # relate-v7: a date or a time moved ("slipped to March 17", "推迟到三月十七号")
    + "slipped postponed delayed rescheduled 推迟到 推迟 延期到 延期 提前到".split()
)


# relate-v6: the recall stack's glossary of software-team Chinese (``index/glossary.py``) reads
# each of its words as the first English word it lists, so "持续集成" is "ci", "线上"/"生产环境"
# are one word, and a Chinese word is compared as a word, not as characters that other words
# share ("日志" is not half of "日期")
def _glossed() -> dict[str, str]:
    first = {
        head: english.split()[0]
        for head, english in GLOSSARY.items()
        if head not in _CANON and head not in _LIGHT_CJK.split() and head not in _CHANGED
    }
    heads: dict[str, int] = {}
    for word in first.values():
        heads[word] = heads.get(word, 0) + 1
    # only where it says more than the characters do: two Chinese words for one thing (线上 and
    # 生产环境), or the short Latin name people also write inline (持续集成 and CI); any other
    # word is better compared by its characters ("变量名" shares 变量 with "变量命名")
    return {h: w for h, w in first.items() if heads[w] > 1 or len(w) <= 3}


_GLOSSED = _glossed()
# CJK words replaced as wholes before the text is split into characters: longest first, and
# for one length the canonical words before the light ones ("线上报错会上报": 线上, 报错 first)
_CJK_WORDS = sorted(
    [(w, f" {c} ") for w, c in _CANON.items() if re.match(rf"[{_CJK}]", w)]
    + [(w, f" {c} ") for w, c in _GLOSSED.items()]
    + [(w, " ") for w in _LIGHT_CJK.split()]
    # relate-v6: a change marker of several characters is dropped whole ("升级到" leaves no "升")
    + [(w, " ") for w in _CHANGED if len(w) > 1 and re.match(rf"[{_CJK}]", w)],
    key=lambda wc: len(wc[0]),
    reverse=True,
)
# each a pair that cannot both hold of one subject
ANTONYMS = frozenset(
    frozenset(p)
    for p in [
        ("like", "dislike"),
        ("always", "never"),
        ("allow", "forbid"),
        ("enable", "disable"),
        ("short", "long"),
        ("light", "dark"),
        ("few", "many"),
    ]
)
_NUMERAL = re.compile(r"^\d[\d.:,]*\w*$")
_CJK_NUMERAL = re.compile(r"^[〇一二三四五六七八九十百千两]+$")
_CJK_STOP = frozenset(
    "的 了 是 在 和 都 也 就 把 被 我 们 这 个 本 来 用 要 会 里 请 将 到 由 有 着".split()
)
_STOP_EN = _STOP | frozenset(
    """happen happens get gets got should must can will would please mostly usually often
    just only here there me us him her them who which what when where our ours s about""".split()
)
_DAYS = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays "
    "thursdays fridays saturdays sundays".split()
)


def _stem(word: str) -> str:
    if word in _CANON:
        return _CANON[word]
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if len(word) > len(suffix) + 2 and word.endswith(suffix) and not word.endswith("ss"):
            stem = word[: -len(suffix)] + keep
            if suffix in ("ing", "ed") and stem[-1] == stem[-2] and stem[-1] not in "lsfz":
                stem = stem[:-1]  # committing → commit, planned → plan
            return _CANON.get(stem, stem)
    return word


def units(text: str) -> list[str]:
    """The statement as comparable units: canonical English stems, CJK characters (known
    CJK words as one unit), ASCII names whole; function words and change markers dropped."""
    text = unicodedata.normalize("NFKC", text)
    # relate-v5: a hyphenated name or word is one unit ("en-US", "eu-west-1", "trade-offs"), so
    # a part of it is never read as a function word ("us")
    text = re.sub(r"(?<=[A-Za-z0-9])-(?=[A-Za-z0-9])", "", text)
    for pattern, replacement in _PHRASES:
        text = pattern.sub(replacement, text)
    text = _CONTRAST.sub(" not ", text)
    for pattern, replacement in _CJK_CONTRAST:
        text = pattern.sub(replacement, text)
    for word, replacement in _CJK_WORDS:
        text = text.replace(word, replacement)
    text = _cjk_numbers(text)
    out: list[str] = []
    for raw in _WORD.findall(text.lower()):
        if raw in _CHANGED or raw in _STOP_EN or raw in _CJK_STOP or raw in _LIGHT_EN:
            continue
        out.append(raw if re.match(rf"[{_CJK}]", raw) else _stem(raw))
    return out


_DIGIT = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"〇": 0, "两": 2}
# relate-v6: a Chinese number is a value like its digits ("十点" is "10 点", "三月十二号" is
# "3 月 12 日", "星期天" is "周日") — but only where it counts something, so "一起", "一直" stay
_CJK_COUNT = re.compile(
    r"(?<![第])([〇零一二三四五六七八九十百千两]+)(?=[点月日号个次周天年岁度秒分钟时行位人条页层区倍万%辆台只本张件名套遍篇])"
)
_WEEKDAY = re.compile(r"(?:星期|礼拜|周)([一二三四五六日天])")


def _cjk_value(numeral: str) -> int | None:
    total, digit = 0, None
    for c in numeral:
        if c in _DIGIT:
            digit = _DIGIT[c]
        elif c in "十百千":
            total += (1 if digit is None else digit) * {"十": 10, "百": 100, "千": 1000}[c]
            digit = None
        else:
            return None
    return total + (digit or 0)


def _cjk_numbers(text: str) -> str:
    def weekday(m: re.Match[str]) -> str:
        return f" 周{7 if m.group(1) in '日天' else _DIGIT[m.group(1)]} "

    text = _WEEKDAY.sub(weekday, text)

    def digits(m: re.Match[str]) -> str:
        value = _cjk_value(m.group(1))
        if value is None or m.group(1) == "一":  # 一次, 一分钟: "once", "a minute", not a value
            return m.group(0)
        return f" {value} "

    return re.sub(r"(\d)\s*号", r"\1 日", _CJK_COUNT.sub(digits, text))


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


def relate(a: str, b: str, cosine: float | None = None, *, nearest: float = 0.0) -> Relation:
    """How statement ``b`` relates to statement ``a`` by the offline evidence (relate-v5):

    * a changed value — one short span swapped and everything else equal — is ``replace``
      when the swapped span is a name or a value (``pnpm`` ↔ ``npm``, ``15`` ↔ ``16``, an
      antonym, or "now"/"改用" says it changed), ``unclear`` otherwise (the person decides);
    * a negation on one side only is ``unclear``;
    * the same content (after canonical words: "prefers"/"likes", "DB"/"database",
      "回答"/"答复"), or one adding words to the other, or a close ``cosine`` of the same
      names with much shared content, is ``duplicate``;
    * anything else — notably two or more spans swapped (another subject *and* another value:
      "frontend on Vercel" / "docs on Netlify") — is ``unrelated``: offline, two facts.

    ``nearest`` (relate-v7, ``mutual_nearest``): by how much each is the other's closest memory
    in the store (0: it is not). A margin of ``MARGIN`` is evidence of one fact where the words
    share little or nothing ("the user is lactose intolerant" / "dairy upsets the user's
    stomach"); where two slots differ ("unit tests run on every push" / "integration tests run
    every night") it takes twice that. Never when a name, number, negation, antonym or change
    marker says otherwise."""
    if normalise(a) == normalise(b):
        return "duplicate"
    ua, ub = units(a), units(b)
    if not ua or not ub:
        return "unrelated"
    if ua == ub:
        return "duplicate"  # the same content in other function words
    if _role_swap(ua, ub) and _passive(a) == _passive(b):
        return "unrelated"  # relate-v7: two roles exchanged ("A reviews B's PRs" / "B … A's")
    swap = _swap(ua, ub)
    if swap is not None and any(frozenset((x, y)) in ANTONYMS for x in swap[0] for y in swap[1]):
        return "replace"  # "always" → "never", "likes" → "dislikes": a change of mind
    if (_negations(ua) % 2) != (_negations(ub) % 2):
        shared = set(ua) & set(ub)
        return "unclear" if len(shared - {"not"}) >= 2 else "unrelated"
    if swap is not None:
        return _swapped(swap, a, b, cosine)
    if set(ua) == set(ub) and _negations(ua):
        return "unclear"  # the same words around a "not" in another order: which one is "not"?
    vouched = nearest if cosine is not None and cosine >= NEAR_COSINE else 0.0
    return _same_or_not(ua, ub, a, b, cosine, vouched=vouched)


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


def _swapped(swap: tuple[list[str], list[str]], a: str, b: str, cosine: float | None) -> Relation:
    left, right = swap
    if any(frozenset((x, y)) in ANTONYMS for x in left for y in right):
        return "replace"
    if not set(units(a)) - set(left) - _FRAME:
        # relate-v5: the swap is all the two say ("the user prefers light mode" / "the user
        # prefers spaces for indentation"): nothing they are both about, so two facts
        return "unrelated"
    named = any(_anchor(u, a) for u in left) or any(_anchor(u, b) for u in right)
    counted = all(_CJK_NUMERAL.match(u) for u in (*left, *right))  # 周二 ↔ 周五
    one_word = len(left) == len(right) == 1 and not re.search(rf"[{_CJK}]", a + b)
    if named or counted or one_word or _changed_marker(b):
        return "replace"  # a value swapped in an otherwise equal statement
    # relate-v5: no cosine makes a swapped span a synonym — two statements equal but for one
    # span embed close whether it is "mode"/"theme" or "单引号"/"双引号", "删除"/"保留" (the
    # held-out batch 2 merged six such conflicts): the person decides
    return "unclear"


def _same_or_not(
    ua: Sequence[str],
    ub: Sequence[str],
    a: str,
    b: str,
    cosine: float | None,
    *,
    vouched: float = 0.0,
) -> Relation:
    ua = [u for u in ua if u not in _NEGATING]
    ub = [u for u in ub if u not in _NEGATING]
    sa, sb = set(ua), set(ub)
    shared = sa & sb
    # relate-v7: the store vouches for the pair (each the other's nearest by a margin) and
    # nothing in the words says another fact: no name or number on one side only, no change
    if (
        any(_anchor(u, a) for u in sa - sb)
        or any(_anchor(u, b) for u in sb - sa)
        or _changed_marker(b, strict=True)
        or any(frozenset((x, y)) in ANTONYMS for x in sa for y in sb)
        or _one_slot(ua, ub)
    ):
        vouched = 0.0
    if not shared or not shared - _GENERIC:
        return "duplicate" if vouched >= MARGIN else "unrelated"
    if _numbers_changed(ua, ub):
        # relate-v7: each side has a number the other lacks ("三月三号" / "推迟到三月十七号"):
        # a value changed, however much else one of them adds
        return "replace" if _changed_marker(b) or cosine is None else "unclear"
    names_a = {u for u in sa if _anchor(u, a)}
    names_b = {u for u in sb if _anchor(u, b)}
    if (
        _changed_marker(b, strict=True)
        and not _changed_marker(a)
        and (names_a & names_b or len(shared - _GENERIC) >= 2)
        # relate-v6: and about one thing — "生产服务都跑在华东 2 区" shares 服务 with
        # "搜索服务换成 Meilisearch 了" at a cosine of 0.15, and is not what changed
        and (cosine is None or cosine >= CHANGE_COSINE)
    ):
        # relate-v5: the newer one says it changed ("we moved our builds from Jenkins to GitLab
        # CI", "every week now", "现在改成…") about what the older one states: a change
        return "replace"
    if names_a - sb and names_b - sa:
        return "unrelated"  # each names something the other does not: two facts
    close = cosine is not None and cosine >= SAME_COSINE
    if (names_a - sb or names_b - sa) and sa - sb and sb - sa and not close:
        return "unrelated"  # a name on one side only, other words on both: another fact
    if any(frozenset((x, y)) in ANTONYMS for x in sa - sb for y in sb - sa):
        return "unrelated" if len(shared) < 2 else "unclear"
    # (one statement in two languages differs in its words, not in a slot)
    if _script(a) == _script(b) and _filler(ua, ub):
        return "unrelated"
    if sa <= sb or sb <= sa:
        # one adds words to the other — when the shorter one states a fact at all: "the user
        # runs in the morning" is not "the user drinks coffee in the morning" (relate-v4)
        return "duplicate" if len(min(sa, sb, key=len) - _GENERIC) >= 2 else "unrelated"
    cover = len(shared) / min(len(sa), len(sb))
    both_cjk = all(re.search(rf"[{_CJK}]", t) for t in (a, b))
    # (Chinese compared by characters breaks into spans wherever a word is reworded, so there
    # a close cosine with most characters shared outweighs them: relate-v6)
    loose = both_cjk and cosine is not None and cosine >= NEAR_COSINE and cover >= 0.6
    spans = _spans(ua, ub)
    if vouched >= (2 * MARGIN if spans >= 2 else MARGIN):
        return "duplicate"
    if spans >= 2 and (cosine is None or cosine < SAME_COSINE) and not loose:
        return "unrelated"  # another subject and another value: two facts
    # other words on both sides: the same fact only with a close cosine, or a fairly close
    # one and a name both state (relate-v4: "don't log customer emails" / "don't email
    # customers about outages" share half their words and a 0.75 cosine, and no name)
    # (two Chinese statements are compared by characters, so half of them shared is evidence
    # enough there); "user" and negations are no content: "用户早上审代码" does not share half
    # of "the user runs in the morning"
    both_cjk = all(re.search(rf"[{_CJK}]", t) for t in (a, b))
    ca, cb = sa - _GENERIC, sb - _GENERIC
    content = len(ca & cb) / min(len(ca), len(cb)) if ca and cb else 0.0
    # relate-v6: a name either writes and both contain ("Docker Buildx" / "docker images"),
    # or two content words in common, is evidence of one subject beside the cosine
    named = bool((names_a | names_b) & shared) or both_cjk or len(ca & cb) >= 2
    if cosine is not None and (
        cosine >= SAME_COSINE or (cosine >= NEAR_COSINE and content >= 0.5 and named)
    ):
        return "duplicate"
    if cosine is None and cover >= 0.75 and len(shared) >= 2:
        return "duplicate"
    return "unrelated"


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


_GENERIC = frozenset({"user", "not", "no", "never", "always", "不", "别", "没"})
_FRAME = _GENERIC | {"like", "dislike"}  # "the user prefers …": the frame, not a subject


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


SAME_COSINE = 0.8  # relate-v3: a cosine this close with no evidence against is the same fact
NEAR_COSINE = 0.6  # … or this close with half the content shared
CHANGE_COSINE = 0.45  # relate-v6: a change marker names what changed only about a close fact


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


NEIGHBOURS = 6  # memories recalled for each memory: its candidates for "the same fact"
FLOOR = 0.25  # a vector neighbour below this cosine is noise whatever the embedder


def neighbour_pairs(
    names: Sequence[str],
    matrix: np.ndarray[Any, Any],
    keyword: Mapping[str, Iterable[str]],
    k: int = NEIGHBOURS,
) -> list[tuple[str, str, float | None]]:
    """Candidate pairs from recall over each memory (issue 22): its ``k`` nearest vectors and
    the keyword matches in ``keyword[name]``, as ``(a, b, cosine)`` with ``a < b`` by position
    in ``names`` (a name without a vector row sorts last; its cosine is ``None``)."""
    out: dict[tuple[str, str], float | None] = {}
    rows = {name: i for i, name in enumerate(names)}
    n = len(names)
    for start in range(0, n, BLOCK):
        block = matrix[start : start + BLOCK] @ matrix.T
        for r in range(block.shape[0]):
            row = block[r]
            top = np.argpartition(-row, min(k, n - 1))[: k + 1] if n > k + 1 else range(n)
            for col in (int(c) for c in top):
                if col != start + r and row[col] >= FLOOR:
                    out[_ordered(names, start + r, col)] = float(row[col])
    for name, hits in keyword.items():
        for other in hits:
            x, y = rows.get(name), rows.get(other)
            if other == name:
                continue
            if x is None or y is None:
                first, second = sorted((name, other))
                out.setdefault((first, second), None)
                continue
            out.setdefault(_ordered(names, x, y), float(matrix[x] @ matrix[y]))
    return [(a, b, cos) for (a, b), cos in out.items()]


MARGIN = 0.1  # relate-v7: how much closer the two are to each other than to any third memory


def mutual_nearest(
    names: Sequence[str], matrix: np.ndarray[Any, Any]
) -> dict[frozenset[str], float]:
    """relate-v7: the pairs of memories each of which is the other's nearest vector, with how
    much closer they are to each other than either is to any third memory — the store's own
    evidence that two differently worded memories say one thing (``relate``'s ``nearest``)."""
    n = len(names)
    if n < 3:
        return {}
    best = np.empty(n, dtype=int)
    top = np.empty(n)
    second = np.empty(n)
    for start in range(0, n, BLOCK):
        block = matrix[start : start + BLOCK] @ matrix.T
        rows = np.arange(block.shape[0])
        block[rows, rows + start] = -np.inf  # a memory is not its own neighbour
        two = np.argpartition(-block, 1, axis=1)[:, :2]
        vals = np.take_along_axis(block, two, axis=1)
        order = np.argsort(-vals, axis=1)
        two = np.take_along_axis(two, order, axis=1)
        vals = np.take_along_axis(vals, order, axis=1)
        best[start : start + len(rows)] = two[:, 0]
        top[start : start + len(rows)] = vals[:, 0]
        second[start : start + len(rows)] = vals[:, 1]
    out: dict[frozenset[str], float] = {}
    for i in range(n):
        j = int(best[i])
        if i < j and best[j] == i:
            out[frozenset((names[i], names[j]))] = float(top[i] - max(second[i], second[j]))
    return out


def _ordered(names: Sequence[str], i: int, j: int) -> tuple[str, str]:
    return (names[i], names[j]) if i < j else (names[j], names[i])


def calibrated(cosine: float | None, threshold: float) -> float | None:
    """A cosine on the scale ``relate`` reads (the multilingual USE's, where paraphrases start
    near 0.6): each embedder spreads cosines differently, and the policy's per-model
    ``duplicates.similarity`` says where its paraphrases start."""
    return None if cosine is None else cosine - threshold + 0.6
