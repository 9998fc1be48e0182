"""The shapes of the offline extractor's rule tables: a ``Rule`` (one pattern, the memory type
it gives, the part of the sentence to keep) and a ``Lexicon`` (what ``rules.py`` asks about a
sentence in one language, and its ordered ``rules``), with the two patterns every language
shares (``CJK``, ``URL``). ``lexicon.EN`` and ``lexicon_zh.ZH`` are the two instances.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..records import MemoryType

__all__ = ["CJK", "URL", "Lexicon", "Rule"]


@dataclass(frozen=True)
class Rule:
    id: str
    type: MemoryType
    pattern: re.Pattern[str]
    # The part of the sentence to keep (a named group); the whole sentence when absent.
    keep: str | None = None


@dataclass(frozen=True)
class Lexicon:
    lang: str
    explicit: re.Pattern[str]
    # v3: a standing instruction ("from now on …", "以后都…"): an explicit request whose
    # marker stays in the statement
    standing: re.Pattern[str]
    correction: re.Pattern[str]
    filler: re.Pattern[str]
    question: re.Pattern[str]
    hypothetical: re.Pattern[str]
    reported: re.Pattern[str]
    deictic: re.Pattern[str]
    hedge: re.Pattern[str]
    lead_hedge: re.Pattern[str]
    # v2: a standing rule asked as a question ("can you always …", "你能不能以后都…"): the
    # question wrapper comes off and the rest is read as the rule.
    standing_request: re.Pattern[str]
    # v2: a description of something going wrong ("the deploy is stuck on X", "构建报错了")
    # is never a project fact or a reference, however fact-like its shape.
    trouble: re.Pattern[str]
    rules: tuple[Rule, ...]
    # Shapes for sentences no rule matched (explicit requests, corrections).
    imperative: re.Pattern[str]
    personal: re.Pattern[str]
    substance: re.Pattern[str]
    because: re.Pattern[str]
    # v8: an opinion lead before a plan of the team ("I think we'll probably …", "我估计…"):
    # it comes off, and what is left is read as a tentative statement
    opinion: re.Pattern[str] = re.compile(r"(?!)")
    # v9: a question word inside a statement ("哪些服务要先过评审，我已经写在 wiki 里了", "改完告诉
    # 我动了哪些文件", "which services need review is listed in the wiki"): the span of the
    # group ``wh`` has its question words masked before ``question`` is asked
    embedded: re.Pattern[str] = re.compile(r"(?!)")


CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
URL = r"https?://[^\s，。、）)]+"
