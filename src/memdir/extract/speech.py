"""Who a sentence is addressed to and what kind of speech act it is (session 20, issue 21).

Every fresh batch of conversations lost English precision to talk that is not addressed to the
agent, each time in a new shape: a third party's wish or habit said about them ("the art team
wants every atlas at 2048", "our CFO keeps asking for merged cells", "新娘妈妈想要全场香槟色"), a
status line ("fleet rebalancing finished an hour ago", "会员数据刚导完"), and — as often — a
durable instruction typed as a fact because the instruction sits in a later clause ("parents read
the app on old phones, so test layouts at 360px": that is for the agent, a ``feedback``).

Word lists for one conversation do not carry to the next; the *structure* does. This module reads
a sentence's clauses and says, in a few tags:

* ``to-agent`` — a clause after the first is an instruction to the agent: it opens with a verb
  in the imperative, "don't", "never", "please", or speaks to "you" ("…, so keep tips short",
  "…，所以回答我的时候先给结论"). The sentence is then a rule for the agent, whatever its first
  clause describes.
* ``third`` — the main clause's subject is a third party (a person or a role, "my buddy", "the
  partners", "Dr Patel", "主管", "加盟商"; never I/we/you) and its verb is one of attitude,
  speech or wanting ("wants", "likes", "keeps telling", "swears by", "希望", "老想", "都说"):
  someone else's wish or habit, reported, not the person's instruction.
* ``located`` (English) — the sentence says where a kind of information is kept ("the
  retention schedule is on the intranet under Records > Policies"); the classifier's fact or
  person becomes a ``reference``.
* ``narration`` (English) — a past event at a point in time ("spent saturday on the
  allotment", "the translation went out at 3pm"): gated like ``status``.
* ``status`` — how a thing stands at the moment or a run just ended ("is fixed now", "came back
  online", "finished about an hour ago", "刚统计完", "恢复正常了").

The tags are features of the implicit classifier (``implicit.features``) and two of them gate:
``third`` and ``status`` without a ``to-agent`` clause are never a durable memory
(``implicit.about_the_moment`` for the classifier; ``rules`` for a non-explicit rule match),
and ``to-agent`` types a classifier's fact as ``feedback``. Pure functions of the text.
"""

from __future__ import annotations

import re

from .lexicon_words import _PLACE_NOUNS, _TOOLS

__all__ = ["reading", "third_party", "to_agent"]

