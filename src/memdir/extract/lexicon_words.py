"""The word lists the rule tables share: roles, kinds of document and of place, tools (products
where information is kept), names in running text, fact verbs, code names, the parts of a
system in Chinese. Never a sentence shape: those are the rules (``lexicon_en_*.py``,
``lexicon_zh.py``). Changing a list changes what the extractor does: bump
``rules.RULES_VERSION`` with it.
"""

from __future__ import annotations

import re

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

# v10: a condition on the work, then what the agent should do — "if you're unsure about a
# term, flag it inline", "if a change could touch prod, ask me first": a standing rule with its
# condition, not a hypothetical (the main clause speaks to the agent)
_EN_IF_RULE = (
    r"^(?:if|when(?:ever)?)\s+(?:you'?re|you are|you|a|an|the|any|something|anything)\b[^,?]{2,60}?"
    r"(?:,\s*|\s+(?=(?:just|then|please|pls)\s))"
    r"(?:please\s+|pls\s+|just\s+|always\s+|then\s+)*(?:ask|tell|flag|ping|check with|warn|"
    r"let me know|show|mark|note|say so|leave a comment|stop and ask)\b"
)
