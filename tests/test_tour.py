"""The README's first command runs end to end and shows what it promises."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from waiting import HANG_GUARD_S

ROOT = Path(__file__).parents[1]


@pytest.mark.slow  # one long script (80 s on a loaded 2-core machine): it leads a worker's share
def test_tour_runs(tmp_path: Path) -> None:
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    env.pop("MEMDIR_HOME", None)  # the tour makes its own
    result = subprocess.run(
        ["bash", str(ROOT / "scripts" / "tour.sh")],
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_GUARD_S,  # a hang guard: the tour took 80 s on a loaded machine
        check=False,
    )
    out = result.stdout
    assert result.returncode == 0, result.stderr
    assert out.count("Remembered ") == 3
    assert "我是后端工程师" in out
    assert "description: We use PostgreSQL 16" in out  # the hand edit was picked up
    assert "— We use PostgreSQL 16 for the orders service" in out  # ...and reached MEMORY.md
    assert "is back as it was" in out and "All memory files are readable." in out
    # step 4's hand edit is named by doctor, and recorded by doctor --fix
    assert "we-use-postgresql-15-for-the-orders-service.md: changed outside memdir" in out
    # step 6: a session written, listed, resumed (its dangling tool call repaired), its context
    # the session of step 7 (the one of step 8 starts later, so its id sorts after)
    session, _ = sorted(tmp_path.glob("memdir-tour.*/shop/.agent/sessions/*.jsonl"))
    assert f"Resumed {session.stem}: 2 messages" in out and "marked interrupted" in out
    assert out.count(session.stem) >= 3  # listed, resumed, and named in the hint
    context = out.split("=== system ===", 1)[1]
    assert "=== user (memory guide) ===" in context
    assert "We use PostgreSQL 16 for the orders service" in context  # the index, not the body
    assert "=== user ===\nWhich database does the orders service use?" in context
    assert "=== tool result ===\ninterrupted:" in context
    # step 8: the extractor stored both explicit requests at once ("以后都…" is a standing
    # instruction, and a Chinese memory gets a short ASCII name); the guard refused a permission
    # grant, and the refusal is in the history
    assert "stored at once: the-staging-database-is-db-stage-2" in out
    assert re.search(r"stored at once: pnpm-[0-9a-f]{6}\n", out)
    assert re.search(r"from this turn: pnpm-[0-9a-f]{6} \(feedback, source user", out)
    assert "from this turn: the-staging-database-is-db-stage-2 (project, source user" in out
    assert "not stored: grants a permission" in result.stderr
    assert "refuse" in out.split("memdir history | tail -n 2", 1)[1]
    assert "the page answered 200: Memories" in out  # step 10: memdir ui --check
    [demo] = tmp_path.glob("memdir-tour.*")
    assert (demo / "home" / "memory" / "backend-engineer.md").is_file()  # undo restored it
    assert not (Path.home() / ".agent" / "memory" / "backend-engineer.md").exists()