# the clauses after the first: at a comma, a semicolon, a dash, or a joining "so"/"and so"
_EN_LATER = re.compile(r"(?:[,;:]|\s[—–-]\s|\s(?:and\s+)?so\s+)\s*(?:so\s+|and\s+|but\s+)?", re.I)
_EN_IMPERATIVE = re.compile(
    r"(?:please\s+|pls\s+|just\s+|then\s+)?(?!(?:don'?t|do not) (?:laugh|judge|worry|ask|mind|"
    r"get me started|hate|kill|tell anyone)\b)(?!(?:never|always|only)\s+\S+\s*$)(?:don'?t|do not|"
    r"never|always|keep|flag|test|use|skip|"
    r"avoid|write|make sure|make|give|show|put|stick|assume|check|ask|tell|stop|leave|prefer|"
    r"list|mark|include|explain|suggest|default to|go (?:easy|light|straight)|start with|"
    r"lead with|err on|warn me|ping me|no need to|try to|only)\b",
    re.I,
)
_EN_YOU = re.compile(
    r"(?:when\s+|if\s+|whenever\s+)?you(?:'ll|'d)?\s+(?!know\b|see\b|guys\b)", re.I
)
# a third party as the subject: a possessive or an article and a noun, or a name (two capitalised
# words, a title and a name), then words of attitude, speech or wanting
_EN_THIRD_SUBJ = (
    r"(?:(?:my|our|the|his|her|their|a|one of (?:my|our|the))\s+(?!team\b|company\b|app\b|"
    r"site\b|server\b|service\b|code\b|project\b|repo\b|system\b)[\w'-]+(?:\s+[\w'-]+){0,5}?"
    r"|(?-i:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+[A-Z][a-z]+|[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)"
    r"|(?:he|she|they|everyone|everybody|someone|somebody|people))"
)
_EN_THIRD_VERB = (
    r"(?:\s+(?:also|still|always|really|just|never|apparently|now))?\s+(?:wants?|wanted|"
    r"would (?:like|love|prefer)|likes?|liked|loves?|hates?|prefers?|asked|asks|keeps? "
    r"(?:asking|telling|saying|bugging|pushing|insisting|wanting)|says|said|told|swears? by|"
    r"insists?|insisted|reckons?|is convinced|are convinced|is obsessed|are obsessed|wish(?:es)?|"
    r"hopes?|is (?:pushing|asking) for|are (?:pushing|asking) for|wants? us to|were (?:pretty |"
    r"very )?firm|was (?:pretty |very )?firm|(?:writes|does|codes|builds) (?:everything|it all))\b"
)
_EN_THIRD = re.compile(r"^" + _EN_THIRD_SUBJ + _EN_THIRD_VERB, re.I)
_EN_NOT_THIRD = re.compile(r"^(?:i|i'm|we|we're|you|my team|our team|this|that|it)\b", re.I)
_EN_STATUS = re.compile(
    r"\b(?:is|are|'s|'re)\s+(?:all\s+)?(?:fixed|back|green|sorted|resolved|working|live|up|"
    r"done|merged|deployed|restored|online)\s+(?:now|again)\b|"
    r"\b(?:came|is|are|went)\s+back\s+(?:online|up)\b|"
    r"\b(?:a few|about|around|like|\d+|an?|ten|five|twenty|thirty)\s+(?:minutes?|mins?|hours?|"
    r"secs?|seconds?)\s+ago\b|\bjust now\b|\b(?:finished|completed|landed) (?:about |around )?"
    r"(?:an?|\d+|ten|five)\b|^(?:tests?|ci|builds?|checks?)\s+(?:are|is)\s+(?:green|red)\b|"
    r"(?<!'s )(?<!not )(?<!been )(?<!be )(?<!n't )\bsigned off\b|\bcase closed\b",
    re.I,
)
# a day's narration: a past event at a point in time — "spent saturday on the allotment", "the
# translation went out at 3pm", "yesterday I spent four hours chasing a bug"
_EN_WHEN = (
    r"(?:on\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|yesterday|today|"
    r"this morning|last night|earlier|at \d{1,2}(?::\d\d)?\s?(?:am|pm)?"
)
_EN_PAST = r"spent|went|came|got|had|took|did|called|met|drove|flew|ran|tried|watched|finished"
_EN_NARRATION = re.compile(
    r"\b(?:" + _EN_PAST + r")\b.{0,40}?\b(?:" + _EN_WHEN + r")\b|"
    r"\b(?:" + _EN_WHEN + r")\b,?\s+(?:i|we)\s+(?:" + _EN_PAST + r")\b",
    re.I,
)
# what the agent does, as the subject: "whatever you suggest …", "anything you write for …"
_EN_YOUR_WORK = re.compile(
    r"^(?:whatever|anything|everything|any \w+|all the \w+)\s+(?:that\s+)?you\s+(?:suggest|write|"
    r"give|show|generate|send|make|produce|draft|propose|recommend|build|output)\b",
    re.I,
)
# an instruction behind a scope: "for the gym app skip the fancy frameworks"
_EN_SCOPED = re.compile(r"^for (?:the|my|our|this|that|any|all)\b[^,]{0,30}?\s+(?=\w)", re.I)
# where a thing is kept: "the retention schedule is on the intranet under …", "my family tree is
# on WikiTree": a subject that is no running system (a site, an app, a server is *hosted* on a
# platform, a project fact), then is/lives in a tool or a place
_EN_LOCATED = re.compile(
    r"^(?:the|my|our|all|all the)?\s*(?!(?:site|app|website|server|service|backend|frontend|"
    r"code|api|db|database|stack|infra)\b)[\w'&/ -]{2,40}?\b(?:is|are|lives?|sits?|stays?)\s+"
    r"(?:all\s+)?(?:kept\s+|stored\s+)?(?:on|in|under)\s+(?:the\s+|our\s+|my\s+|a\s+|an\s+)?"
    r"(?:shared\s+|team\s+|company\s+)?(?:intranet|wiki|(?:"
    + _TOOLS
    + r")\b|(?:"
    + _PLACE_NOUNS
    + r")\b)",
    re.I,
)
# Chinese: the clause after a comma opens with an instruction ("，所以回答我的时候…", "，别…")
_ZH_LATER = re.compile(r"[，,；;：:]\s*(?:所以|因此|那就|那|就|麻烦)?\s*")
_ZH_INSTRUCTION = re.compile(
    r"^(?!别(?:弄|搞)(?:错|混)|不要(?:弄|搞)(?:错|混))(?:请|你|您|帮我|给我|跟我|回答我|回我|以后|"
    r"每次(?!都是|我)|记得|务必|一定要|千万|别|不要|不用|少用|多用|尽量|先给|先说|统一)"
)
_ZH_THIRD = re.compile(
    r"^(?:我们|我|咱们|他们|她们)?的?(?:[\u4e00-\u9fff]{0,4}?(?:妈妈|爸爸|妈|爸|们|长|总|哥|姐|"
    r"老师|师傅|教练|员|商|户|娘|郎|板|导|管|编|伴|友|事|婆|公|甲方|客户|用户|同学|对象|孩子|家长)|"
    r"群里有人|有人|大家|别人|他|她|人家)"
    r"(?:都|也|还|老|总|一直|又|就|非|倒|自己)?(?:希望|想要|想让|老想|总想|喜欢|爱|说|坚持|非要|"
    r"要求我|觉得|嫌|吵着|嚷着|天天说|一直说|老说|总说)"
)
_ZH_NOT_THIRD = re.compile(
    r"^(?:我们(?:组|团队|公司|项目)?(?:用|是|在)|我(?:也|还|就)?(?:喜欢|希望|想))"
)
_ZH_STATUS = re.compile(
    r"刚[^，。,]{0,8}?(?:完|好|弄好|结束)|(?:跑|导|统计|重启|部署|装|弄|修|传|下载|同步)完了?"
    r"(?:了|，|,|$)|恢复(?:正常)?了|(?:现在|已经)?正常了|好了[，,。]?\s*是|已经(?:好|修好|搞好)了"
)


