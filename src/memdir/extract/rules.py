"""The offline extractor: one user utterance → memory candidates, by rules (SPEC G2, G3, G5).

It runs with no model configured, so it is tuned for precision over recall: a rule fires only on
a shape that almost always means "keep this" (an explicit "remember …", a stated preference, a
correction of the agent, who the person is, a decision stated as a fact, where a thing lives),
and everything that looks like a question, a hypothetical, someone else's words or a one-off
task instruction is dropped first. Whatever it misses is left to the LLM extractor.

Pipeline, per utterance:

1. An explicit prefix ("remember that …", "记住…") or a correction marker ("no, that's wrong",
   "不对，…") is taken off the front; it marks the first sentence (``explicit``) or all of them.
2. The rest is split into sentences; a standing rule asked as a question ("can you always …",
   "你能不能以后都…") loses its question wrapper; each sentence is then dropped when it is a
   question, a hypothetical or reported speech (``_is_noise``), and otherwise tried against the
   rule table of its language, first match wins. Rules are ordered specific → general:
   reference, identity, habit, preference, project fact. A project fact or a reference that
   describes something going wrong ("the deploy is stuck on X", "构建报错了") is dropped.
3. A sentence no rule matches still gives a candidate when it was explicit (typed by its shape)
   or a correction of the assistant with some substance in it (a name, a version, a path).
4. A hedge anywhere in the sentence ("maybe", "might", "可能", "还没定") makes it ``tentative``.

Invariants: a sentence longer than ``MAX_SENTENCE`` characters is pasted content and gives
nothing (this also bounds the regex work per sentence); ``text`` is the user's own words with
the request/correction wrapper removed — never translated, names and versions untouched (G5);
``quote`` is the exact slice of the input it came from; ``rule`` names the rule that fired, so
a wrong candidate can be traced to one pattern; the module is pure (no I/O, no clock, no model)
and ``RULES_VERSION`` changes whenever a rule's behaviour does (STYLE habit 6).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..records import Confidence, MemoryType, shorten
from .implicit import Classifier, about_the_moment, shipped, too_thin
from .lexicon import CJK, EN, URL, Lexicon
from .lexicon_zh import ZH
from .speech import reading

__all__ = ["MAX_SENTENCE", "RULES_VERSION", "Candidate", "explicit_requests", "extract", "language"]

RULES_VERSION = "rules-v12"
_DUMMY_IT = re.compile(
    r"^(?:(?:honestly|tbh|fwiw),?\s+)?(?:i find it|it'?s|it is|it'?d|it would|it)\s", re.IGNORECASE
)
# v8: the families whose "it" is the dummy of "it helps when you …" / "it'd be great if you …"
# (v10: and "each time you add a dependency, tell me what license it has": the condition names it)
_DUMMY_IT_RULES = (".ease", ".helps", ".every-time", ".if-then")
# A memory is a sentence someone said. Anything longer is pasted content (a log, a document),
# left to the LLM extractor; the cap also keeps every rule's cost linear in the input.
MAX_SENTENCE = 400


@dataclass(frozen=True)
class Candidate:
    """One proposed memory. The facade checks it with the guard before anything is written."""

    text: str
    type: MemoryType
    confidence: Confidence
    quote: str
    explicit: bool
    rule: str
    why: str | None = None
    how_to_apply: str | None = None


def language(text: str) -> str:
    """``"zh"`` when the text has any CJK ideograph, else ``"en"``: mixed text ("我们用 Go")
    follows its grammar, which is the Chinese part. ``extract`` asks it of each sentence."""
    return "zh" if CJK.search(text) else "en"


_SHIPPED = "shipped"


def extract(
    text: str,
    *,
    previous_assistant: str | None = None,
    classifier: Classifier | str | None = _SHIPPED,
) -> list[Candidate]:
    """One user utterance → zero or more candidates (one per sentence at most).

    ``previous_assistant`` is the agent's last reply: when the utterance corrects it ("no, use
    X", "不对，…"), the candidate's ``why`` says what was corrected. ``classifier`` types the
    sentences no rule matched (``implicit.py``): the shipped model by default, ``None`` for
    the rules alone (v4)."""
    model = shipped() if isinstance(classifier, str) else classifier
    pasted = _mask_code(text)
    quoted = _mask_quotes(pasted)
    spans = _sentences(pasted)
    out: list[Candidate] = []
    seen: set[str] = set()
    quote_from: int | None = None
    carried = carried_fix = False
    for i, (start, end) in enumerate(spans):
        if not pasted[start:end].replace(_MASK, "").strip():
            continue  # a code block or a quoted ("> …") line: pasted, not said
        sentence = text[start:end]
        # each sentence by its own language: "Remember that X. 以后都用 pnpm。" holds two
        lex = ZH if language(sentence) == "zh" else EN
        sentence, explicit, correcting = _unwrap(sentence, quoted[start:end], lex, first=i == 0)
        explicit, correcting = explicit or carried, correcting or carried_fix
        if not sentence.strip(" ,，:：。.!！") and i + 1 < len(spans):
            # "No." / "记住：" / "Two things to remember:" alone: it carries to the next sentence
            quote_from = start if quote_from is None else quote_from
            carried, carried_fix = explicit, correcting
            continue
        quote = text[start if quote_from is None else quote_from : end].strip()
        found = _classify(sentence, lex, explicit=explicit, correcting=correcting, model=model)
        if found is not None:
            cand = _candidate(found, quote, explicit, correcting, previous_assistant, lex)
            if cand.text and cand.text not in seen:
                seen.add(cand.text)
                out.append(cand)
        # A request or a correction covers the sentence it introduced, not the rest.
        quote_from = None
        carried = carried_fix = False
    return out


def explicit_requests(text: str) -> list[Candidate]:
    """The explicit requests to remember in ``text`` (the hot path of G3): anywhere in the
    message, several per message, never inside pasted code or quoted text."""
    return [c for c in extract(text) if c.explicit]


# --------------------------------------------------------------------------- pipeline


@dataclass(frozen=True)
class _Found:
    rule: str
    type: MemoryType
    text: str
    tentative: bool


_SENTENCE_END = re.compile(
    r"(?<=[.!?])\s+|(?<=[。！？；;])\s*|\n+|"
    # v7: small talk, then the point, in one sentence — "had a great weekend, anyway I switched
    # to Fish", "周末爬山去了，对了我…": the turn starts a sentence of its own
    r"(?<=[,，])\s*(?=(?i:anyway|anyways|btw|by the way|oh and)\b|对了|顺便说)"
)


def _sentences(text: str) -> list[tuple[int, int]]:
    """Spans of the sentences of ``text``: ASCII stops only before a space, so "Go 1.22",
    "Fly.io" and URLs stay whole; Chinese stops end a sentence where they stand."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        if text[start : m.start()].strip():
            spans.append((start, m.start()))
        start = m.end()
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


