"""``memdir chat`` end to end: each session is a separate process talking to a scripted model on
a loopback server (OpenAI and Anthropic wire formats, streamed), with stdin piped.

These are the cross-session behaviour tests of SPEC L2 — remembers, updates, forgets, does not
misuse — plus the interrupted turn (SIGKILL mid tool call, then ``--continue``), the slash
commands, and the message a person gets with no model configured."""

from __future__ import annotations

import fcntl
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memdir import Memory
from memdir.chain import repair
from memdir.errors import NotFoundError
from scripted_model import Call, Request, Say, id_of, memory_call, op, serve
from waiting import HANG_GUARD_S, alive, wait_until

PREFERENCE = "I prefer short answers in British English."
FACT = "Remember that the orders service runs on PostgreSQL 15."
DASHBOARD = "The CI dashboard is at https://ci.example.com/shop"


def env_for(url: str, wire: str) -> dict[str, str]:
    env = dict(os.environ)  # MEMDIR_HOME and the hashing embedder come from the fixtures
    if wire == "anthropic":
        env.update(
            MEMDIR_LLM_PROVIDER="anthropic",
            MEMDIR_LLM_BASE_URL=url,
            MEMDIR_LLM_API_KEY="sk-ant-test",
            MEMDIR_LLM_MODEL="claude-test",
        )
    else:
        env.update(MEMDIR_LLM_BASE_URL=f"{url}/v1", MEMDIR_LLM_MODEL="scripted")
    return env


