"""One write at scale: how long a single ``remember`` takes as a scope grows (SPEC A3, A4).

Every write is atomic (temp file, fsync, rename, directory fsync), logged, and followed by a
regeneration of MEMORY.md, which lists every memory of the scope — so a write has a part that
grows with the scope. This measures it: for each size in ``--sizes`` a fresh scope is filled
with ``remember_many`` (one batch, not timed), then ``--writes`` single ``remember`` calls are
timed one by one; the median and p95 are reported. The hashing embedder is used (embedding is
not on the write path). Files are in the page cache; fsync cost depends on the disk.

``python bench/write_path.py`` prints a table and writes ``bench/results/write_path.md``.
``--baseline SRC`` (the ``src`` folder of another checkout, e.g. a ``git worktree`` of an older
commit) measures that version too, size by size in the same run, in a subprocess with
``PYTHONPATH=SRC`` — these machines are noisy, so compare within one run only.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from provenance import provenance

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "write_path.md"


def measure(size: int, writes: int) -> tuple[float, float]:
    from memdir import Memory

    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        (project / ".git").mkdir(parents=True)
        m = Memory(home=Path(tmp) / "home", project=project, embedder="hashing")
        m.init()
        m.remember_many(
            {"text": f"fact {i} about service {i % 37} and team {i % 11}", "type": "project"}
            for i in range(size)
        )
        times: list[float] = []
        for i in range(writes):
            start = time.perf_counter()
            m.remember(f"a new fact {i} for the write bench", type="project")
            times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95) - 1]


def _commit(src: str) -> str:
    done = subprocess.run(
        ["git", "-C", src, "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return done.stdout.strip() or f"unknown (the memdir in {src})"


def baseline(src: str, size: int, writes: int) -> tuple[float, float]:
    """``measure`` run by the memdir found in ``src``."""
    env = {**os.environ, "PYTHONPATH": src}
    out = subprocess.run(
        [sys.executable, __file__, "--measure", str(size), "--writes", str(writes)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    p50, p95 = json.loads(out.strip().splitlines()[-1])
    return float(p50), float(p95)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,1500,5000")
    parser.add_argument("--writes", type=int, default=40)
    parser.add_argument("--baseline", metavar="SRC", help="also measure the memdir in SRC")
    parser.add_argument("--measure", type=int, help=argparse.SUPPRESS)  # the subprocess side
    args = parser.parse_args()
    os.environ.setdefault("MEMDIR_EMBEDDER", "hashing")
    if args.measure is not None:
        print(json.dumps(measure(args.measure, args.writes)))
        return 0
    head = "| memories in the scope | p50 ms | p95 ms |"
    rule = "| --- | --- | --- |"
    if args.baseline:
        head = "| memories in the scope | p50 ms | p95 ms | baseline p50 ms | baseline p95 ms |"
        rule = "| --- | --- | --- | --- | --- |"
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        p50, p95 = measure(size, args.writes)
        row = f"| {size:,} | {p50:.1f} | {p95:.1f} |"
        if args.baseline:
            b50, b95 = baseline(args.baseline, size, args.writes)
            row += f" {b50:.1f} | {b95:.1f} |"
        rows.append(row)
        print(row, flush=True)
    report = [
        "# One write at scale",
        "",
        *provenance(sys.argv),
        "",
        f"{args.writes} single `remember` calls into a project scope already holding N memories"
        + (
            f"; baseline: commit {_commit(args.baseline)}, measured in the same run."
            if args.baseline
            else "."
        ),
        "",
        head,
        rule,
        *rows,
        "",
    ]
    RESULTS.write_text("\n".join(report), encoding="utf-8")
    print(f"wrote {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