_MASK = "\x00"
_FENCE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|^[ \t]*>[^\n]*", re.DOTALL | re.MULTILINE)
_QUOTED = re.compile(
    r"`[^`\n]+`|\"[^\"\n]*\"|“[^”\n]*”|‘[^’\n]*’|(?<!\w)'[^'\n]+'(?!\w)|「[^」\n]*」|『[^』\n]*』"
)
# where a clause starts inside a sentence: "Great, remember that …", "嗯，最后一件事：请记住…"
_CLAUSE = re.compile(r"[,，;；:：、]\s*|\s[—–-]+\s*|[—–]+\s*")


def _blank(m: re.Match[str]) -> str:
    return _MASK * len(m.group())


def _mask_code(text: str) -> str:
    """``text`` with fenced code and "> " quoted lines blanked out, same length (v3)."""
    return _FENCE.sub(_blank, text)


def _mask_quotes(text: str) -> str:
    """``text`` with inline code and quoted strings blanked too: a "remember" inside quotes is
    someone else's text (a label, a docstring, a line of a spec), not a request (v3)."""
    return _QUOTED.sub(_blank, text)


def _skip(pattern: re.Pattern[str], text: str, at: int) -> int:
    m = pattern.match(text[at:])
    return at + m.end() if m else at


def _unwrap(sentence: str, masked: str, lex: Lexicon, *, first: bool) -> tuple[str, bool, bool]:
    """Take a correction marker (first sentence only) and an explicit request off a sentence.

    ``masked`` is the sentence with quotes and code blanked: markers are looked for there. A
    request may open any clause ("Thanks, and remember that …", "好的，记住…"); what came
    before it is preamble and goes. A standing instruction ("from now on …", "以后都…") is a
    request too, and keeps its marker."""
    explicit = correcting = False
    at = _skip(lex.filler, masked, 0)
    if first:
        m = lex.correction.match(masked[at:])
        if m and m.group().strip():
            correcting = True
            at += m.end()
    starts = [at] + [m.end() for m in _CLAUSE.finditer(masked, at)]
    for s in starts:
        if s > at and lex.reported.search(masked[:s]):
            break  # "the README says: remember to …" quotes someone else
        begin = _skip(lex.filler, masked, s)
        m = lex.explicit.match(masked[begin:])
        if m is not None:
            rest = sentence[begin + m.end() :]
            if m.groupdict().get("ask"):
                rest = rest.rstrip(" ?？")  # "could you remember that X?" asks for X
            return rest, True, correcting
    rest = sentence[at:]
    body = lex.filler.sub("", rest.strip(), count=1)
    if lex.standing.search(body) and not lex.hedge.search(body):
        explicit = True
    return rest, explicit, correcting


