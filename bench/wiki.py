"""What the agent loop's wiki check costs before each turn (issue 24 item 4), side by side.

Protocol: a user store of ``--memories`` memories (generated statements, ``hashing`` embedder)
projected once with ``memdir wiki`` (``portable.wiki.project``). Then, in one run, each timed
``--repeats`` times and reported as the median:

* ``refresh`` on an unchanged store — what ``Agent.send`` calls before every turn: the store's
  stamp (``Store.fingerprint``: names + ``stat``; and the last change id) against the saved one;
* ``is_current`` — the content-hash comparison (every memory read through the parse cache and
  hashed): what a per-turn check would cost without the stamp;
* ``project(force=True)`` — rendering and writing the whole projection: what a check that always
  regenerated would cost;
* ``refresh`` after one memory changed — the turn that does regenerate.

It also checks the claim behind the number: after the unchanged ``refresh`` calls no file under
``.memory/`` has a new inode, size or mtime (nothing rewritten, nothing re-rendered).

``python bench/wiki.py`` prints the table and writes ``bench/results/wiki.md``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from provenance import provenance

from memdir import Memory
from memdir.portable.wiki import is_current, project, refresh, workspace

ROOT = Path(__file__).resolve().parents[1]


def _median(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _files(root: Path) -> dict[str, tuple[int, int, int]]:
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file():
            st = p.stat()
            out[str(p)] = (st.st_ino, st.st_size, st.st_mtime_ns)
    return out


def run(n: int, repeats: int, tmp: Path) -> dict[str, float | int | bool]:
    (tmp / "project" / ".git").mkdir(parents=True)
    mem = Memory(home=tmp / "home", project=tmp / "project", embedder="hashing")
    mem.remember_many(
        {"text": f"I prefer tool number {k} for task {k * 7 % 13}", "type": "user"}
        for k in range(n)
    )
    project(mem)
    refresh(mem)  # warm: the parse cache, the imports
    before = _files(workspace(mem))
    unchanged = _median(lambda: refresh(mem), repeats)
    untouched = _files(workspace(mem)) == before
    content = _median(lambda: is_current(mem), repeats)
    full = _median(lambda: project(mem, force=True), max(3, repeats // 10))

    def one_change() -> None:
        mem.remember(f"I changed my mind {time.perf_counter_ns()}", type="user")
        assert refresh(mem) is not None

    changed = _median(one_change, max(3, repeats // 10))
    return {
        "memories": n,
        "refresh": unchanged,
        "is_current": content,
        "project": full,
        "changed": changed,
        "untouched": untouched,
    }


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memories", default="100,1000")
    ap.add_argument("--repeats", type=int, default=50)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "wiki.md")
    args = ap.parse_args(argv)
    rows = []
    for n in (int(x) for x in args.memories.split(",")):
        with tempfile.TemporaryDirectory(prefix="memdir-wiki-bench-") as tmp:
            rows.append(run(n, args.repeats, Path(tmp)))
        print(rows[-1], file=sys.stderr)
    lines = [
        "# The wiki check before each turn (issue 24)",
        "",
        *provenance(["bench/wiki.py", *argv]),
    ]
    lines += [
        "",
        f"Medians of {args.repeats} calls (the full render: of a tenth as many). *ratio*: the "
        "call against the unchanged-store `refresh` of the same store, in the same run. "
        "*untouched*: no file under `.memory/` rewritten by the unchanged `refresh` calls.",
        "",
        "| memories | refresh, unchanged | is_current (content hash) | ratio | project(force) "
        "| ratio | refresh after one change | untouched |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in rows:
        base = float(r["refresh"])
        lines.append(
            f"| {r['memories']:,} | {base * 1e3:.2f} ms | {float(r['is_current']) * 1e3:.2f} ms "
            f"| {float(r['is_current']) / base:.1f}× | {float(r['project']) * 1e3:.1f} ms "
            f"| {float(r['project']) / base:.0f}× | {float(r['changed']) * 1e3:.1f} ms "
            f"| {'yes' if r['untouched'] else 'NO'} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
