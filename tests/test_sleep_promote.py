"""Promotion from the daily log (SPEC H6); sessions distilled before they leave retention (C6)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memdir import Memory
from memdir.errors import ValidationError
from memdir.lifecycle import read_notes

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def test_the_daily_log_is_append_only_markdown(mem: Memory) -> None:
    first = mem.log_note("run lint before commit", session="s1", now=NOW)
    mem.log_note("  the cache   is cold on Mondays ", now=NOW + timedelta(hours=1))
    assert first == Path.cwd() / ".agent" / "memory" / "log" / "2026-06-01.md"
    text = first.read_text(encoding="utf-8")
    assert text == (
        "# Log 2026-06-01\n\n"
        "- 12:00:00Z (user, session s1) run lint before commit\n"
        "- 13:00:00Z (user) the cache is cold on Mondays\n"
    )
    with first.open("a", encoding="utf-8") as handle:
        handle.write("- a note written by hand\n")
    notes = read_notes(first.parent)
    assert [(n.text, n.session, n.source) for n in notes] == [
        ("run lint before commit", "s1", "user"),
        ("the cache is cold on Mondays", None, "user"),
        ("a note written by hand", None, "user"),
    ]
    assert mem.list() == []  # notes are not memories
    with pytest.raises(ValidationError):
        mem.log_note("   ")


def test_notes_reused_twice_or_asked_for_are_promoted_once(mem: Memory) -> None:
    mem.log_note("The staging deploy needs the VPN", now=NOW - timedelta(days=2))
    mem.log_note("the staging deploy needs the VPN.", now=NOW - timedelta(days=1))
    mem.log_note("remember: invoices go out on the 3rd", now=NOW)
    mem.log_note("looked at the flaky test once", now=NOW)
    log = Path.cwd() / ".agent" / "memory" / "log"
    logged = {p.name: p.read_bytes() for p in log.iterdir()}
    report = mem.sleep(now=NOW)
    assert report.plan is not None and report.run is not None
    assert [s.action for s in report.plan.steps] == ["promote", "promote"]
    by_text = {r.statement: r for r in mem.list()}
    assert set(by_text) == {"The staging deploy needs the VPN", "invoices go out on the 3rd"}
    vpn = by_text["The staging deploy needs the VPN"]
    assert vpn.type == "project" and vpn.scope == "project" and vpn.source == "user"
    assert vpn.extra["promoted_from"] == ["log/2026-05-30.md", "log/2026-05-31.md"]
    assert {p.name: p.read_bytes() for p in log.iterdir()} == logged  # the log is untouched
    again = mem.sleep(now=NOW + timedelta(hours=1))
    assert again.plan is not None and again.plan.steps == ()
    mem.undo_run(report.run)
    assert mem.list() == []


def test_the_same_note_in_three_sessions_becomes_one_feedback_rule(mem: Memory) -> None:
    Path(".agent/memory-policy.yaml").write_text("promotion:\n  min_reuse: 5\n", encoding="utf-8")
    for i, session in enumerate(["s1", "s2", "s2", "s3"]):
        mem.log_note("Run lint before commit", session=session, now=NOW - timedelta(days=i))
    mem.log_note("Use the staging VPN", session="s1", now=NOW)
    mem.log_note("Use the staging VPN", session="s2", now=NOW)
    report = mem.sleep(now=NOW)
    assert report.plan is not None
    assert [(s.action, s.scope) for s in report.plan.steps] == [("rule", "user")]
    (rule,) = mem.list()
    assert rule.type == "feedback" and rule.scope == "user"
    assert rule.statement == "Run lint before commit" and rule.session == "s1"


def test_sessions_leaving_retention_are_distilled_before_they_are_archived(mem: Memory) -> None:
    with mem.session() as s:
        s.append({"role": "user", "content": "Remember that the API keys rotate on Mondays."})
        s.append({"role": "assistant", "content": "Noted."})
        sid = s.id
    later = datetime.now(UTC) + timedelta(days=40)
    dry = mem.sleep(dry_run=True, now=later)
    assert dry.notes and dry.notes[0].startswith(f"session {sid}:")
    assert "would be distilled, then archived" in dry.notes[0]
    assert mem.list() == [] and [i.id for i in mem.sessions()] == [sid]
    done = mem.sleep(now=later)
    assert done.notes == [f"session {sid}: distilled, then archived"]
    assert mem.sessions() == [] and [i.id for i in mem.sessions(archived=True)] == [sid]
    (learned,) = mem.list()
    assert "rotate on Mondays" in learned.statement and learned.session == sid
