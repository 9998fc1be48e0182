"""Waiting in tests without letting a clock decide the verdict (issue 26: no test depends on
timing).

A test waits for an *event* — a file appearing, a line on a pipe, a port that accepts, a
condition that becomes true — never for a duration. The one deadline left is ``HANG_GUARD_S``: so
long that only a hung process reaches it (a slow, loaded machine never does), so it turns a hang
into a failure with a message instead of deciding whether something was fast enough. Subprocess
``timeout=`` arguments use it for the same reason.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

HANG_GUARD_S = 600.0  # a hang guard, not a budget: nothing that works takes this long


def wait_until(
    done: Callable[[], bool],
    what: str,
    *,
    alive: Callable[[], bool] = lambda: True,
    poll_s: float = 0.02,
) -> None:
    """Until ``done()`` is true. Fails at once if ``alive()`` turns false first (the process we
    wait on exited), and after ``HANG_GUARD_S`` only if nothing happened at all (a hang)."""
    deadline = time.monotonic() + HANG_GUARD_S
    while not done():
        if not alive():
            pytest.fail(f"{what}: the process it waited on exited first")
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: nothing after {HANG_GUARD_S:.0f} s — a hang, not a slow machine")
        time.sleep(poll_s)


def alive(proc: subprocess.Popen[Any]) -> Callable[[], bool]:
    """``wait_until``'s ``alive`` for a subprocess: true while it runs."""
    return lambda: proc.poll() is None


def until_the_clock_moves(folder: Path, probe_dir: Path) -> None:
    """Until the file system's clock reads later than every timestamp in ``folder`` (its own and
    its files'): a change made after this gets a timestamp no earlier write had, however coarse
    the file system's clock is. Observed on a probe file in ``probe_dir`` (outside ``folder``, so
    nothing in it changes); no fixed sleep that a coarser clock would outlast."""
    mark = max(p.stat().st_mtime_ns for p in (folder, *folder.iterdir()))
    probe = probe_dir / ".clock-probe"

    def moved() -> bool:
        probe.touch()
        os.utime(probe)
        return probe.stat().st_mtime_ns > mark

    wait_until(moved, f"the file-system clock to move past {folder}", poll_s=0.001)
    probe.unlink()
