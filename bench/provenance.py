"""Where a benchmark number came from: date, commit, machine, command — for every report."""

from __future__ import annotations

import os
import platform
import shlex
import subprocess
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def git(*args: str) -> str:
    try:
        out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return out.stdout.strip()


def provenance(argv: list[str]) -> list[str]:
    """Date, commit, machine and command line, as Markdown bullet lines."""
    dirty = " (with uncommitted changes)" if git("status", "--porcelain", "-uno") else ""
    return [
        f"- date: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- commit: {git('rev-parse', '--short', 'HEAD')}{dirty}",
        f"- machine: {platform.platform()}, {platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}",
        f"- command: `{shlex.join(['python', *argv])}`",
    ]
