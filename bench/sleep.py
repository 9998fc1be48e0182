"""Sleep at scale (SPEC H, issue 5): 10,000 memories planned, applied and undone.

Protocol:

* A throwaway home and project under a temp directory; ``--count`` (default 10,000) project
  memories written with ``remember_many`` (one batch), each a statement of six invented words
  (so nothing is similar by accident), created on a seeded-random day of the 90 before "now".
  Planted: 4% duplicate pairs (the second adds a word), 2% replaced values (newer wins), 1%
  unclear pairs (a negation on one side → tentative); memories created more than 30 days before
  now with no use are stale (~2/3 of the rest, since creation days are uniform over 90).
* The index is built first (``reindex``, timed on its own: embedding is not sleep's cost).
* ``sleep --dry-run`` (the plan: snapshot + pairs + rules) and ``sleep`` (plan + apply) are
  timed once each, then ``undo RUN_ID`` of the applied run. Wall time on a shared machine:
  read the numbers as an order of magnitude.
* Reported: memories, archived, MEMORY.md characters and ``index.sqlite`` bytes before and after.
* **Thresholds.** The cosine of a dozen labelled pairs (duplicates, a replaced value, a condition,
  related and unrelated facts, one pair across Chinese and English) under every embedder that
  loads here, next to the policy's ``duplicates.similarity`` default for it: the pairs above the
  threshold are the ones sleep compares at all (the rules or the LLM decide the rest).

``python bench/sleep.py [--count N] [--embedder hashing|use|e5]`` prints a table and writes
``bench/results/sleep.md``.

``python bench/sleep.py --pairs SET`` (``dev``, ``dev3``, ``dev4``, ``dev6``, ``heldout`` ..
``heldout8``) ``[--embedder use] [--llm] [--no-misses]`` scores sleep on the hand-written
paraphrase / conflict / look-alike pairs instead (``bench/sleep_pairs.py``) and writes
``bench/results/sleep_pairs_<set>.md``.

``python bench/sleep.py --store [--embedder use]`` runs sleep on a realistic store of a few
hundred agent memories and measures what the first-message recall costs
(``bench/sleep_store.py``); it appends a section to ``bench/results/sleep.md``.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from provenance import provenance

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "sleep.md"
NOW = datetime(2026, 9, 1, 3, 0, tzinfo=UTC)


def _stamp(days_ago: float) -> str:
    return (NOW - timedelta(days=days_ago)).strftime("%Y-%m-%dT%H:%M:%SZ")


class Words:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.seen: set[str] = set()

    def __call__(self, n: int = 1) -> list[str]:
        out: list[str] = []
        while len(out) < n:
            w = "".join(
                self.rng.choice("bdfgklmnprstvz") + self.rng.choice("aeiou") for _ in range(4)
            )
            if w not in self.seen:
                self.seen.add(w)
                out.append(w)
        return out


def history(count: int, seed: int = 10_000) -> tuple[list[dict[str, Any]], dict[str, int]]:
    rng = random.Random(seed)
    words = Words(rng)
    items: list[dict[str, Any]] = []
    planted = {"duplicate": 0, "replaced": 0, "unclear": 0}

    def add(text: str, days_ago: float, source: str = "user") -> None:
        items.append(
            {"text": text, "type": "project", "source": source, "created": _stamp(days_ago)}
        )

    while len(items) < count:
        roll = rng.random()
        if roll < 0.04:
            base, day = words(5), rng.uniform(1, 25)
            add(" ".join(base), day)
            add(" ".join([*base, *words()]), day - 0.5, "inferred")
            planted["duplicate"] += 1
        elif roll < 0.06:
            base = words(5)
            add(" ".join([*base, *words()]), rng.uniform(10, 25))
            add(" ".join([*base, *words()]), rng.uniform(1, 9))
            planted["replaced"] += 1
        elif roll < 0.07:  # a negation on one side (relate-v3: the rules cannot tell)
            shared, day = words(5), rng.uniform(1, 25)
            add(" ".join(shared), day)
            add(" ".join(["not", *shared]), day)
            planted["unclear"] += 1
        else:
            add(" ".join(words(6)), rng.uniform(0, 90), rng.choice(["user", "inferred"]))
    return items[:count], planted


PAIRS = [
    ("duplicate", "Use pnpm, not npm, in JS", "Use pnpm instead of npm in all JS"),
    ("duplicate", "The staging DB is on host db2", "The staging DB is on db2 in eu-west"),
    ("duplicate", "I prefer tabs over spaces", "Tabs, not spaces, please"),
    ("duplicate", "我们用 PostgreSQL 15", "We use PostgreSQL 15"),
    ("replaced", "Use pnpm for JS installs", "Use npm for JS installs"),
    ("replaced", "We use PostgreSQL 15 for orders", "We use PostgreSQL 16 for orders"),
    ("replaced", "Always run lint before commit", "Never run lint before commit"),
    ("condition", "Personal projects use pnpm", "Work projects use npm"),
    ("related", "The billing cron runs at 2am", "Invoices are generated nightly by a cron job"),
    ("unrelated", "The deploy script lives in ops/deploy.sh", "Run lint before every commit"),
    ("unrelated", "Lunch is at noon on Fridays", "The release train leaves on Thursdays"),
]


def thresholds() -> list[str]:
    """Markdown rows: each labelled pair's cosine per embedder, with the policy threshold."""
    from memdir.errors import ConfigError
    from memdir.policy import Policy
    from memdir.providers.embeddings import get_embedder

    sims = Policy().duplicates.similarity
    columns: list[tuple[str, float, list[float]]] = []
    for name in ("hashing", "use", "e5"):
        try:
            embedder = get_embedder(name)
        except ConfigError:
            continue
        cosines = []
        for _, a, b in PAIRS:
            v = embedder.encode([a, b])
            cosines.append(float(v[0] @ v[1]))
        columns.append((name, sims.for_model(embedder.model_id), cosines))
    head = "| pair | kind | " + " | ".join(f"{n} (≥ {t:g})" for n, t, _ in columns) + " |"
    rows = [head, "| --- | --- |" + " --- |" * len(columns)]
    for i, (kind, a, b) in enumerate(PAIRS):
        cells = [f"**{c[i]:.2f}**" if c[i] >= t else f"{c[i]:.2f}" for _, t, c in columns]
        rows.append(f"| {a} / {b} | {kind} | " + " | ".join(cells) + " |")
    return rows


