"""rules-v7 (issue 21 item 2): the kinds of input the offline extractor types by cue — who a
sentence is about, whether it is a standing instruction, whether it points elsewhere — and the
kinds it must refuse (counterfactuals, someone else's taste, one-off asks, small talk).

Every sentence here was written for these tests, not taken from a fixture: the fixtures score
the extractor (``bench/extraction.py``), these pin the behaviour of each kind.
"""

from __future__ import annotations

import pytest

from memdir.extract.rules import extract


@pytest.mark.parametrize(
    ("text", "type_", "contains"),
    [
        # who it is about: the person, said without "I'm", or as a lasting trait or plan
        ("ML engineer here, mostly PyTorch", "user", "ML engineer"),
        ("been writing Elixir for about three years", "user", "Elixir"),
        ("I used to be a sysadmin, now I mostly write Go", "user", "sysadmin"),
        ("I'm left-handed, fwiw", "user", "left-handed"),
        ("I have ADHD so short messages help", "user", "ADHD"),
        ("I'm relocating to Toronto in September", "user", "Toronto"),
        # a pointer: a label and a link, or information sent to a named tool
        ("onboarding checklist: https://wiki.example.net/onboarding", "reference", "wiki."),
        ("exceptions go to Rollbar, project 'web-prod'", "reference", "Rollbar"),
        ("the billing flow is described in Notion, page 'Billing v2'", "reference", "Notion"),
        # a convention of the code stated as how things are: project, not feedback
        ("all prices are stored as integer cents", "project", "cents"),
        ("order IDs are ULIDs everywhere in this service", "project", "ULIDs"),
        # a ban phrased as a noun: a standing instruction
        ("no TODO comments in merged code pls", "feedback", "TODO"),
    ],
)
def test_v7_kinds_en(text: str, type_: str, contains: str) -> None:
    (cand,) = extract(text)
    assert (cand.type, contains in cand.text) == (type_, True), cand


@pytest.mark.parametrize(
    "text",
    [
        # counterfactuals and wishes
        "with more people we could rewrite the importer",
        "in an ideal world we'd have one pipeline",
        "Go would've been a nicer fit tbh",
        # someone else's taste, by a possessive
        "my landlord hates package deliveries",
        "our designer loves rounded corners",
        # one-off asks and disregarding a message
        "draft an email to the vendor about the outage",
        "plot latency against request size",
        "oops my dog stepped on the keyboard, ignore that last message",
        # a status, not a ban
        "no errors in the logs since the restart",
    ],
)
def test_v7_negatives_en(text: str) -> None:
    assert extract(text) == []


def test_v7_here_is_the_team_when_a_person_is_the_subject() -> None:
    """ "dev here" names who the person is; "add a retry here" still points at the code."""
    assert [c.type for c in extract("frontend dev here, Vue mostly")] == ["user"]
    assert extract("add a retry here") == []


def test_v7_a_correction_with_a_contrast_keeps_lowercase_names() -> None:
    (cand,) = extract("nah, we're on poetry, not pip", previous_assistant="Run pip install -e .")
    assert cand.type == "project" and "poetry" in cand.text and cand.why
    (cand,) = extract("no emojis in release notes please")
    assert cand.type == "feedback"  # a bare "no" before a ban is not a correction


