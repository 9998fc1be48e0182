"""Light world knowledge for the keyword signal: a question names a kind, a memory its instance.

"Which package manager do we use?" shares no word with "Use pnpm, not npm", and a small
sentence embedder does not know that pnpm *is* a package manager (USE puts the question nearer
"We use PostgreSQL 15", which shares "we use"). This is query expansion by hypernyms, the
thesaurus remedy of classic retrieval: when the query names a kind of thing a software team
picks — a package manager, a database, a test framework, 包管理器, 数据库 — the names of that
kind's common instances are searched as well, and a memory naming one earns keyword credit
(``concept`` in ``recall.py``, a fraction of a keyword match). When the query names an
instance ("can I use yarn here?"), its siblings are searched too: the memory that says what
to use instead names another instance of the same kind.

Written from general knowledge of software tools (what each kind's well-known members are),
not from any evaluation question; instances are single words (a search term is one token).
Each entry is ``kind phrases = instances``: phrases are
matched as whole words (Latin) or substrings (Chinese) of the lowercased query; instances are
searched as keywords. Kinds whose phrases are ordinary words of conversation ("language",
"cloud") are left out or spelled as the compound a developer would use, so a question about
someone's holiday expands nothing.
"""

from __future__ import annotations

import functools
import re

__all__ = ["aliases", "expand", "is_instance"]

_KINDS = """
package manager, package managers, install packages, install dependencies, dependency manager,
dependencies, lockfile, lock file, 包管理, 包管理器, 装依赖, 安装依赖
  = npm pnpm yarn bun pip uv poetry pipenv conda cargo composer bundler gem
database, databases, db, rdbms, sql database, 数据库
  = postgresql postgres mysql mariadb sqlite oracle mongodb mssql cockroachdb dynamodb
test framework, testing framework, unit tests, unit test, test runner, 测试框架, 单元测试
  = jest vitest mocha jasmine pytest unittest junit testng rspec minitest xctest espresso
programming language, coding language, language do we, language does, code in, 编程语言
  = go golang python java kotlin rust typescript javascript swift ruby php scala elixir
ci, continuous integration, build pipeline, ci pipeline, 持续集成, 流水线
  = github gitlab jenkins circleci travis buildkite drone teamcity
cloud provider, cloud platform, hosting provider, 云服务, 云厂商
  = aws gcp azure digitalocean hetzner heroku vercel netlify cloudflare
monitoring, dashboards, dashboard, metrics, observability, 监控, 看板, 指标
  = grafana prometheus datadog kibana newrelic
error tracking, crash reporting, crash reports, 崩溃, 错误追踪
  = sentry crashlytics bugsnag rollbar
container orchestration, orchestration, 容器编排, 集群
  = kubernetes k8s nomad ecs swarm openshift
container image, docker image, 容器, 镜像
  = docker podman distroless alpine
password manager, credentials, api key, api keys, 密钥, 密码
  = vault 1password bitwarden lastpass keychain
issue tracker, bug tracker, file a bug, report a bug, 工单, 任务管理
  = jira linear youtrack trello asana
team chat, chat app, 群聊
  = slack teams discord mattermost
design files, mockups, mockup, wireframes, 设计稿, 原型
  = figma sketch zeplin
static site generator, site generator, 静态网站
  = hugo jekyll gatsby astro eleventy docusaurus mkdocs
orm, query builder
  = sqlc prisma hibernate sqlalchemy typeorm gorm activerecord
formatter, code formatter, format the code, linter, lint, linting, 格式化, 代码检查
  = prettier eslint black ruff golangci-lint clang-format gofmt rubocop ktlint
bundler, build tool, build system, 构建工具, 打包工具
  = webpack vite esbuild rollup parcel gradle maven bazel make cmake
web framework, frontend framework, ui framework, 前端框架
  = react vue angular svelte nextjs django flask fastapi rails spring laravel
code editor, ide, 编辑器
  = vim neovim emacs vscode intellij xcode
analytics, web analytics, page views, visitor stats, 统计, 埋点
  = plausible matomo mixpanel amplitude
payment provider, payment processor, payment gateway, 支付
  = stripe paypal adyen braintree alipay wechat
cache, caching, 缓存
  = redis memcached varnish
message queue, message broker, job queue, 消息队列
  = kafka rabbitmq sqs nats pulsar
search engine, full-text search, 搜索引擎, 全文搜索
  = elasticsearch opensearch meilisearch solr algolia
logging, logs, logger, log files, 日志
  = zap logrus slf4j logback splunk loki
feature flags, feature flag, feature toggle, 功能开关, 特性开关
  = unleash launchdarkly flagsmith
version control, 版本控制
  = git github gitlab bitbucket mercurial
operating system, 操作系统
  = linux ubuntu debian macos windows android ios
rtos, real-time os, real-time operating system, 实时操作系统
  = zephyr freertos threadx
jvm, jdk, java version
  = java openjdk temurin
"""


