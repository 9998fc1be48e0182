"""Offline revisions of what the person said before: a change, a retraction, a confirmation
(SPEC G2, L2; issue 21). Pure functions, like ``rules.py``: no I/O, no model, no clock.

* A **change** ("I now prefer spaces", "actually we moved to Vite", "我现在更喜欢用空格") is a
  statement the rules would extract, said with a change marker ("now", "anymore", "no longer",
  "switched", "现在", "改成", "不再" …). The marker is taken off before the rules read it (they
  drop "now" as the task at hand) and the result replaces the memory it changes.
* A **retraction** ("forget what I said about Redis", "别再记住 Redis 那条了") names what goes;
  it is never itself stored as a memory.
* A **confirmation** ("yes, exactly like that — keep using fixtures", "对，就这样做") strengthens
  the memory it confirms: the one its own words name, else the one the agent's last reply was
  about.

Finding the memory a revision is about is the runner's job (recall over the store); this module
says what to look for (``about``) and how to tell a real match from a neighbour (``related``):
they must share a name or a content word — or, for a change, read the same but for the value
("I prefer tabs" / "I prefer spaces").
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from . import rules
from .lexicon import CJK

__all__ = ["Revision", "keys", "old_value", "related", "revisions"]

Kind = Literal["change", "retract", "confirm"]


@dataclass(frozen=True)
class Revision:
    """One revision found in an utterance. ``candidate`` is the new statement of a change
    (and of a confirmation that says what to keep doing); ``about`` the words to find the
    memory with."""

    kind: Kind
    about: str
    quote: str
    rule: str
    candidate: rules.Candidate | None = None


_LEAD_EN = r"^\s*(?:(?:ok|okay|also|and|actually|please|pls|oh|hey|so|well|hmm|btw)[,!.\s]+)*"
_RETRACT_EN = re.compile(
    _LEAD_EN + r"(?:you can\s+|please\s+)?(?:forget|disregard|scratch|unlearn|stop remembering|"
    r"don'?t remember|no need to remember|you don'?t need to remember|ignore what i said)"
    r"(?:\s+about)?\s+(?:what i (?:said|told you|mentioned|wrote)(?:\s+(?:earlier|before))?|"
    r"(?:the|that|my|your)\s+(?:thing|bit|part|note|memory|fact|stuff|rule|preference)|"
    r"everything i said)?\s*(?:about|regarding|on|re:?|that|of)?\s*(?P<about>.+)$"
    r"|" + _LEAD_EN + r"(?:please\s+)?(?:drop|delete|remove|erase)\s+(?:the|that|your|my)\s+"
    r"(?:memory|note|fact)\s+(?:about|on|regarding|that)\s+(?P<about2>.+)$",
    re.IGNORECASE,
)
_RETRACT_ZH = re.compile(
    r"^\s*(?:(?:好的|好|对了|另外|还有|嗯|那|算了)[，,\s]*)*(?:请|麻烦)?(?:你)?(?:把)?"
    r"(?:别再记住?|不要再记住?|别记住|不用再?记(?:住|着)?|不用记得|不要记着|忘掉|忘记|忘了(?!说|告诉|讲|提)|"
    r"删掉|删除|去掉|移除)(?:掉)?"
    r"(?:我)?(?:之前|刚才|上次|以前)?(?:说的|讲的|提到的|说过的)?(?:关于)?\s*(?P<about>.+)$"
    r"|^\s*(?:请)?(?:你)?把(?P<about2>.+?)(?:忘了|忘掉|删了|删掉|去掉|移除)(?:吧|了|啊)*[。！!]*$"
)
# what is left after the retraction marker that only points: "Redis 那条了" → "Redis"
_POINTER_ZH = re.compile(
    r"(?:的)?(?:那条|这条|那个|这个|那件事|这件事|的事|记忆|设定|说法)?(?:记忆)?(?:吧|了|啊|哦)*$"
)
_TAIL = re.compile(
    r"\s*(?:[,，;；—–]|\s-\s|\bbecause\b|\bsince\b|\bwe\b|因为|我们).*$", re.IGNORECASE
)

_CONFIRM_EN = re.compile(
    r"^\s*(?:(?:yes|yep|yeah|yup|exactly|perfect|great|correct|right|good|nice|spot on)\b"
    r"[,!.\s—–-]*)+(?=.*\b(?:exactly|like that|like this|keep (?:doing|using|it|that)|"
    r"that'?s (?:it|right|the way|perfect)|spot on|perfect|more of this)\b)"
    r"|^\s*(?:keep (?:doing|it) (?:like )?(?:that|this)|"
    r"that'?s exactly (?:right|what i want(?:ed)?)|exactly like that|spot on)\b",
    re.IGNORECASE,
)
_CONFIRM_ZH = re.compile(
    r"^\s*(?:(?:对|对的|没错|是的|就是这样|很好|完美|可以|好)[，,！!。\s]*)+"
    r"(?:就|以后也|以后都|继续|一直)?(?:这样|这么|按这个|照这个|照这样)(?:做|写|来|弄|办|就行|就好)?"
    r"|^\s*(?:继续|保持)(?:这样|这么)(?:做|写|来)?|^\s*就(?:这样|这么)(?:做|写|来|办)"
)
_KEEP_EN = re.compile(
    r"\bkeep (?:doing|using|writing|running|adding)\s+(?P<what>.+)$", re.IGNORECASE
)
_KEEP_ZH = re.compile(r"(?:继续|一直|以后也|以后都)(?:用|写|加|跑|保持)\s*(?P<what>.+)$")

_CHANGE_EN = re.compile(
    r"\b(?:now|anymore|any more|no longer|instead|these days|nowadays|switched|moved|migrated|"
    r"changed|not \w+ anymore)\b",
    re.IGNORECASE,
)
_STRIP_EN = re.compile(r"\s*\b(?:now|these days|nowadays)\b,?", re.IGNORECASE)
_CHANGE_ZH = re.compile(r"现在|目前|已经|改成|换成|改用|改为|迁到|迁移到|切到|不再|其实")
_STRIP_ZH = re.compile(r"现在|目前")


def revisions(text: str, *, previous_assistant: str | None = None) -> list[Revision]:
    """The revisions in one utterance, one per sentence at most."""
    out: list[Revision] = []
    for start, end in rules._sentences(text):
        sentence = text[start:end].strip()
        if len(sentence) > rules.MAX_SENTENCE:
            continue
        zh = bool(CJK.search(sentence))
        found = _retraction(sentence, zh) or _confirmation(sentence, zh, previous_assistant)
        found = found or _change(sentence, zh, previous_assistant)
        if found is not None:
            out.append(found)
    return out


def _retraction(sentence: str, zh: bool) -> Revision | None:
    m = (_RETRACT_ZH if zh else _RETRACT_EN).match(sentence)
    if m is None:
        return None
    about = (m.group("about") or m.group("about2") or "").strip()
    about = _TAIL.sub("", about) if not zh else re.split(r"[，,；;。！!]", about)[0]
    about = _POINTER_ZH.sub("", about).strip(" .!。！") if zh else about.strip(" .!?")
    if not keys(about):
        return None  # "forget it", "忘了吧": nothing named, nothing to find
    return Revision("retract", about, sentence, f"{'zh' if zh else 'en'}.retract")


def _confirmation(sentence: str, zh: bool, previous: str | None) -> Revision | None:
    m = (_CONFIRM_ZH if zh else _CONFIRM_EN).match(sentence)
    if m is None:
        return None
    keep = (_KEEP_ZH if zh else _KEEP_EN).search(sentence)
    what = keep.group("what").strip(" .!。！") if keep else ""
    candidate = None
    if what and keys(what):
        lang = "zh" if zh else "en"
        text = (
            ("继续" if zh else "Keep using ") + what
            if not keep or zh
            else keep.group().strip(" .!")
        )
        candidate = rules.Candidate(
            text=text[0].upper() + text[1:] if not zh else text,
            type="feedback",
            confidence="confirmed",
            quote=sentence,
            explicit=False,
            rule=f"{lang}.confirm.keep",
            how_to_apply=(
                "在这个人的所有会话中都照此执行" if zh else "Follow this in every session."
            ),
        )
    about = what or (previous or "")
    if not keys(about):
        return None
    return Revision("confirm", about, sentence, f"{'zh' if zh else 'en'}.confirm", candidate)


def _change(sentence: str, zh: bool, previous: str | None) -> Revision | None:
    if not (_CHANGE_ZH if zh else _CHANGE_EN).search(sentence):
        return None
    stripped = (_STRIP_ZH if zh else _STRIP_EN).sub("", sentence)
    found = rules.extract(stripped, previous_assistant=previous)
    if len(found) != 1:
        return None
    cand = found[0]
    cand = rules.Candidate(**{**cand.__dict__, "quote": sentence})
    return Revision("change", cand.text, sentence, f"{cand.rule}+change", cand)


# -- telling the memory a revision is about from its neighbours ----------------------------
_GENERIC = frozenset(
    "the a an and or but to of in on at for with by from is are was were be been it this that "
    "these those i me my we our us you your they them he she his her its not no now use uses "
    "used using prefer prefers like likes want wants always never please just also really "
    "more less very much some any all every each about what said told remember forget thing "
    "things stuff bit part note memory fact rule preference actually instead anymore longer "
    "moved switched migrated changed keep doing do does did have has had should would will can "
    "could make made get got".split()
)
_GENERIC_ZH = frozenset(
    "我们 我的 你的 现在 已经 喜欢 欢用 使用 用的 一下 那条 这条 那个 这个 记住 别再 不要 以后 "
    "之前 说的 关于 都用 就是 这样 一直 继续 改成 换成 改用 不再 其实 目前 偏好 更喜 比较".split()
)
_WORD = re.compile(r"[A-Za-z0-9][\w.+#/-]*|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


def keys(text: str) -> set[str]:
    """The content keys of ``text``: names and content words (lowercased, a plural "s" off),
    and the bigrams of its Chinese runs, generic words left out."""
    out: set[str] = set()
    for token in _WORD.findall(unicodedata.normalize("NFKC", text)):
        if CJK.match(token):
            grams = [token[i : i + 2] for i in range(len(token) - 1)]
            out |= {g for g in grams if g not in _GENERIC_ZH}
            continue
        word = token.lower().rstrip(".")
        if word in _GENERIC or len(word) < 2:
            continue
        out.add(word[:-1] if len(word) > 3 and word.endswith("s") else word)
    return out


def _frame(text: str) -> list[str]:
    return re.findall(r"[\w'-]+", text.lower())


_OLD_EN = re.compile(
    r"\bfrom\s+(?P<a>[\w.+#-]+)\s+to\b|\binstead of\s+(?P<b>[\w.+#-]+)|"
    r"\bnot\s+(?P<c>[\w.+#-]+)\s+any\s?more\b|\bno longer (?:use|using|on|in)\s+(?P<d>[\w.+#-]+)",
    re.IGNORECASE,
)
_OLD_ZH = re.compile(
    r"从\s*(?P<a>[^\s，,。]+?)\s*(?:迁|换|改|切|转)|不再(?:用|使用)\s*(?P<b>[A-Za-z0-9][\w.+#-]*)|"
    r"不用\s*(?P<c>[A-Za-z0-9][\w.+#-]*)\s*了|而不是\s*(?P<d>[A-Za-z0-9][\w.+#-]*)"
)


def old_value(sentence: str) -> str | None:
    """What a change says is no longer so: "from Webpack to Vite" → "Webpack"."""
    m = (_OLD_ZH if CJK.search(sentence) else _OLD_EN).search(sentence)
    return next((v for v in m.groups() if v), None) if m else None


def related(revision: Revision, statement: str) -> bool:
    """Whether ``statement`` (an existing memory) is what ``revision`` is about."""
    shared = keys(revision.about) & keys(statement)
    if revision.kind != "change":
        return bool(shared)
    old = old_value(revision.quote)
    if old is not None:  # "we moved from Webpack to Vite" changes the memory naming Webpack
        return old.lower() in statement.lower()
    if shared and len(shared) * 2 >= len(keys(revision.about)):
        return True  # "I now prefer American English" / "I prefer answers in British English"
    if revision.candidate is None:
        return False
    # "I prefer spaces" changes "I prefer tabs": the same words but the last one
    new, was = _frame(revision.candidate.text), _frame(statement)
    return len(new) == len(was) >= 3 and new[:-1] == was[:-1] and new[-1] != was[-1]