def _is_noise(sentence: str, lex: Lexicon) -> bool:
    """Questions, hypotheticals and someone else's words are never memories."""
    return bool(
        _asks(sentence, lex) or lex.hypothetical.search(sentence) or lex.reported.search(sentence)
    )


# v9: the question words ``Lexicon.embedded`` finds inside a statement
_WH = re.compile(r"哪|什么|多少|怎么|谁|\b(?:which|what|who|where|how)\b", re.IGNORECASE)


def _asks(sentence: str, lex: Lexicon) -> bool:
    """A question, once the question words of an embedded clause are masked: "哪些服务要先过评审，
    我已经写在 wiki 里了" states where a list is; "哪些服务要先过评审？" asks (v9)."""
    probe = sentence
    if (m := lex.embedded.search(sentence)) is not None:
        start, end = m.span("wh")
        probe = sentence[:start] + _WH.sub(lambda w: "_" * len(w.group()), sentence[start:end])
        probe += sentence[end:]
    return bool(lex.question.search(probe))


def _classify(
    sentence: str,
    lex: Lexicon,
    *,
    explicit: bool,
    correcting: bool,
    model: Classifier | None = None,
) -> _Found | None:
    """The first rule that fits the sentence, or the fallback for explicit requests and
    corrections, or (v4) the classifier's type for a statement no rule knows the shape of;
    ``None`` for everything else."""
    body = lex.filler.sub("", sentence.strip(), count=1).strip()
    if (asked := lex.standing_request.match(body)) is not None:
        body = asked.group("rule")  # "can you always show me the diff" → the rule itself
    body = _trim(body)
    # v8: "I think we'll probably move to X", "我估计我们年底会…": the opinion lead goes and
    # what is left is a tentative statement of the plan
    opined = False
    if (lead := lex.opinion.match(body)) is not None and lead.end() < len(body):
        body, opined = body[lead.end() :], True
    # v3: a request the person made is kept even when it is a hypothetical or names someone
    # else ("remember that if the build fails, Dana gets paged"); a question still is not
    noise = _asks(body, lex) if explicit else _is_noise(body, lex)
    if not 2 <= len(body) <= MAX_SENTENCE or noise or (explicit and _EMPTY_REQUEST.match(body)):
        return None
    tentative = opined or bool(lex.hedge.search(body))
    body = lex.lead_hedge.sub("", body, count=1)  # "maybe we'll try X": the hedge is kept above
    # v12 (session 20): who is addressed and what speech act this is (speech.py)
    act = reading(body, lex.lang)
    if not explicit and not correcting and "third" in act and "to-agent" not in act:
        return None  # "新娘妈妈想要全场都用香槟色", "the art team wants …": a third party's wish
    for rule in lex.rules:
        m = rule.pattern.search(body)
        if m is None:
            continue
        text = m.group(rule.keep) if rule.keep else body
        # The main clause ends at a comma, a dash or (v2) a joining "and/but/so": in "our
        # staging env is at X and it resets nightly" the "it" is not the task at hand.
        main = re.split(
            r"[,，;；:：]|\s[—–-]\s|\s(?:and|but|so|which)\s", text, maxsplit=1, flags=re.IGNORECASE
        )[0]
        if not explicit and not correcting:
            # v6: the "it" of "it's easier for me when …" / "I find it easier to …" points at
            # nothing; the rest of the clause is still checked
            dummy = rule.id.endswith(_DUMMY_IT_RULES)
            probe = _DUMMY_IT.sub("", main, count=1) if dummy else main
            if dummy:  # "… instead of describing it": that "it" is the thing just named
                probe = re.sub(r"\bit\b", "", probe, flags=re.IGNORECASE)
            if rule.type == "user" or rule.id.startswith(_WE_RULES):
                # v7: "data engineer here", "I'm a contractor here", "we do trunk-based dev
                # here": with a person as the subject, "here" is the team, not the code
                probe = _HERE.sub("", probe)
            if rule.type in ("project", "user") and lex.substance.search(_rest(main, lex)):
                # v7: "we now use pnpm", "我们现在用的是 GitLab CI", "I mostly write Kotlin these
                # days": with a name in it, "now" dates the fact, it does not point at the task
                probe = _NOW.sub("", probe)
            probe = _ASIDE.sub("", probe)  # v7: "… if that matters lol"
            if lex.deictic.search(probe):
                # "don't change this file", "our tests are flaky today": about the task at
                # hand, not a standing rule or fact.
                return None
            if rule.type in ("project", "reference") and lex.trouble.search(body):
                return None  # "the deploy is stuck on Buildkite" describes a problem
        return _Found(rule.id, rule.type, text, tentative)
    found = _fallback(body, lex, explicit=explicit, correcting=correcting, tentative=tentative)
    if found is None and model is not None and not _about_the_moment(body, lex):
        verdict = model.judge(body, lex)
        if verdict.type is not None and not too_thin(body, verdict.type, lex):
            kind = verdict.type
            if kind in ("user", "project") and "to-agent" in act:
                # v12: "parents read the app on old phones, so test layouts at 360px": the
                # later clause tells the agent what to do — a rule for it, not a fact
                kind = "feedback"
            elif kind in ("user", "project") and "located" in act:
                kind = "reference"  # v12: "my family tree is on WikiTree, profile …"
            return _Found(f"{lex.lang}.implicit.{kind}", kind, body, tentative)
    return found


