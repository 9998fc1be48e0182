"""The scope lock under contention: how long a write holds it, and many CLI writers at once.

Protocol:

* **hold** — per size N (``--sizes``, default 100,1000): a fresh project with N memories, then
  ``--holds`` (50) writes, each by a new ``Memory`` (as each ``memdir remember`` is a new
  process: nothing parsed yet). The time from getting the scope lock to letting it go is
  measured by wrapping ``memdir.files.core.fair_lock`` (the real lock, timed around); also the
  whole ``remember``. p50/p95/max in ms.
* **writers** — ``--writers`` (16) threads, each running ``memdir remember`` ``--writes`` (50)
  times as separate processes (``python -m memdir.cli``), all into one fresh project at once.
  Every call must exit 0; afterwards every memory must be there once, MEMORY.md must list each,
  ``doctor`` must be clean and the log must hold one create per call. Reported: failures, wall
  time, and p50/p95/max of one call's latency (process start-up, ~1 s of imports, included).

``python bench/locks.py`` prints a table and writes ``bench/results/locks.md``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from provenance import provenance

import memdir.files.core as core
from memdir import Memory

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "locks.md"
CLI = [sys.executable, "-m", "memdir.cli"]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _row(values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return f"{statistics.median(ms):.1f} | {_pct(ms, 0.95):.1f} | {max(ms):.1f}"


def _project(root: Path) -> tuple[Path, Path]:
    home, project = root / "home", root / "project"
    (project / ".git").mkdir(parents=True)
    return home, project


def hold_times(size: int, writes: int) -> dict[str, list[float]]:
    """Lock hold and whole-write times of ``writes`` cold writes into ``size`` memories."""
    held: list[float] = []
    real = core.fair_lock

    @contextmanager
    def timed(lock: Path) -> Iterator[None]:
        with real(lock):
            start = time.perf_counter()
            try:
                yield
            finally:
                held.append(time.perf_counter() - start)

    with tempfile.TemporaryDirectory() as tmp:
        home, project = _project(Path(tmp))
        seed = Memory(home=home, project=project, embedder="hashing")
        seed.init()
        seed.remember_many(
            [{"text": f"seed fact {i} about area {i % 37}", "type": "project"} for i in range(size)]
        )
        whole: list[float] = []
        core.fair_lock = timed  # type: ignore[assignment]
        try:
            for i in range(writes):
                mem = Memory(home=home, project=project, embedder="hashing")
                start = time.perf_counter()
                mem.remember(f"new fact {i} for the hold bench", type="project")
                whole.append(time.perf_counter() - start)
        finally:
            core.fair_lock = real  # type: ignore[assignment]
    return {"hold": held, "write": whole}


def writers(count: int, writes: int) -> dict[str, Any]:
    """``count`` threads × ``writes`` ``memdir remember`` processes into one fresh project."""
    with tempfile.TemporaryDirectory() as tmp:
        home, project = _project(Path(tmp))
        env = {**os.environ, "MEMDIR_HOME": str(home), "MEMDIR_EMBEDDER": "hashing"}
        latencies: list[float] = []
        failures: list[str] = []
        guard = threading.Lock()

        def loop(w: int) -> None:
            for i in range(writes):
                start = time.perf_counter()
                done = subprocess.run(
                    [*CLI, "remember", f"w{w} n{i}", "--type", "project"],
                    cwd=project,
                    env=env,
                    capture_output=True,
                    text=True,
                )
                with guard:
                    latencies.append(time.perf_counter() - start)
                    if done.returncode != 0:
                        failures.append(done.stderr.strip().splitlines()[-1:][0])

        started = time.perf_counter()
        threads = [threading.Thread(target=loop, args=(w,)) for w in range(count)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - started
        mem = Memory(home=home, project=project, embedder="hashing")
        records = mem.list()
        wanted = sorted(f"w{w} n{i}" for w in range(count) for i in range(writes))
        index = mem.store("project").dirs.index_file.read_text()
        creates = [c for c in mem.history() if c.op == "create"]
        checks = {
            "every memory once": sorted(r.statement for r in records) == wanted,
            "MEMORY.md lists each": all(f"({r.name}.md)" in index for r in records),
            "doctor clean": mem.doctor() == [],
            "one create per call": len(creates) == count * writes,
        }
    return {"wall": wall, "latency": latencies, "failures": failures, "checks": checks}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,1000")
    parser.add_argument("--holds", type=int, default=50)
    parser.add_argument("--writers", type=int, default=16)
    parser.add_argument("--writes", type=int, default=50)
    parser.add_argument("--no-write", action="store_true", help="print only; keep the results")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    lines = ["| memories | held p50 | p95 | max (ms) | whole write p50 | p95 | max (ms) |"]
    lines.append("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for size in [int(s) for s in args.sizes.split(",")]:
        got = hold_times(size, args.holds)
        lines.append(f"| {size} | {_row(got['hold'])} | {_row(got['write'])} |")
        print(lines[-1], flush=True)
    run = writers(args.writers, args.writes)
    ok = not run["failures"] and all(run["checks"].values())
    report = [
        "# The scope lock: hold time and concurrent CLI writers (bench/locks.py)",
        "",
        *provenance(["bench/locks.py", *(argv if argv is not None else sys.argv[1:])]),
        f"- run time {(time.perf_counter() - began) / 60:.1f} min; load average (1/5/15 min) at "
        f"the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())} — the machine is shared "
        "with other test runs, which is the point",
        "",
        "## Hold time per write",
        "",
        f"Each of {args.holds} writes by a new `Memory` (cold, as a CLI process), hashing embedder;"
        " the lock is the real `fair_lock`, timed from acquired to released.",
        "",
        *lines,
        "",
        f"## {args.writers} concurrent CLI writers × {args.writes} `memdir remember`",
        "",
        "| calls | failed | wall (s) | one call p50 | p95 | max (ms) |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
        f"| {len(run['latency'])} | {len(run['failures'])} | {run['wall']:.0f} | "
        f"{_row(run['latency'])} |",
        "",
        *(f"- {name}: {'yes' if good else 'NO'}" for name, good in run["checks"].items()),
        *(f"- failure: `{f}`" for f in run["failures"][:10]),
        "",
    ]
    text = "\n".join(report)
    print(text)
    if not args.no_write:
        RESULTS.write_text(text, encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
