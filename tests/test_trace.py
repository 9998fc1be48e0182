"""Per-turn traces (issue 25): a real agent loop against a scripted model on a loopback server
(both wire formats), the session file it leaves, ``Memory.trace`` and ``memdir trace`` as a
separate process; the overlap measure on real-shaped answers, both ways."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from memdir import Memory
from memdir.agent import Agent
from memdir.errors import NotFoundError, ValidationError
from memdir.observe import used
from memdir.observe.overlap import content_words
from memdir.providers import LLM, AnthropicMessages, OpenAIChat
from scripted_model import Call, Request, Say, memory_call, serve
from waiting import HANG_GUARD_S

FACT = "The orders service runs on PostgreSQL 15 in production."
ASK = "Which database does the orders service use?"
THANKS = "Thanks, that is all for the database."
MISSING = "What did we decide about the billing cron job?"
SAVE = "Note that the billing cron job runs at 02:00 UTC."


def provider(wire: str, url: str) -> LLM:
    if wire == "anthropic":
        return AnthropicMessages("claude-test", api_key="sk-ant-test", base_url=url)
    return OpenAIChat("test-model", base_url=f"{url}/v1", api_key="sk-test")


def brain_for(name: str) -> Any:
    """Opens the fact and uses it; opens it again and answers off-topic; opens a memory that
    does not exist; writes a new one."""
    path = f"/memories/project/{name}.md"

    def brain(request: Request) -> Say | Call:
        if request.person == ASK:
            if request.after_tool:
                return Say("The orders service runs on PostgreSQL 15, in production too.")
            return memory_call(command="view", path=path)
        if request.person == THANKS:
            if request.after_tool:
                return Say("You are welcome, have a good day!")
            return memory_call(command="view", path=path)
        if request.person == MISSING:
            if request.after_tool:
                return Say("I have nothing stored about that.")
            return memory_call(command="view", path="/memories/project/billing-cron.md")
        if request.person == SAVE:
            if request.after_tool:
                return Say("Saved.")
            text = "The billing cron job runs at 02:00 UTC.\n\n**Why:** the person said so."
            return memory_call(
                command="create", path="/memories/project/billing-cron.md", file_text=text
            )
        return Say("OK.")

    return brain


def run_session(mem: Memory, wire: str) -> str:
    fact = mem.remember(FACT, type="project", description="Orders service database")
    with serve(brain_for(fact.name)) as (_, url):
        agent = Agent(mem, provider(wire, url))
        for text in (ASK, THANKS, MISSING, SAVE):
            list(agent.send(text))
        agent.close()
    return agent.session.id


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_each_turn_says_seen_chosen_read_used_and_written(mem: Memory, wire: str) -> None:
    session = run_session(mem, wire)
    [fact] = [r.name for r in mem.list() if r.statement == FACT]
    found = mem.trace(session)
    ask, thanks, missing, save = found.turns
    assert all(t.finished for t in found.turns)
    assert ask.guide is not None and ask.guide["indexes"] == {"project": 1, "user": 0}
    assert ask.guide["tokens"] > 0 and ask.guide["truncated"] is False
    # asked: opened the fact, read it, and the answer repeats it
    assert [(o.memory, o.ok, o.used) for o in ask.opened] == [(f"project/{fact}", True, True)]
    assert (ask.seen, ask.chosen, ask.read, ask.used) == (True, True, True, True)
    # thanked: read it again, but the answer does not use it
    assert [(o.ok, o.used) for o in thanks.opened] == [(True, False)]
    assert (thanks.read, thanks.used) == (True, False)
    # a memory that does not exist: chosen, the read failed
    assert [(o.memory, o.ok) for o in missing.opened] == [("project/billing-cron", False)]
    assert (missing.chosen, missing.read) == (True, False) and missing.failed_calls == 1
    # the tool's write is the turn's
    assert save.written == ["create project/billing-cron (agent)"]
    assert found.funnel() == {
        "turns": 4,
        "seen": 4,
        "chosen": 3,
        "read": 2,
        "used": 1,
        "used_from_context": 0,
    }


def test_what_extraction_and_explicit_requests_wrote_is_placed_in_its_turn(mem: Memory) -> None:
    with serve(lambda r: Say("Sure.")) as (_, url):
        agent = Agent(mem, provider("openai", url))
        list(agent.send("Remember that we deploy with Argo CD"))
        list(agent.send("I prefer short answers without emoji."))
        agent.close()
    assert mem.flush_extraction(timeout=HANG_GUARD_S)
    explicit, preference = mem.trace(agent.session.id).turns
    [deploy] = [r for r in mem.list() if "Argo CD" in r.statement]
    [short] = [r for r in mem.list() if "emoji" in r.statement]
    assert explicit.written == [f"create project/{deploy.name} (person)"]
    assert preference.written == [f"create user/{short.name} (extractor)"]


def test_a_turn_cut_by_a_crash_is_traced_from_the_file_alone(mem: Memory) -> None:
    """No agent ``trace`` record (the process died mid-turn): a view counts as read when its
    result shows the file, and the unfinished turn says so."""
    fact = mem.remember(FACT, type="project", description="Orders service database")
    session = mem.session()
    mem.context(session)  # records the guide, as the agent's first request does
    session.append({"role": "user", "content": ASK})
    call = {"id": "c1", "type": "function", "function": {"name": "memory", "arguments": ""}}
    call["function"]["arguments"] = json.dumps(
        {"command": "view", "path": f"/memories/project/{fact.name}.md"}
    )
    session.append({"role": "assistant", "content": None, "tool_calls": [call]})
    result = mem.tool().handle({"command": "view", "path": f"/memories/project/{fact.name}.md"})
    session.append({"role": "tool", "tool_call_id": "c1", "content": str(result)})
    session.close()
    [turn] = mem.trace(session.id).turns
    assert not turn.finished and turn.answer == ""
    assert [(o.ok, o.used) for o in turn.opened] == [(True, False)]


def test_an_answer_from_the_index_line_alone_is_reported_apart(mem: Memory) -> None:
    """What the small local model does: it answers from the guide's one-line description
    without opening the memory."""
    fact = mem.remember(FACT, type="project", description="The orders service runs PostgreSQL")
    with serve(lambda r: Say("The orders service uses a database called PostgreSQL.")) as (_, url):
        agent = Agent(mem, provider("openai", url))
        list(agent.send(ASK))
        agent.close()
    [turn] = mem.trace(agent.session.id).turns
    assert turn.used_from_context == [f"project/{fact.name} (index)"]
    assert (turn.seen, turn.chosen, turn.used) == (True, False, False)


def test_the_agents_verdict_wins_over_the_result_text(mem: Memory) -> None:
    """The ``trace`` record comes after the results it judges; a call it marks failed is
    failed, whatever its text looks like."""
    session = mem.session()
    session.append({"role": "user", "content": SAVE})
    args = {"command": "create", "path": "/memories/project/cron.md", "file_text": "x"}
    call = {"id": "c1", "type": "function", "function": {"name": "memory"}}
    call["function"]["arguments"] = json.dumps(args)
    session.append({"role": "assistant", "content": None, "tool_calls": [call]})
    session.append({"role": "tool", "tool_call_id": "c1", "content": "File created."})
    session.write_record("meta", {"kind": "trace", "calls": {"c1": False}})
    session.append({"role": "assistant", "content": "Done."})
    session.close()
    [turn] = mem.trace(session.id).turns
    assert (turn.failed_calls, turn.written, turn.finished) == (1, [], True)


def test_recalled_memories_used_by_the_answer_are_reported_apart(mem: Memory) -> None:
    assert mem.project_root is not None
    policy = mem.project_root / ".agent" / "memory-policy.yaml"
    policy.write_text("long_memory:\n  recalled: 2\n", encoding="utf-8")
    mem.remember(FACT, type="project", description="Orders service database")
    with serve(lambda r: Say("It runs on PostgreSQL 15, the orders service.")) as (_, url):
        agent = Agent(mem, provider("openai", url))
        list(agent.send("Which database does the orders service run on?"))
        agent.close()
    [turn] = mem.trace(agent.session.id).turns
    assert turn.recalled and turn.used_from_context == turn.recalled  # E4 recall, repeated
    assert not turn.chosen and not turn.used  # never opened: outside the funnel


# -- the overlap measure ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("statement", "later"),
    [
        (FACT, "The orders service runs on PostgreSQL 15, so the reports table should too."),
        ("We deploy on Fridays after the 14:00 standup", "Deploys happen Fridays, after standup."),
        ("订单服务使用 PostgreSQL 15 数据库", "订单服务用的是 PostgreSQL 15。"),
    ],
)
def test_an_answer_that_repeats_the_memory_counts_as_used(statement: str, later: str) -> None:
    assert used(statement, [later]).used


@pytest.mark.parametrize(
    ("statement", "later"),
    [
        (FACT, "You are welcome, have a good day!"),
        (FACT, "Which service do you mean?"),  # one shared common word is not use
        ("Use pnpm, not npm, in this repository", "Sure, I can help with the README."),
        ("订单服务使用 PostgreSQL 15 数据库", "好的，还有别的问题吗？"),
    ],
)
def test_an_answer_that_does_not_repeat_it_does_not(statement: str, later: str) -> None:
    assert not used(statement, [later]).used


def test_a_key_word_alone_in_an_action_is_a_known_miss() -> None:
    """The measure counts words, so an action that uses one name of a memory and nothing else
    of it reads as not used (docs/observability.md says so): 1 of 3 words."""
    found = used("Use pnpm, not npm, in this repository", ['{"command": "pnpm install"}'])
    assert (found.shared, found.total, found.used) == (1, 3, False)


def test_content_words_drop_stop_words_and_keep_numbers() -> None:
    assert content_words("The service runs on PostgreSQL 15") == {
        "service",
        "run",
        "postgresql",
        "15",
    }
    assert "数据" in content_words("数据库") and "据库" in content_words("数据库")


# -- bad input ----------------------------------------------------------------------------
def test_an_unknown_or_malformed_session_id_is_a_clear_error(mem: Memory) -> None:
    with pytest.raises(NotFoundError, match="memdir sessions list"):
        mem.trace("20990101-000000-abcd")
    with pytest.raises(ValidationError, match="ids look like"):
        mem.trace("../../etc/passwd")


def memdir_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``memdir ARGS`` as a separate process, with this test's environment."""
    return subprocess.run(
        [sys.executable, "-m", "memdir.cli", *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        env=dict(os.environ),
        check=False,
    )


def test_memdir_trace_runs_as_a_separate_process(mem: Memory) -> None:
    session = run_session(mem, "openai")
    before = mem.sessions_dir().joinpath(f"{session}.jsonl").read_bytes()
    text = memdir_cli("trace", session)
    assert text.returncode == 0, text.stderr
    assert "turn 1" in text.stdout and "used (" in text.stdout and "read FAILED" in text.stdout
    assert "4 turn(s): seen 4 → chosen 3 → read 2 → used 1" in text.stdout
    one = memdir_cli("trace", session, "--turn", "4", "--json")
    assert one.returncode == 0, one.stderr
    data = json.loads(one.stdout)
    assert [t["turn"] for t in data["turns"]] == [4]
    assert data["turns"][0]["written"] == ["create project/billing-cron (agent)"]
    # bad input: a clear message, and the session is untouched
    missing = memdir_cli("trace", "20990101-000000-abcd")
    assert missing.returncode == 1 and "memdir sessions list" in missing.stderr
    past = memdir_cli("trace", session, "--turn", "9")
    assert past.returncode == 2 and "--turn 1 to 4" in past.stderr
    assert mem.sessions_dir().joinpath(f"{session}.jsonl").read_bytes() == before


def test_an_mcp_server_records_its_calls_for_trace(mem: Memory) -> None:
    """The real MCP client against the server: recall, then view the hit, then write a memory
    that repeats it — the server's log of calls is traced like a session."""
    import anyio
    from mcp import Client

    from memdir.mcp import build_server

    fact = mem.remember(FACT, type="project", description="Orders service database")
    path = f"/memories/project/{fact.name}.md"
    said = "Reports use the orders service database: PostgreSQL 15 in production."

    async def calls() -> None:
        async with Client(build_server(mem)) as client:
            assert not (await client.call_tool("recall", {"query": ASK})).is_error
            assert not (await client.call_tool("view", {"path": path})).is_error
            missing = await client.call_tool("view", {"path": "/memories/project/nope.md"})
            assert missing.is_error
            new = {"path": "/memories/project/reports-db.md", "file_text": said}
            assert not (await client.call_tool("create", new)).is_error

    anyio.run(calls)
    [log] = list((mem.sessions_dir() / "mcp").glob("*.jsonl"))
    assert mem.sessions() == []  # beside the sessions, not among them
    [turn] = mem.trace(log.stem).turns
    assert turn.person == f"recall: {ASK}" and turn.recalled == [f"project/{fact.name}"]
    opened = [(o.memory, o.ok, o.used) for o in turn.opened]
    assert opened == [(f"project/{fact.name}", True, True), ("project/nope", False, False)]
    assert turn.written == ["create project/reports-db (agent)"]
    assert turn.used_from_context == [f"project/{fact.name}"]  # the hit, repeated in the write


def test_mcp_call_logs_expire_with_the_sessions_retention(mem: Memory) -> None:
    """``<sessions>/mcp/`` falls under the sessions' retention: an idle log is archived (into
    ``mcp/archive/``, nothing to distill) and still traced; one a server holds open stays."""
    from datetime import UTC, datetime, timedelta

    log = mem.tool_log()
    log.record("recall", {"query": ASK}, True, "nothing found")
    assert log.session is not None
    path = log.session.path
    later = datetime.now(UTC) + timedelta(days=45)  # past the default 30 days
    plan = mem.prune_sessions(now=later, dry_run=True).plan
    assert [(a.session.id, a.action, a.distill) for a in plan] == [(path.stem, "archive", False)]
    assert plan[0].reason.startswith("MCP call log, idle 45 days")
    held = mem.prune_sessions(now=later)  # the server still has it open: skipped, kept
    assert held.done == [] and [a.session.id for a, _ in held.skipped] == [path.stem]
    assert path.exists()
    log.close()
    before = path.read_bytes()
    distilled: list[str] = []
    report = mem.prune_sessions(now=later, distill=lambda s: distilled.append(s.id))
    assert [a.session.id for a in report.done] == [path.stem] and distilled == []
    archived = path.parent / "archive" / path.name
    assert archived.read_bytes() == before and not path.exists()
    assert mem.sessions() == [] and mem.sessions(archived=True) == []  # never among sessions
    [turn] = mem.trace(path.stem).turns  # still readable from the archive
    assert turn.person == f"recall: {ASK}"
    assert mem.prune_sessions(now=later, dry_run=True).plan == []  # archived: done with it