def _about_the_moment(body: str, lex: Lexicon) -> bool:
    """The checks every rule's match passes, for the classifier's too (v4): a main clause
    pointing at the task at hand ("this", "now", "这里"), a description of trouble, a one-off
    ask or an error report is about the moment, never a durable fact."""
    main = re.split(r"[,，;；:：]|\s[—–-]\s", body, maxsplit=1)[0]
    joined = re.split(r"\s(?:and|but|so)\s", main, maxsplit=1, flags=re.IGNORECASE)[0]
    if lex.substance.search(_rest(joined, lex)):
        # v11: with a name in it, the main clause ends at a joining "and/but/so" too, as for
        # the rules (v2): in "MSRV is 1.70 and I don't want to bump it", "it" is the version
        # just named (without one, "I'm doing kickboxing and it's fun" stays small talk)
        main = joined
    if lex.substance.search(_rest(main, lex)) or _ZH_NOW_PRACTICE.search(main):
        # v11: as for the rules (v7), "训练集群现在是 k8s 上跑 volcano", "排班现在还是用 excel":
        # with a name in it, "now" dates the fact, it does not point at the task at hand
        main = _NOW.sub("", main)
    return bool(
        lex.deictic.search(main) or lex.trouble.search(body) or about_the_moment(body, lex.lang)
    )


def _fallback(
    body: str, lex: Lexicon, *, explicit: bool, correcting: bool, tentative: bool
) -> _Found | None:
    """Type a sentence no rule matched, when the person asked for it to be kept or was
    correcting the assistant; otherwise it is not a memory."""
    tag = lex.lang
    if explicit:
        if lex.lang == "en" and body[:3].lower() == "to ":
            body = body[3:]  # "remember to run the linter": an instruction
            return _Found(f"{tag}.explicit.feedback", "feedback", body, tentative)
        if lex.personal.match(body):
            return _Found(f"{tag}.explicit.user", "user", body, tentative)
        if lex.imperative.match(body) or lex.standing.search(body):
            return _Found(f"{tag}.explicit.feedback", "feedback", body, tentative)
        if re.search(URL, body):
            return _Found(f"{tag}.explicit.reference", "reference", body, tentative)
        return _Found(f"{tag}.explicit.project", "project", body, tentative)
    # A correction needs a name, a version or a path after its first word: "no, use this one"
    # or "actually it's fine" say nothing worth keeping.
    rest = _rest(body, lex)
    # v7: or a contrast with what the assistant assumed — "nope, we're on pnpm, not yarn",
    # "不是，我们用 pnpm，不用 yarn" — whatever the case of the names
    if re.fullmatch(r"(?i:not)\s+\S+|不是\s*\S+", body):
        return None  # "No, not Jest." — what it is comes in the next sentence
    if correcting and (lex.substance.search(rest) or _CONTRAST.search(body)):
        if lex.imperative.match(body):
            return _Found(f"{tag}.correction.instead", "feedback", body, tentative)
        return _Found(f"{tag}.correction.fact", "project", body, tentative)
    return None