def _later(body: str, zh: bool) -> list[str]:
    pattern = _ZH_LATER if zh else _EN_LATER
    parts: list[str] = []
    for m in pattern.finditer(body):
        rest = body[m.end() :].strip()
        if rest:
            parts.append(rest)
    return parts


_IDENTITY = re.compile(r"^(?:i'?m|i am)\s|^我是", re.I)


def to_agent(body: str, lang: str) -> bool:
    """A clause after the first tells the agent what to do (see the module docstring); not
    after an identity ("I'm self-taught, so skip the jargon" keeps the person's fact first)."""
    zh = lang == "zh"
    if _IDENTITY.match(body):
        return False
    if not zh and (m := _EN_SCOPED.match(body)) and _EN_IMPERATIVE.match(body[m.end() :]):
        return True
    if not zh and _EN_YOUR_WORK.match(body):
        return True  # "whatever you suggest for the scanners has to work offline"
    for part in _later(body, zh):
        if zh:
            if _ZH_INSTRUCTION.match(part):
                return True
        elif _EN_IMPERATIVE.match(part) or _EN_YOU.match(part):
            return True
    return False


def third_party(body: str, lang: str) -> bool:
    """The main clause reports a third party's wish, habit or words (see the docstring)."""
    if lang == "zh":
        return bool(_ZH_THIRD.search(body)) and not _ZH_NOT_THIRD.match(body)
    return bool(_EN_THIRD.match(body)) and not _EN_NOT_THIRD.match(body)


def reading(body: str, lang: str) -> frozenset[str]:
    """The tags of one sentence: ``to-agent``, ``third``, ``status``, ``located``,
    ``narration`` (any of them)."""
    tags: set[str] = set()
    if to_agent(body, lang):
        tags.add("to-agent")
    if third_party(body, lang):
        tags.add("third")
    if (_ZH_STATUS if lang == "zh" else _EN_STATUS).search(body):
        tags.add("status")
    if lang == "en" and _EN_LOCATED.search(body):
        tags.add("located")
    if lang == "en" and _EN_NARRATION.search(body):
        tags.add("narration")
    return frozenset(tags)
