"""The CLI as a real process, for tests that drive ``memdir`` as a user would: ``run`` (the exit
status checked unless ``ok=False``), ``data`` (the ``--json`` output parsed) and ``ago`` (a
timestamp ``days`` before now, in the frontmatter's format)."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from typing import Any

ENTRY = ["-c", "import sys; from memdir.cli import main; sys.exit(main())"]


def run(*args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, *ENTRY, *args], capture_output=True, text=True, check=False
    )
    if ok:
        assert result.returncode == 0, result.stderr
    return result


def data(*args: str) -> Any:
    return json.loads(run(*args, "--json").stdout)


def ago(days: float, now: datetime | None = None) -> str:
    return ((now or datetime.now(UTC)) - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")
