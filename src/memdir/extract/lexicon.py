"""The rule tables of the offline extractor (``rules.py``), one ``Lexicon`` per language.

A ``Lexicon`` holds the patterns ``rules.py``'s pipeline asks about a sentence — is it a
question, a hypothetical, reported speech, a hedge, an explicit "remember", a correction — and
its ``rules``: ``Rule`` objects tried in order (specific → general), the first match giving the
memory's type and the part of the sentence to keep. ``EN`` is here, ``ZH`` in ``lexicon_zh.py``;
a family added in rules-v2 carries a ``v2:`` comment, one added in rules-v3 a ``v3:`` one.
Changing any pattern changes what the extractor does: bump ``rules.RULES_VERSION`` with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..records import MemoryType

__all__ = ["CJK", "EN", "URL", "Lexicon", "Rule"]


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


CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
URL = r"https?://[^\s，。、）)]+"
_I = re.IGNORECASE


# v7: "pls" and "plz" open a rule as "please" does
_PLEASE = r"(?:(?:please|pls|plz)\s+)?"


# v7: "no <thing> in <place>" — a ban ("no emojis in code comments"), never a status ("no
# errors in the logs") nor a correction ("no, we use …"); shared by the rule and by the
# correction marker, which must not take the "no" of a ban
_NO_BAN_TAIL = (
    r"\s+(?:more\s+)?(?!(?:i|we|you|it|that|this|the|they|he|she|not|actually|wait|thanks|"
    r"worries|errors?|issues?|problems?|luck|idea|way|need|changes?|difference|one|data|"
    r"results?|warnings?|output|response|reply|news|updates?|progress|rush|clue|time|rows|"
    r"matches|hits|logs?|traffic|alerts?|failures?)\b)(?:[\w'-]+\s+){0,2}?[\w'-]+\s+"
    r"(?:left\s+)?(?:in|on|inside|for|when|during)\s+"
)
_NO_BAN = r"no" + _NO_BAN_TAIL


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
    r"creds|keys|api keys|passwords|templates?|guidelines|style guides?|definitions|conventions|"
    # v8: the kinds of watching a tool does — "uptime monitoring is in X"
    r"monitoring|alerting|paging|analytics|observability|tracing"
)
_TOOLS = (
    r"Linear|Jira|Figma|Notion|Confluence|GitHub|GitLab|Slack|Google Drive|Google Docs|Trello|"
    r"Asana|Sentry|Grafana|Datadog|Bitbucket|Miro|Coda|PagerDuty|Kibana|Airtable|Basecamp|"
    r"飞书|钉钉|语雀|禅道|Teambition|TAPD|企业微信|"
    # v7: more places information is kept in — trackers, wikis, API catalogues, dashboards,
    # error trackers, vaults, shared drives (product names only; generic places are below)
    r"Opsgenie|Storybook|Freshdesk|Intercom|Backstage|Swagger|Postman|YApi|"
    r"Metabase|Looker|Tableau|Superset|Redash|Amundsen|DataHub|Splunk|New Relic|Honeycomb|"
    r"Rollbar|Bugsnag|Crashlytics|Amplitude|Mixpanel|LaunchDarkly|Sourcegraph|GitBook|"
    r"Read the Docs|Dropbox|SharePoint|OneDrive|Quip|ClickUp|YouTrack|1Password|Bitwarden|"
    r"Lark|Feishu|腾讯文档|石墨文档|蓝湖|云效"
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
    r"stopped using|no longer use|don'?t use|do not use|never use|"
    # v8: where a plan lands and what it changes — "we'll likely end up on Azure", "we
    # should rename the repo"
    r"end(?:ed|ing|s)? up (?:on|with|using|going with|in)|(?:renam|rewrit|upgrad|split)"
    r"(?:e|es|ed|ing|s|ting|ted|ts)?"
)
# v8: languages and UI frameworks — "dashboards are built in React" is about the code
_CODE_NAMES = (
    r"React|Vue|Angular|Svelte|Solid|Next(?:\.js)?|Nuxt|Remix|Flutter|SwiftUI|Jetpack|Compose|"
    r"Go|Python|Java|Kotlin|Swift|Rust|TypeScript|JavaScript|JS|TS|Ruby|Rails|Django|Flask|"
    r"FastAPI|PHP|Laravel|Elixir|Phoenix|Scala|C|C\+\+|C#|\.NET|Node(?:\.js)?|D3|Dash|Streamlit|"
    r"Shiny|R|Qt|GTK|Tailwind|HTML|CSS"
)
# Softeners between "we" and the verb ("we're kind of thinking about moving off X"): they keep
# the fact and make it tentative through the hedge pattern.
_ZH_PARTS = (
    r"前端|后端|服务端|客户端|数据库|主库|从库|缓存|CI|CD|接口|API|网关|消息队列|"
    r"搜索|存储|监控|日志|测试环境|生产环境|预发环境|线上|"
    # v2: more parts of a system
    r"预发|staging|文档站|官网|域名|服务器|集群|镜像|制品|流水线|队列|定时任务|配置中心|"
    # v7: more parts — "小程序那边用的是 Taro 3", "事件总线倾向用 NATS"
    r"小程序|(?<![A-Za-z])[Aa]pp(?![A-Za-z])|H5|管道|数据管道|事件总线|调度|桌面端"
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
        r"^" + _PLEASE + r"(?:from now on|going forward|from here on(?: out)?|moving forward|"
        r"henceforth|in (?:the )?future)\b[,\s]+(?!(?:sounds|seems|looks|is|works|makes)\b)\w"
        r"|\w.*[,\s](?:from now on|going forward|from here on(?: out)?)[\s.!]*$"
    ),
    correction=_en(
        r"^\s*(?:(?:no(?!" + _NO_BAN_TAIL + r")|nope|nah|wrong|incorrect|not quite|"
        r"not really|not exactly|actually|"
        r"that'?s (?:not right|not correct|wrong|incorrect)|that is (?:not right|wrong|incorrect)|"
        r"you'?re wrong|correction|"
        # v7: "that's outdated — we moved …", "that's old info, …"
        r"that'?s (?:outdated|out of date|old|stale)(?: info| news)?)\b[\s,.!:;—–-]*)+"
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
        # v7: "quick bit of background before we start —", "quick intro:", "a little context
        # first"
        r"(?:a |some |quick |a quick )?(?:bit of |little )?(?:context|background|intro|"
        r"introduction)(?:\s+(?:before we (?:start|begin)|first|for you))?|"
        r"for what it'?s worth|side note|fun fact|"
        # v8: "before I forget —"
        r"before i forget|while i remember|"
        # v5: a turn to the point after small talk — "anyway, …", "quick bg: …"
        r"anyway|anyways|(?:quick )?bg|so yeah|oh and|and also)\b[\s,:—–-]*)+"
    ),
    question=_en(
        # v5: "When you write SQL, uppercase the keywords" is a rule with a condition, not a
        # question: "when" followed by a clause and a comma, with no question mark
        r"\?\s*$|^\s*(?:(?:"
        # v8: "what really helps me is when you …" states a preference
        r"what(?!\s+(?:really\s+|actually\s+|honestly\s+)?(?:helps|works best|works for me)\b)|"
        r"which|where|when(?![^?]*,\s*\w[^?]*$)|who|whom|whose|why|how|"
        r"do(?!\s+not\b)|does|did|is|are|am|was|were|can|could|should|would|will|shall|"
        r"have|has|may i|might)\b(?!['’]t))"
    ),
    hypothetical=_en(
        r"^\s*(?:if|suppose|supposing|imagine|hypothetically|what if|say we|let'?s say|"
        r"assuming|assume|in case|even if|unless|whether)\b|\bwhat if\b|"
        # v7: a counterfactual — "with a bigger team we could do a port", "in an ideal world
        # we'd have …", "Rust would've been a better fit": what is not, said as what would be
        r"\b(?:in an ideal world|ideally|in theory|in a perfect world|with (?:a |more |an? )?"
        r"(?:bigger|larger|extra|more|better|bit more)\b)|"
        r"\b(?:we|i|you|they|it|that|this)(?:'d|\s+would|\s+could)(?:\s+have|'ve)?\s+"
        r"(?!rather\b|prefer\b|like\b|love\b|appreciate\b|recommend\b|suggest\b|"
        # v8: "it'd be great if you …", "it would help if you …": a wish of the person
        r"(?<=it'd )(?:be|help|save|make)\b|(?<=it would )(?:be|help|save|make)\b)\w|"
        r"\b(?:would|could|might)(?:'ve|\s+have)\s+been\b"
    ),
    reported=_en(
        r"\b(?:said|says|told (?:me|us|them)|tells (?:me|us)|mentioned|claims?|claimed|wrote|"
        r"according to|asked me|reckons)\b|^\s*(?:he|she|they|someone|somebody|people|"
        r"my (?:manager|boss|colleague|coworker|co-worker|friend|lead|teammate))\b|"
        # v5: someone else's taste or view — "Sarah prefers tabs", "the client wants Excel"
        # v8: a name with accents too ("Zoë", "José", "Søren")
        r"^\s*(?:(?-i:[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)|(?:my|our|the) (?:manager|boss|colleague|"
        r"coworker|co-worker|"
        r"friend|lead|teammate|client|customer|cto|ceo|pm|designer|partner|wife|husband|"
        r"cofounder|co-founder|"
        # v7: any possessed someone ("our publisher loves …", "my landlord hates …"); a team,
        # a codebase or a product stays the project's own ("our team prefers squash merges")
        r"(?<=my )(?!team|company|org|codebase|project|repo|app|service|code|stack)[a-z][\w-]*|"
        r"(?<=our )(?!team|company|org|codebase|project|repo|app|service|code|stack|squad|"
        r"group|ci|api)[a-z][\w-]*))\s+(?:(?:really|also|still|kind of|just|absolutely|totally) )?"
        r"(?:prefers|likes|loves|hates|dislikes|wants|thinks|insists|swears by|can'?t stand|"
        r"is into|is a fan of|always wants)\b"
    ),
    deictic=_en(
        # "this project" is the project itself, not the task at hand
        r"\b(?:this(?!\s+(?:project|repo|repository|codebase|team|company|org|"
        # v7: "everywhere in this service": the project, named by its kind
        r"service|app|system|product|monorepo|"
        # v8: "this year", "this quarter": the horizon of a plan, not the task at hand
        r"year|quarter|half|spring|summer|fall|autumn|winter)\b)|that|these|"
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
        r"\b(?:fails?|failing|failed|crash(?:es|ed|ing)?(?!\s+(?:reports?|logs?|dumps?|data|"
        r"analytics|reporting)\b)|broken|breaks|throws|threw|traceback|"
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
                # v8: information routed through a tool we do not list — "support tickets all
                # go through Zendesk", "alerts get sent to Opsgenie"
                # (what a person reads: deploys or logs going through a tool are the project's
                # plumbing — "prod deploys go through ArgoCD", "logs go to Loki")
                r"|^(?:the |our |all |all the |any )?(?:[\w-]+ ){0,2}(?:tickets|requests|questions|"
                r"bugs|bug reports|issues|incidents|alerts|pages|feedback|complaints|"
                r"escalations)\s+"
                r"(?:all\s+|always\s+|usually\s+)?(?:go|get sent|are sent|get routed|"
                r"are routed|get "
                r"filed|are filed|get logged|are logged|get reported|are reported)\s+(?:through|to|"
                r"into|via)\s+(?:the\s+)?" + _NAME + r"\b"
                r"|^(?:the |our |all |all the )?(?:[\w-]+ ){0,3}(?:" + _EN_DOCS + r")\b.{0,20}?"
                r"\b(?:are|is|live|lives|sit|sits)\s+(?:in|on)\s+(?:the\s+)?"
                + _NAME
                + r"(?:\s+\w+)?\s+under\s+\S"
            ),
        ),
        # v7: a label and a link, nothing else — "style guide: https://…", "runbook - https://…"
        Rule(
            "en.reference.label-url",
            "reference",
            _en(
                r"^(?!(?:i|we|you|my|our|pls|please|see|check|look)\b)[\w/&'. -]{2,40}?\s*"
                r"(?::|-|—|–|=)\s*" + URL + r"\s*$"
            ),
        ),
        # v7: information that goes to, or is explained in, a named tool, whatever its noun —
        # "crash reports go to Sentry", "the art pipeline is explained in Confluence", "error
        # budgets are tracked in Datadog"; a product name is required, so "the logs go to
        # stdout" or "the build goes to staging" is not a pointer
        Rule(
            "en.reference.tool",
            "reference",
            _en(
                r"^(?!(?:i|we|you|he|she|they|it|this|that|please|pls)\b)"
                r"(?:(?:the|our|all|all the|any|every)\s+)?(?:[\w-]+\s+){0,3}?[\w-]+\s+"
                r"(?:(?:is|are|get|gets)\s+)?(?:all\s+|always\s+|usually\s+)?"
                r"(?:go|goes|tracked|kept|documented|explained|described|written up|logged|"
                r"reported|sent|posted|filed|recorded|listed|collected|published|routed|live|lives)"
                r"\s+(?:to|in|on|into|under|through|via|over in)\s+(?:the\s+|our\s+)?"
                r"(?-i:" + _TOOLS + r")\b"
            ),
        ),
        # v8: a thing built in a tool that keeps things — "dashboards are built in Metabase",
        # "the admin screens are made in Retool": what is built is a view or a form, so the
        # tool is where the information lives, not what the code is written in
        Rule(
            "en.reference.built-in",
            "reference",
            _en(
                r"^(?:(?:the|our|all|all the|all our)\s+)?(?:[\w-]+\s+){0,2}?(?:dashboards?|"
                r"reports?|charts?|admin (?:panels?|screens?|pages?)|"
                r"back-?office|forms?|surveys?|boards?|workflows?|automations?)\s+"
                r"(?:are|is)\s+(?:all\s+)?(?:built|made|set up|done|created|kept)\s+(?:in|on|"
                r"with)\s+"
                # a language or a UI framework is what code is written in, not a place
                r"(?:the\s+)?(?!(?:" + _CODE_NAMES + r")\b)" + _NAME
            ),
        ),
        # v8: a plain thing kept in a plain place — "the onboarding checklist is in the wiki
        # under Engineering", "load test numbers are in the sheet on the shared drive", "the
        # release template is pinned in #releases": no docs noun is needed when the place is a
        # kind of place with its whereabouts; a bug, an error or a value is never a pointer
        Rule(
            "en.reference.place",
            "reference",
            _en(
                r"^(?!(?:(?:the|our|all|all the|all our)\s+)?(?:i|we|you|it|this|that|these|those|"
                r"they|he|she|there|here|my|bug|error|problem|issue|typo|crash|value|fix|change|"
                r"file|output|result|answer|config|setting|code)s?\b)"
                r"(?:(?:the|our|all|all the|all our)\s+)?"
                r"(?:[\w-]+\s+){0,3}?[\w-]+\s+(?:are|is|live|lives|sit|"
                r"sits)\s+(?:all\s+|always\s+)?(?:(?:pinned|kept|saved|stored|posted|written|"
                r"listed|written up|bookmarked|collected)\s+)?(?:in|on|under)\s+(?:the\s+|our\s+|"
                r"a\s+)?(?:#[\w-]+|(?:[\w-]+ )?"
                r"(?:wiki|drive|sheet|spreadsheet|notion|confluence|folder|channel|vault|"
                r"workspace|space|tracker|repo|repository))\b"
                r"(?=.*\b(?:under|on|in|called|named)\s+\S|\s*(?:[#,]|$))"
                r"|^(?:(?:the|our)\s+)?(?:[\w-]+\s+){0,3}?[\w-]+\s+(?:are|is)\s+pinned\s+in\s+"
                r"(?:the\s+)?#[\w-]+"
            ),
        ),
        # v7: a kind of document that is one file somewhere — "API spec is the openapi.yaml at
        # the root of the contracts repo", "the schema is schema.graphql in the api repo"
        Rule(
            "en.reference.file",
            "reference",
            _en(
                r"^(?:the |our )?(?:[\w-]+ ){0,3}(?:" + _EN_DOCS + r"|schema|contract)\b\s+"
                r"(?:is|are|lives?)\s+(?:the |in |at )?(?:[\w-]+ )?[\w./-]+\.(?:ya?ml|json|md|"
                r"proto|graphql|txt|pdf|csv|toml|sql)\b.{0,30}?\b(?:at|in|under|on)\s+\S"
            ),
        ),
        Rule("en.identity.name", "user", _en(r"^(?:my name is|my name's|call me)\s+\S")),
        # v7: who the person is, said without "I'm" — "backend dev here", "data engineer
        # here, mostly Spark"; how long they have done it — "been doing iOS for like eight
        # years"; what they were — "I used to be a data analyst", "I only started coding last
        # year"
        Rule(
            "en.identity.here",
            "user",
            _en(
                r"^(?!(?:we|i|you|they|our|the|this|that)\b)(?:an?\s+)?(?:[\w/+#.-]+\s+){0,3}?"
                r"(?:" + _EN_ROLE + r")s?\s+(?:here|by (?:trade|profession|training))\b|"
                r"^(?:i'?ve\s+|i have\s+)?been\s+(?:doing|writing|using|coding in|coding|"
                r"programming in|programming|working (?:with|in|on|as))\b.{0,40}?\bfor\s+"
                r"(?:about\s+|like\s+|almost\s+|over\s+|nearly\s+|around\s+|roughly\s+)?"
                r"(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+)\+?\s+"
                r"(?:years?|months?)\b|"
                r"^i\s+used\s+to\s+(?:be|work)\s+(?:an?\s+|as\s+|at\s+|in\s+|for\s+)\w|"
                r"^i\s+(?:only\s+|just\s+)?(?:started|began)\s+(?:coding|programming|"
                r"writing code|in tech)\b"
            ),
        ),
        # v7: a lasting trait of the person — a condition, a diet, a family ("I'm colorblind",
        # "I have dyslexia", "I don't drink") — kept as who they are even when an instruction
        # follows it
        Rule(
            "en.identity.trait",
            "user",
            _en(
                r"^(?:i'?m|i am)\s+(?:(?:a|an|totally|completely|partially|pretty|very|quite|"
                r"severely|mildly|also|kind of|sort of)\s+)*(?:colou?r-?blind|deaf|"
                r"hard of hearing|blind|vegetarian|vegan|pescatarian|left-handed|dyslexic|"
                r"autistic|diabetic|allergic to|lactose intolerant)\b|"
                r"^i\s+(?:have|'ve got|have got)\s+(?:a\s+|an\s+)?(?:mild\s+|severe\s+|bad\s+)?"
                r"(?:dyslexia|adhd|rsi|tinnitus|a disability|allergies|\w+ allergy|"
                r"(?:a\s+)?newborn|(?:two|three|\d|small|young)?\s*kids|a (?:kid|baby|toddler))\b|"
                r"^i\s+don'?t\s+(?:drink|eat (?:meat|pork|fish|gluten|dairy)|drive)\b"
            ),
        ),
        # v7: a life plan with its time — "I'm getting married in June", "I'm moving to Berlin
        # in April", "I'm out every Friday afternoon", "I'm on parental leave from March"
        Rule(
            "en.identity.plans",
            "user",
            _en(
                r"^(?:i'?m|i am|i'?ll be|i will be)\s+(?:(?:also|probably|likely)\s+)?"
                r"(?:getting married|moving|relocating|going on (?:\w+ )?leave|on (?:\w+ )?leave|"
                r"out|off|away|offline|unavailable|switching (?:to|teams)|joining|leaving|"
                r"changing teams|starting (?:a new|at|on))\b.{0,50}?\b(?:(?:every|each)\s+\w+|"
                # a recurring day, a month, a season or a span — never "on Friday" (once)
                r"on\s+(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days|weekends)\b|"
                r"(?:in|from|until|after|starting|through)\s+(?:(?-i:January|February|March|"
                r"April|May|June|July|August|September|October|November|December)|the (?:summer|"
                r"winter|spring|fall|autumn)|\d)|next (?:week|month|quarter|year)|"
                r"for (?:a|two|three|four|six|\d+) (?:weeks?|months?|years?))"
            ),
        ),
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
        # v7: the person's own tool changed — "I switched to Fish shell recently", "I've moved
        # to Neovim"
        Rule(
            "en.identity.switched",
            "user",
            _en(
                r"^i(?:'?ve| have)?\s+(?:recently\s+|just\s+|finally\s+)?(?:switched|moved|"
                r"migrated|changed)\s+(?:over\s+)?(?:from\s+\S+\s+)?to\s+" + _NAME
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
        # v6: a preference phrased as ease — "it's much easier for me to follow when you number
        # the steps", "examples work better for me than definitions"
        Rule(
            "en.preference.ease",
            "feedback",
            _en(
                r"^(?:honestly,? |tbh,? |fwiw,? )?(?:it'?s |it is )?(?:much |way |a lot |far )?"
                r"(?:easier|simpler) for me (?:to|when|if)\b|"
                r"^i find it (?:much |way |a lot |far )?(?:easier|simpler) (?:to|when|if)\b|"
                r"\b(?:works?|work) (?:much |way |a lot |far )?better for me\b"
            ),
        ),
        # v8: a standing instruction said as what helps — "it helps me a lot when you say
        # which file", "what really helps is when you link the docs", "it would be nice if you
        # kept functions short", "the best way to work with me is to ask first", "a
        # test plan with each change would make reviews way easier"
        Rule(
            "en.preference.helps",
            "feedback",
            _en(
                r"^(?:honestly,? |tbh,? |fwiw,? )?(?:it |what |the thing that |something that )?"
                r"(?:really |honestly |always |also )?(?:helps|would help|'d help)(?: me)?"
                r"(?: (?:a lot|a ton|so much|tons|loads|massively|hugely|heaps|the most|most))?"
                r"(?: is)? (?:when|if) you\b|"
                r"^it(?:'d| would)(?: really| honestly)? (?:be (?:really |so |super |very )?"
                r"(?:nice|great|helpful|awesome|ideal|lovely|amazing|good|best|better)|help(?: me)?"
                r"(?: a lot| a ton| so much)?) (?:if|when) you\b|"
                r"^what (?:really |usually |honestly )?(?:helps|works)(?: best)?(?: for me)?"
                r"(?: most)? is\s+\w|"
                r"^the best way to (?:work with me|help me)\s+is\s+"
                r"(?:to\s+|when you\s+|if you\s+)?\w|"
                r"^(?!(?:i|we|you|it|this|that|they|he|she|there)\b)(?:an?\s+|the\s+)?"
                r"(?:[\w'-]+\s+){0,8}?(?:would|'d|really|always)\s+make (?:reviews?|reviewing|"
                r"reading|code review|debugging|following along)\s+(?:so |way |much |a lot |far )?"
                r"(?:easier|simpler|faster|quicker|nicer)"
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
                r"^"
                + _PLEASE
                + r"(?P<body>(?!(?:i|we|they|he|she|it|my|our|the|this|that|there)\b)"
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
                r"(?:commit|push|merg|deploy|releas|open|chang|edit|apply|appl|run|refactor|"
                r"delet|touch|install|"
                r"upgrad|writ|add|creat|rewrit|"
                r"modif)\w*\b[^,]{0,50},\s*(?:please\s+)?(?:always\s+)?"
                r"(?!(?:i|we|it|the|this|that|there)\b)\w+"
            ),
        ),
        Rule(
            "en.preference.always",
            "feedback",
            _en(r"^" + _PLEASE + r"always\s+(?!the\b|a\b|an\b|same\b)(?P<body>\w.+)$"),
            keep="body",
        ),
        Rule(
            "en.preference.never",
            "feedback",
            _en(r"^" + _PLEASE + r"(?:never|don'?t ever|do not ever|never ever)\s+(?!mind\b)\w"),
        ),
        Rule(
            "en.preference.dont",
            "feedback",
            _en(
                r"^" + _PLEASE + r"(?:don'?t|do not|stop|quit|avoid|no more)\s+(?!worry|mind|"
                # v2: "don't bother writing tests for scripts" is a rule; a bare "don't bother"
                # or "… for now" (deictic) is not
                r"know|bother\b(?!\s+(?:with\s+\w|\w+ing\b)))\w+"
            ),
        ),
        # v7: a ban phrased as a noun — "no emojis in code comments pls", "no print debugging
        # left in commits please"; never a status ("no errors in the logs", "no luck on staging")
        Rule(
            "en.preference.no-x",
            "feedback",
            _en(r"^" + _PLEASE + _NO_BAN + r"\w"),
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
                r"^" + _PLEASE + r"(?:keep|make)\s+(?:your\s+|the\s+|all\s+)?(?:answers?|"
                r"explanations?|responses?|replies|summaries|messages|commit messages|prs?|"
                r"pull requests|functions|comments|code|docstrings|variable names|names)\s+\w|"
                # v8: "keep SQL keywords uppercase", "keep imports sorted"
                r"^" + _PLEASE + r"keep\s+(?:[\w-]+\s+){1,3}?(?:upper-?case|lower-?case|sorted|"
                r"alphabetical|short|brief|concise|minimal|consistent|small|simple|under \d+)\b"
            ),
        ),
        Rule(
            "en.preference.use-not",
            "feedback",
            _en(
                r"^" + _PLEASE + r"(?:use|prefer|go with|stick (?:to|with))\s+\S.{0,40}?"
                r"(?:,?\s+(?:not|instead of|rather than|over)\s+\S)"
            ),
        ),
        Rule(
            "en.project.we-use",
            "project",
            _en(
                r"^(?:we|our team|the team|this (?:project|repo|repository|codebase|team))\s*"
                r"(?:'re|'ll|are|will|'ve|have)?\s*(?:(?:all|now|still|currently|mostly|only|"
                r"always|"
                r"just|already|probably|likely|maybe|might|may|could|finally|mainly|primarily|"
                r"officially|going to|gonna|plan to|want to|decided to|try to|be|should|"
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
        # v7: how data is represented across the project — "all timestamps in the db are
        # stored as UTC", "user IDs are UUIDv7 everywhere in this service", "money values are
        # integers in cents, never floats, across the codebase": a convention of the code,
        # stated as a fact (project), not an instruction to the agent (feedback)
        Rule(
            "en.project.convention",
            "project",
            _en(
                r"^(?!(?:i|we|you|my|please|pls|don'?t|never|always|use|keep|make|let'?s)\b)"
                r"(?:(?:all|every|each|the|our)\s+)*(?:[\w./-]+\s+){0,4}?[\w./-]+\s+(?:are|is)\s+"
                r"(?:(?:all|always|only|now|still)\s+)?(?:(?:stored|kept|saved|persisted|"
                r"represented|encoded|serialized|expressed|formatted|returned|generated|keyed|"
                r"partitioned|sharded|hashed|encrypted)\s+(?:as|in|with|by|using|per|on)\b|"
                r"[^.;]{1,60}?\b(?:everywhere|across the (?:codebase|board|repo|service|stack|"
                r"app|api)|in (?:this|the|our) (?:codebase|service|repo|db|database|api|system)|"
                r"no exceptions)\b)"
            ),
        ),
        # v7: a fact built on a number — "the monolith is about 400k lines", "the API handles
        # about 2k requests per second", "the pipeline chews through roughly 3 TB a day"
        Rule(
            "en.project.amount",
            "project",
            _en(
                r"^(?!(?:i|we|you|he|she|they|it|this|that|there|my)\b)(?:(?:the|our)\s+)?"
                r"(?:[\w./-]+\s+){0,3}?[\w./-]+\s+(?:is|are|has|have|handles?|holds?|serves?|"
                r"gets?|does|runs?|processes|takes?|stores?|chews through|sees?|peaks at)\s+"
                r"(?:about|around|roughly|approximately|nearly|almost|over|under|some|~)\s*"
                r"\d[\d.,]*\s?(?:k|m|b|tb|gb|%|x)?\b"
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
                r"\b[^,]{3,60},\s*" + _PLEASE + r"[a-z]\w*\b"
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
        r"^" + _PLEASE + r"(?:always|never|use|don'?t|do not|stop|avoid|prefer|keep|make sure|"
        r"write|run|put|add|call|check|ask|follow|format|name|reply|answer|respond|explain|"
        r"test|commit|push|deploy|switch|stick)\b"
    ),
    personal=_en(r"^(?:i|i'?m|i'?ve|i'?d|my|me)\b"),
    substance=re.compile(r"[A-Z0-9][\w.+#-]*|\S*[/._]\S+|`[^`]+`"),
    because=_en(r"\b(?:because|since|as|so that)\s+(?P<why>[^.;!?]{4,})"),
    opinion=_en(
        r"^(?:i (?:(?:really|honestly|kinda|kind of) )?(?:think|guess|believe|suspect|reckon|"
        r"expect|feel like)|i'?m (?:fairly|pretty|quite|almost|mostly|reasonably) "
        r"(?:sure|certain|confident)|my (?:guess|hunch|sense|feeling) is|i'?d (?:say|guess|bet))"
        r"(?: that)?[,\s]+(?=(?:we|our|the team)\b)"
    ),
)