def chat(
    url: str, *lines: str, args: tuple[str, ...] = (), wire: str = "openai"
) -> subprocess.CompletedProcess[str]:
    """One ``memdir chat`` process, fed ``lines`` on a pipe."""
    return subprocess.run(
        [sys.executable, "-m", "memdir.cli", "chat", "--no-sleep", *args],
        input="".join(f"{line}\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        env=env_for(url, wire),
        check=False,
    )


def ok(result: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result


def session_one_brain(request: Request) -> Say | Call:
    if "dashboard" in request.person:
        if request.after_tool:
            return Say("Saved the dashboard link.")
        text = f"{DASHBOARD}\n\n**Why:** the person pointed at it."
        return memory_call(
            command="create", path="/memories/project/ci-dashboard.md", file_text=text
        )
    if "PostgreSQL" in request.person:
        return Say("Stored: the orders service runs on PostgreSQL 15.")
    if "British" in request.person:
        return Say("Understood.")
    return Say("PostgreSQL 15, like the orders service.")


def extract_preference(prompt: str) -> dict[str, Any]:
    """The extraction model: finds the stated preference, nothing else."""
    if f"[person] {PREFERENCE}" in prompt:
        return {
            "operations": [
                op(
                    "ADD",
                    type="feedback",
                    text="Give short answers in British English",
                    description="Short answers, British English",
                    why="The person asked for it",
                    how_to_apply="Every answer",
                    source="user",
                    quote=PREFERENCE,
                )
            ]
        }
    return {"operations": [op("NONE")]}


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_two_sessions_through_the_wire(mem: Memory, wire: str) -> None:
    with serve(session_one_brain, extract_preference) as (model, url):
        first = ok(chat(url, PREFERENCE, FACT, DASHBOARD, wire=wire))
        assert "Understood." in first.stdout
        assert "Stored: the orders service runs on PostgreSQL 15." in first.stdout
        assert "Saved the dashboard link." in first.stdout
        assert "[memdir] remembered" in first.stderr  # the hot path says what it stored
        assert "[memdir]" not in first.stdout  # replies only on stdout
        one = len(model.requests)

        # the memory files, with the right types, scopes and sources
        by_name = {r.name: r for r in mem.list()}
        [preference] = [r for r in by_name.values() if "British" in r.statement]
        assert (preference.type, preference.scope, preference.source) == (
            "feedback",
            "user",
            "user",
        )
        assert preference.quote == PREFERENCE
        [fact] = [r for r in by_name.values() if "PostgreSQL 15" in r.statement]
        assert (fact.type, fact.scope, fact.source) == ("project", "project", "user")
        dashboard = by_name["ci-dashboard"]
        assert (dashboard.scope, dashboard.type, dashboard.source) == (
            "project",
            "project",
            "inferred",
        )
        assert mem.history("ci-dashboard")[0].actor == "agent"

        second = ok(chat(url, "Which database for the new reports table?", wire=wire))
        assert "PostgreSQL 15, like the orders service." in second.stdout
    opening = model.requests[one]  # session 2's first request, from a new process
    assert preference.name in opening.guide and preference.description in opening.guide
    assert fact.name in opening.guide and "ci-dashboard" in opening.guide
    assert opening.system == model.requests[0].system  # byte-identical system message
    assert preference.name not in model.requests[0].guide  # learned in 1, seen from 2 on
    assert len(mem.sessions()) == 2


def l2_brain(names: dict[str, str]) -> Any:
    def brain(request: Request) -> Say | Call:
        if "Forget the staging database" in request.person:
            if request.after_tool:
                return Say("Forgotten.")
            return memory_call(command="delete", path=f"/memories/project/{names['fact']}.md")
        return Say("OK.")

    return brain


def l2_extract(prompt: str) -> dict[str, Any]:
    if "[person] I prefer answers in British English." in prompt:
        new = op(
            "ADD",
            type="feedback",
            text="Write answers in British English",
            description="Answers in British English",
            source="user",
            quote="I prefer answers in British English.",
        )
        return {"operations": [new]}
    if "[person] Actually, I now prefer American English." in prompt:
        changed = op(
            "UPDATE",
            id=id_of("answers-in-british-english", prompt),
            type="feedback",
            text="Write answers in American English",
            description="Answers in American English",
            source="user",
            quote="Actually, I now prefer American English.",
        )
        return {"operations": [changed]}
    return {"operations": [op("NONE")]}


def test_cross_session_behaviour_remembers_updates_forgets_and_does_not_misuse(
    mem: Memory,
) -> None:
    names: dict[str, str] = {}
    question = "How do I reverse a list in Python?"
    with serve(l2_brain(names), l2_extract) as (model, url):
        ok(chat(url, "I prefer answers in British English.", "Remember that staging runs Redis 7."))
        [fact] = [r for r in mem.list() if "Redis 7" in r.statement]
        names["fact"] = fact.name
        assert [r.name for r in mem.list(scope="user")] == ["answers-in-british-english"]

        start = len(model.requests)
        ok(
            chat(
                url,
                "Actually, I now prefer American English.",
                "Forget the staging database fact, we moved it.",
            )
        )
        # remembers: the preference from session 1 is in what session 2's model is sent
        assert "Answers in British English" in model.requests[start].guide

        start = len(model.requests)
        ok(chat(url, question))
    opening = model.requests[start]
    # updates: the changed preference replaced the old one rather than sitting beside it
    [preference] = mem.list(scope="user")
    assert preference.name == "answers-in-british-english"  # the same file, updated
    assert "American" in preference.statement and "British" not in preference.statement
    assert "Answers in American English" in opening.guide and "British" not in opening.guide
    # forgets: the retracted fact no longer reaches the model, anywhere in the request
    assert "Redis" not in opening.text and fact.name not in opening.text
    # does not misuse: an unrelated question brings nothing beyond the index
    messages = opening.body["messages"]
    assert messages[2:] == [{"role": "user", "content": question}]
    assert "**Why:**" not in opening.guide  # pointers only, never bodies


@contextmanager
def scope_lock(mem: Memory) -> Iterator[None]:
    """Hold the project scope's write lock, as a slow write would."""
    lock = mem.store("project").dirs.lock
    lock.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def test_killed_mid_tool_call_then_continue(mem: Memory) -> None:
    asked = "Put our deploy steps in the memory tool: build, push, sync."

    def brain(request: Request) -> Say | Call:
        if request.person == asked:
            text = "Deploy: build, push, sync."
            return memory_call(command="create", path="/memories/project/deploy.md", file_text=text)
        return Say("The last write was interrupted; I will redo it.")

    with serve(brain) as (model, url), scope_lock(mem):
        process = subprocess.Popen(
            [sys.executable, "-m", "memdir.cli", "chat", "--no-sleep"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env_for(url, "openai"),
        )
        assert process.stdin is not None
        process.stdin.write(f"{asked}\n".encode())
        process.stdin.flush()
        folder = mem.sessions_dir()

        def call_on_disk() -> bool:  # the call is in the session file, its result not yet
            files = list(folder.glob("*.jsonl")) if folder.is_dir() else []
            return bool(files) and '"tool_calls"' in files[0].read_text(encoding="utf-8")

        try:
            wait_until(call_on_disk, "the tool call in the session file", alive=alive(process))
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=HANG_GUARD_S)
    [path] = list(folder.glob("*.jsonl"))
    assert '"tool_result"' not in path.read_text(encoding="utf-8")
    assert not (mem.project_root / ".agent" / "memory" / "deploy.md").exists()

    with serve(brain) as (model, url):
        resumed = ok(chat(url, "Did that work?", args=("--continue",)))
    assert "The last write was interrupted" in resumed.stdout
    [request] = model.requests
    messages = request.body["messages"][2:]
    assert messages[0] == {"role": "user", "content": asked}  # no lost user message
    assert messages[1]["tool_calls"][0]["function"]["name"] == "memory"
    assert messages[2]["role"] == "tool" and messages[2]["content"].startswith("interrupted")
    assert messages[2]["tool_call_id"] == messages[1]["tool_calls"][0]["id"]
    assert messages[-1] == {"role": "user", "content": "Did that work?"}
    _, repairs = repair(messages)
    assert repairs == []  # the chain sent is valid as it is
    assert [p.name for p in folder.glob("*.jsonl")] == [path.name]  # the same session


def test_slash_commands_run_on_memdir_not_on_the_model(mem: Memory) -> None:
    mem.remember("We deploy with Argo CD", type="project")
    with serve(lambda r: Say("hi")) as (model, url):
        result = ok(
            chat(
                url,
                "/help",
                "/memory",
                "/recall deploy",
                "/remember I use vim keybindings",
                "/context",
                "/sessions",
                "/forget we-deploy-with-argo-cd",
                "/sleep",
                "/nope",
                "//etc is a directory",
            )
        )
    out = result.stdout
    for command in ("/memory", "/recall", "/remember", "/forget", "/context", "/sleep"):
        assert command in out
    assert "we-deploy-with-argo-cd (project, source user) — We deploy with Argo CD" in out
    assert re.search(r"\d\.\d{3}  we-deploy-with-argo-cd", out)
    assert "remembered " in out and "=== system ===" in out and "=== user (memory guide) ===" in out
    assert "forgot we-deploy-with-argo-cd (undo with: memdir undo " in out
    assert "sleep: nothing to consolidate" in out or "sleep sleep-" in out  # /sleep ran it
    assert "unknown command /nope" in result.stderr
    [request] = model.requests  # only the last line reached the model, one slash removed
    assert request.person == "/etc is a directory"
    assert [r.description for r in mem.list() if "vim" in r.statement]
    with pytest.raises(NotFoundError, match="we-deploy-with-argo-cd"):
        mem.get("we-deploy-with-argo-cd")


def test_resume_by_id_continue_and_the_errors_a_person_can_fix(mem: Memory) -> None:
    def users(request: Request) -> list[str]:
        return [m["content"] for m in request.body["messages"][2:] if m["role"] == "user"]

    with serve(lambda r: Say("hello again")) as (model, url):
        ok(chat(url, "first", args=("--max-tokens", "64")))
        assert model.requests[0].body["max_tokens"] == 64
        [old] = mem.sessions()
        ok(chat(url, "other"))  # a newer session
        resumed = ok(chat(url, "second", args=("--resume", old.id)))
        assert old.id in resumed.stderr
        # --continue takes the session active last, not the one started last
        ok(chat(url, "third", args=("--continue",)))
        both = chat(url, "x", args=("--continue", "--resume", old.id))
        missing = chat(url, "x", args=("--resume", "20200101-000000-0000"))
    assert both.returncode == 2 and "not both" in both.stderr
    assert missing.returncode == 1 and "no session" in missing.stderr
    assert "Traceback" not in missing.stderr
    assert len(mem.sessions()) == 2
    assert users(model.requests[-1]) == ["first", "second", "third"]


def test_continue_after_days_tells_the_model_and_the_person(mem: Memory) -> None:
    with mem.session() as old:
        old.append({"role": "user", "content": "Where were we with the migration?"})
        old.append({"role": "assistant", "content": "Half done."})
    then = (datetime.now(UTC) - timedelta(days=3, hours=2)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    text = re.sub(r'"ts":"[^"]+"', f'"ts":"{then}"', old.path.read_text(encoding="utf-8"))
    old.path.write_text(text, encoding="utf-8")
    with serve(lambda r: Say("Welcome back.")) as (model, url):
        resumed = ok(chat(url, "Let's finish it.", args=("--continue",)))
    assert "\n[memdir] 3 days since the last conversation" in resumed.stderr
    messages = model.requests[0].body["messages"][2:]
    assert [m["content"][:30] for m in messages] == [
        "Where were we with the migration?"[:30],
        "Half done.",
        "[memdir] 3 days since the last",
        "Let's finish it.",
    ]


def test_no_model_configured_explains_how_with_ollama(mem: Memory) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "memdir.cli", "chat"],
        input="hi\n",
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        check=False,
    )
    assert result.returncode == 1
    assert "no LLM is configured" in result.stderr
    assert "http://localhost:11434/v1" in result.stderr  # the Ollama example
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_a_failing_model_is_reported_and_exits_1_when_scripted(mem: Memory) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "memdir.cli", "chat", "--no-sleep"],
        input="hi\n",
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        env={**env_for("http://127.0.0.1:9", "openai"), "MEMDIR_LLM_MAX_RETRIES": "0"},
        check=False,
    )
    assert result.returncode == 1 and "connection failed" in result.stderr
    assert "Traceback" not in result.stderr
    [info] = mem.sessions()
    assert json.loads(info.path.read_text().splitlines()[-1])["content"]["content"] == "hi"