def _sizes(m: Any) -> dict[str, int]:
    store = m.store("project")
    index = store.dirs.derived / "index.sqlite"
    return {
        "memories": len(store.memory_names()),
        "archived": len(store.archived().memory_names()),
        "memory_md_chars": len(store.dirs.index_file.read_text(encoding="utf-8")),
        "index_bytes": sum(p.stat().st_size for p in index.parent.glob("index.sqlite*")),
    }


def run(count: int, embedder: str) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="memdir-bench-sleep-"))
    os.environ["MEMDIR_HOME"] = str(tmp / "home")
    os.environ["MEMDIR_EMBEDDER"] = embedder
    project = tmp / "project"
    (project / ".git").mkdir(parents=True)
    from memdir import Memory

    m = Memory(project=project, llm=False)
    m.init()
    items, planted = history(count)
    t0 = time.perf_counter()
    m.remember_many(items)
    timings = {"write": time.perf_counter() - t0}
    t0 = time.perf_counter()
    m.reindex(scope="project")
    timings["embed"] = time.perf_counter() - t0
    before = _sizes(m)
    t0 = time.perf_counter()
    dry = m.sleep(dry_run=True, now=NOW, scope="project")
    timings["plan"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    report = m.sleep(now=NOW, scope="project")
    timings["apply"] = time.perf_counter() - t0
    m.reindex(scope="project")  # the index as recall would next see it
    after = _sizes(m)
    assert report.run is not None and report.plan is not None and dry.plan is not None
    t0 = time.perf_counter()
    undone = m.undo_run(report.run)
    timings["undo"] = time.perf_counter() - t0
    return {
        "count": count,
        "embedder": m.embedder.model_id,
        "planted": planted,
        "steps": report.plan.counts(),
        "changes": len(report.changes),
        "undone": len(undone),
        "timings": timings,
        "before": before,
        "after": after,
    }


def report(result: dict[str, Any], argv: list[str], table: list[str]) -> str:
    t, b, a = result["timings"], result["before"], result["after"]
    steps = ", ".join(f"{n} {k}" for k, n in sorted(result["steps"].items()))
    found = result["steps"]
    exact = (
        found.get("merge") == result["planted"]["duplicate"]
        and found.get("supersede") == result["planted"]["replaced"]
        and found.get("tentative") == result["planted"]["unclear"]
    )
    planted = ", ".join(f"{n} {k}" for k, n in result["planted"].items())
    lines = [
        "# Sleep at scale (issue 5)",
        "",
        *provenance(argv),
        "",
        f"{result['count']:,} project memories, embedder `{result['embedder']}`; planted pairs: "
        f"{planted}.",
        "",
        "| what | time |",
        "| --- | --- |",
        f"| write the memories (`remember_many`, one batch) | {t['write']:.1f} s |",
        f"| embed them (`reindex`) | {t['embed']:.1f} s |",
        f"| **plan** (`sleep --dry-run`: snapshot, pairs, rules) | **{t['plan']:.2f} s** |",
        f"| **plan + apply** (`sleep`, {result['changes']:,} changes) | **{t['apply']:.1f} s** |",
        f"| undo the run ({result['undone']:,} changes) | {t['undo']:.1f} s |",
        "",
        f"Plan: {steps}. Merges, supersedes and tentatives equal the planted pairs: "
        f"**{'yes' if exact else 'NO'}** (invented words: nothing else is similar).",
        "",
        "| | before | after |",
        "| --- | --- | --- |",
        f"| memories | {b['memories']:,} | {a['memories']:,} |",
        f"| archived | {b['archived']:,} | {a['archived']:,} |",
        f"| MEMORY.md characters | {b['memory_md_chars']:,} | {a['memory_md_chars']:,} |",
        f"| index.sqlite bytes | {b['index_bytes']:,} | {a['index_bytes']:,} |",
        "",
        "MEMORY.md is regenerated from the memories left; the archived ones leave it. The index "
        "file grows: FTS5 records each deletion as a new entry until it merges its segments, and "
        "SQLite keeps freed pages for reuse (no VACUUM runs).",
        "",
    ]
    if table:
        lines += [
            "## Similarity thresholds per embedder",
            "",
            "Cosine of labelled pairs; **bold** is at or above the policy's default threshold "
            "for that embedder (`duplicates.similarity`), i.e. compared by sleep. Lexical "
            "`hashing` vectors cannot see a paraphrase with other words or another language; "
            "e5 puts everything above 0.84, so its threshold sits high.",
            "",
            *table,
            "",
        ]
    return "\n".join(lines)


PAIR_SETS = (
    "dev",
    "heldout",
    "heldout2",
    "dev3",
    "heldout3",
    "dev4",
    "heldout4",
    "heldout5",
    "dev6",
    "heldout6",
    "heldout7",
    "heldout8",
)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--embedder", default="hashing")
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--skip-thresholds", action="store_true", help="no threshold table")
    parser.add_argument(
        "--pairs",
        choices=PAIR_SETS,
        help="score the labelled pairs",
    )
    parser.add_argument(
        "--no-misses",
        action="store_true",
        help="--pairs: the tables only, not which items failed (a held-out score, so that "
        "nobody tunes the rules to its items)",
    )
    parser.add_argument("--llm", action="store_true", help="--pairs: the configured LLM judges")
    parser.add_argument(
        "--store", action="store_true", help="a realistic store: sleep, first-message recall cost"
    )
    args = parser.parse_args(argv[1:])
    if args.store:
        from sleep_store import run_store, store_report

        text = store_report(run_store(args.embedder), provenance(argv))
        print(text)
        if not args.no_write:  # a section appended to sleep.md, not a new report
            with RESULTS.open("a", encoding="utf-8") as handle:
                handle.write("\n" + text)
        return 0
    if args.pairs:
        from sleep_pairs import pairs_report, run_pairs

        result = run_pairs(args.pairs, args.embedder, args.llm)
        if args.no_misses:
            result = {**result, "misses": None}
        text = pairs_report(result, provenance(argv))
        print(text)
        if not args.no_write:
            out = RESULTS.with_name(f"sleep_pairs_{args.pairs}{'_llm' if args.llm else ''}.md")
            out.write_text(text, encoding="utf-8")
        return 0
    table = [] if args.skip_thresholds else thresholds()
    result = run(args.count, args.embedder)
    text = report(result, argv, table)
    print(text)
    if not args.no_write:
        RESULTS.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
