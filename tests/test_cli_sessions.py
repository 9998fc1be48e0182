"""``memdir sessions list|show|resume|prune`` and ``memdir context`` through real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memdir import Memory
from waiting import HANG_GUARD_S

ENTRY = ["-c", "import sys; from memdir.cli import main; sys.exit(main())"]


@dataclass
class Cli:
    home: Path
    project: Path
    env: dict[str, str]

    @property
    def sessions(self) -> Path:
        return self.project / ".agent" / "sessions"

    def run(
        self, *args: str, rc: int | None = 0, stdin: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            [sys.executable, *ENTRY, *args],
            cwd=self.project,
            env=self.env,
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=HANG_GUARD_S,
            check=False,
        )
        if rc is not None:
            assert result.returncode == rc, f"{args}: {result.returncode}\n{result.stderr}"
        return result

    def json(self, *args: str) -> Any:
        return json.loads(self.run(*args, "--json").stdout)

    def write_session(self, *messages: dict[str, Any]) -> str:
        """A session with ``messages``, written in this process: setup, not the CLI under test
        (a Python started per session only to write it cost more than the command checked)."""
        with Memory(home=self.home, cwd=self.project).session() as s:
            for message in messages:
                s.append(message)
        return s.id


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    home, project = tmp_path / "cli" / "home", tmp_path / "cli" / "project"
    (project / ".git").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k != "MEMDIR_DEBUG"}
    env.update(
        MEMDIR_HOME=str(home),
        PYTHONPATH=str(Path(__file__).parents[1] / "src"),
        PYTHONIOENCODING="utf-8",
    )
    return Cli(home, project, env)


def _error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 1 and "Traceback" not in result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith("error: ")
    return line


def _old(cli: Cli, sid: str, days: int) -> Path:
    when = (datetime.now(UTC) - timedelta(days=days)).isoformat().replace("+00:00", "Z")
    cli.sessions.mkdir(parents=True, exist_ok=True)
    path = cli.sessions / f"{sid}.jsonl"
    line = {"type": "user", "ts": when, "content": {"role": "user", "content": "old talk"}}
    # answered: a session ending on an unanswered message is never pruned (issue 22)
    reply = {"type": "assistant", "ts": when, "content": {"role": "assistant", "content": "ok"}}
    path.write_text(json.dumps(line) + "\n" + json.dumps(reply) + "\n")
    return path


HOLD = """
import sys
from memdir import Memory
s = Memory().session({sid!r})
print("ok", flush=True)
sys.stdin.read()
"""
HELLO = ({"role": "user", "content": "hello there"}, {"role": "assistant", "content": "hi!"})


# -- sessions list -------------------------------------------------------------------------
def test_list(cli: Cli) -> None:
    assert "No sessions yet" in cli.run("sessions", "list").stdout
    assert cli.json("sessions", "list") == []
    sid = cli.write_session(*HELLO)
    out = cli.run("sessions", "list").stdout
    assert sid in out and "assistant: hi!" in out
    [info] = cli.json("sessions", "list")
    assert info["id"] == sid and info["last_type"] == "assistant" and not info["archived"]
    assert info["path"] == str(cli.sessions / f"{sid}.jsonl")
    assert cli.json("sessions", "list", "--archived") == []


# -- sessions show -------------------------------------------------------------------------
def test_show(cli: Cli) -> None:
    sid = cli.write_session(*HELLO)
    path = cli.sessions / f"{sid}.jsonl"
    with open(path, "a") as f:
        f.write('{"type": "user", "ts')  # a torn line
    before = path.read_bytes()
    result = cli.run("sessions", "show", sid[:15])  # a unique prefix will do
    assert "hello there" in result.stdout and "hi!" in result.stdout
    assert "meta:guide" in result.stdout and "(memory guide recorded" in result.stdout
    assert "line 4 is not a complete record" in result.stderr
    data = cli.json("sessions", "show", sid)
    assert [r["type"] for r in data["records"]] == ["meta", "user", "assistant"]
    assert data["records"][1]["content"] == HELLO[0] and len(data["problems"]) == 1
    assert path.read_bytes() == before  # show only reads


def test_unknown_or_bad_ids(cli: Cli) -> None:
    assert "memdir sessions list" in _error(cli.run("sessions", "show", "20990101", rc=None))
    assert "not a session id" in _error(cli.run("sessions", "show", "../../etc", rc=None))


# -- sessions resume -----------------------------------------------------------------------
def test_resume_reports_what_it_did(cli: Cli) -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "build", "arguments": "{}"}}
    sid = cli.write_session(HELLO[0], {"role": "assistant", "content": None, "tool_calls": [call]})
    out = cli.run("sessions", "resume", sid).stdout
    assert f"Resumed {sid}: 2 messages" in out
    assert "'c1' had no result: marked interrupted" in out
    assert f"memdir context --session {sid}" in out
    data = cli.json("sessions", "resume", sid)
    assert data["messages"] == 2 and data["problems"] == [] and data["notices"]


def test_resume_is_refused_while_another_process_writes(cli: Cli) -> None:
    sid = cli.write_session(*HELLO)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            HOLD.format(sid=sid),
        ],
        cwd=cli.project,
        env=cli.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "ok\n"
        message = _error(cli.run("sessions", "resume", sid, rc=None))
        assert "open for writing in another process" in message
        assert "memdir sessions show" in message  # says what to do instead
        cli.run("sessions", "show", sid)  # reading is never blocked
    finally:
        holder.communicate("", timeout=HANG_GUARD_S)
    cli.run("sessions", "resume", sid)


# -- sessions prune ------------------------------------------------------------------------
def test_prune_dry_run_then_yes(cli: Cli) -> None:
    old = _old(cli, "20250101-000000-aaaa", 40)
    fresh = cli.write_session(*HELLO)
    out = cli.run("sessions", "prune", "--dry-run").stdout
    assert "Would archive 1 and delete 0" in out and "20250101-000000-aaaa" in out
    assert fresh not in out and old.exists()
    plan = cli.json("sessions", "prune", "--dry-run")
    assert [a["id"] for a in plan["plan"]] == ["20250101-000000-aaaa"] and plan["dry_run"]
    # no terminal and no --yes: refuse, saying what to pass
    message = _error(cli.run("sessions", "prune", rc=None))
    assert "--yes" in message and "--dry-run" in message and old.exists()
    out = cli.run("sessions", "prune", "--yes").stdout
    assert "archived 20250101-000000-aaaa" in out
    assert not old.exists() and (cli.sessions / "archive" / old.name).exists()
    assert [i["id"] for i in cli.json("sessions", "list", "--archived")] == [old.stem]
    assert "Nothing to prune." in cli.run("sessions", "prune").stdout


def test_prune_older_than(cli: Cli) -> None:
    _old(cli, "20250101-000000-aaaa", 3)
    assert "Nothing to prune" in cli.run("sessions", "prune", "--dry-run").stdout
    assert "20250101" in cli.run("sessions", "prune", "--dry-run", "--older-than", "2d").stdout
    assert "20250101" in cli.run("sessions", "prune", "--dry-run", "--older-than", "48h").stdout
    assert "Nothing" in cli.run("sessions", "prune", "--dry-run", "--older-than", "1w").stdout
    data = json.loads(cli.run("sessions", "prune", "--older-than", "2", "--yes", "--json").stdout)
    assert [a["id"] for a in data["done"]] == ["20250101-000000-aaaa"]
    bad = cli.run("sessions", "prune", "--older-than", "soon", rc=2)
    assert "30d" in bad.stderr


def test_prune_deletes_when_the_policy_says_so(cli: Cli) -> None:
    old = _old(cli, "20250101-000000-aaaa", 40)
    (cli.project / ".agent" / "memory-policy.yaml").write_text("sessions:\n  on_expiry: delete\n")
    assert "DELETE  20250101-000000-aaaa" in cli.run("sessions", "prune", "--dry-run").stdout
    cli.run("sessions", "prune", "--yes")
    assert not old.exists() and not (cli.sessions / "archive").exists()


def test_a_bad_policy_is_one_clear_error(cli: Cli) -> None:
    (cli.project / ".agent").mkdir()
    (cli.project / ".agent" / "memory-policy.yaml").write_text("sessions:\n  keep: 3\n")
    result = cli.run("sessions", "prune", "--dry-run")  # an unknown key warns (issue 22) …
    assert "unknown key `sessions.keep` ignored" in result.stderr
    assert "retention_days" in result.stderr
    (cli.project / ".agent" / "memory-policy.yaml").write_text("sessions:\n  on_expiry: 3\n")
    message = _error(cli.run("sessions", "prune", "--dry-run", rc=None))  # … a bad value stops
    assert "sessions.on_expiry must be one of archive, delete" in message


# -- context -------------------------------------------------------------------------------
def test_context_without_a_session(cli: Cli) -> None:
    cli.run("remember", "Use pnpm, not npm", "--type", "feedback")
    (cli.project / "AGENT.md").write_text("Team rule.\n@include missing.md\n")
    result = cli.run("context")
    assert result.stdout.startswith("=== system ===")
    assert "Team rule." in result.stdout and "Use pnpm, not npm" in result.stdout
    assert "missing.md not found" in result.stderr  # reported, not fatal
    openai = json.loads(cli.run("context", "--format", "openai").stdout)
    assert [m["role"] for m in openai] == ["system", "user"]
    anthropic = json.loads(cli.run("context", "--format", "anthropic").stdout)
    assert anthropic["system"] == openai[0]["content"]
    assert anthropic["messages"] == openai[1:]
    wrapped = cli.json("context")
    assert wrapped["format"] == "text" and wrapped["text"] == result.stdout
    assert not cli.sessions.exists()  # printing the context starts no session


def test_context_of_a_session(cli: Cli) -> None:
    sid = cli.write_session(*HELLO)
    path = cli.sessions / f"{sid}.jsonl"
    before = path.read_bytes()
    text = cli.run("context", "--session", sid).stdout
    assert text.endswith("=== user ===\nhello there\n\n=== assistant ===\nhi!\n")
    openai = json.loads(cli.run("context", "--session", sid, "--format", "openai").stdout)
    assert openai[2:] == list(HELLO)
    assert path.read_bytes() == before  # read-only
    use = {"type": "tool_use", "id": "t1", "name": "grep", "input": {}}
    other = cli.write_session(HELLO[0], {"role": "assistant", "content": [use]})
    message = _error(cli.run("context", "--session", other, "--format", "openai", rc=None))
    assert "--format anthropic" in message
    sent = json.loads(cli.run("context", "--session", other, "--format", "anthropic").stdout)
    assert sent["messages"][-1]["content"][0]["tool_use_id"] == "t1"  # repaired for sending


def _prune_on_a_terminal(cli: Cli, answer: str) -> subprocess.CompletedProcess[str]:
    """``memdir sessions prune`` with a real terminal (a pty) as stdin, answering ``answer``."""
    master, slave = os.openpty()
    try:
        proc = subprocess.Popen(
            [sys.executable, *ENTRY, "sessions", "prune"],
            cwd=cli.project,
            env=cli.env,
            stdin=slave,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        os.write(master, answer.encode() + b"\n")
        out, err = proc.communicate(timeout=HANG_GUARD_S)
    finally:
        os.close(master)
        os.close(slave)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_prune_asks_first_on_a_terminal(cli: Cli) -> None:
    old = _old(cli, "20250101-000000-aaaa", 40)
    declined = _prune_on_a_terminal(cli, "n")
    assert "This will archive 1 session(s)" in declined.stderr and "Go ahead?" in declined.stderr
    assert declined.returncode == 1 and old.exists()
    accepted = _prune_on_a_terminal(cli, "y")
    assert accepted.returncode == 0, accepted.stderr
    assert "archived 20250101-000000-aaaa" in accepted.stdout
    assert (cli.sessions / "archive" / old.name).exists()