@functools.cache
def _table() -> tuple[list[tuple[re.Pattern[str], tuple[str, ...]]], dict[str, tuple[str, ...]]]:
    """(kind pattern, its instances) per kind, and each instance → its kind's instances."""
    kinds: list[tuple[re.Pattern[str], tuple[str, ...]]] = []
    siblings: dict[str, tuple[str, ...]] = {}
    for block in re.findall(r"[^=]+=[^\n]+", _KINDS):  # phrase lines, then "  = instances"
        phrases_text, instances_text = block.split("=", 1)
        phrases = [p.strip() for p in phrases_text.replace("\n", " ").split(",") if p.strip()]
        instances = tuple(instances_text.split())
        alternatives = "|".join(
            re.escape(p) if re.search(r"[\u3400-\u9fff]", p) else rf"\b{re.escape(p)}\b"
            for p in sorted(phrases, key=len, reverse=True)
        )
        kinds.append((re.compile(alternatives), instances))
        for word in instances:
            siblings[word] = siblings.get(word, ()) + instances
    return kinds, siblings


# instances that are also ordinary words or too short to name a tool by themselves: searched
# when their kind is named, but they call up no siblings ("did you go?" is not about Go)
_PLAIN = frozenset(
    "go make spring swift ruby rust black sketch teams windows gem cargo bun vault alpine zap "
    "react drone gradle linear make ecs os swarm git java python".split()
)
_WORD = re.compile(r"[a-z0-9][a-z0-9+#-]*[a-z0-9+#]|[a-z0-9]")


def expand(query: str) -> tuple[list[str], list[str]]:
    """The instance names to search beside ``query``'s own words: the members of each kind
    it names, and (apart: weaker evidence) the siblings of each instance it names, minus the
    words it already has."""
    text = query.lower()
    kinds, siblings = _table()
    own = set(_WORD.findall(text))
    named: list[str] = []
    for pattern, instances in kinds:
        if pattern.search(text):
            named += instances
    near: list[str] = []
    for word in sorted(own - _PLAIN):
        near += siblings.get(word, ())
    named = [w for w in dict.fromkeys(named) if w not in own]
    return named, [w for w in dict.fromkeys(near) if w not in own and w not in named]


# other spellings of one name, so a question's "Postgres" finds a memory's "PostgreSQL"
_ALIASES = {
    "postgres": ("postgresql",), "postgresql": ("postgres",), "k8s": ("kubernetes",),
    "kubernetes": ("k8s",), "js": ("javascript",), "javascript": ("js",), "ts": ("typescript",),
    "typescript": ("ts",), "golang": ("go",), "mongo": ("mongodb",), "mongodb": ("mongo",),
    "gh": ("github",), "py": ("python",), "node": ("nodejs",), "nodejs": ("node",),
}  # fmt: skip


def aliases(word: str) -> tuple[str, ...]:
    """``word`` and its other spellings."""
    return (word, *_ALIASES.get(word, ()))


def is_instance(word: str) -> bool:
    """Whether ``word`` is a known instance of some kind (its siblings are searched too)."""
    return word in _table()[1]
