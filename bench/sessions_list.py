"""Listing sessions at scale (SPEC C4): 10,000 session files, listed from names and last lines.

Protocol:

* ``--count`` (default 10,000) session files are written into a temporary directory with the
  real session format: a ``meta`` guide record (~3 KB) and then a seeded-random number of
  messages — most sessions short (4–40 messages of 100–600 characters), one in ten long (up to
  400 messages, 1 in 100 of them a tool result of 20–200 KB) — and one in a hundred ending in a
  torn line (a crash mid-write), so the tail reader has to step back a line.
* ``list_sessions`` (what ``memdir sessions list`` and ``Memory.sessions()`` call) is timed
  ``--runs`` times (default 7) after one warm-up; the median and the min/max are reported.
  The files are in the page cache (they were just written): this measures memdir's work, not
  the disk.
* For scale, one **full read** of the same files (every line parsed, what listing would cost
  with no tail reading) is timed once.

``python bench/sessions_list.py`` prints a table and writes ``bench/results/sessions.md``.
"""

from __future__ import annotations

import argparse
import json
import random
import shlex
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from provenance import provenance

from memdir.sessions import Session, list_sessions

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "sessions.md"
WORDS = "deploy cache index query schema build test lint merge review retry token config".split()


def _text(rng: random.Random, chars: int) -> str:
    out: list[str] = []
    length = 0
    while length < chars:
        word = rng.choice(WORDS)
        out.append(word)
        length += len(word) + 1
    return " ".join(out)


def _messages(rng: random.Random, start: datetime) -> list[dict[str, Any]]:
    long = rng.random() < 0.1
    count = rng.randint(40, 400) if long else rng.randint(4, 40)
    records: list[dict[str, Any]] = []
    ts = start
    for i in range(count):
        ts += timedelta(seconds=rng.randint(5, 600))
        stamp = ts.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        big = long and rng.random() < 0.01
        size = rng.randint(20_000, 200_000) if big else rng.randint(100, 600)
        if i % 2 == 0:
            content = {"role": "user", "content": _text(rng, size)}
        else:
            content = {"role": "assistant", "content": _text(rng, size)}
        records.append({"type": content["role"], "ts": stamp, "content": content})
    return records


def make_sessions(folder: Path, count: int, seed: int = 20261129) -> int:
    """Write ``count`` session files; returns their total size in bytes."""
    rng = random.Random(seed)
    guide = {"kind": "guide", "version": 1, "system": "You are…", "text": _text(rng, 3000)}
    base = datetime(2026, 1, 1, tzinfo=UTC)
    total = 0
    for n in range(count):
        start = base + timedelta(minutes=7 * n)
        sid = f"{start.strftime('%Y%m%d-%H%M%S')}-{n % 65536:04x}"
        head = {"type": "meta", "ts": start.isoformat().replace("+00:00", "Z"), "content": guide}
        lines = [json.dumps(r, ensure_ascii=False) for r in [head, *_messages(rng, start)]]
        data = "\n".join(lines) + "\n"
        if n % 100 == 99:
            data += lines[-1][: len(lines[-1]) // 2]  # a torn last line
        path = folder / f"{sid}.jsonl"
        path.write_text(data, encoding="utf-8")
        total += len(data.encode())
    return total


def _time(func: Any) -> float:
    started = time.perf_counter()
    func()
    return time.perf_counter() - started


def run(count: int, runs: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="memdir-bench-sessions-") as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        total = make_sessions(folder, count)
        write_s = time.perf_counter() - started
        listed = list_sessions(folder)  # warm-up, and a check that it lists them all
        assert len(listed) == count, len(listed)
        assert all(i.last_active is not None for i in listed)
        times = [_time(lambda: list_sessions(folder)) for _ in range(runs)]
        full = _time(lambda: [Session.open(i.path, write=False) for i in listed])
    return {
        "count": count,
        "bytes": total,
        "write_s": write_s,
        "runs": runs,
        "median_s": statistics.median(times),
        "min_s": min(times),
        "max_s": max(times),
        "full_read_s": full,
    }


def report(result: dict[str, Any], command: str) -> str:
    per = result["median_s"] / result["count"] * 1e6
    return "\n".join(
        [
            "# Listing sessions (SPEC C4)",
            "",
            *provenance(shlex.split(command)[1:]),
            "",
            f"{result['count']:,} session files, {result['bytes'] / 1e6:.0f} MB in all "
            "(1 in 10 long, 1 in 100 ending in a torn line); files in the page cache.",
            "",
            "| what | time |",
            "| --- | --- |",
            f"| `list_sessions` (names + last lines), median of {result['runs']} | "
            f"**{result['median_s'] * 1000:.0f} ms** ({per:.1f} µs per session) |",
            f"| ... min / max | {result['min_s'] * 1000:.0f} / {result['max_s'] * 1000:.0f} ms |",
            f"| full read (every line parsed), once, for comparison | "
            f"{result['full_read_s'] * 1000:.0f} ms |",
            "",
            "Listing reads one 4 KiB block from the end of each file (more only when the last",
            "line is longer or torn), so its cost follows the number of sessions, not their",
            "length.",
            "",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--no-write", action="store_true", help="print only, keep the report")
    args = parser.parse_args(argv)
    result = run(args.count, args.runs)
    command = "python bench/sessions_list.py" + (
        f" --count {args.count}" if args.count != 10_000 else ""
    )
    text = report(result, command)
    print(text)
    if not args.no_write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(text, encoding="utf-8")
        print(f"written to {RESULTS.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
