"""Text preparation shared by indexing and querying, so both sides see the same tokens.

* **CJK bigrams.** FTS5's ``unicode61`` tokenizer keeps a whole run of Chinese characters as one
  token, so a two-character word inside a sentence is never found. Runs of CJK characters are
  rewritten as overlapping character bigrams (``数据库`` → ``数据 据库``) before they reach FTS5,
  on the way in and on the way out. Latin text is left for the ``porter`` stemmer.
* **Quoted queries.** User text never reaches ``MATCH`` as syntax: every token is wrapped in
  double quotes and the tokens are OR-ed, so ``"``, ``*``, ``NEAR``, ``-`` or parentheses in a
  query are just characters.
* **Stop words.** Common English function words are dropped from queries (not from documents):
  they carry no signal in BM25 and an OR over ``the`` would touch every row. Chinese has no
  spaces, so its function words (``我们``, ``什么``, ``是``, ``的``…) are found in each run of the
  query, and a bigram made only of them is dropped: otherwise every Chinese memory that says
  "我们" earns keyword credit for "我们用什么…" that an English memory never can.
* **Entities.** File paths, ``#tags`` and plain words are pulled out of a query to be matched
  against ``related_files`` and ``tags``.
* **Scripts.** A keyword can only match a memory written in the script of the keyword: a
  Chinese question shares no token with an English memory however well it answers it. Each
  query term and each memory is labelled with its scripts (``cjk`` for kana, han and hangul,
  else the Unicode script of the first letter: ``latin``, ``cyrillic``, …; digits belong to
  none), so recall can tell "no keyword matched" from "no keyword could have matched".
* **Periods.** Absolute dates in a query ("8 May 2023", "May 2023", "in 2023", "2023-05-08",
  "2023年5月") become time ranges to match against when a memory was learned. People talk
  about things after they happen, so each range reaches a little past its end (a week past a
  day, a month past a month or a year).
"""

from __future__ import annotations

import calendar
import re
import unicodedata
from collections.abc import Callable
from datetime import date, timedelta

__all__ = [
    "STOP_WORDS",
    "ZH_STOP_WORDS",
    "cjk_bigrams",
    "cjk_runs",
    "fts_query",
    "query_entities",
    "query_names",
    "query_periods",
    "query_terms",
    "script_share",
    "scripts_of",
    "term_script",
]

_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"  # kana, han, hangul
_CJK_RUN = re.compile(f"[{_CJK}]+")
_TOKEN = re.compile(rf"[{_CJK}]+|[^\W_]+(?:['’][^\W_]+)?")
_PATH = re.compile(r"(?:[\w.-]+/)+[\w.-]+|[\w-]+\.[A-Za-z0-9]{1,8}\b")
_TAG = re.compile(r"#([^\s#]+)")

