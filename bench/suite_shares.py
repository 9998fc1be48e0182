"""Where the test suite's time goes: per-file shares from pytest's JUnit XML (issue 26).

    python bench/suite_shares.py RUN.xml [--before OLD.xml] [--top 30] [--out FILE.md]

A loaded 2-core machine makes seconds meaningless between runs, so the table is of *shares*:
each file's summed test time as a part of the run's summed test time (setup and teardown are in
a test's time; collection and worker start are not). With ``--before`` a second column gives the
same file's share in an older run, so a change shows as a share that shrank. The longest single
tests follow — a long test at the end of a worker's queue is what tails an xdist run.
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

from provenance import provenance


def load(path: Path) -> tuple[Counter[str], Counter[str], list[tuple[float, str]]]:
    """``(seconds per file, tests per file, (seconds, test id) per test)``."""
    seconds: Counter[str] = Counter()
    counts: Counter[str] = Counter()
    tests: list[tuple[float, str]] = []
    for case in ET.parse(path).getroot().iter("testcase"):
        parts = (case.get("classname") or "?").split(".")
        name = "/".join(p for p in parts if not p[:1].isupper()) + ".py"  # drop a class
        took = float(case.get("time") or 0)
        seconds[name] += took
        counts[name] += 1
        tests.append((took, f"{name}::{case.get('name')}"))
    return seconds, counts, tests


def table(run: Path, before: Path | None, top: int) -> list[str]:
    seconds, counts, tests = load(run)
    total = sum(seconds.values())
    old, old_total = (load(before)[0], 0.0) if before else (Counter(), 0.0)
    old_total = sum(old.values())
    lines = [
        f"{len(tests)} tests, summed test time {total:.0f} s"
        + (f" (before: {old_total:.0f} s)" if before else ""),
        "",
        "| file | tests | seconds | share |" + (" share before |" if before else ""),
        "| --- | ---: | ---: | ---: |" + (" ---: |" if before else ""),
    ]
    for name, took in seconds.most_common(top):
        row = f"| {name} | {counts[name]} | {took:.1f} | {100 * took / total:.1f} % |"
        if before:
            row += f" {100 * old[name] / old_total:.1f} % |" if old_total else " – |"
        lines.append(row)
    lines += ["", "Longest single tests:", "", "| test | seconds |", "| --- | ---: |"]
    lines += [f"| {test} | {took:.1f} |" for took, test in sorted(tests, reverse=True)[:top]]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--before", type=Path)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    lines = table(args.run, args.before, args.top)
    print("\n".join(lines))
    if args.out:
        args.out.write_text(
            "\n".join(["# Test suite shares (bench/suite_shares.py)", "", *provenance(sys.argv)])
            + "\n\n"
            + "\n".join(lines)
            + "\n"
        )


if __name__ == "__main__":
    main()