RELEASE = "To release: first bump the version, then run make dist, then upload with twine."


def test_the_session_end_is_printed_summary_promotions_and_skills(mem: Memory) -> None:
    def brain(request: Request) -> Say:
        if "notes an assistant kept" in request.person:  # Memory.end_session's distill call
            return Say("Release procedure noted: bump, make dist, twine.")
        return Say("Okay, noted.")

    with serve(brain) as (_model, url):
        first = ok(chat(url, RELEASE))
        second = ok(chat(url, RELEASE))
    assert "[memdir] session end: " in first.stderr
    assert (
        "1 note(s) distilled (llm:openai:scripted:working-summary-v1): Release procedure noted:"
        in (first.stderr)
    )
    assert "promoted to long-term memory" not in first.stderr  # noted once: not yet
    [skill] = [r for r in mem.list() if "skill" in r.tags]
    lines = second.stderr.splitlines()
    assert f"[memdir] promoted to long-term memory: project/{skill.name}" in lines
    assert f"[memdir] skills made (offered when a matching task starts): project/{skill.name}" in (
        lines
    )
    [undo] = [line for line in lines if "undo the promotion with" in line]
    run = undo.split("`memdir undo ")[1].rstrip("`")
    assert run in {c.run for c in mem.history(skill.name)}  # the printed run is the real one
    assert second.stdout == "Okay, noted.\n"  # stdout keeps only the replies


def test_a_session_that_noted_nothing_prints_no_session_end(mem: Memory) -> None:
    with serve(lambda r: Say("hi")) as (_model, url):
        result = ok(chat(url, "hello"))
    assert "session end:" not in result.stderr
