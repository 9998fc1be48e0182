"""How a memory statement reads as comparable units (the first half of ``similar.relate``).

A statement becomes a list of *units*: canonical English stems ("prefers", "likes" and
"enjoys" are ``like``; "DB" is ``database``), CJK characters with known Chinese words kept
whole (the recall stack's glossary reads "线上" and "生产环境" as one word), Chinese numbers as
digits ("十点" is ``10`` 点), numbers with their unit ("8 am" is ``8am``), and without function
words, light verbs ("is managed with", "是用…开发的") or change markers ("now", "改成"). Two
statements that say one thing in other function words have equal units; what differs between
them is what ``evidence.py`` weighs.

The tables are general equivalences of how people phrase memories, not a thesaurus, and not
any evaluation set's phrases: each group is one kind of word memory statements are made of.
Split out of ``similar.py`` in relate-v8 (the module had grown to 790 lines).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from ..index.concepts import aliases
from ..index.glossary import GLOSSARY

__all__ = ["ANTONYMS", "NEGATIONS", "content_tokens", "normalise", "units"]

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
# relate-v12: English number words from eleven to ninety-nine (hyphens are dropped before
# words are read, so "forty-two" is "fortytwo")
_TEENS = "eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_ONES = "one two three four five six seven eight nine".split()
_NUMBER_WORDS = {11 + i: w for i, w in enumerate(_TEENS)} | {
    20 + 10 * t + o: tens + (_ONES[o - 1] if o else "")
    for t, tens in enumerate(_TENS)
    for o in range(10)
}
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
    "always": "always 总是 一律 始终",
    "never": "never 从不 从来不 永不",
    "allow": "allow allows allowed permit permitted 允许",
    "forbid": "forbid forbids forbidden disallow disallowed ban banned 禁止",
    "enable": "enable enables enabled 开启 启用 打开",
    "disable": "disable disables disabled 关闭 禁用",
    "light": "light 浅色",
    "dark": "dark 深色",
    "few": "few fewer 少",
    "many": "many more 多 不少",
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
    # relate-v12: and so are the larger ones people spell out ("forty lines" / "40 lines")
    **{str(i): w for i, w in _NUMBER_WORDS.items()},
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
    # relate-v8: naming a thing two ways ("a cat named Miso" / "the cat is called Miso"), and
    # "remain" beside "stay" (what is stored somewhere stays there)
    "name": "named called 名叫 叫做",
    "store": "store stores stored keep keeps kept stay stays save saves saved remain remains "
    "存放 保存 存",
    # relate-v8: Chinese words that hold 别 / 不 and negate nothing ("特别" is "especially",
    # "不少" is "many"): read whole, so their character is never counted as a "not"
    "especially": "特别 格外",
    "respectively": "分别",
    "difference": "区别 差别 不同",
    "other": "别人 别的",
    "level": "级别",
    "category": "类别",
    "recognise": "识别",
    "but": "不过",
    "good": "不错",
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
    | frozenset(  # relate-v8: "search is powered by Elasticsearch" says "search uses it"
        "power powers powered".split()
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
    # relate-v8: a thing done away with ("把胡子刮掉了", "戒掉了"): the older state ended
    + ["掉了"]
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
    # relate-v8: pronouns, so that two names exchanged around one relation read as a role swap
    # whatever pronoun follows each ("Kai covers for Mia when she …" / "Mia … for Kai when he …")
    + "he she his hers".split()
)
_DAYS = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays "
    "thursdays fridays saturdays sundays".split()
)


def _stem(word: str) -> str:
    # relate-v8: one name however it is spelled, by the recall stack's own table ("JS" is
    # "JavaScript", "k8s" is "Kubernetes", "Postgres" is "PostgreSQL")
    word = max(aliases(word), key=len)
    if word in _CANON:
        return _CANON[word]
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if len(word) > len(suffix) + 2 and word.endswith(suffix) and not word.endswith("ss"):
            stem = word[: -len(suffix)] + keep
            if suffix in ("ing", "ed") and stem[-1] == stem[-2] and stem[-1] not in "lsfz":
                stem = stem[:-1]  # committing → commit, planned → plan
            if stem in NEGATIONS:
                # relate-v12: "notes", "noted" are no "not" ("the calibration notes")
                return word[:-1] if word.endswith("s") else word
            return _CANON.get(stem, stem)
    return word


# relate-v9: a word written in capitals is a name even where the same word in lower case is a
# function word ("geocoded with HERE", "the IT team", "shipped to the US")
_CAPS = re.compile(r"\b[A-Z]{2,}\b")
# relate-v10: so is one capital letter inside a sentence ("blood type A", "plan A", "A 型"):
# not the article that starts one, nor "I"
_LETTER = re.compile(rf"(?<![.!?]\s)(?<=[\w\s{_CJK},;:(])\b[A-HJ-Z]\b")


def _capitals(text: str) -> set[str]:
    letters = {m.group().lower() for m in _LETTER.finditer(text) if m.start() > 0}
    return {w.lower() for w in _CAPS.findall(text)} | letters


# relate-v9: a time of day is one value however it is written: "5 pm", "5pm", "17:00" are all
# ``1700t``, "6:30 am" is ``0630t`` (a changed time still reads as a changed number, so "opens at
# 7 am" / "opens at 6:30 am" stays a conflict). In Chinese "十点半", "10 点 30 分", "10:30" are
# ``1030t`` as written: "晚上" stays beside it, since "每晚 10 点" and "晚上十点" say one time
_CLOCK = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\b\.?|\b(\d{1,2}):(\d{2})\b", re.I)
_CJK_CLOCK = re.compile(r"(\d{1,2})\s*点(?:\s*(半|一刻|(\d{1,2})\s*分))?")


def _clock(hour: int, minute: int) -> str:
    return f" {hour % 24:02d}{minute:02d}t " if hour < 25 and minute < 60 else f" {hour} {minute} "


def _times(text: str) -> str:
    def latin(m: re.Match[str]) -> str:
        if m.group(4):
            return _clock(int(m.group(4)), int(m.group(5)))
        hour = int(m.group(1)) % 12 + (12 if m.group(3).lower() == "p" else 0)
        return _clock(hour, int(m.group(2) or 0))

    return _CLOCK.sub(latin, text)


def _cjk_times(text: str) -> str:
    def cjk(m: re.Match[str]) -> str:
        minute = {"半": 30, "一刻": 15}.get(m.group(2) or "", int(m.group(3) or 0))
        return _clock(int(m.group(1)), minute)

    return _CJK_CLOCK.sub(cjk, text)


# relate-v9: a stretch of days is one value: "two weeks", "fortnightly", "14 days", "两周",
# "十四天" are all ``14d``
_DAYS_IN = {"week": 7, "周": 7, "day": 1, "天": 1}  # (not 日: "3 月 12 日" is a date)
_SPAN = re.compile(r"^(\d+)(day|week)s?$")  # "a 14-day sprint"


def _durations(out: list[str]) -> list[str]:
    merged: list[str] = []
    for unit in out:
        if unit in ("fortnight", "fortnightly", "biweekly"):
            merged += ["always", "14d"] if unit != "fortnight" else ["14d"]
            continue
        if span := _SPAN.match(unit):
            merged.append(f"{int(span.group(1)) * _DAYS_IN[span.group(2)]}d")
            continue
        if merged and unit in _DAYS_IN and merged[-1].isdigit():
            merged[-1] = f"{int(merged[-1]) * _DAYS_IN[unit]}d"
            continue
        merged.append(unit)
    return merged


def units(text: str) -> list[str]:
    """The statement as comparable units: canonical English stems, CJK characters (known
    CJK words as one unit), ASCII names whole; function words and change markers dropped."""
    text = unicodedata.normalize("NFKC", text)
    capitals = _capitals(text)
    text = _times(text)
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
    text = _cjk_times(_cjk_numbers(text))
    out: list[str] = []
    for raw in _WORD.findall(text.lower()):
        if raw in _CHANGED or raw in _CJK_STOP or raw in _LIGHT_EN:
            continue
        if raw in _STOP_EN and raw not in capitals:
            continue
        out.append(raw if re.match(rf"[{_CJK}]", raw) else _stem(raw))
    return _durations(out)


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


_GENERIC = frozenset({"user", "not", "no", "never", "always", "不", "别", "没"})
_FRAME = _GENERIC | {"like", "dislike"}  # "the user prefers …": the frame, not a subject
