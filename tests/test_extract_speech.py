"""Who a sentence is addressed to and what speech act it is (``extract/speech.py``, rules-v12).

The examples are written for these tests, in words no fixture batch uses."""

from __future__ import annotations

import pytest

from memdir.extract.implicit import about_the_moment
from memdir.extract.rules import extract
from memdir.extract.speech import reading, third_party, to_agent


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("my landlord wants the rent on the first, he's strict about it", "en"),
        ("the sales guys keep asking for a CSV button", "en"),
        ("Priya likes her standups short", "en"),
        ("our accountant swears by double-entry spreadsheets", "en"),
        ("财务总想让我们每周交两次报表", "zh"),
        ("隔壁组长说下周要搬工位", "zh"),
    ],
)
def test_a_third_partys_wish_is_not_addressed_to_the_agent(text: str, lang: str) -> None:
    assert third_party(text, lang)
    assert about_the_moment(text, lang)
    assert extract(text) == []


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("we use Postgres 16 and the team likes it", "en"),
        ("our team uses trunk-based development", "en"),
        ("I'd like answers in British English", "en"),
        ("我喜欢简短的回答", "zh"),
        ("我们组用 Go 写后端", "zh"),
    ],
)
def test_the_person_and_the_team_are_no_third_party(text: str, lang: str) -> None:
    assert not third_party(text, lang)


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("the mirror sync is working again now", "en"),
        ("the queue came back online a minute ago", "en"),
        ("spent sunday repainting the fence", "en"),
        ("缓存刚清完，页面正常了", "zh"),
    ],
)
def test_status_and_narration_are_about_the_moment(text: str, lang: str) -> None:
    assert reading(text, lang) & {"status", "narration"}
    assert about_the_moment(text, lang)


def test_an_instruction_in_a_later_clause_is_for_the_agent() -> None:
    text = "the kiosk screens are tiny, so keep any UI text under 20 characters"
    assert to_agent(text, "en")
    assert to_agent("我晚上才有空看，所以回答我的时候先给结论", "zh")
    assert to_agent("anything you generate for the kiosk has to fit in 480px", "en")
    # an aside, a contrast of values and an identity are no instruction to the agent
    assert not to_agent("the billing system is a 1998 COBOL app, don't laugh", "en")
    assert not to_agent("timestamps are always UTC, never local", "en")
    assert not to_agent("I'm new to Rust, so go easy on lifetimes", "en")
    assert not to_agent("编号规则是 ORD-日期-序号，别弄错", "zh")


def test_a_place_a_kind_of_information_is_kept_in() -> None:
    assert "located" in reading("the supplier price list is in the shared drive", "en")
    assert "located" not in reading("the shop site is on Shopify", "en")


def test_what_the_agent_is_told_not_to_suggest_is_no_opinion() -> None:
    assert not about_the_moment(
        "our data must stay in Frankfurt, so don't suggest US regions", "en"
    )
    assert about_the_moment("my colleague suggests we switch to Bun", "en")