@pytest.mark.parametrize(
    ("text", "type_", "contains"),
    [
        # the person: a trait in any clause, a dated life plan, what they did before, a family
        ("周报别用表格，我有阅读障碍。", "user", "阅读障碍"),
        ("我是左撇子，鼠标设置别动。", "user", "左撇子"),
        ("我七月份要休陪产假。", "user", "陪产假"),
        ("每周二上午我要去体检中心复查，找不到我。", "user", "复查"),
        ("我之前是当老师的，后来才转行。", "user", "老师"),
        ("家里有个刚上小学的孩子，晚上回复慢。", "user", "孩子"),
        # a pointer: a label and a link; information sent to a named tool
        ("接入指南：https://docs.example.cn/onboarding", "reference", "docs.example.cn"),
        ("前端报错日志都上报到 Sentry，项目叫 web-admin。", "reference", "Sentry"),
        # a convention of the code said as a fact: project, not feedback
        ("所有表的主键一律是 bigint 自增。", "project", "bigint"),
        # a cadence of the team's work; a hedged change with no "we"
        ("我们每个月的第一个周一上线一次。", "project", "上线"),
        ("推送服务倾向换成 FCM，不过还在讨论。", "project", "FCM"),
        ("账单模块这块大概率会拆成两个服务。", "project", "拆成"),
        # a limit or a default for a kind of work; ease as the reason for a rule
        ("commit message 控制在五十个字以内。", "feedback", "五十个字"),
        ("新建的服务默认用 Go 1.22。", "feedback", "Go 1.22"),
        ("先说结论再展开，这样我读得快。", "feedback", "先说结论"),
    ],
)
def test_v7_kinds_zh(text: str, type_: str, contains: str) -> None:
    (cand,) = extract(text)
    assert (cand.type, contains in cand.text) == (type_, True), cand


@pytest.mark.parametrize(
    "text",
    [
        "甲方特别喜欢大字体，我倒无所谓。",  # someone else's taste, named by a role noun
        "今天下午我要去医院。",  # a moment, not a lasting plan
        "哎呀发错了，别管那条。",  # disregarding a message
        "把这块改成异步的。",  # 这块 after 把 points at the task at hand
    ],
)
def test_v7_negatives_zh(text: str) -> None:
    assert extract(text) == []


@pytest.mark.parametrize(
    ("text", "type_", "contains"),
    [
        ("data scientist by training, so go easy on the infra talk", "user", "data scientist"),
        ("接口改动拆成小 PR 的话我看起来方便很多。", "feedback", "小 PR"),
        ("慢查询告警都推到 Opsgenie，团队叫 db-oncall。", "reference", "Opsgenie"),
    ],
)
def test_v7_kinds_from_dev_s15b(text: str, type_: str, contains: str) -> None:
    (cand,) = extract(text)
    assert (cand.type, contains in cand.text) == (type_, True), cand


@pytest.mark.parametrize(
    ("text", "type_", "contains"),
    [
        # "now" / "these days" / 现在 date a fact that names something
        ("我们现在用的是 Buildkite。", "project", "Buildkite"),
        ("I mostly write Elixir these days", "user", "Elixir"),
        # small talk, then the point, in one sentence; the person's own tool changed
        ("long week, anyway I moved to Helix recently", "user", "Helix"),
        ("我前段时间换成 Zed 了。", "user", "Zed"),
        # "that's outdated" corrects the assistant
        ("that's outdated, we replaced Celery with Dramatiq last year", "project", "Dramatiq"),
        # a fact built on a number; a document that is one file somewhere
        ("the search index is about 12M documents", "project", "12M"),
        ("the event schema is events.proto in the contracts repo", "reference", "events.proto"),
        ("我在昆明，跟北京一个时区。", "user", "昆明"),
    ],
)
def test_v7_dated_facts_turns_and_pointers(text: str, type_: str, contains: str) -> None:
    found = extract(text)
    assert [(c.type, contains in c.text) for c in found] == [(type_, True)], found


def test_v7_a_bare_not_x_after_a_correction_is_nothing() -> None:
    assert extract("No, not Gradle.") == []
    assert [c.text for c in extract("No, not Gradle. We build with Bazel.")] == [
        "We build with Bazel"
    ]
    assert extract("we're deploying now") == []  # no name: "now" still points at the moment


def test_v7_conventions_need_a_universal_or_a_scope() -> None:
    """ "一律/统一/全部" or a scope ("整个代码库里…都") makes a convention; a bare 都 does not."""
    assert [c.type for c in extract("整个仓库里日期都按 ISO 8601 存。")] == ["project"]
    assert extract("数据都是假的。") == []
