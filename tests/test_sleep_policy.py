"""Seed 004's ``memory-policy.yaml`` as written, per-type ageing (seed 002), and unknown keys
that warn once instead of stopping a command (issue 22 §1)."""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memdir import Memory
from memdir.errors import ConfigError
from memdir.lifecycle import plan_sleep, take_snapshot
from memdir.lifecycle.plan import dated
from memdir.policy import Policy, load_policy

SEED = Path(__file__).parent / "fixtures" / "policy" / "seed-004-memory-policy.yaml"
ENTRY = ["-c", "import sys; from memdir.cli import main; sys.exit(main())"]
NOW = datetime(2026, 9, 1, 3, 0, tzinfo=UTC)


def _ago(days: float) -> str:
    return (NOW - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _install(mem: Memory, source: Path | str) -> Path:
    path = mem.project_root / ".agent" / "memory-policy.yaml"  # type: ignore[operator]
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(source, Path):
        shutil.copy(source, path)
    else:
        path.write_text(source, encoding="utf-8")
    return path


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *ENTRY, *args], capture_output=True, text=True, check=False
    )


def test_seed_004_policy_loads_as_written(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="memdir.policy"):
        policy = load_policy(SEED)
    assert caplog.records == []  # every key of the seed is one memdir knows
    assert policy.conversation.scope == "session" and policy.conversation.max_messages == 30
    assert policy.conversation.persist is False
    assert policy.working_memory.scope == "session" and policy.working_memory.distill is True
    assert policy.working_memory.persist is False
    assert policy.long_memory.project.scope == "project"
    assert policy.long_memory.project.max_chars == 3000
    assert policy.long_memory.user.scope == "global" and policy.long_memory.user.max_chars == 4000
    assert policy.promotion.min_reuse == 2 and policy.promotion.user_explicit is True
    assert policy.archive.compress is True
    # the archive section is forgetting in seed 004's words
    assert policy.forgetting.archive_after_days == 30 and policy.forgetting.archive_ttl_days == 365


def test_seed_rule_and_trigger_are_read_not_just_accepted(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(
        'promotion:\n  rule: "reused > 4"\narchive:\n  trigger: "not_hit_days > 12"\n'
        "  ttl_days: 40\n",
        encoding="utf-8",
    )
    policy = load_policy(path)
    assert policy.promotion.min_reuse == 5 and policy.promotion.user_explicit is False
    assert policy.forgetting.archive_after_days == 12 and policy.forgetting.archive_ttl_days == 40


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('promotion:\n  rule: "reused twice"\n', 'write terms joined by OR, such as "reused'),
        ('archive:\n  trigger: "after a month"\n', 'must read "not_hit_days > N"'),
        ("forgetting:\n  ageing:\n    opinion: 2\n", "not a memory type; use project"),
        ("forgetting:\n  ageing:\n    user: -1\n", "forgetting.ageing.user must be a number"),
        ("long_memory:\n  user:\n    scope: team\n", "must be one of project, global, user"),
    ],
)
def test_a_wrong_value_of_a_seed_key_says_how_to_write_it(
    tmp_path: Path, text: str, expected: str
) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_policy(path)
    assert expected in str(info.value) and str(path) in str(info.value)
    assert path.read_text(encoding="utf-8") == text  # nothing rewritten


def test_unknown_keys_warn_once_and_the_rest_still_applies(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(
        "sessions:\n  retension_days: 3\n  retention_days: 9\nteam_rules: {x: 1}\n",
        encoding="utf-8",
    )
    with caplog.at_level(logging.WARNING, logger="memdir.policy"):
        first = load_policy(path)
        again = load_policy(path)
    assert first == again and first.sessions.retention_days == 9
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 2  # one per unknown key, however often the file is loaded
    assert "`sessions.retension_days` ignored — did you mean retention_days?" in messages[0]
    assert "`team_rules` ignored" in messages[1] and "sessions" in messages[1]


def test_commands_run_on_the_seed_policy_and_on_unknown_keys(mem: Memory) -> None:
    mem.remember("Use pnpm, not npm", type="feedback")
    _install(mem, SEED)
    for args in (("context",), ("sleep", "--dry-run"), ("sessions", "prune", "--dry-run")):
        result = _run(*args)
        assert result.returncode == 0, result.stderr
        assert "unknown key" not in result.stderr
    _install(mem, SEED.read_text(encoding="utf-8") + "\nreview:\n  every_days: 7\n")
    result = _run("context")
    assert result.returncode == 0 and "pnpm" in result.stdout
    assert result.stderr.count("unknown key `review`") == 1


def test_dated_project_facts_age_first_and_preferences_last(mem: Memory) -> None:
    dated_fact = mem.remember(
        "Merges are frozen until 2026-08-20 for the audit", type="project", created=_ago(20)
    )
    fact = mem.remember("The billing service is written in Go", type="project", created=_ago(20))
    old_fact = mem.remember("Staging lives in eu-west-1", type="project", created=_ago(45))
    preference = mem.remember("I like short answers", type="user", created=_ago(45))
    state = take_snapshot(mem.store("project"), mem.index("project"), 3000)
    user_state = take_snapshot(mem.store("user"), mem.index("user"), 4000)
    plan = plan_sleep([state, user_state], policy=Policy(), now=NOW)
    archived = {n for s in plan.steps if s.action == "archive" for n in s.names}
    assert archived == {dated_fact.name, old_fact.name}
    assert fact.name not in archived and preference.name not in archived
    reason = next(s.reason for s in plan.steps if dated_fact.name in s.names)
    assert "a dated project fact ages over 7.5 days" in reason
    assert dated("本周五之前冻结合并") and dated("Ship by next Friday")
    assert not dated("The release train leaves on Thursdays")
