"""Retention never lets a session leave before its memories (issue 22 §4, SPEC C6): `memdir
sessions prune --yes` extracts an expiring session's turns first, through real processes."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cli_runner import ENTRY, data
from memdir import Memory


def _expiring(folder: Path, sid: str, text: str, answer: str | None = "Noted.") -> Path:
    when = (datetime.now(UTC) - timedelta(days=40)).isoformat().replace("+00:00", "Z")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{sid}.jsonl"
    lines = [{"type": "user", "ts": when, "content": {"role": "user", "content": text}}]
    if answer is not None:
        reply = {"role": "assistant", "content": answer}
        lines.append({"type": "assistant", "ts": when, "content": reply})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_prune_yes_extracts_an_explicit_request_before_deleting_the_session(mem: Memory) -> None:
    policy = mem.project_root / ".agent" / "memory-policy.yaml"  # type: ignore[operator]
    policy.write_text("sessions:\n  on_expiry: delete\n", encoding="utf-8")
    path = _expiring(
        mem.sessions_dir(),
        "20250101-000000-aaaa",
        "Remember that the release branch is called trunk-stable.",
    )
    assert mem.list() == []
    plan = data("sessions", "prune", "--dry-run")
    assert [a["action"] for a in plan["plan"]] == ["delete"] and plan["plan"][0]["distill"]
    done = data("sessions", "prune", "--yes")
    assert [a["id"] for a in done["done"]] == ["20250101-000000-aaaa"]
    assert not path.exists()  # deleted, as the policy says — but only after extraction
    found = [r["statement"] for r in data("list")]
    assert any("trunk-stable" in s for s in found), found


def test_a_session_whose_extraction_fails_stays(mem: Memory, monkeypatch: Any) -> None:
    path = _expiring(mem.sessions_dir(), "20250101-000000-bbbb", "Remember that we use pnpm.")
    monkeypatch.setenv("MEMDIR_LLM_MODEL", "nobody")  # an endpoint that cannot answer …
    monkeypatch.setenv("MEMDIR_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MEMDIR_LLM_MAX_RETRIES", "0")
    result = subprocess.run(
        [sys.executable, *ENTRY, "sessions", "prune", "--yes", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    report = json.loads(result.stdout)
    assert report["done"] == [] and report["skipped"][0]["id"] == "20250101-000000-bbbb"
    assert "memdir extract" in report["skipped"][0]["why"]
    assert path.exists()  # … so the session is kept for the next try, nothing lost


def test_a_session_ending_on_an_unanswered_request_is_never_pruned(mem: Memory) -> None:
    path = _expiring(
        mem.sessions_dir(), "20250101-000000-cccc", "Remember that we deploy on Mondays.", None
    )
    report = data("sessions", "prune", "--yes")
    assert report["done"] == [] and "never answered" in report["skipped"][0]["why"]
    assert path.exists()