_HERE = re.compile(r"\bhere\b(?!'s)", re.IGNORECASE)
_NOW = re.compile(
    r"(?<!for )(?<!right )\b(?:now|these days|nowadays|currently)\b|现在|如今", re.IGNORECASE
)
# v11: 现在 before how the work is done — "调度现在按三公里一个网格派单", "现在统一走审批": the
# current practice, not the moment (never 现在 alone before an action: "现在跑一下")
_ZH_NOW_PRACTICE = re.compile(
    r"现在(?:还|都|已经|一般|统一)?(?:是|按|采用|走|改成了?|换成了?)(?!不是)[^，。,]{4,}"
)
_ASIDE = re.compile(
    r"[,\s]+(?:if (?:that|it) (?:matters|helps)|in case (?:that|it) matters)\b.*$", re.IGNORECASE
)


def _rest(text: str, lex: Lexicon) -> str:
    """The sentence after its first word (English) or character (Chinese): a capitalised
    first word is no name."""
    return text.split(None, 1)[1] if lex.lang == "en" and " " in text else text[1:]


_WE_RULES = ("en.project.we-use", "en.project.we-are-a", "en.project.decided")
_CONTRAST = re.compile(
    r"[,;]\s*not\s+\w|\b(?:instead of|rather than)\s+\w|"
    r"[，,]\s*(?:不是|不用|而不是)\s*\S|而不是\s*\S",
    re.IGNORECASE,
)
# v3: "remember this for next time", "记住这个": a request that names nothing to keep
_EMPTY_REQUEST = re.compile(
    r"^(?:for |until |in )?(?:next time|later|the future|future reference|now|it|that|this|these|"
    r"those|everything|all of (?:it|this|that)|me)(?:\s+(?:for|until)\s+(?:next time|later|"
    r"the future|now))?$|^(?:这个|那个|这些|那些|这一点|这条|那条|它|下次|以后|一下)$",
    re.IGNORECASE,
)
_TRAILING = re.compile(r"[\s.!！。~～…]+$")
_CAPITALIZE = re.compile(
    r"^(?:use|never|don't|dont|do|stop|prefer|keep|make|avoid|write|run|we|our|the|it's|its|"
    r"it|i|i'm|i'd|my|always|please|add|put|call|check|ask|reply|answer|explain|test|commit|"
    r"push|deploy|format|name|follow|respond|switch|stick|go|not|no|you|close|open|create|"
    r"delete|be|a|an|when|before|after|all|every|each|only|tests?|staging|production|prod)\b"
)


def _trim(text: str) -> str:
    return _TRAILING.sub("", text.strip())


def _clean(text: str, lex: Lexicon) -> str:
    """The statement to store: trimmed, spaces collapsed, an English sentence capitalised when
    it starts with a common word (names like "pnpm" or "iOS" keep their case)."""
    text = _trim(re.sub(r"[ \t]+", " ", text))
    if lex.lang == "en" and _CAPITALIZE.match(text):
        text = text[0].upper() + text[1:]
    if lex.lang == "en":
        text = re.sub(r"^I'm\b|^i'm\b", "I'm", text)
    return text


def _candidate(
    found: _Found,
    quote: str,
    explicit: bool,
    correcting: bool,
    previous: str | None,
    lex: Lexicon,
) -> Candidate:
    why: str | None = None
    if correcting and previous:
        said = _trim(" ".join(previous.split()))
        why = f"Corrects the assistant, who had said: {shorten(said, 120)}"
    elif (m := lex.because.search(found.text)) is not None:
        why = _trim(m.group("why"))
    how = _HOW.get(found.type)
    return Candidate(
        text=_clean(found.text, lex),
        type=found.type,
        confidence="tentative" if found.tentative else "confirmed",
        quote=quote,
        explicit=explicit,
        rule=found.rule,
        why=why,
        how_to_apply=how(lex.lang) if how else None,
    )


_HOW: dict[str, Callable[[str], str]] = {
    "feedback": lambda lang: (
        "在这个人的所有会话中都照此执行" if lang == "zh" else "Follow this in every session."
    ),
}