STOP_WORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself
    yourselves s t don didn doesn isn wasn weren""".split()
)


# Chinese function words (pronouns, question words, particles, auxiliaries, conjunctions,
# common adverbs): what a question is built from, not what it is about.
ZH_STOP_WORDS = frozenset(
    """我 你 您 他 她 它 我们 你们 他们 她们 它们 咱们 自己 大家 这 那 这个 那个 这些 那些 这里
    那里 这儿 那儿 这样 那样 这么 那么 什么 怎么 怎样 怎么样 为什么 为何 哪 哪个 哪些 哪里 哪儿
    谁 多少 多久 几 吗 呢 吧 啊 呀 是否 是不是 有没有 能不能 可不可以 要不要 的 地 得 了 着 过 么
    嘛 之 是 有 在 会 能 要 可以 可能 应该 应当 需要 想 和 与 及 或 或者 还是 但是 但 而 并 跟 同
    对 对于 关于 把 被 给 从 向 往 到 于 以 为 因为 所以 如果 就 才 都 也 还 又 再 很 最 更 太
    非常 一 一个 一下 一些 一次 一般 一直 已经 现在 时候 个 些""".split()
)
_ZH_STOP_LONGEST = max(map(len, ZH_STOP_WORDS))


def segment(run: str, is_word: Callable[[str], bool], longest: int) -> list[str]:
    """Forward maximum matching: ``run`` cut into the longest piece (up to ``longest``
    characters) that ``is_word`` at each position, or a single character where none is."""
    out, i = [], 0
    while i < len(run):
        size = next(
            (n for n in range(min(longest, len(run) - i), 1, -1) if is_word(run[i : i + n])), 1
        )
        out.append(run[i : i + size])
        i += size
    return out


def _content_bigrams(run: str) -> list[str]:
    """The bigrams of a CJK query run that touch at least one character outside a function
    word (function words found by ``segment``); a lone character is kept unless it is one. A
    run made only of function words keeps all its bigrams (see ``query_terms``)."""
    covered = [
        piece in ZH_STOP_WORDS
        for piece in segment(run, ZH_STOP_WORDS.__contains__, _ZH_STOP_LONGEST)
        for _ in piece
    ]
    if len(run) == 1:
        return [] if covered[0] else [run]
    return [run[i : i + 2] for i in range(len(run) - 1) if not (covered[i] and covered[i + 1])]


def cjk_runs(text: str) -> list[str]:
    """The runs of CJK characters in ``text`` (kana, han, hangul), in order."""
    return _CJK_RUN.findall(unicodedata.normalize("NFKC", text))


def cjk_bigrams(text: str) -> str:
    """``text`` with every CJK run written as overlapping bigrams (a lone character stays)."""

    def bigrams(match: re.Match[str]) -> str:
        run = match.group(0)
        if len(run) == 1:
            return f" {run} "
        return " " + " ".join(run[i : i + 2] for i in range(len(run) - 1)) + " "

    return _CJK_RUN.sub(bigrams, unicodedata.normalize("NFKC", text))


def query_terms(query: str) -> list[str]:
    """The searchable tokens of a query, lowercased, stop words dropped, CJK as bigrams."""
    terms: list[str] = []
    every: list[str] = []  # stop words included: for a query made only of them
    for token in _TOKEN.findall(unicodedata.normalize("NFKC", query).lower()):
        if _CJK_RUN.fullmatch(token):
            terms += _content_bigrams(token)
            every += cjk_bigrams(token).split()
        else:
            every.append(token.replace("’", "'"))
            if token not in STOP_WORDS:
                terms.append(every[-1])
    return list(dict.fromkeys(terms or every))  # only stop words still deserve an answer


def term_script(term: str) -> str | None:
    """The script of a query term or token: ``cjk``, the Unicode script name of its first
    letter (``latin``, ``cyrillic``, ``greek``, …), or None for one without letters (``2023``),
    which any memory can match."""
    if _CJK_RUN.match(term):
        return "cjk"
    for char in term:
        if char.isalpha():
            return unicodedata.name(char, "OTHER").split(" ", 1)[0].lower()
    return None


MAIN_SCRIPT_SHARE = 0.25  # a script below this share of a text's words is a loan, not its language


def scripts_of(text: str) -> frozenset[str]:
    """The scripts ``text`` is written in: each holding at least ``MAIN_SCRIPT_SHARE`` of its
    words, a CJK run counting as one word per two characters. A Chinese memory that names
    Redis is Chinese (an English question needs translation to reach it); one that is half
    English is both."""
    weight: dict[str, float] = {}
    for token in _TOKEN.findall(unicodedata.normalize("NFKC", text)):
        script = term_script(token)
        if script is not None:
            weight[script] = weight.get(script, 0.0) + (len(token) / 2 if script == "cjk" else 1.0)
    total = sum(weight.values())
    return frozenset(s for s, w in weight.items() if w >= MAIN_SCRIPT_SHARE * total)


def script_share(terms: list[str], scripts: frozenset[str] | tuple[str, ...]) -> float:
    """The share of query ``terms`` a memory written in ``scripts`` could match at all: 1 when
    they share a script (or the term has none), 0 for a Chinese term and an English memory."""
    if not terms:
        return 1.0
    known = set(scripts)
    can = [s is None or s in known for s in map(term_script, terms)]
    return sum(can) / len(can)


def fts_query(terms: list[str]) -> str:
    """An FTS5 MATCH expression that ORs the quoted terms (never interprets user syntax)."""
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


def query_entities(query: str) -> set[str]:
    """Candidate entities in a query: paths, file names, #tags and lowercase words."""
    text = unicodedata.normalize("NFKC", query)
    found = {m.group(0).lower().strip("./") for m in _PATH.finditer(text)}
    found |= {m.group(1).lower() for m in _TAG.finditer(text)}
    found |= {t for t in _TOKEN.findall(text.lower()) if t not in STOP_WORDS}
    return {f for f in found if f}


