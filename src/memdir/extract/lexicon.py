"""The rule tables of the offline extractor (``rules.py``), one ``Lexicon`` per language.

A ``Lexicon`` holds the patterns ``rules.py``'s pipeline asks about a sentence — is it a
question, a hypothetical, reported speech, a hedge, an explicit "remember", a correction — and
its ``rules``: ``Rule`` objects tried in order (specific → general), the first match giving the
memory's type and the part of the sentence to keep. ``EN`` and ``ZH`` are the two tables; a
family added in rules-v2 carries a ``v2:`` comment, one added in rules-v3 a ``v3:`` one.
Changing any pattern changes what the extractor does: bump ``rules.RULES_VERSION`` with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..records import MemoryType

__all__ = ["CJK", "EN", "URL", "ZH", "Lexicon", "Rule"]


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


CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
URL = r"https?://[^\s，。、）)]+"
_I = re.IGNORECASE


def _en(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, _I)


_EN_ROLE = (
    r"engineer|developer|dev|programmer|designer|manager|lead|architect|student|researcher|"
    r"scientist|analyst|founder|cto|ceo|vp|intern|sre|devops|admin(?:istrator)?|consultant|"
    r"freelancer|maintainer|owner|tester|pm|head of|director|data scientist|contractor"
)
_EN_DOCS = (
    r"docs?|documentation|runbooks?|playbooks?|specs?|design specs?|designs?|mockups?|wiki|"
    r"handbook|api reference|reference|bugs?|issues?|tickets?|tasks?|incidents?|roadmap|"
    r"dashboards?|metrics|logs|alerts|changelog|release notes|adrs?|rfcs?|"
    # v2: more kinds of information that live somewhere
    r"flags|feature flags|secrets|credentials|env vars|environment variables|"
    r"decisions|notes|meeting notes|announcements|discussions|requests|schedules?|rota|"
    r"on-?call|sprints?|backlog|experiments|translations|assets|postmortems|post-mortems|"
    r"outages|releases|deploys|standups?|retros?|minutes|questions|"
    # v5: credentials, conventions and definitions live somewhere too
    r"creds|keys|api keys|passwords|templates?|guidelines|style guides?|definitions|conventions"
)
_TOOLS = (
    r"Linear|Jira|Figma|Notion|Confluence|GitHub|GitLab|Slack|Google Drive|Google Docs|Trello|"
    r"Asana|Sentry|Grafana|Datadog|Bitbucket|Miro|Coda|PagerDuty|Kibana|Airtable|Basecamp|"
    r"飞书|钉钉|语雀|禅道|Teambition|TAPD|企业微信"
)
# Generic kinds of place a pointer can lead to (never product names): "the #payments channel",
# "the Platform space", "the ops/ folder".
_PLACE_NOUNS = (
    r"channel|space|board|folder|drive|repo|repository|wiki|page|workspace|tracker|sheet|"
    r"spreadsheet|vault|bucket|notebook|dashboard|group chat|thread|inbox|mailing list|calendar|"
    r"password manager|secrets? manager|project|doc|document"
)
# A name in running text: a capitalised or camel-case word, or a token with a digit or an inner
# dot ("Kotlin", "macOS", "M2", "Fly.io", "v1"). Case-sensitive inside the case-blind patterns.
_NAME = r"(?-i:[A-Z][\w.+#-]*|[a-z]+[A-Z][\w.+#-]*|[\w.+#-]*\d[\w.+#-]*|[\w-]+\.[\w.-]+)"
_EN_FACT_VERBS = (
    r"(?:us|mov|migrat|writ|stor|manag|packag|releas|standardiz|standardis)(?:e|es|ed|ing)|"
    r"(?:run|ship|drop)(?:s|ning|ping|ped)?|ran|wrote|built|kept|"
    r"(?:deploy|host|build|rely on|switch|adopt|support|target|develop|keep|test|try|tri)"
    r"(?:s|es|ed|ing)?|"
    # v2: lifecycle and change verbs ("we're sunsetting the v1 API", "we replaced X with Y")
    r"(?:deprecat|retir|remov|replac|introduc|requir|enforc|phas)(?:e|es|ed|ing)(?: out)?|"
    r"(?:sunset|vendor|pin|mirror|monitor|squash|rebas|merg|freez|roll(?:ed|ing|s)? out)\w*|"
    r"stopped using|no longer use|don'?t use|do not use|never use"
)
# Softeners between "we" and the verb ("we're kind of thinking about moving off X"): they keep
# the fact and make it tentative through the hedge pattern.
_ZH_PARTS = (
    r"前端|后端|服务端|客户端|数据库|主库|从库|缓存|CI|CD|接口|API|网关|消息队列|"
    r"搜索|存储|监控|日志|测试环境|生产环境|预发环境|线上|"
    # v2: more parts of a system
    r"预发|staging|文档站|官网|域名|服务器|集群|镜像|制品|流水线|队列|定时任务|配置中心"
)
_EN_SOFTENERS = (
    r"kind of|sort of|thinking (?:about|of)|considering|looking (?:at|into)|planning (?:on|to)|"
    r"hoping to|about to|likely to|talking about|seriously|slowly|gradually|actively"
)

EN = Lexicon(
    lang="en",
    # v3: an explicit request where it stands — after "thanks.", "ok so", "and", inside a
    # "can you … that …?" or "I'd like you to …"; rules.py tries it at every clause start.
    explicit=_en(
        r"^\s*(?:(?:please|pls|plz|kindly|hey|ok|okay|also|and|but|so|oh|just|now|then|"
        r"again|one more thing|quick thing)[,:\s]+)*"
        r"(?:(?:i'?d like you to|i want you to|i need you to|make sure (?:you|to)|be sure to|"
        r"try to|you (?:should|must|need to|have to|gotta))\s+|"
        r"(?P<ask>(?:can|could|would|will) you(?: please)?\s+(?=(?:remember|note|"
        r"keep in mind|make a note)(?:\s+that\b|\s*:))))?(?:(?:please|also|to)\s+)*"
        r"(?:remember|don'?t forget|do not forget|never forget|make a (?:mental )?note|"
        r"note down|(?:(?<=please )|(?<=pls )|(?<=also ))note|"
        r"(?:keep|bear) (?:this |that )?in mind|take note|"
        r"(?:save|add|store|put) (?:this|that|it) (?:to|in|into) (?:your )?memory|"
        r"save (?:this|a memory)|store this|for future reference|memori[sz]e)"
        r"(?=\s*[:,\-—–]|\s+(?:that|this|of|to|i|i'm|we|my|our|the|it|you)\b)"
        r"(?:\s*[:,\-—–]\s*|\s+)(?:(?:that|of|this)\b[:,]?\s*)?"
    ),
    standing=_en(
        r"^(?:please\s+)?(?:from now on|going forward|from here on(?: out)?|moving forward|"
        r"henceforth|in (?:the )?future)\b[,\s]+(?!(?:sounds|seems|looks|is|works|makes)\b)\w"
        r"|\w.*[,\s](?:from now on|going forward|from here on(?: out)?)[\s.!]*$"
    ),
    correction=_en(
        r"^\s*(?:(?:no|nope|nah|wrong|incorrect|not quite|not really|not exactly|actually|"
        r"that'?s (?:not right|not correct|wrong|incorrect)|that is (?:not right|wrong|incorrect)|"
        r"you'?re wrong|correction)\b[\s,.!:;—–-]*)+"
    ),
    filler=_en(
        r"^\s*(?:(?:just so you know|just fyi|fyi|btw|by the way|for context|heads up|also|"
        r"and|oh|ok|okay|so|well|"
        # v2: asides and emphasis that carry no content of their own
        r"ugh|argh|hmm|honestly|frankly|tbh|to be honest|seriously|look|listen|fwiw|psa|"
        r"quick note|note(?!\s+down)|one more thing|(?:quick )?reminder|like i said|as i said|"
        r"i (?:already )?told you|"
        # v3: a label for what follows — "Quick context: …", "For the record, …"
        r"(?:quick |some |a bit of |little |for )?(?:context|background)|for the record|"
        r"for what it'?s worth|side note|fun fact|"
        # v5: a turn to the point after small talk — "anyway, …", "quick bg: …"
        r"anyway|anyways|(?:quick )?bg|so yeah|oh and|and also)\b[\s,:—–-]*)+"
    ),
    question=_en(
        # v5: "When you write SQL, uppercase the keywords" is a rule with a condition, not a
        # question: "when" followed by a clause and a comma, with no question mark
        r"\?\s*$|^\s*(?:(?:what|which|where|when(?![^?]*,\s*\w[^?]*$)|who|whom|whose|why|how|"
        r"do(?!\s+not\b)|does|did|is|are|am|was|were|can|could|should|would|will|shall|"
        r"have|has|may i|might)\b(?!['’]t))"
    ),
    hypothetical=_en(
        r"^\s*(?:if|suppose|supposing|imagine|hypothetically|what if|say we|let'?s say|"
        r"assuming|assume|in case|even if|unless|whether)\b|\bwhat if\b"
    ),
    reported=_en(
        r"\b(?:said|says|told (?:me|us|them)|tells (?:me|us)|mentioned|claims?|claimed|wrote|"
        r"according to|asked me|reckons)\b|^\s*(?:he|she|they|someone|somebody|people|"
        r"my (?:manager|boss|colleague|coworker|co-worker|friend|lead|teammate))\b|"
        # v5: someone else's taste or view — "Sarah prefers tabs", "the client wants Excel"
        r"^\s*(?:(?-i:[A-Z][a-z]+)|(?:my|our|the) (?:manager|boss|colleague|coworker|co-worker|"
        r"friend|lead|teammate|client|customer|cto|ceo|pm|designer|partner|wife|husband|"
        r"cofounder|co-founder))\s+(?:(?:really|also|still|kind of|just) )?(?:prefers|likes|"
        r"loves|hates|dislikes|wants|thinks|insists|swears by|can'?t stand|is into|is a fan of)\b"
    ),
    deictic=_en(
        # "this project" is the project itself, not the task at hand
        r"\b(?:this(?!\s+(?:project|repo|repository|codebase|team|company|org)\b)|that|these|"
        r"those|here(?!'s)|now|today|tonight|for now|this time|right now|"
        # v2: "I hate it when you …" — that "it" points at nothing in the task
        r"above|below|line \d+|it(?!\s+when\b)|again|yet|anymore)\b"
    ),
    hedge=_en(
        r"\b(?:maybe|might|may|perhaps|possibly|probably|likely|considering|thinking (?:about|of)|"
        r"plan(?:ning)? to|not sure|unsure|haven'?t decided|not decided|undecided|tbd|"
        r"could|potentially|tentatively|we'?ll see|eventually|"
        # v2: weighing an option is not a decision yet
        r"evaluating|exploring|debating|experimenting|trialing|trialling|piloting|weighing)\b"
    ),
    lead_hedge=_en(r"^(?:maybe|perhaps|probably|possibly|likely|potentially)\b[,\s]+"),
    standing_request=_en(
        r"^(?:can|could|would|will)\s+you\s+(?:please\s+)?(?=(?:always|never|from now on|"
        r"going forward|in (?:the )?future|by default|make sure to always)\b)"
        r"(?P<rule>.+?)\s*(?:,?\s*please)?\s*\??$"
    ),
    trouble=_en(
        r"\b(?:fails?|failing|failed|crash(?:es|ed|ing)?|broken|breaks|throws|threw|traceback|"
        r"timed out|timing out|stuck|hangs|hanging|segfaults?|panick?(?:s|ed)|is down|went down|"
        r"doesn'?t work|not working|won'?t (?:start|build|run)|an error|errors out|flaky)\b"
    ),
    rules=(
        Rule(
            "en.reference.url",
            "reference",
            _en(
                r"^(?!.*\b(?:i|we)\b).*\b(?:is|are|lives?|"
                r"kept|hosted|published|found|documented)\b.*?\b(?:at|on|in|under)\s+" + URL
            ),
        ),
        Rule(
            "en.reference.location",
            "reference",
            _en(
                r"^(?:the |our |all |all the |any )?(?:[\w-]+ ){0,3}(?:" + _EN_DOCS + r")\b.{0,30}?"
                r"\b(?:are|is|live|lives|get|gets|go|goes|kept|stored|tracked|filed|logged|"
                r"managed|written|documented|posted|announced|shared|discussed|synced)\b"
                r"(?:\s+(?:tracked|filed|logged|kept|stored|managed|written|documented|posted|"
                r"announced|shared|discussed|synced))?\s+(?:at|in|on|under|over in)\s+"
                r"(?:" + URL + r"|(?:the |our |a )?(?:" + _TOOLS + r")"
                # v2: a channel, a kind of place or a path, not only a known tool:
                # "incidents go in the #inc-x Slack channel", "ADRs are in docs/adr/"
                r"|(?:the |our |a )?(?:#[\w-]+|(?:[\w#@.-]+ ){0,3}?(?:" + _PLACE_NOUNS + r")\b"
                r"|[~.\w-]*/[\w./-]*))"
            ),
        ),
        # v2: information *managed* somewhere by name — "feature flags are managed in <Name>",
        # "secrets are kept in <Name> under Engineering". A bare "is/are in <Name>" is not
        # enough ("the docs are in English"), so the verb must say someone keeps it there.
        Rule(
            "en.reference.managed",
            "reference",
            _en(
                r"^(?:the |our |all |all the |any )?(?:[\w-]+ ){0,3}(?:" + _EN_DOCS + r")\b.{0,20}?"
                r"\b(?:are|is|get|gets)\s+(?:all\s+|always\s+|usually\s+)?(?:managed|tracked|kept|"
                r"stored|filed|logged|documented|posted|announced|discussed|reported|handled|"
                r"coordinated|configured|defined|recorded|maintained|listed|synced|shared)"
                r"\s+(?:in|on|under|via|through)\s+(?:the\s+)?" + _NAME + r"(?:\s+\w+)?\s*(?:$|,|"
                r"\s+under\s+\S)"
                r"|^(?:the |our |all |all the )?(?:[\w-]+ ){0,3}(?:" + _EN_DOCS + r")\b.{0,20}?"
                r"\b(?:are|is|live|lives|sit|sits)\s+(?:in|on)\s+(?:the\s+)?"
                + _NAME
                + r"(?:\s+\w+)?\s+under\s+\S"
            ),
        ),
        Rule("en.identity.name", "user", _en(r"^(?:my name is|my name's|call me)\s+\S")),
        Rule(
            "en.identity.role",
            "user",
            _en(
                r"^(?:i'?m|i am)\s+(?:(?:a|an|the|one of the|currently|now|also|the only|"
                r"mostly|mainly|primarily|basically|really|more of|more|kind of|sort of)\s+)+"
                r"(?:[\w/+#.-]+\s+){0,3}(?:" + _EN_ROLE + r"|person|guy|gal|kind of person)s?\b"
            ),
        ),
        # v2: the person's setup — "I'm on macOS with an M2", "I use Neovim", "I run Arch"
        Rule(
            "en.identity.setup",
            "user",
            _en(
                r"^(?:i'?m|i am)\s+(?:(?:mostly|mainly|usually|currently|still)\s+)?(?:on|using|"
                r"running)\s+(?:an?\s+|the\s+)?" + _NAME + r"|"
                r"^i\s+(?:(?:mostly|mainly|usually|currently|still|personally)\s+)?(?:use|run|"
                r"code on|develop on|work on an?)\s+(?:an?\s+)?" + _NAME + r"(?:\s+\S+){0,3}"
                r"\s*(?:,|$|\s+(?:with|on|as|for (?:everything|work|development))\b)"
            ),
        ),
        # v2: "my timezone is CET", "my editor is Helix", "my pronouns are they/them"
        Rule(
            "en.identity.my-x-is",
            "user",
            _en(
                r"^my\s+(?:main\s+|primary\s+|usual\s+|daily\s+|work\s+|default\s+)?"
                r"(?:timezone|time zone|tz|os|operating system|editor|ide|shell|terminal|laptop|"
                r"machine|computer|setup|pronouns|role|title|job|background|stack|"
                r"(?:native|first) language|github handle|username|handle|working hours|hours)"
                r"\s+(?:is|are|'s)\s+\S"
            ),
        ),
        Rule(
            "en.identity.new-to",
            "user",
            _en(
                r"^(?:i'?m|i am)\s+(?:(?:pretty|very|quite|fairly|totally|completely|still|kind of|"
                r"relatively)\s+)?(?:new to|a beginner (?:in|at|with)|learning|not familiar with|"
                r"familiar with|an expert in|experienced (?:in|with))\s+\S"
            ),
        ),
        Rule(
            "en.identity.work",
            "user",
            _en(
                r"^i\s+(?:work|am working|'m working)\s+(?:on|at|for|in|with)\s+(?!(?:this|that|"
                r"it|the bug|a bug)\b)\S|^i\s+(?:lead|manage|run|own|maintain)\s+(?:the|our)\s+\S+"
                r"(?:\s+\S+)?\s+(?:team|group|squad|service|project)\b|"
                # v2: "I maintain the billing SDK", "I own Atlas", "I'm the one who runs the CI"
                r"^i\s+(?:(?:also|mostly|mainly)\s+)?(?:maintain|own|co-maintain)\s+(?:"
                r"(?:the|our)\s+(?:[\w./+#-]+\s+){0,3}(?:team|group|squad|service|project|"
                r"library|package|repo|app|api|sdk|cli|plugin|website|site|docs|pipeline|infra|"
                r"cluster|module|backend|frontend)s?\b|" + _NAME + r")"
            ),
        ),
        Rule(
            "en.identity.location",
            "user",
            _en(
                r"^(?:i'?m|i am|i live|i'm based|i am based)\s+(?:based\s+)?in\s+(?:the\s+)?"
                r"[A-Z][\w-]+(?:\s+(?:timezone|time zone|time))?\b"
            ),
        ),
        Rule(
            "en.habit.always",
            "user",
            _en(
                r"^i\s+(?:always|never|usually|generally|normally|typically|mostly|tend to|only|"
                r"don'?t ever|do not ever)\s+(?!ask\b|want\b|forget|know|remember|understand|"
                r"get\b|seem|feel|think|see\b|mix|wonder|struggle|lose|miss|end up)\w+"
            ),
        ),
        Rule(
            "en.preference.prefer",
            "feedback",
            _en(
                r"^i\s+(?:(?:really|strongly|generally|much|definitely)\s+)?(?:prefer|like|love|"
                r"hate|dislike|can'?t stand|want you to|need you to)\b"
                # "I love it when it works" is small talk; "I hate it when you …" is feedback
                r"(?!\s+(?:it\s+)?when\b(?!\s+you\b))|"
                r"^i'?d (?:rather|prefer)\b|"
                r"^(?:my )?preference is\b"
            ),
        ),
        Rule(
            "en.preference.from-now-on",
            "feedback",
            _en(
                r"^(?:from now on|going forward|in (?:the )?future|moving forward|henceforth|"
                r"by default|as a rule|in general|generally)\b[,\s]+"
                # v2: "going forward sounds good" comments on a plan, it is not a rule
                r"(?!(?:sounds|seems|looks|is|works|makes)\b)(?P<body>.+)$"
            ),
            keep="body",
        ),
        # v2: the standing marker at the end — "please answer in British English from now on"
        Rule(
            "en.preference.trailing-standing",
            "feedback",
            _en(
                r"^(?:please\s+)?(?P<body>(?!(?:i|we|they|he|she|it|my|our|the|this|that|there)\b)"
                r"\w.+?)[,\s]+(?:from now on|going forward|from here on(?: out)?|"
                r"in (?:the )?future|moving forward|by default|"
                r"in every (?:session|answer|reply|response)|always)$"
            ),
            keep="body",
        ),
        # v2: a step tied to a recurring action — "before you push, run the linter",
        # "before applying changes, always show me the diff"
        Rule(
            "en.preference.before",
            "feedback",
            _en(
                r"^(?:before|after|whenever|every time)\s+(?:you\s+)?(?:\w+\s+){0,2}?"
                r"(?:commit|push|merg|deploy|releas|open|chang|edit|apply|appl|run|refactor|delet|touch|install|"
                r"upgrad|writ|add|creat|rewrit|modif)\w*\b[^,]{0,50},\s*(?:please\s+)?(?:always\s+)?"
                r"(?!(?:i|we|it|the|this|that|there)\b)\w+"
            ),
        ),
        Rule(
            "en.preference.always",
            "feedback",
            _en(r"^(?:please\s+)?always\s+(?!the\b|a\b|an\b|same\b)(?P<body>\w.+)$"),
            keep="body",
        ),
        Rule(
            "en.preference.never",
            "feedback",
            _en(r"^(?:please\s+)?(?:never|don'?t ever|do not ever|never ever)\s+(?!mind\b)\w"),
        ),
        Rule(
            "en.preference.dont",
            "feedback",
            _en(
                r"^(?:please\s+)?(?:don'?t|do not|stop|quit|avoid|no more)\s+(?!worry|mind|"
                # v2: "don't bother writing tests for scripts" is a rule; a bare "don't bother"
                # or "… for now" (deictic) is not
                r"know|bother\b(?!\s+(?:with\s+\w|\w+ing\b)))\w+"
            ),
        ),
        Rule(
            "en.preference.every-time",
            "feedback",
            _en(
                r"^(?:every time|each time|whenever|any time|anytime)\b.+\b(?:you|always|please)\b|"
                r".+\b(?:every time|each time|whenever you|every single time)\b"
            ),
        ),
        Rule(
            "en.preference.keep",
            "feedback",
            _en(
                r"^(?:please\s+)?(?:keep|make)\s+(?:your\s+|the\s+|all\s+)?(?:answers?|"
                r"explanations?|responses?|replies|summaries|messages|commit messages|prs?|"
                r"pull requests|functions|comments|code|docstrings|variable names|names)\s+\w"
            ),
        ),
        Rule(
            "en.preference.use-not",
            "feedback",
            _en(
                r"^(?:please\s+)?(?:use|prefer|go with|stick (?:to|with))\s+\S.{0,40}?"
                r"(?:,?\s+(?:not|instead of|rather than|over)\s+\S)"
            ),
        ),
        Rule(
            "en.project.we-use",
            "project",
            _en(
                r"^(?:we|our team|the team|this (?:project|repo|repository|codebase|team))\s*"
                r"(?:'re|'ll|are|will|'ve|have)?\s*(?:(?:all|now|still|currently|mostly|only|always|"
                r"just|already|probably|likely|maybe|might|may|could|finally|mainly|primarily|"
                r"officially|going to|gonna|plan to|want to|decided to|try to|be|"
                + _EN_SOFTENERS
                + r")\s+)*(?:"
                + _EN_FACT_VERBS
                + r")\b"
            ),
        ),
        # v2: weighing an option — "we're evaluating <Name>", "we're looking at moving to <Name>"
        Rule(
            "en.project.weighing",
            "project",
            _en(
                r"^we(?:'re| are)?\s+(?:(?:kind of|sort of|also|still|seriously|currently|now)\s+)*"
                r"(?:considering|evaluating|thinking (?:about|of)|looking (?:at|into)|debating|"
                r"exploring|trialing|trialling|piloting|experimenting with|talking about)\s+"
                r"(?:\w+\s+){0,3}?" + _NAME
            ),
        ),
        # v2: what kind of team or codebase this is — "we're a Python shop", "we're a monorepo"
        Rule(
            "en.project.we-are-a",
            "project",
            _en(
                r"^(?:we(?:'re| are)|this is)\s+(?:(?:a|an|mostly|mainly|primarily|basically|"
                r"pretty much|all|still|now|fully|100%)\s+)+(?:[\w./+#-]+\s+){0,3}?(?:shop|"
                r"monorepo|polyrepo|house|startup|stack|codebase|team|company)\b"
            ),
        ),
        # v2: a part of the project and what it is built with or runs on, with a name —
        # "the payments service is written in Kotlin", "everything is built with Bazel",
        # "the API uses gRPC, not REST"
        Rule(
            "en.project.part-built-with",
            "project",
            _en(
                # not a person, a pointer or a request ("let's use X for the demo", "please
                # use X"): those are other families or one-off asks
                r"^(?!(?:i|we|you|he|she|they|it|this|that|there|here|please|let'?s|let|just|"
                r"maybe|then|now|so|also|only|always|never|don'?t|do|can|could|would|should|"
                r"will|must|make|try|go|if|when)\b)"
                r"(?:(?:the|our|all|all our|every|each)\s+)?(?:[\w./+#-]+\s+){0,3}?[\w./+#-]+\s+"
                r"(?:(?:is|are|gets|get)\s+(?:all\s+|now\s+|still\s+|always\s+)?(?:written|built|"
                r"implemented|coded|deployed|hosted|packaged|compiled|bundled|served|"
                r"containerized|orchestrated|tested|linted|formatted|type-?checked|provisioned|"
                r"released|published|shipped)\s+(?:in|with|on|to|by|using|via|through)|"
                r"(?:runs?|is running|are running)\s+(?:on|in)|uses|use|is based on|are based on|"
                r"is powered by|is backed by|talks to|depends on|targets)\s+"
                # v3: "runs on a single t3.large", "runs on two M2 minis"
                r"(?:(?:the|an?|one|a single|two|three|several)\s+)?" + _NAME
            ),
        ),
        # v2: something being retired — "the v1 API is deprecated", "… is being sunset in March"
        Rule(
            "en.project.retiring",
            "project",
            _en(
                r"^(?!(?:i|we|you|he|she|they|it|this|that|there|here)\b)(?:[\w./+#-]+\s+){1,4}"
                r"(?:is|are)\s+(?:being\s+|now\s+|officially\s+)?(?:deprecated|sunset|retired|"
                r"removed|shut down|decommissioned|frozen|going away|end-of-life|eol)\b"
                r"(?=.*" + _NAME + r")"
            ),
        ),
        Rule(
            "en.project.our-x-is",
            "project",
            _en(
                r"^(?:our|the project'?s|this project'?s|the team'?s)\s+(?:[\w./+#-]+\s+){1,4}"
                r"(?:is|are|runs?|lives?|uses?|was|were|goes|sits|has|have|'s|needs?|requires?|"
                r"targets?|depends on|talks to|deploys?|ships?)\b"
            ),
        ),
        Rule(
            "en.project.decided",
            "project",
            _en(
                r"^(?:we(?:'ve| have)? (?:decided|agreed|settled on|chose|picked|went with)|"
                r"the decision is|it'?s decided)\b"
            ),
        ),
        # v5: a standing instruction tied to a kind of task — "When you write SQL, uppercase the
        # keywords", "When you suggest shell commands, assume zsh"
        Rule(
            "en.preference.when-you",
            "feedback",
            _en(
                r"^when(?:ever)? (?:you(?:'re)?|writing|reviewing|suggesting|answering|explaining)"
                r"\b[^,]{3,60},\s*(?:please\s+)?[a-z]\w*\b"
            ),
        ),
        # v5: how a kind of thing should be — "PR titles should follow conventional commits"
        Rule(
            "en.preference.should",
            "feedback",
            _en(
                r"^(?!(?:i|we|you|it|this|that|these|those|they|he|she|maybe|perhaps|there)\b)"
                r"[\w/.-]+(?: [\w/.-]+){0,3} should (?:always |never |not |only )?"
                r"(?!be (?:done|ready|fine|ok|okay|good)\b)\w"
            ),
        ),
    ),
    imperative=_en(
        r"^(?:please\s+)?(?:always|never|use|don'?t|do not|stop|avoid|prefer|keep|make sure|"
        r"write|run|put|add|call|check|ask|follow|format|name|reply|answer|respond|explain|"
        r"test|commit|push|deploy|switch|stick)\b"
    ),
    personal=_en(r"^(?:i|i'?m|i'?ve|i'?d|my|me)\b"),
    substance=re.compile(r"[A-Z0-9][\w.+#-]*|\S*[/._]\S+|`[^`]+`"),
    because=_en(r"\b(?:because|since|as|so that)\s+(?P<why>[^.;!?]{4,})"),
)


_ZH_DEICTIC = (
    r"这里|这儿|这边|这个(?!项目|仓库|团队|组|公司)|这段|这次|这行|这一行|这块|这份|这两|这几|那个|那段|那行|上面|下面|"
    r"刚才|刚刚|现在|当前|第\s*\d+\s*行|它|这么|这样|那样"
)
_ZH_ROLE = (
    r"工程师|开发|程序员|设计师|经理|负责人|架构师|学生|研究员|分析师|创始人|实习生|运维|测试|"
    r"产品|前端|后端|全栈|组长|主管|老师|科学家|顾问|站长|维护者|leader|CTO|CEO|PM|SRE|DBA"
)
_ZH_DOCS = (
    r"文档|接口文档|手册|说明|wiki|Wiki|知识库|设计稿|原型|需求|缺陷|bug|Bug|问题|工单|任务|"
    r"看板|监控|告警|日志|变更记录|发布记录|周报|会议纪要|runbook|值班手册|"
    # v2: more kinds of information that live somewhere
    r"事故|故障|通知|公告|讨论|决策|密钥|功能开关|开关|排期|值班表|纪要|资料|素材|需求单|"
    # v5: credentials, conventions and definitions live somewhere too
    r"账号|密码|凭证|规范|模板|口径|定义|手顺|应急手册|设计规范"
)
# v2: generic kinds of place (never product names): "「支付事故」群", "Platform 空间"
_ZH_PLACES = r"群|频道|空间|文件夹|目录|看板|表格|知识库|页面|云盘|网盘|仓库"
# v2: a moment, not a standing rule: "明天之前先…" is a task for tomorrow
_ZH_WHEN = r"今天|明天|昨天|后天|下午|晚上|待会|一会儿|马上|周[一二三四五六日末]|这周|下周"

ZH = Lexicon(
    lang="zh",
    # v3: also 记得 / 下次记得, 务必 / 一定要 / 再 / 也 before the verb; never 记住了 / 记不住 /
    # 记得吗 (the person remembering, or asking)
    explicit=re.compile(
        r"^\s*(?:(?:好的|好|对了|另外|还有|嗯|那|然后|最后|再就是|顺便)[，,\s]*)*(?:请|麻烦)?(?:你)?"
        r"(?:也|再|要|一定要?|务必|千万)?(?:帮我|给我|帮忙)?(?:也|再)?"
        r"(?:记住|记一下|记下来|记下|记着|记好|记牢|记录一下|备注一下|别忘了|别忘记|不要忘了|"
        r"不要忘记|千万别忘了|备忘一下|(?:下次|以后|今后)?记得(?!吗|不|住|清|起|那|上次|当时))"
        # "记好了，…" tells; "记住了吗" asks and "记住了。" reports
        r"(?:了(?=[，,：:]\s*\S))?(?!了|吗|得|不住|不了)[：:，,、\s]*"
    ),
    standing=re.compile(
        r"^(?:以后|今后|往后|从今以后|从现在开始|从现在起|下次|下回)(?!再|的事|有空|有机会|见)"
        r"[，,\s]*\S"
    ),
    correction=re.compile(
        r"^\s*(?:(?:不是说了(?:嘛|吗|么)?|我(?:都|早就?|之前)?(?:说过|讲过|告诉过你)了?|跟你说过了?|"
        r"都说了|早说了|不对|错了|不是的|不是|你搞错了|搞错了|说错了|弄错了|其实|实际上|准确地说|"
        r"更正一下|纠正一下|不，|不,)[，,。！!：:\s]*)+"
    ),
    filler=re.compile(
        r"^\s*(?:(?:顺便说一下|顺便说|顺便|对了|另外|还有|补充一下|说明一下|嗯|哦|好的|"
        # v2: asides that carry no content of their own
        r"提醒一下|提个醒|友情提示|说实话|老实说|坦白说|说真的|讲真|顺带一提|唉|哎|"
        # v5: an announcement of what follows — "先交代一下", "跟你说一声", "简单说下", "话说"
        r"(?:先|简单|跟你|和你|我先|顺便)?(?:说|讲|交代|介绍|提)(?:一)?(?:下|声)(?:背景)?|话说|"
        r"早[～~]*|嗨|哈喽|你好)[，,：:～~\s]*)+"
    ),
    question=re.compile(
        r"[?？]\s*$|(?:什么|怎么|怎样|哪个|哪些|哪里|哪儿|哪种|多少|为什么|为啥|是否|要不要|"
        r"能不能|可不可以|会不会|是不是|有没有|用不用|对不对|行不行|吗|呢)[。.!！\s]*$|"
        r"^(?:什么|怎么|为什么|哪|谁|几)|(?:什么时候|什么样|为什么|为啥|怎么办|怎么样|多少|哪里|哪个|"
        r"哪些)"
    ),
    hypothetical=re.compile(
        r"^\s*(?:如果|假设|假如|要是|万一|倘若|设想|比如|假定|即使|就算)|的话[，,]"
    ),
    reported=re.compile(
        r"(?:他|她|他们|她们|同事|老板|领导|经理|朋友|别人|有人|客户|老师|大家)"
        r"(?:都|也|还|就)?(?:说|讲|告诉|提到|觉得|认为|表示|反馈)|写着|说[“\"「『]|"
        r"^\s*(?:他|她|他们|她们|别人)|"
        # v5: someone else's taste — "小王喜欢用 tab", "老李特别喜欢…", "客户喜欢…"
        r"^\s*(?:(?:小|老|阿)[\u4e00-\u9fff]|[\u4e00-\u9fff]{1,2}(?:总|经理|老师|哥|姐)|同事|老板|"
        r"领导|经理|朋友|客户|组长|产品经理|设计师|老婆|老公)[\u4e00-\u9fff]{0,2}?"
        r"(?:喜欢|讨厌|偏好|习惯|想要|希望|坚持|受不了|爱用)"
    ),
    deictic=re.compile(_ZH_DEICTIC),
    hedge=re.compile(
        r"可能|也许|或许|大概|估计|打算|考虑|计划|准备|还没定|没定|未定|不确定|说不定|想试试|"
        r"试试|有可能|没准|待定|看情况|评估|调研|在看"
    ),
    lead_hedge=re.compile(r"(?!)"),  # the zh hedged-change rule reads the hedge itself
    standing_request=re.compile(
        r"^(?:请你|你)?(?:能不能|可不可以|能否|可以|能)(?=以后|今后|往后|每次|从现在开始|始终|一直)"
        r"(?P<rule>.+?)[吗嘛呢]?[?？]?$"
    ),
    trouble=re.compile(
        r"报错|崩溃|挂了|卡住|卡死|超时了|出错|跑不起来|起不来|失败了|不工作|不好使|有问题|坏了"
    ),
    rules=(
        Rule("zh.reference.url", "reference", re.compile(r"(?:在|见|看|放在|位于)\s*" + URL)),
        Rule(
            "zh.reference.location",
            "reference",
            re.compile(
                r"^(?:我们的|所有的?|项目的)?\S{0,10}?(?:" + _ZH_DOCS + r")\S{0,4}?"
                r"(?:都|统一|一般)?(?:记在|放在|存在|写在|提在|提到|在|挂在|维护在|归档在)\s*"
                # v5: "在内网 wiki 上", "在公司的 Confluence 里"
                r"(?:(?:内网|公司|团队|我们)的?\s*)?"
                r"(?:" + _TOOLS + r"|[^，。,]{0,15}?(?:" + _ZH_PLACES + r")"
                # v3: a named tool we do not list, and where in it: "放在 Apifox 上"
                r"|[A-Za-z][\w.+-]*\s*(?:上|里|中)"
                r"(?!\s*(?:统一|集中|进行)?(?:管理|维护|记录|同步|跟踪|登记|归档|配置)))"
            ),
        ),
        # v2: information managed somewhere by name — "功能开关统一在 <Name> 里管理"
        Rule(
            "zh.reference.managed",
            "reference",
            re.compile(
                r"^(?!我|你|他|她|这|那)\S{1,12}?(?:都|统一|一般|全部|一律)?(?:在|放在|记在)\s*"
                r"(?:[A-Za-z][A-Za-z0-9.+-]*(?:\s+[A-Za-z][A-Za-z0-9.+-]*)?|" + _TOOLS + r")"
                r"\s*(?:的\S{0,10}?)?"
                r"(?:里|上|中)?\s*(?:统一|集中|进行)?(?:管理|维护|记录|同步|跟踪|登记|归档|配置)"
            ),
        ),
        Rule("zh.identity.name", "user", re.compile(r"^我(?:叫|的名字是|名字叫)\s*\S")),
        Rule(
            "zh.identity.role",
            "user",
            re.compile(
                r"^我(?:是|现在是|目前是|在公司是)(?!说|不是|想|在|不|否|要)\S{0,12}?(?:"
                + _ZH_ROLE
                + r")|^我是(?:做|搞|写)\S{1,10}的|"
                # v2: "我主要做前端", "我是搞后端开发的"
                r"^我(?:主要|平时|一般|日常|目前|现在|专门)(?:做|搞|负责|写)\s*(?:前端|后端|全栈|运维|"
                r"测试|移动端|客户端|服务端|数据|算法|安卓|嵌入式|基础设施|基建|infra|iOS|Android|"
                r"DevOps|SRE)"
            ),
        ),
        # v2: the person's setup and time zone — "我用的是 M2 的 Mac", "我的系统是 macOS",
        # "我在东八区"
        Rule(
            "zh.identity.setup",
            "user",
            re.compile(
                r"^我(?:平时|一般|主要|日常|现在|目前)?(?:用的是|在用|使用的是)\s*\S*[A-Za-z0-9]|"
                r"^我(?:平时|一般|主要|日常)?用\s*[A-Za-z][A-Za-z0-9.+ -]*?\s*(?:[，,]|$)|"
                r"^我的(?:时区|电脑|系统|操作系统|编辑器|IDE|机器|笔记本|终端|shell|母语|角色|职位|"
                r"工作时间|常用语言)(?:是|用的是)\s*\S|"
                r"^我(?:在|是|住在|人在|位于)\s*(?:(?:东|西)[一二三四五六七八九十]+区|UTC\s*[+-]?\s*\d*|"
                r"GMT\s*[+-]?\s*\d*|\S{1,6}时区)"
            ),
        ),
        Rule(
            "zh.identity.work",
            "user",
            re.compile(
                r"^我(?:在|目前在|现在在)\S{1,12}?(?:工作|上班|组|团队|部门|公司|实习|负责)|"
                r"^我负责\S{2,}|^我(?:刚开始|刚|正在|在)学\s*\S|^我(?:对|不太?熟悉|很熟悉)\S*"
                r"(?:不熟|熟悉|是新手|是小白)"
            ),
        ),
        Rule(
            "zh.habit.always",
            "user",
            re.compile(
                r"^我(?:比较|更|还是|很)?(?:一般|平时|通常|总是|从来|从不|一直|习惯|基本上?|向来|只)"
                r"(?!问|想要)\S"
            ),
        ),
        Rule(
            "zh.preference.like",
            "feedback",
            re.compile(
                r"^我(?:比较|更|很|特别|还是)?(?:喜欢|偏好|倾向于?|讨厌|不喜欢|希望你|想要你|需要你)"
            ),
        ),
        Rule(
            "zh.preference.from-now-on",
            "feedback",
            re.compile(
                r"^(?:以后|今后|往后|从今以后|默认|一般情况下)(?!再)(?:都|一律|统一|全部|全都|也|请|你)?\S"
            ),
        ),
        Rule(
            "zh.preference.always",
            "feedback",
            re.compile(r"^(?:请)?(?:每次|每回|每当|总是|一律|始终|永远|一定要|务必|必须)\S"),
        ),
        Rule(
            "zh.preference.dont",
            "feedback",
            re.compile(
                r"^(?:请|你)?(?:不要|别再?|千万别|千万不要|绝对不要|永远别|禁止|不许|不准|不能|"
                r"不用再|少用|避免)(?!忘|担心|客气|管|急|紧)"
                # Something to avoid, not a bare reply: "不要动", "别删", "不要加了" are about
                # the moment; at least three characters other than a closing particle.
                r"\s*(?:[^\s了吧啊呀哦。！，]\s*){3,}"
            ),
        ),
        # v2: a step tied to a recurring action — "改代码之前先给我看一下 diff"
        Rule(
            "zh.preference.before",
            "feedback",
            re.compile(
                r"^(?!.*(?:" + _ZH_WHEN + r"))(?:每次)?(?:在)?\S{1,15}?(?:之前|以前|前|之后|后)"
                r"(?:都|请|一定|务必)?(?:要|得)?先\s*\S|"
                # v3: "改完代码先跑一下 make lint 再给我看" — done with X, first Y
                r"^(?!.*(?:" + _ZH_WHEN + r"))(?:每次)?\S{1,4}?完\S{0,8}?(?:都|请|一定|务必)?"
                r"(?:要|得)?先\s*\S.*再"
            ),
        ),
        # v2: "don't" after a topic — "提交信息里别再加表情了", "写测试时不要用 sleep"
        Rule(
            "zh.preference.topic-dont",
            "feedback",
            re.compile(
                r"^\S{1,12}?(?:里|中|上|的时候|时)(?:请|都|也)?(?:不要|别再?|千万别|千万不要|禁止|"
                r"不许|不准|避免)(?!忘|担心|客气|管|急|紧)\s*(?:[^\s了吧啊呀哦。！，]\s*){2,}"
            ),
        ),
        Rule(
            "zh.preference.must",
            "feedback",
            re.compile(
                # v3: "咱们的日志统一收到 ELK 里" is how things are, not an instruction
                # v5: and "我们系统里金额一律用分" (a "we" before 统一/一律) is a convention too
                r"^(?!\S{0,8}?(?:我们|咱们|团队|公司|项目)\S{0,8}?(?:统一|一律))\S{1,12}?(?:都要|都得|都必须|一律|统一|务必|必须|请用|请使用|要用|都用|一定要)\S"
            ),
        ),
        Rule(
            "zh.project.we-use",
            "project",
            re.compile(
                r"^(?:我们|咱们|我们团队|我们组|团队|项目|这个项目|本项目|我们项目|公司|我们公司|"
                r"这个仓库|仓库)(?:的\s*\S{1,12}?)?\s*(?:现在|目前|一直|主要|都|全部|统一|已经|正在|"
                r"还是|打算|准备|计划|可能|会|要|基本上?|大多|大部分|早就|早已|一般|通常|也|还|全)*\s*"
                # v2: a place or route before the verb: "我们从 main 分支部署到 …"
                r"(?:(?:从|在|通过|经由)[^，。,；;]{1,20}?)?"
                r"(?:用|使用|采用|基于|跑在|部署在|部署到|放在|托管在|"
                # v3: where things are collected: "咱们的日志统一收到 ELK 里"
                r"收到|收集到|存到|存在|汇总到|推到|同步到|"
                r"是用|迁到|迁移到|换成|改用|切到|上了|依赖|只支持|支持|写的|"
                # v2: what is no longer used, with a name after it
                r"(?:不再用|不再使用|不用|弃用了|停用了|淘汰了)(?=\s*[A-Za-z0-9])|"
                # Bare "是"/"在" only with a name in the clause: "我们的主库是 MySQL 8" is a
                # fact, "我们是朋友" and "我们在开会" are not.
                r"(?:是|在)(?=[^，。,；;]*?[A-Za-z0-9]))"
            ),
        ),
        # v3: a move from one thing to another — "前端已经从 Webpack 迁到 Vite 了"
        Rule(
            "zh.project.moved",
            "project",
            re.compile(
                r"^(?!我(?!们)|你|他|她|这|那)\S{0,12}?(?:已经|都|全部|正在|去年|上个月)?从\s*[^，。,\s]+?\s*"
                r"(?:迁到|迁移到|换成|换到|切到|改成|转到|升级到|迁到了|换成了)\s*[^，。,\s]"
            ),
        ),
        # v2: what kind of team or codebase this is — "我们是单仓库", "我们是 Python 技术栈"
        Rule(
            "zh.project.we-are-a",
            "project",
            re.compile(
                r"^我们(?:基本上?|算是|就是|都是)?是(?:一个|个)?\S{0,8}?(?:单仓库|单体仓库|多仓库|"
                r"monorepo|技术栈|shop)"
            ),
        ),
        Rule(
            "zh.project.part-is",
            "project",
            re.compile(
                r"^(?:" + _ZH_PARTS + r")\S{0,6}?"
                r"(?:用的是|用|是|跑在|部署在|放在|基于|在(?=\s*[A-Za-z0-9]))\s*\S"
            ),
        ),
        # v2: a part and what it is built with — "支付服务是用 Kotlin 写的", "全部用 Bazel 构建"
        Rule(
            "zh.project.built-with",
            "project",
            re.compile(
                r"^(?!我|你|他|她|这|那)\S{1,15}?(?:是|都是|全是|全部|都|统一)?(?:用|基于|拿)\s*"
                r"[A-Za-z][A-Za-z0-9.+#-]*(?:\s+[A-Za-z][A-Za-z0-9.+#-]*)?\s*(?:写|开发|实现|构建|"
                r"搭建|编写|"
                r"打包|部署|编译)"
            ),
        ),
        # v2: something going away or arriving — "v1 接口三月份下线"
        Rule(
            "zh.project.lifecycle",
            "project",
            re.compile(
                r"^(?!我|你|他|她|这|那)(?!.*(?:" + _ZH_WHEN + r"))[^，。,]{0,20}?[A-Za-z0-9]"
                r"[^，。,]{0,20}?(?:下线|上线|废弃|弃用|停用|停止维护|不再维护|退役|关停|停服)"
            ),
        ),
        Rule(
            "zh.project.hedged-change",
            "project",
            re.compile(
                r"^\S{0,8}?(?:可能|也许|或许|大概|打算|考虑|计划|准备)\S{0,8}?"
                r"(?:用|换成|迁到|迁移到|改用|切到|上|引入|支持|不再支持|升级到|试试)\s*\S"
            ),
        ),
        # v5: how a kind of work should (not) be done, said of the work — "变量命名别用拼音",
        # "回复尽量短一点", "升级依赖和写功能别放在同一个 PR 里"; never "先别…" (a one-off) nor a
        # change already made ("早就不用 X 了")
        Rule(
            "zh.preference.dont",
            "feedback",
            re.compile(
                r"^(?!我|你|他|她|这|那|先|就|暂时|今天|明天)(?![^，。]*(?:早就|已经|现在|目前|先别))"
                r"[^，。,]{2,16}?(?:别|不要|不用|尽量|千万别|千万不要|少用|多用)"
                r"(?!管|急|担心|客气)[^，。,]{2,}"
            ),
        ),
        # v5: a state of the person with no name in it — "我住在苏州", "我人在成都", "我不吃辣",
        # "我周末基本不看消息", "我带数据平台组" — never an event just told ("…了")
        Rule(
            "zh.identity.state",
            "user",
            re.compile(
                r"^我(?!们)(?![^，。,]*了[，,。]?$)(?![^，。,]*(?:吧|啊|呢|再|一下|待会|等下))(?:人在|住在|老家在?|家在|现在在|目前在|"
                r"在[^，。,]{1,6}(?:工作|上班|办公|远程)|是[^，。,]{1,4}人(?=[，,。]|$)|"
                r"主要(?:写|用|做)|平时|周末|每天|"
                r"不吃|不喝|不能吃|[^，。,]{0,6}过敏|有点?[^，。,]{0,3}(?:色弱|色盲|近视|远视|听力)|"
                r"带[^，。,]{1,10}(?:组|团队)|的\s*(?:电脑|mac|Mac|笔记本|机器|显示器)是)"
            ),
        ),
    ),
    imperative=re.compile(
        r"^(?:请|你)?(?:应该|要|得|需要)?(?:先)?(?:用|改用|换成|使用|别|不要|写|跑|加|调用|检查|问|遵循|"
        r"回复|回答|解释|提交|推送|部署|切换|保持|保留)\s*\S{2,}"
    ),
    personal=re.compile(r"^我(?!们)"),
    substance=re.compile(r"[A-Za-z0-9][\w.+#-]*|\S*[/._]\S+|`[^`]+`|「[^」]+」"),
    because=re.compile(r"(?:因为|由于|毕竟)(?P<why>[^。；！？]{2,})"),
)
