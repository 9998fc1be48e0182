"""The README's first command runs end to end and shows what it promises."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).parents[1]


def test_tour_runs(tmp_path: Path) -> None:
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    env.pop("MEMDIR_HOME", None)  # the tour makes its own
    result = subprocess.run(
        ["bash", str(ROOT / "scripts" / "tour.sh")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    out = result.stdout
    assert result.returncode == 0, result.stderr
    assert out.count("Remembered ") == 3
    assert "我是后端工程师" in out
    assert "description: We use PostgreSQL 16" in out  # the hand edit was picked up
    assert "— We use PostgreSQL 16 for the orders service" in out  # ...and reached MEMORY.md
    assert "is back as it was" in out and "All memory files are readable." in out
    [demo] = tmp_path.glob("memdir-tour.*")
    assert (demo / "home" / "memory" / "backend-engineer.md").is_file()  # undo restored it
    assert not (Path.home() / ".agent" / "memory" / "backend-engineer.md").exists()