_MONTHS = {
    name: i
    for i in range(1, 13)
    for name in (calendar.month_name[i].lower(), calendar.month_abbr[i].lower())
}
_M = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DATE_PATTERNS = [
    (re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)? (?:of )?({_M})\.?,? (\d{{4}})\b"), "dmy"),
    (re.compile(rf"\b({_M})\.? (\d{{1,2}})(?:st|nd|rd|th)?,? (\d{{4}})\b"), "mdy"),
    (re.compile(rf"\b({_M})\.?,? (\d{{4}})\b"), "my"),
    (re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b"), "iso-day"),
    (re.compile(r"\b(\d{4})-(\d{2})\b(?!-)"), "iso-month"),
    (re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]"), "zh-day"),
    (re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月"), "zh-month"),
    (re.compile(r"\b(?:in|of|during|since|year) (\d{4})\b|(\d{4})\s*年"), "year"),
]


def _span(kind: str, groups: tuple[str | None, ...]) -> tuple[date, date]:
    g = [x for x in groups if x is not None]
    days = {
        "dmy": lambda: date(int(g[2]), _MONTHS[g[1]], int(g[0])),
        "mdy": lambda: date(int(g[2]), _MONTHS[g[0]], int(g[1])),
        "iso-day": lambda: date(int(g[0]), int(g[1]), int(g[2])),
        "zh-day": lambda: date(int(g[0]), int(g[1]), int(g[2])),
    }
    if kind in days:
        day = days[kind]()
        return day, day + timedelta(days=7)
    if kind == "my":
        year, month = int(g[1]), _MONTHS[g[0]]
    elif kind in ("iso-month", "zh-month"):
        year, month = int(g[0]), int(g[1])
    else:
        year = int(g[0])
        return date(year, 1, 1), date(year, 12, 31) + timedelta(days=31)
    last = calendar.monthrange(year, month)[1]
    return date(year, month, 1), date(year, month, last) + timedelta(days=31)


def query_periods(query: str) -> list[tuple[str, str]]:
    """ISO ``(start, end)`` ranges for the absolute dates a query mentions (see above)."""
    text = unicodedata.normalize("NFKC", query).lower()
    spans: list[tuple[str, str]] = []
    for pattern, kind in _DATE_PATTERNS:
        for match in pattern.finditer(text):
            try:
                start, end = _span(kind, match.groups())
            except (ValueError, KeyError):
                continue  # "31 February": not a date
            if 1900 <= start.year <= 2200:
                spans.append((start.isoformat(), end.isoformat() + "T23:59:59Z"))
            text = text.replace(match.group(0), " ")  # "8 May 2023" is not also "May 2023"
    return spans


# acronyms and capitalised words that are vocabulary, not the name of one thing: a question
# about "the UI" or "Friday" is not about something a store may not know
_VOCABULARY = frozenset(
    """ui ux url urls uri api apis pr prs mr http https cpu gpu ram ssd sql id ids os ci cd qa
    pdf csv json yaml yml xml html css ab ok ai ml cli gui db utc gmt am pm eta faq todo dm
    monday tuesday wednesday thursday friday saturday sunday january february march april may
    june july august september october november december""".split()
)
_LATIN_NAME = re.compile(r"[A-Za-z][A-Za-z0-9+#-]*[A-Za-z0-9+#]|[A-Za-z]")


def query_names(query: str) -> list[str]:
    """The words of a query that name a thing rather than say something (``GraphQL``,
    ``LDAP``, ``iOS``, ``Caroline``), lowercased: a capital inside a word, a capitalised word
    that does not start a sentence, letters with digits, or any Latin word of a Chinese
    question. A question about a name no memory contains is about something the store does
    not know (``recall.py``'s ``names_missing``)."""
    text = unicodedata.normalize("NFKC", query)
    chinese = bool(_CJK_RUN.search(text))
    out = []
    for i, m in enumerate(_LATIN_NAME.finditer(text)):
        word = m.group(0)
        lower = word.lower()
        if lower in STOP_WORDS or lower in _VOCABULARY or word == "I" or len(word) < 2:
            continue
        inner = any(c.isupper() for c in word[1:])
        capital = word[0].isupper() and i > 0 and not _after_sentence_end(text, m.start())
        mixed = any(c.isdigit() for c in word) and any(c.isalpha() for c in word)
        if chinese or inner or capital or mixed:
            out.append(lower)
    return list(dict.fromkeys(out))


def _after_sentence_end(text: str, at: int) -> bool:
    before = text[:at].rstrip()
    return not before or before[-1] in ".!?:;\"'(“‘。！？："
