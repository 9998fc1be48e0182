"""LoCoMo retrieval benchmark: memdir's hybrid recall next to BM25-only and vector-only.

Protocol (fixed before any result was seen; the method was then developed on the dev split):

* Data: ``locomo10.json`` read from ``../shared/data/locomo/`` or ``--data`` — never copied
  into the repository (CC BY-NC 4.0, evaluation only).
* Every dialog turn is stored through the public API (``Memory.remember_many``) as one memory:
  ``"<speaker>: <text>"``, ``created`` = the session's date and time (turn *k* of a session
  *k* seconds after its start, so the store knows the order the turns were said in, as a
  live transcript would), ``session`` = ``session_<n>``, one store (home + project) per
  conversation. Stores are kept under ``bench/.cache/locomo`` so that
  a re-run re-embeds nothing (the index caches vectors by text hash and embedder).
* Questions of categories 1–4 whose evidence parses (``D<s>:<t>`` ids present in the
  conversation): 1,536. Each is recalled once per method with ``track=False``.
* Metrics at turn level: recall@5, recall@10 (share of evidence turns in the top k), NDCG@10
  (binary relevance). At session level, sessions are ranked by their best turn and scored the
  same way. Conversations 0–4 are the *dev* split used while developing; 5–9 are *held out*.
* Methods share one index and one query embedding: ``memdir`` (the default formula),
  ``bm25`` (the keyword signal alone: no vector, entity, time, session terms or priors) and
  ``vector`` (the vector signal alone).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from memdir import Memory
from memdir.guard.intent import KINDS
from memdir.providers.embeddings import DelegatingEmbedder, Embedder, Kind, Vectors, get_embedder
from memdir.recall import Recaller, Weights

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "locomo" / "locomo10.json"
CACHE = ROOT / "bench" / ".cache" / "locomo"
DEPTH = 50  # turns ranked per question (sessions are ranked from these)
_EVIDENCE = re.compile(r"D(\d+):(\d+)")


class QueryCache(DelegatingEmbedder):
    """Wraps an embedder so the three methods share one query embedding per question."""

    def __init__(self, inner: Embedder) -> None:
        super().__init__(inner)
        self._queries: dict[str, Vectors] = {}

    def encode(self, texts: Sequence[str], kind: Kind = "passage") -> Vectors:
        if kind != "query" or len(texts) != 1:
            return self.inner.encode(texts, kind)
        if texts[0] not in self._queries:
            self._queries[texts[0]] = self.inner.encode(texts, kind)
        return self._queries[texts[0]]


@dataclass
class Question:
    conv: int
    text: str
    category: int
    turns: set[str]  # memory names
    sessions: set[str]


def session_date(text: str, turn: int = 0) -> str:
    """``1:56 pm on 8 May, 2023`` → ``2023-05-08T13:56:00Z``; turn ``k`` of the session ``k``
    seconds later."""
    stamp = datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y") + timedelta(seconds=turn)
    return stamp.replace(tzinfo=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def turn_name(dia_id: str) -> str:
    s, t = _EVIDENCE.fullmatch(dia_id).groups()  # type: ignore[union-attr]
    return f"d{int(s)}-{int(t)}"


def load(path: Path) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return data


def turns_of(conv: dict[str, Any]) -> list[dict[str, Any]]:
    c = conv["conversation"]
    items = []
    for key in sorted(
        (k for k in c if re.fullmatch(r"session_\d+", k)), key=lambda k: int(k.split("_")[1])
    ):
        for k, turn in enumerate(c[key]):
            items.append(
                {
                    "text": f"{turn['speaker']}: {turn['text']}",
                    "type": "project",
                    "name": turn_name(turn["dia_id"]),
                    "created": session_date(c[f"{key}_date_time"], k),
                    "session": key,
                }
            )
    return items


def questions_of(index: int, conv: dict[str, Any], names: set[str]) -> list[Question]:
    out = []
    for qa in conv["qa"]:
        if qa["category"] not in (1, 2, 3, 4):
            continue
        turns = {
            f"d{int(s)}-{int(t)}"
            for ev in qa.get("evidence", [])
            for s, t in _EVIDENCE.findall(str(ev))
        }
        turns &= names
        if turns:
            sessions = {f"session_{t[1:].split('-')[0]}" for t in turns}
            out.append(Question(index, qa["question"], qa["category"], turns, sessions))
    return out


def store_for(index: int, conv: dict[str, Any], embedder: Embedder) -> Memory:
    """The memdir store of one conversation, built once and reused across runs."""
    root = CACHE / f"conv-{index}"
    project = root / "project"
    (project / ".agent").mkdir(parents=True, exist_ok=True)
    m = Memory(home=root / "home", project=project, embedder=embedder)
    items = turns_of(conv)
    stamp = root / "items.sha256"  # the store is rewritten when what is stored changes
    digest = hashlib.sha256(json.dumps(items, sort_keys=True).encode("utf-8")).hexdigest()
    current = stamp.read_text(encoding="utf-8") if stamp.exists() else ""
    if current != digest or len(m.store("project").memory_names()) != len(items):
        for path in m.store("project").memory_files():
            path.unlink()
        # every turn is stored whatever the guard reads in it: this measures recall, and a
        # refused turn would end the run (the guard's false refusals on these turns are
        # counted by `bench/guard.py --locomo`)
        m.remember_many([{**item, "allow": KINDS} for item in items])
        stamp.write_text(digest, encoding="utf-8")
    t = time.perf_counter()
    report = m.reindex(scope="project")["project"]
    if report.embedded:
        print(
            f"  conv {index}: embedded {report.embedded} texts in {time.perf_counter() - t:.0f}s",
            file=sys.stderr,
        )
    return m


def ranked(recaller: Recaller, query: str) -> list[str]:
    # recall@k measures the ranking, so no floor: the default min_score is fitted for the
    # default embedder's calibrated score, and would empty the BM25-only and vector-only rows
    # (whose weights the calibration knows nothing of); what the floor cuts is bench/everyday's
    hits = recaller.recall(query, top_k=DEPTH, track=False, min_score=0.0)
    return [h.record.name for h in hits]


def _recall_at(ranking: Sequence[str], gold: set[str], k: int) -> float:
    return len(set(ranking[:k]) & gold) / len(gold)


def _ndcg(ranking: Sequence[str], gold: set[str], k: int = 10) -> float:
    dcg = sum(1 / math.log2(i + 2) for i, n in enumerate(ranking[:k]) if n in gold)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(gold), k)))
    return dcg / ideal


def _sessions(ranking: Sequence[str], session_of: dict[str, str]) -> list[str]:
    return list(dict.fromkeys(session_of[n] for n in ranking))


def score(ranking: list[str], q: Question, session_of: dict[str, str]) -> dict[str, float]:
    sess = _sessions(ranking, session_of)
    return {
        "turn_r5": _recall_at(ranking, q.turns, 5),
        "turn_r10": _recall_at(ranking, q.turns, 10),
        "turn_ndcg10": _ndcg(ranking, q.turns),
        "sess_r5": _recall_at(sess, q.sessions, 5),
        "sess_r10": _recall_at(sess, q.sessions, 10),
        "sess_ndcg10": _ndcg(sess, q.sessions),
    }


def methods(base: Weights) -> dict[str, Weights]:
    no_priors = {
        "recency": 0.0,
        "importance": 0.0,
        "strength": 0.0,
        "source": 0.0,
        "confidence": 0.0,
        "session": 0.0,
        "session_text": 0.0,
    }
    return {
        "memdir": base,
        "bm25": replace(base, vector=0.0, entity=0.0, time=0.0, **no_priors),
        "vector": replace(base, keyword=0.0, entity=0.0, time=0.0, **no_priors),
    }


def run(
    data: Path, embedder_name: str | None = None, convs: Sequence[int] | None = None
) -> dict[str, Any]:
    """Evaluate every method; returns per-method, per-split mean metrics and timings."""
    embedder = QueryCache(get_embedder(embedder_name))
    dataset = load(data)
    per: dict[str, dict[str, list[dict[str, float]]]] = {}
    started = time.perf_counter()
    recall_seconds = 0.0
    n_questions = 0
    for i, conv in enumerate(dataset):
        if convs is not None and i not in convs:
            continue
        m = store_for(i, conv, embedder)
        session_of = {it["name"]: it["session"] for it in turns_of(conv)}
        questions = questions_of(i, conv, set(session_of))
        n_questions += len(questions)
        split = "dev" if i < 5 else "heldout"
        for name, weights in methods(Weights()).items():
            recaller = Recaller({"project": m.index("project")}, embedder, weights)
            t = time.perf_counter()
            for q in questions:
                result = score(ranked(recaller, q.text), q, session_of)
                per.setdefault(name, {}).setdefault(split, []).append(result)
            recall_seconds += time.perf_counter() - t
    summary: dict[str, Any] = {
        "methods": {},
        "questions": n_questions,
        "embedder": embedder.model_id,
        "seconds": round(time.perf_counter() - started, 1),
    }
    for name, splits in per.items():
        rows = {split: _mean(results) for split, results in splits.items()}
        rows["all"] = _mean([r for results in splits.values() for r in results])
        summary["methods"][name] = rows
    summary["recall_ms_per_query"] = round(1000 * recall_seconds / max(n_questions * 3, 1), 2)
    return summary


def _mean(results: list[dict[str, float]]) -> dict[str, float]:
    keys = results[0].keys() if results else []
    return {k: round(sum(r[k] for r in results) / len(results), 4) for k in keys} | {
        "n": len(results)
    }


def table(summary: dict[str, Any], split: str = "all") -> str:
    cols = ["turn_r5", "turn_r10", "turn_ndcg10", "sess_r5", "sess_r10", "sess_ndcg10"]
    lines = [f"| method ({split}) | " + " | ".join(cols) + " | n |", "|---" * (len(cols) + 2) + "|"]
    for name, rows in summary["methods"].items():
        row = rows.get(split)
        if row:
            lines.append(
                f"| {name} | " + " | ".join(f"{row[c]:.3f}" for c in cols) + f" | {row['n']} |"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--embedder", default=None)
    parser.add_argument("--convs", default=None, help="comma-separated conversation indexes")
    args = parser.parse_args()
    chosen = [int(x) for x in args.convs.split(",")] if args.convs else None
    result = run(args.data, args.embedder, chosen)
    for split in ("dev", "heldout", "all"):
        print(table(result, split))
        print()
    print(json.dumps({k: v for k, v in result.items() if k != "methods"}))
