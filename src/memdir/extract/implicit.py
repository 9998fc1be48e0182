"""The implicit-fact classifier of the offline extractor (rules-v4, issue 21).

The rules in ``lexicon.py`` fire on shapes that almost always mean "keep this"; every new batch
of conversations showed the same thing — a durable fact said in a shape no rule had seen yet
("The mobile app is React Native 0.74.", "预发环境每天凌晨两点会清库。"). This module decides,
for a sentence no rule matched and that the pipeline did not already drop (a question, a
hypothetical, reported speech), whether it states a durable fact about the person, the project,
a preference for how to work, or where something lives — and which of the four.

It is a multinomial logistic regression over sparse binary features (word and name-shape
n-grams in English, character n-grams in Chinese, and the lexicon's own flags: a hedge, a
pointer at the task at hand, trouble, a name). Its weights ship in ``implicit_model.json``,
written by ``bench/train_implicit.py`` from the development fixtures only (never from the
batches scored once); the threshold per language was chosen there by cross-validation for
precision. Inference is pure Python: a dictionary look-up per feature, no numpy, no model
server, deterministic. The rules still produce the statement: what this module returns is a
type, and the sentence (filler and wrapper removed) is what is stored.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ..records import MemoryType
from .lexicon_types import Lexicon
from .lexicon_words import _EN_DOCS, _EN_ROLE, _PLACE_NOUNS, _TOOLS, _ZH_PARTS
from .lexicon_zh_words import _ZH_COMPLAINT, _ZH_DOCS, _ZH_PLACES, _ZH_ROLE, _ZH_WHEN
from .speech import reading

__all__ = [
    "MODEL_PATH",
    "Classifier",
    "Verdict",
    "about_the_moment",
    "features",
    "shipped",
    "too_thin",
]

MODEL_PATH = Path(__file__).with_name("implicit_model.json")

# A name in running text: capitalised after the first word, camel-case, or with a digit, dot,
# slash or hash inside ("Opsgenie", "macOS", "eu-west-1", "Fly.io", "docs/adr", "#ops").
_EN_TOKEN = re.compile(r"[A-Za-z0-9][\w.+#/'-]*|#[\w-]+|[^\w\s]")
_EN_NAME = re.compile(r"^(?:[A-Z][\w.+#/-]*|[a-z]+[A-Z][\w.+#/-]*|.*\d.*|.*[./#].*\w)$")
_LATIN_RUN = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+#/_-]*(?:\s+[A-Za-z0-9][A-Za-z0-9.+#/_-]*)*")


# What the classifier path drops before asking the model (v4), beyond the rules' own checks:
# a one-off ask or plan ("fix the typo in the README", "let's try 60s", "先别提交", "把 X 改一下")
# and an error being reported. A standing cue (always, whenever, by default, 以后, 每次, 的时候 …)
# keeps an imperative: "Use British spelling in user copy, not American" is a rule.
_EN_STANDING_CUE = re.compile(
    r"\b(?:always|never|every|whenever|when you|when writing|before|after|by default|unless|"
    r"instead|rather than|not|no|any|all|only|prefer|in general|from now on)\b",
    re.IGNORECASE,
)
_EN_ONE_OFF = re.compile(
    r"^(?:let'?s|let me|lemme|going to|gonna|i'?ll|i will|i'?m going to|i'?m gonna|brb|back in|"
    r"can you|could you|pls|please)\b|"
    r"^(?:fix|add|remove|rename|change|update|revert|merge|run|rerun|re-run|try|check|make|write|"
    r"create|delete|move|show|give|help|explain|look|bump|refactor|implement|deploy|ship|push|"
    r"commit|open|close|send|tell|install|test|debug|drop|split|convert|generate|replace|"
    r"clean|undo|restart|rollback|roll back|paste|print|format|review|go|"
    # v7: more verbs of a one-off task — drafting, plotting, summarising, looking something up
    r"draft|plot|chart|draw|sketch|outline|summari[sz]e|translate|compute|calculate|count|list|"
    r"find|search|grep|compare|analy[sz]e|investigate|profile|benchmark|measure|estimate|"
    r"simplify|optimi[sz]e|rewrite|port|wire|hook up|set up|setup|spin up|scaffold|mock|stub|"
    r"document|annotate|describe|walk me through|compose|reply to|answer|read|parse|load|save|"
    r"export|import|upload|download|fetch|pull|clone|build|compile|lint|sort|filter|group|sum|"
    r"render|visuali[sz]e|extract|inline|wrap|unwrap|retry|ping|query|scan|audit|verify|"
    r"validate|double-check|prepare|prep|book|schedule|email|invite|cancel|reschedule|order|"
    r"rank|tag|label|classify|proofread|polish|tighten|shorten|expand|elaborate|continue|"
    r"finish|complete|tidy|ignore|share|post|upgrade|downgrade|patch|reply|"
    # v11 (s19b): arranging what is at hand — "put the stop list in alphabetical order"
    r"put|arrange|reorder|alphabeti[sz]e|indent|align|capitali[sz]e|lowercase|uppercase)\b",
    re.IGNORECASE,
)
# v7: asking to disregard a message ("…, ignore that last line", "发错了，别管那条") is about
# the conversation, never a fact, wherever it stands in the sentence
_DISREGARD = re.compile(
    r"\bignore (?:that|this|the last|my last|the previous|what i)\b|^sorry,? wrong\b|"
    r"发错了|别管那条|忽略(?:那条|这条|上一条|刚才)",
    re.IGNORECASE,
)
# v5: an event just told, or the person's own memory lapse — "never mind, I figured it out",
# "I always forget the flags for tar", "我用 Python 写了个脚本" — not a standing fact
_EN_EVENT = re.compile(
    r"^(?:never ?mind|nvm)\b|\b(?:figured it out|forget|forgot|forgetting|can'?t remember)\b|"
    # v8: "meeting on Friday, so I'll be slow to reply": the person's next hours (a dated
    # life plan is a rule of its own, tried before the model)
    r"\bi'?ll be (?:a bit |a little )?(?:slow|late|away|afk|offline|out|quiet|unavailable|back)\b",
    re.IGNORECASE,
)
_ZH_EVENT = re.compile(
    r"了(?:个|一个|一下|一版|一遍)|忘了|记不住|想不起来|"
    # v10: the person's own act just done ("…，我合了"), a musing given up ("算了不纠结了"), a
    # former job's setup ("我上一家公司一直用 Jenkins")
    r"[，,]\s*我(?!们)[\u4e00-\u9fff]{1,3}了[。！!~～]*$|算了|不纠结|"
    r"上一家|上家公司|前东家|以前的公司|之前的公司|之前那家"
)
# v9: declining with nothing to keep — "I'd rather you didn't, it's fine as it is", "I'd rather
# not talk about the reorg": the person's own wish of the moment, never a rule for the agent
_EN_DECLINE = re.compile(
    r"^i'?d (?:rather|prefer)\s+(?:you\s+)?(?:not|didn'?t|did not|don'?t)\s*(?:[,.!;]|$)|"
    r"^i'?d (?:rather|prefer)\s+not\s+(?!(?:have|see|get|use|be)\b)\w",
    re.IGNORECASE,
)
# v11 (implicit-v5): a status line — how far a job got, what a run did, what a third party
# will do, what the person does later today: "kernel build finished in 14 minutes", "mapping is
# 80% done", "support got back to me, they'll reopen the ticket", "I'll look at it after lunch"
_EN_STATUS = re.compile(
    r"\bfinished in \d|\b(?:build|job|run|tests?|deploy|migration|upload|export|import|sync|"
    r"backup|download|install|compile|pipeline)s? (?:finished|completed|passed|failed|broke)\b|"
    r"\d+\s?(?:%|percent) (?:done|finished|complete|there)\b|"
    r"\b(?:half|mostly|almost|nearly) (?:done|finished)\b|"
    r"\b(?:got back to (?:me|us)|sold out|still (?:has|have|shows?|throws?|gives?) an?|"
    r"they'?ll|just (?:finished|landed|merged|shipped))\b|"
    # a run's or a release's result, a verdict on a past season (s19b): "the feed validated with
    # 2 warnings", "the mod got 300 downloads", "vintage 2021 was a disaster"
    r"\b(?:validated|passed|failed|built|compiled|finished|ran|deployed) with \d+\b|"
    r"\bgot (?:\d[\d,.]*k?|a few|some|lots of|hundreds of|thousands of) (?:downloads|views|"
    r"stars|likes|signups|sales|orders|hits|comments|visitors|installs|reviews)\b|"
    r"\b(?:was|were) (?:a|an) (?:total |complete |absolute )?(?:disaster|mess|nightmare|"
    r"success|hit|blast|flop|write-off)\b|"
    r"\b(?:after lunch|before lunch|this afternoon|this morning|tonight|tomorrow|later today|"
    r"in a bit|in an hour|by (?:monday|tuesday|wednesday|thursday|friday|eod|end of day|"
    r"tomorrow))\b",
    re.IGNORECASE,
)
# v11: a third party's request of the moment — "the customer on the phone wants a quote for 6
# panels by friday" (someone else's wish, said of a role, with words between)
_EN_THEIR_ASK = re.compile(
    r"^(?:the|a|my|our|this|one) (?:\w+ )?(?:customer|client|user|caller|boss|manager|lead|cto|"
    r"ceo|director|supervisor|partner|landlord|tenant|guy|lady|person|vendor|supplier)s?\b"
    r"[^,.;]{0,30}?\b(?:wants|wanted|asked|asks|needs|needed|requested|requests)\b",
    re.IGNORECASE,
)
# v11: progress of a piece of work — "迁移进度大概百分之八十", "完成了 80%"
_ZH_STATUS = re.compile(r"进度|百分之[\d一二三四五六七八九十]+|完成了?\s*\d+\s*%|做完了|搞定了")
_EN_ERROR = re.compile(
    r"\b(?:error|exception|traceback|errno|(?-i:E[A-Z]{4,})|exit code|status code|"
    r"stack trace|\d{3} (?:error|response))\b",
    re.IGNORECASE,
)
_ZH_STANDING_CUE = re.compile(
    # v10: never the 以后/之后 of "later" ("日志以后再加")
    r"以后(?!再)|今后|每次|默认|一律|总是|永远|始终|的时候|之前|之后(?!再)|统一|都要|都用"
)
_ZH_ONE_OFF = re.compile(
    r"^(?:先|把|帮我|帮忙|麻烦|请帮|给我|你先|我先|我去|待会|等下|等一下)|"
    # v10: "给这个服务生成一个 Dockerfile": something made for a thing, once
    r"^给[^，。,]{1,12}?(?:生成|写|做|加|建|画|弄|配)(?:个|一个|一份|一下|一段|几个)|"
    # v10: a verb of making and a measure word open a one-off ask — "写个脚本把日志打包…"
    r"^(?:写|做|弄|搞|建|加|画|生成|出|列|查|跑|改)(?:个|一个|一下|一份|一段|几个|一版|张|一张)|"
    # v5: an ask in a later clause — "磁盘到 95% 了，帮我看看是什么占的"
    r"[，,]\s*(?:帮我|帮忙|麻烦你?|你帮我|请帮我)|"
    # v5: the person's own doubt or mood, alone — "我也不确定", "累死了"
    r"^我?(?:也|还)?(?:不确定|不知道|不清楚|没想好)[。！!]*$|"
    r"(?:一下|试试|看看|试试看|吧|好吗)[。！!~～]*$"
)
_ZH_ERROR = re.compile(r"Error|Exception|Traceback|E[A-Z]{4,}|退出码|报\s*[A-Za-z]|异常")
# someone's opinion or suggestion ("my lead thinks we should …", "组长觉得应该 …") is not yet
# how things are
_EN_OPINION = re.compile(
    # v12: not what the agent is told to suggest or not ("whatever you suggest has to work
    # offline", "so don't suggest cloud OCR"): an instruction addressed to it, no one's opinion
    r"(?<!\byou )(?<!n't )(?<!not )(?<!never )"
    r"\b(?:thinks?|believes?|reckons?|suggests?|suggested|wants us to|feels like)\b|"
    # v8: a doubt is no fact — "not sure we even need caching there", "no idea if …"
    r"^(?:i'?m\s+)?not (?:sure|certain|convinced)\b|^i'?m (?:pretty|fairly|quite) sure i\b|"
    # v9: hearsay is no fact either — "the machine gets cleaned every Friday apparently"
    r"\bapparently\b|"
    r"^no idea\b|^(?:i\s+)?(?:don'?t|do not) know "
    r"(?:if|whether)\b",
    re.I,
)
_ZH_OPINION = re.compile(r"觉得|认为|建议|感觉|想让")
# v10: talk between people that is not addressed to an agent (the kind a count on LoCoMo's
# chit-chat showed the model taking): a greeting or thanks with a name, feelings and praise, a
# cheer, a day's event told with its time, a truth about life in general. Only the classifier
# path reads it; a rule that fires still keeps its fact.
_EN_SOCIAL = re.compile(
    r"^(?:hey|hi|hello|heya|yo|aw+|wow|omg|yay|haha\w*|lol|thanks|thank you|congrats|"
    r"congratulations|happy (?:birthday|holidays))\b|"
    r"\b(?:can'?t wait|so (?:proud|glad|happy|excited|sorry|jealous)|i'?m (?:so |really |super )?"
    r"(?:proud|glad|excited|thrilled|grateful|thankful|jealous|impressed|inspired|touched)|"
    r"(?:means|meant) (?:a lot|the world)|fingers crossed|rooting for|proud of|"
    r"(?:had|have|having) (?:such )?a (?:blast|great time|wonderful time|lovely time)|"
    r"keep (?:it up|going|up the|pushing|working hard)|never give up|you got this|go get|"
    r"take care|you'?re (?:doing )?(?:amazing|awesome|the best|so|such)|you always|"
    r"sounds (?:amazing|awesome|great|fun|lovely|incredible|like (?:a|an|so))|"
    r"(?:is|are) (?:the best|everything|so (?:much )?fun)|(?:what a|such a) (?:day|week|relief)|"
    r"(?<!the )(?:last|this past) (?:week|weekend|month|night|year|monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday)|yesterday|the other day|(?:days|weeks|months|years) ago)\b|"
    r"!\s*$",
    re.IGNORECASE,
)
_ZH_SOCIAL = re.compile(
    r"^(?:嗨|哈喽|嘿|哇|谢谢|太谢谢|多谢|恭喜|生日快乐)|"
    r"加油|为你骄傲|好期待|太期待|真好|好棒|太棒|羡慕|开心|高兴|支持你|祝你|顺利哦|照顾好自己|早点休息|"
    r"(?:上周末?|上个月|昨天|前天|前几天|那天)(?!开始|起)[^，。]*(?:了|过)|"
    r"[！!]\s*$"
)


def about_the_moment(body: str, lang: str) -> bool:
    """A one-off ask, a plan for the next minutes, an error report or someone's opinion: not
    a durable fact, whatever the model would say (v4)."""
    if len(body.split()) < 3 if lang == "en" else len(body.replace(" ", "")) < 4:
        return True  # "always", "好的吧": too little to be a fact
    if _DISREGARD.search(body):
        return True
    # v12 (session 20): someone else's wish or words, or how a thing stands right now, with no
    # instruction to the agent in a later clause — reported, not addressed (speech.py)
    tags = reading(body, lang)
    if tags & {"third", "status", "narration"} and "to-agent" not in tags:
        return True
    if lang == "zh":
        if _ZH_ERROR.search(body) or _ZH_OPINION.search(body) or _ZH_EVENT.search(body):
            return True
        if _ZH_STATUS.search(body):
            return True
        if re.search(_ZH_COMPLAINT, body) or _ZH_SOCIAL.search(body):
            return True  # v10: a mood about how things go ("每周都要写周报，真的好累"), chit-chat
        return bool(_ZH_ONE_OFF.search(body)) and not _ZH_STANDING_CUE.search(body)
    if _EN_DECLINE.search(body) or _EN_SOCIAL.search(body):
        return True
    if _EN_STATUS.search(body) or _EN_THEIR_ASK.search(body):
        return True
    if _EN_ERROR.search(body) or _EN_OPINION.search(body) or _EN_EVENT.search(body):
        return True
    return bool(_EN_ONE_OFF.match(body)) and not _EN_STANDING_CUE.search(body)


def too_thin(body: str, kind: MemoryType, lex: Lexicon) -> bool:
    """An English fact about the person, the project or a place with nothing particular in it
    — no name, number or path after its first word and under seven words ("I'm on the
    train.", "We're a bit behind.") — is small talk, whatever its shape (v4). A preference
    needs no name ("I hate long preambles")."""
    if kind == "reference" and not _WHERE[lex.lang].search(body):
        return True  # a pointer must point somewhere: "the docs are in English" does not
    if kind == "reference" and lex.lang == "zh" and len(body.replace(" ", "")) < 10:
        # v10: nor a short one with nothing particular in it — "结果在表格里" points at the
        # task's table, not at a place to look things up
        return not lex.substance.search(body)
    if lex.lang != "en" or kind == "feedback":
        return False
    words = body.split()
    return len(words) < 7 and not lex.substance.search(" ".join(words[1:]))


@dataclass(frozen=True)
class Verdict:
    """What the classifier thinks a sentence is: ``type`` (``None``: nothing durable) and the
    probability it gave that answer."""

    type: MemoryType | None
    probability: float


def _en_features(body: str) -> list[str]:
    tokens = _EN_TOKEN.findall(body)
    words: list[str] = []
    for i, tok in enumerate(tokens):
        is_name = _EN_NAME.match(tok) is not None and not (i == 0 and tok.isalpha())
        words.append("<n>" if is_name and tok.lower() not in {"i", "i'm", "i'd"} else tok.lower())
    feats = [f"w:{w}" for w in words]
    feats += [f"b:{a} {b}" for a, b in itertools.pairwise(words)]
    feats += [f"s:{w}" for w in words[:1]] + [f"s2:{' '.join(words[:2])}"]
    return feats


def _zh_features(body: str) -> list[str]:
    latin = [m.lower() for m in _LATIN_RUN.findall(body)]
    chars = _LATIN_RUN.sub("N", body).replace(" ", "")
    feats = [f"c1:{c}" for c in chars]
    feats += [f"c2:{chars[i : i + 2]}" for i in range(len(chars) - 1)]
    feats += [f"c3:{chars[i : i + 3]}" for i in range(len(chars) - 2)]
    feats += [f"s:{chars[:2]}", f"s3:{chars[:3]}"]
    feats += [f"w:{w}" for w in latin if not any(ch.isdigit() for ch in w)]
    return feats


# The lexicon's word classes, as features that carry over to words the training data never had:
# a known tool, a kind of document or place, a part of a system, a role, a moment.
_CLASSES = {
    "en": {
        "tool": re.compile(r"\b(?:" + _TOOLS + r")\b"),
        "docs": re.compile(r"\b(?:" + _EN_DOCS + r")\b", re.IGNORECASE),
        "place": re.compile(r"\b(?:" + _PLACE_NOUNS + r")\b", re.IGNORECASE),
        "role": re.compile(r"\b(?:" + _EN_ROLE + r")s?\b", re.IGNORECASE),
        "we": re.compile(r"^(?:we|we're|we've|our|the team|this (?:project|repo))\b", re.I),
        "i": re.compile(r"^(?:i|i'm|i've|i'd|my)\b", re.IGNORECASE),
        "cue": _EN_STANDING_CUE,
        # v2: shapes that carry over between conversations — a directive to the assistant, a
        # state of the person, a schedule, a quantity, a place in the world
        "directive": re.compile(
            r"^(?:please |pls |can you |could you )?(?:don'?t|do not|never|always|stop|quit|"
            r"avoid|use|keep|skip|no need to|make sure|prefer|try to)\b|\b(?:i'?d rather|"
            r"i prefer|i like it when|i find it|easier (?:for me )?when|instead of|rather than|"
            r"over)\b",
            re.I,
        ),
        "self": re.compile(
            r"^(?:i'?m|i am|i have|i live|i work|i use|i usually|i mostly|i'?ve been|my)\b", re.I
        ),
        "schedule": re.compile(
            r"\b(?:every|each|daily|weekly|monthly|nightly|hourly|on (?:mondays|tuesdays|"
            r"wednesdays|thursdays|fridays|weekends)|[0-9]{1,2}\s?(?:am|pm))\b",
            re.I,
        ),
        "amount": re.compile(r"\b\d[\d.,]*\s?(?:k|m|%|x|gb|tb|ms|users|people|of us)?\b", re.I),
        # v4: shapes of a sentence, not words of one conversation — information moved to or
        # kept in a place ("… sync to an S3 bucket called …"), a place given a name, the person
        # in any clause, a wish for how the agent works ("it'd help if you …")
        "kept": re.compile(
            r"\b(?:sync(?:ed|s)?|go(?:es)?|land(?:s)?|live(?:s)?|kept|stored|posted|pushed|"
            r"uploaded|logged|tracked|filed|saved|written|archived|handled|managed)\s+"
            r"(?:to|in|on|into|under|through|thru|via)\b",
            re.I,
        ),
        "named": re.compile(r"\b(?:called|named|titled)\b", re.I),
        "i-any": re.compile(r"(?:^|[,;:.]\s*|\bso\s+)(?:i'?m|i am|i have|i'?ve|my)\b", re.I),
        "wish": re.compile(
            r"\b(?:it'?d|it would|would be|it'?s)\s+(?:really\s+|super\s+|a lot\s+)?"
            r"(?:help(?:ful)?|great|nice|better|easier)\b.{0,20}\b(?:if|when)\s+you\b",
            re.I,
        ),
    },
    "zh": {
        "tool": re.compile(_TOOLS),
        "docs": re.compile(_ZH_DOCS),
        "place": re.compile(_ZH_PLACES),
        "part": re.compile(_ZH_PARTS),
        "role": re.compile(_ZH_ROLE),
        "when": re.compile(_ZH_WHEN),
        "we": re.compile(r"^(?:我们|咱们|团队|项目|公司)"),
        "i": re.compile(r"^我(?!们)"),
        "cue": _ZH_STANDING_CUE,
        "directive": re.compile(
            r"别|不要|不用|不必|尽量|千万|一律|统一|务必|少用|多用|先给|就行|就好|按.{1,12}来|用.{1,10}写"
        ),
        "self": re.compile(
            r"^我(?!们)(?:是|有|在|住|平时|一般|周末|每天|晚上|早上|比较|不太|不吃|不喝|对|用|习惯)|"
            r"^(?:家里|本人)"
        ),
        "schedule": re.compile(
            r"每(?:天|周|月|小时|年|两周|个)|凌晨|整点|早上|晚上|周[一二三四五六日末]"
        ),
        "amount": re.compile(r"[0-9]|[一二三四五六七八九十两百千万]+(?:万|千|个|台|人|成|%)"),
        "other": re.compile(r"^(?:小|老|阿)[\u4e00-\u9fff]|^(?:同事|老板|领导|客户|组长|朋友)"),
        # v4: shapes of a sentence — a place closing a clause ("…在夜莺上", "…传到网盘的 X
        # 文件夹"), information moved into a place, a route (走的是 …), the person in a later
        # clause, a name given to something (叫 …), a condition on the work (…的时候, 要是 …)
        "at-end": re.compile(
            r"(?:在|到|进|于)[^，。,；;？?]{1,16}?(?:上|里|中|下|内)(?:面|头)?(?:了)?"
            r"(?=$|[，,。；;！!])"
        ),
        "into": re.compile(
            r"(?:同步|上传|传|存|放|归档|导出|导入|推送|推|上报|发|接|写|记|维护|登记)(?:到|在|进)"
        ),
        "route": re.compile(r"走的是|走\s*[A-Za-z]|通过\s*[A-Za-z]|都在|统一在"),
        "i-any": re.compile(r"[，,]\s*我(?!们)|^(?:我家|我们家|我的)"),
        "named": re.compile(r"叫|名叫|名字是|项目名|路径是"),
        "when-work": re.compile(r"的时候|之前|之后|以后|要是|如果.{1,12}[，,]"),
    },
}
# What a reference must name (too_thin): somewhere a thing can be looked up.
_WHERE = {
    "en": re.compile(
        r"\b(?:" + _TOOLS + r")\b|\b(?:" + _PLACE_NOUNS + r")\b|https?://|\S/\S|#[\w-]+|"
        r"\w\.(?:com|io|dev|net|org|internal|corp)\b",
        re.IGNORECASE,
    ),
    "zh": re.compile(_TOOLS + r"|" + _ZH_PLACES + r"|https?://|\S/\S|#|「|[A-Za-z]{2,}"),
}


def features(body: str, lex: Lexicon) -> list[str]:
    """The sparse features of one sentence (deduplicated, sorted: the order never matters)."""
    body = lex.filler.sub("", body.strip(), count=1).strip()
    feats = _zh_features(body) if lex.lang == "zh" else _en_features(body)
    flags = {
        "hedge": lex.hedge,
        "deictic": lex.deictic,
        "trouble": lex.trouble,
        "imperative": lex.imperative,
        "personal": lex.personal,
        "question": lex.question,
        "reported": lex.reported,
    }
    feats += [f"f:{name}" for name, pattern in flags.items() if pattern.search(body)]
    feats += [f"k:{name}" for name, pattern in _CLASSES[lex.lang].items() if pattern.search(body)]
    feats += [f"a:{tag}" for tag in reading(body, lex.lang)]  # v12: addressee and speech act
    if lex.substance.search(body):
        feats.append("f:substance")
    feats.append(f"f:len{min(len(body) // 20, 5)}")
    return sorted({f"{lex.lang}|{f}" for f in feats} | {f"lang:{lex.lang}"})


class Classifier:
    """Weights of a trained model and the threshold per language above which it says yes."""

    def __init__(
        self,
        classes: list[str],
        bias: list[float],
        weights: dict[str, list[float]],
        thresholds: dict[str, float],
        version: str,
    ) -> None:
        self.classes = classes
        self.bias = bias
        self.weights = weights
        self.thresholds = thresholds
        self.version = version

    @classmethod
    def load(cls, path: Path) -> Classifier:
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(
            data["classes"], data["bias"], data["weights"], data["thresholds"], data["version"]
        )

    def to_json(self) -> dict[str, object]:
        return {
            "version": self.version,
            "classes": self.classes,
            "bias": self.bias,
            "thresholds": self.thresholds,
            "weights": self.weights,
        }

    def probabilities(self, feats: list[str]) -> list[float]:
        """Softmax over the classes; features are scaled by 1/sqrt(n) as in training."""
        scale = 1.0 / math.sqrt(len(feats)) if feats else 0.0
        scores = list(self.bias)
        for f in feats:
            row = self.weights.get(f)
            if row is not None:
                for k, w in enumerate(row):
                    scores[k] += w * scale
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        total = sum(exps)
        return [e / total for e in exps]

    def judge(self, body: str, lex: Lexicon) -> Verdict:
        """The type of durable fact ``body`` states (with the probability that it states one),
        or ``Verdict(None, P(nothing))`` below the language's threshold."""
        probs = self.probabilities(features(body, lex))
        nothing = self.classes.index("none")
        durable = 1.0 - probs[nothing]
        # two questions: is there anything durable (1 - P(none) against the threshold), and
        # if so, of which type (the likeliest of the four)
        if durable < self.thresholds.get(lex.lang, 1.0):
            return Verdict(None, probs[nothing])
        best = max((k for k in range(len(probs)) if k != nothing), key=probs.__getitem__)
        kind: MemoryType = self.classes[best]  # type: ignore[assignment]  # memory types
        return Verdict(kind, durable)


@cache
def shipped() -> Classifier | None:
    """The model inside the package, loaded once; ``None`` when the file is absent (a source
    tree before ``bench/train_implicit.py`` ran), so the rules alone still work."""
    if not MODEL_PATH.exists():
        return None
    return Classifier.load(MODEL_PATH)
