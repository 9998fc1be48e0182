"""The working layer (issue 22 item 5, seeds 003/004): the agent loop writes the daily log as it
works, session end distills it and decides promotion, and sleep compresses old logs into
``archive/`` on the policy's schedule — plan shows it, apply does it, undo restores it."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memdir import Memory
from memdir.agent import Agent
from memdir.lifecycle import read_notes
from memdir.providers import LLM, OpenAIChat
from scripted_model import Request, Say, serve
from waiting import HANG_GUARD_S

ENTRY = ["-c", "import sys; from memdir.cli import main; sys.exit(main())"]
TOKEN = "ghp_" + "aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5"


def provider(url: str) -> LLM:
    return OpenAIChat("test-model", base_url=f"{url}/v1", api_key="sk-test")


def chat(mem: Memory, url: str, *messages: str) -> Agent:
    """One session of the real agent loop: each message a turn, then the session ends."""
    agent = Agent(mem, provider(url))
    for text in messages:
        list(agent.send(text))
    # what extraction stores is known before session end (the timeout is only a hang guard)
    assert mem.flush_extraction(timeout=HANG_GUARD_S)
    agent.close()
    return agent


def log_dir(mem: Memory) -> Path:
    return mem.store("project").dirs.log


def log_lines(mem: Memory) -> list[str]:
    return [
        line
        for path in sorted(log_dir(mem).glob("*.md"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.startswith("- ")
    ]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, *ENTRY, *args], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done


def test_the_agent_writes_what_each_turn_decided_did_and_learned(mem: Memory) -> None:
    def brain(request: Request) -> Say:
        if "Helm" in request.person:
            return Say("Good. I've updated the deploy checklist to use Helm.")
        return Say("Noted.")

    with serve(brain) as (_, url):
        agent = chat(
            mem,
            url,
            "We decided to deploy with Helm.",
            "Remember that the staging database listens on port 5433",
            "What time is it?",
        )
    sid = agent.session.id
    notes = [(n.kind, n.source, n.session, n.text) for n in read_notes(log_dir(mem))]
    assert notes[:3] == [
        ("decided", "user", sid, "We decided to deploy with Helm."),
        ("done", "inferred", sid, "I've updated the deploy checklist to use Helm."),
        ("learned", "user", sid, "The staging database listens on port 5433"),
    ]
    # a turn with nothing decided, done or learned adds nothing; session end adds one summary
    assert [n[0] for n in notes[3:]] == ["summary"]
    assert "1 decided, 1 done, 1 learned" in notes[3][3]
    assert "We decided to deploy with Helm" in notes[3][3]
    # the log is Markdown a person reads, one line per note, with who and which session
    assert log_lines(mem)[0].endswith(f"(user, session {sid}, decided) {notes[0][3]}")
    # notes are not memories: nothing was promoted from the log yet
    assert not any("promoted_from" in r.extra for r in mem.list())
    assert agent.ended is not None and agent.ended.run is None  # type: ignore[attr-defined]


def test_a_decision_noted_in_two_sessions_is_promoted_at_session_end(mem: Memory) -> None:
    with serve(lambda r: Say("Okay.")) as (_, url):
        first = chat(mem, url, "Let's go with weekly releases.")
        assert mem.list() == []  # noted once: not yet
        second = chat(mem, url, "hello", "Let's go with weekly releases.")
    ended: Any = second.ended
    [record] = mem.list()
    assert ended.promoted == [f"project/{record.name}"]
    assert ended.run.startswith("sleep-")
    assert (record.type, record.scope, record.source) == ("project", "project", "user")
    assert record.statement == "Let's go with weekly releases."
    assert record.extra["promoted_from"] == [f"log/{datetime.now(UTC):%Y-%m-%d}.md"]
    assert first.session.id != second.session.id
    # one undoable run, like sleep's
    mem.undo_run(ended.run)
    assert mem.list() == []


def test_an_explicit_note_is_promoted_by_the_session_that_wrote_it(mem: Memory) -> None:
    mem.log_notes([], session="s")  # nothing to note: no file
    assert not log_dir(mem).exists()
    from memdir.lifecycle.working import TurnNote

    mem.log_notes(
        [TurnNote("decided", "remember: releases are cut on Tuesdays", "user")], session="s1"
    )
    ended = mem.end_session("s1")
    [record] = mem.list()
    assert record.statement == "releases are cut on Tuesdays" and ended.promoted
    assert mem.end_session("s1").notes == 0  # nothing new since its summary: nothing to do


def test_secrets_never_reach_the_log(mem: Memory) -> None:
    with serve(lambda r: Say("Okay.")) as (_, url):
        chat(mem, url, f"We decided to use the deploy token {TOKEN} for staging.")
    text = "\n".join(log_lines(mem))
    assert TOKEN not in text and "decided" in text  # redacted, not dropped


def test_a_torn_last_line_keeps_to_itself(mem: Memory) -> None:
    from memdir.lifecycle.working import TurnNote

    path = mem.log_notes([TurnNote("decided", "use ruff for linting", "user")], session="s1")
    assert path is not None
    with path.open("ab") as handle:  # a write a crash cut short: no newline at the end
        handle.write(b"- 10:00:00Z (inferred, session s1, done) I ran the")
    assert [n.text for n in read_notes(path.parent)] == ["use ruff for linting"]
    mem.log_notes([TurnNote("decided", "use mypy strict", "user")], session="s2")
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[-2:] == [
        "- 10:00:00Z (inferred, session s1, done) I ran the",
        lines[-1],
    ] and lines[-1].endswith("(user, session s2, decided) use mypy strict")
    assert [n.text for n in read_notes(path.parent)] == [
        "use ruff for linting",
        "I ran the",  # whole lines now: a person may keep or delete it
        "use mypy strict",
    ]


def test_session_end_with_a_model_distills_with_it(mem: Memory) -> None:
    def brain(request: Request) -> Say:
        if "notes an assistant kept" in request.person:
            return Say("Helm chosen for deploys; checklist updated.")
        return Say("Sure.")

    with serve(brain) as (model, url):
        agent = Agent(mem, provider(url))
        agent.distill_llm = provider(url)
        list(agent.send("We decided to deploy with Helm."))
        agent.close()
    ended: Any = agent.ended
    assert ended.summary == "Helm chosen for deploys; checklist updated."
    assert ended.by == "llm:openai:test-model:working-summary-v1"
    assert "(decided) We decided to deploy with Helm." in model.requests[-1].person
    # and when the model is gone, the rules write it: session end never fails for it
    mem.log_notes([], session=None)
    down = OpenAIChat("gone", base_url="http://127.0.0.1:9/v1", api_key="x", max_retries=0)
    from memdir.lifecycle.working import TurnNote

    mem.log_notes([TurnNote("decided", "keep the staging cluster", "user")], session="s9")
    report = mem.end_session("s9", llm=down)
    assert report.by == "memdir-rules" and "keep the staging cluster" in (report.summary or "")


def test_distill_off_in_the_policy_leaves_the_log_as_written(mem: Memory) -> None:
    policy = Path(".agent/memory-policy.yaml")
    policy.write_text("working_memory:\n  distill: false\n", encoding="utf-8")
    with serve(lambda r: Say("Okay.")) as (_, url):
        chat(mem, url, "Let's go with weekly releases.")
        chat(mem, url, "Let's go with weekly releases.")
    assert [line.split(", ")[-1].split(")")[0] for line in log_lines(mem)] == ["decided"] * 2
    assert mem.list() == []  # promotion waits for sleep


def test_working_memory_scope_session_keeps_each_session_to_itself_task_spans_the_day(
    mem: Memory,
) -> None:
    from memdir.lifecycle.working import TurnNote

    policy = Path(".agent/memory-policy.yaml")
    for scope, days in (("session", 2), ("task", 1)):  # one day each: a day is a task's span
        policy.write_text(f"working_memory:\n  scope: {scope}\n", encoding="utf-8")
        when = datetime.now(UTC) - timedelta(days=days)
        one, two = f"{scope}-1", f"{scope}-2"
        helm = [TurnNote("decided", f"{scope}: use Helm for deploys", "user")]
        mem.log_notes(helm, session=one, now=when)
        mem.end_session(one, offline=True, now=when)
        pin = [TurnNote("decided", f"{scope}: pin the chart version", "user")]
        mem.log_notes(pin, session=two, now=when)
        ended = mem.end_session(two, offline=True, now=when)
        assert ended.summary is not None and f"{scope}: pin the chart version" in ended.summary
        if scope == "session":  # seed 004's value: the second session distills its own note
            assert ended.notes == 1 and "use Helm" not in ended.summary
        else:  # the task's working memory: the whole day's notes, every session's
            assert ended.notes == 2 and f"{scope}: use Helm for deploys" in ended.summary
        assert mem.end_session(two, offline=True).notes == 0  # nothing new: nothing to do
    summaries = [n for n in read_notes(log_dir(mem)) if n.kind == "summary"]
    assert len(summaries) == 4  # each end wrote one line; the log keeps every note


def _old_log(mem: Memory, days: int, text: str, session: str) -> Path:
    from memdir.lifecycle.working import TurnNote

    when = datetime.now(UTC) - timedelta(days=days)
    path = mem.log_notes([TurnNote("decided", text, "user")], session=session, now=when)
    assert path is not None
    return path


def test_memdir_sleep_compresses_old_logs_and_undo_restores_them(mem: Memory) -> None:
    old = _old_log(mem, 45, "use pnpm workspaces", "s-old")
    fresh = _old_log(mem, 2, "keep the changelog short", "s-new")
    original = old.read_bytes()

    plan = json.loads(cli("sleep", "--dry-run", "--json").stdout)["plan"]
    [step] = [s for s in plan["steps"] if s["action"] == "compress"]
    assert step["names"] == [f"log/{old.name}"] and "older than 30 days" in step["reason"]
    assert old.exists()  # a dry run changes nothing
    assert "compress" in cli("sleep", "--dry-run").stdout

    applied = json.loads(cli("sleep", "--json").stdout)
    packed = mem.store("project").dirs.archive / "log" / f"{old.name}.gz"
    assert applied["log_moves"] == 1 and not old.exists() and fresh.exists()
    assert gzip.decompress(packed.read_bytes()) == original
    # promotion still counts what the compressed log noted
    _old_log(mem, 0, "use pnpm workspaces", "s-today")
    assert [s.action for s in mem.sleep(dry_run=True).plan.steps] == ["promote"]  # type: ignore[union-attr]

    undone = cli("undo", applied["run"]).stdout
    assert "Undid run" in undone
    assert old.read_bytes() == original and not packed.exists()


def test_archived_logs_past_the_ttl_are_deleted_and_compress_false_moves_them(
    mem: Memory,
) -> None:
    Path(".agent/memory-policy.yaml").write_text(
        "archive:\n  compress: false\n  ttl_days: 100\n", encoding="utf-8"
    )
    old = _old_log(mem, 45, "pin node 20", "s1")
    original = old.read_bytes()
    first = mem.sleep()
    moved = mem.store("project").dirs.archive / "log" / old.name
    assert moved.read_bytes() == original and not old.exists()
    later = mem.sleep(now=datetime.now(UTC) + timedelta(days=80))
    [step] = [s for s in later.plan.steps if s.action == "delete"]  # type: ignore[union-attr]
    assert step.names == (f"archive/log/{old.name}",) and not moved.exists()
    assert later.run is not None and first.run is not None
    mem.undo_run(later.run)
    assert moved.read_bytes() == original
    mem.undo_run(first.run)
    assert old.read_bytes() == original and not moved.exists()


def test_turn_notes_read_decisions_procedures_and_what_was_done_in_both_languages() -> None:
    from memdir.lifecycle.working import turn_notes

    def kinds(person: str, reply: str = "") -> list[tuple[str, str]]:
        return [(n.kind, n.text) for n in turn_notes(person, reply)]

    assert kinds("我们决定用 pnpm 管理依赖。今天天气不错。") == [
        ("decided", "我们决定用 pnpm 管理依赖。")
    ]
    assert kinds("先跑 lint，再提交。") == [("procedure", "先跑 lint，再提交。")]
    assert kinds("", "我已完成迁移脚本。还有问题吗？") == [("done", "我已完成迁移脚本。")]
    assert kinds("Let's use pnpm? Or npm?") == []  # a question settles nothing
    assert kinds("Should we deploy on Fridays.") == []
    assert kinds("hi", "Sure, here is how it works.") == []  # nothing done, nothing noted
    steps = "1. run the migrations 2. restart the workers"
    assert kinds(steps) == [("procedure", steps)]
    assert kinds("ok", "Done: the index is rebuilt.") == [("done", "Done: the index is rebuilt.")]


def test_a_sleep_killed_in_the_middle_of_a_log_move_loses_nothing(mem: Memory) -> None:
    import os

    old = _old_log(mem, 45, "use pnpm workspaces", "s-old")
    original = old.read_bytes()
    packed = mem.store("project").dirs.archive / "log" / f"{old.name}.gz"
    for point in ("log.written", "log.journalled"):
        env = {**os.environ, "MEMDIR_TEST_CRASH": point}
        killed = subprocess.run(
            [sys.executable, *ENTRY, "sleep"], capture_output=True, text=True, env=env, check=False
        )
        assert killed.returncode == -9  # SIGKILL at that step of the move
        # the log is still where it was, and the copy (if written) is the same bytes
        assert old.read_bytes() == original
        assert gzip.decompress(packed.read_bytes()) == original
    finished = json.loads(cli("sleep", "--json").stdout)  # the next sleep finishes the move
    assert finished["log_moves"] == 1 and not old.exists()
    assert gzip.decompress(packed.read_bytes()) == original
    cli("undo", finished["run"])
    assert old.read_bytes() == original and not packed.exists()
