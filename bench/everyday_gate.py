"""Answerability gates measured on the everyday batches: would a query-level gate beat the floor?

    .venv/bin/python bench/everyday_gate.py [--batches dev,dev4,...]

The floor (``recall.MIN_SCORE``) empties a question whose best calibrated score is under it.
This script asks whether features the calibrated score does not hold would tell an
unanswerable question from an answerable one better, each candidate gate a logistic fitted
*leave one batch out* (fit on every batch but one, threshold at 95 % kept on those, read the
one left out), beside the score alone under the same protocol:

* ``logit`` — the first hit's calibrated logit (what the floor reads);
* ``tz1`` — the first hit's cosine in standard deviations above *the memory's own* cosines to
  the background statements (``relevance.BACKGROUND``): a memory near everything (a hub)
  stands less out (t-norm; ``vector_z`` is the query's side, z-norm);
* ``snmax`` — the best ``(z-norm + t-norm) / 2`` over the store (s-norm);
* ``refz`` — the query's best cosine in the store against how the store answers unrelated
  statements (its best cosine to each background statement): a per-store reference;
* ``cmin`` / ``cmean`` — soft word coverage, ColBERT-like MaxSim on single words: each content
  word of the question (English words less stop words; Chinese words by the dictionary's
  segmentation) to its nearest word of the first hit, USE vectors; the worst and the mean.

Reads only the dev and spent batches (``DEV_BATCHES`` and held-out 7), never a fresh held-out
batch. Results are in ``docs/recall.md`` ("Answerability: gates measured and dropped").
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import everyday as ev  # noqa: E402

from memdir.index.relevance import background  # noqa: E402
from memdir.index.text import STOP_WORDS, ZH_STOP_WORDS, cjk_runs, segment  # noqa: E402
from memdir.index.translate import LONGEST, _dictionary  # noqa: E402
from memdir.providers.embeddings import Embedder, get_embedder  # noqa: E402
from memdir.recall import MIN_SCORE  # noqa: E402

SPENT = (*ev.DEV_BATCHES, "heldout7")
GATES = (
    ("logit",),
    ("logit", "tz1"),
    ("logit", "refz"),
    ("logit", "tz1", "refz"),
    ("logit", "tz1", "snmax", "refz"),
    ("logit", "cmin", "cmean"),
    ("logit", "tz1", "snmax", "refz", "cmin", "cmean"),
)
_FILLER = set(
    "use used using uses get got go goes need needs make makes much many long often way thing "
    "things ok okay still allowed allow can should must may might one someone somebody "
    "anything something every also like want wants let know tell say does did do done happen "
    "happens happened kind sort".split()
)
_LATIN = re.compile(r"[^\W\d_][\w'+.-]*|\d+[\w.]*")


def content_words(text: str) -> list[str]:
    known = _dictionary()
    out = [
        w
        for run in cjk_runs(text)
        for w in segment(run, lambda p: p in known or p in ZH_STOP_WORDS, LONGEST)
        if w not in ZH_STOP_WORDS and len(w) > 1
    ]
    latin = re.sub(r"[\u3400-\u9fff]+", " ", text.lower())
    out += [
        w for w in (t.strip(".'") for t in _LATIN.findall(latin))
        if w and w not in STOP_WORDS and w not in _FILLER
    ]  # fmt: skip
    return list(dict.fromkeys(out))


class Words:
    """Single-word vectors, each embedded once."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder, self.cache = embedder, dict[str, Any]()

    def __call__(self, words: list[str]) -> Any:
        new = [w for w in words if w not in self.cache]
        if new:
            self.cache.update(zip(new, np.asarray(self.embedder.encode(new, "query")), strict=True))
        return np.stack([self.cache[w] for w in words])


def rows_of(batch: str, embedder: Embedder, words: Words) -> list[dict[str, Any]]:
    """Per question of ``batch``: its label and the gate features of its first hit."""
    bg = background(embedder).matrix
    out = []
    for memories, questions in ev.load(ev.DATA / f"{batch}.yaml").values():
        ids = list(memories)
        mat = np.asarray(embedder.encode([memories[i][1] for i in ids], "passage"))
        to_bg = bg @ mat.T  # background statement × memory
        mem_mu, mem_sd = to_bg.mean(0), np.maximum(to_bg.std(0), 0.03)
        best_bg = to_bg.max(1)
        ref_mu, ref_sd = best_bg.mean(), max(float(best_bg.std()), 0.03)
        with tempfile.TemporaryDirectory(prefix="memdir-gate-") as tmp:
            m = ev._store(Path(tmp), embedder, memories)
            names = m._everyday_ids  # type: ignore[attr-defined]
            for q in questions:
                hits = m.recall(q["q"], top_k=10, track=False, min_score=0.0, explain=True)
                if not hits:
                    continue
                got = [(names[h.record.name], h.explain["logit"]) for h in hits]
                qvec = np.asarray(embedder.encode([q["q"]], "query"))[0]
                sims, qb = mat @ qvec, bg @ qvec
                zq = (sims - qb.mean()) / max(float(qb.std()), 0.03)
                tz = (sims - mem_mu) / mem_sd
                top = ids.index(got[0][0])
                qw, mw = content_words(q["q"]), content_words(memories[got[0][0]][1])
                cover = (words(qw) @ words(mw).T).max(1) if qw and mw else np.zeros(1)
                answer = [s for n, s in got[:3] if n in q["answers"]]
                out.append({
                    "batch": batch,
                    "label": 0 if not q["answers"] else 1 if answer else -1,
                    "answer_logit": max(answer, default=-99.0),
                    "logit": got[0][1], "tz1": float(tz[top]),
                    "snmax": float(((zq + tz) / 2).max()),
                    "refz": float((sims.max() - ref_mu) / ref_sd),
                    "cmin": float(cover.min()), "cmean": float(cover.mean()),
                })  # fmt: skip
    return out


def _fit(x: Any, y: Any, l2: float = 1.0) -> tuple[Any, Any, Any]:
    """A class-balanced, L2-regularised logistic by Newton's method (standardised inputs)."""
    mu, sd = x.mean(0), x.std(0) + 1e-9
    z = np.c_[np.ones(len(x)), (x - mu) / sd]
    sw = np.where(y == 1, len(y) / (2 * y.sum()), len(y) / (2 * (len(y) - y.sum())))
    w, ridge = np.zeros(z.shape[1]), l2 * np.diag(np.r_[0.0, np.ones(z.shape[1] - 1)])
    for _ in range(50):
        p = 1 / (1 + np.exp(-z @ w))
        grad = z.T @ (sw * (p - y)) + ridge @ w
        w -= np.linalg.solve((z * (sw * p * (1 - p))[:, None]).T @ z + ridge, grad)
    return w, mu, sd


def lobo(rows: list[dict[str, Any]], features: tuple[str, ...]) -> dict[str, tuple[float, float]]:
    """Per batch left out: (empty, kept) with the gate fitted on the others at 95 % kept."""
    floor = float(np.log(MIN_SCORE / (1 - MIN_SCORE)))
    x = np.array([[r[f] for f in features] for r in rows])
    y = np.array([r["label"] for r in rows])
    batch = np.array([r["batch"] for r in rows])
    keeps = np.array([r["answer_logit"] >= floor for r in rows])
    top = np.array([r["logit"] for r in rows])
    out = {}
    for held in sorted(set(batch)):
        fit = (batch != held) & (y >= 0)
        w, mu, sd = _fit(x[fit], y[fit])
        gate = np.c_[np.ones(len(x)), (x - mu) / sd] @ w
        train = (batch != held) & (y == 1)
        cut = -np.inf
        for c in np.sort(gate[train & keeps]):  # the highest cut that keeps 95 %
            if np.mean(keeps[train] & (gate[train] >= c)) < 0.95:
                break
            cut = c
        none, answerable = (batch == held) & (y == 0), (batch == held) & (y == 1)
        empty = np.mean((gate[none] < cut) | (top[none] < floor))
        out[held] = (float(empty), float(np.mean(keeps[answerable] & (gate[answerable] >= cut))))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--batches", default=",".join(SPENT))
    args = parser.parse_args()
    batches = args.batches.split(",")
    if set(batches) - set(SPENT):
        raise SystemExit(f"only the dev and spent batches may be read: {', '.join(SPENT)}")
    embedder = get_embedder(None)
    words = Words(embedder)
    rows = [r for b in batches for r in rows_of(b, embedder, words)]
    print(f"{sum(r['label'] == 1 for r in rows)} answerable (answer in the top 3), "
          f"{sum(r['label'] == 0 for r in rows)} unanswerable; leave one batch out:")  # fmt: skip
    for features in GATES:
        res = lobo(rows, features)
        empty, kept = np.mean([e for e, _ in res.values()]), np.mean([k for _, k in res.values()])
        cells = " ".join(f"{b}:{e:.2f}/{k:.2f}" for b, (e, k) in res.items())
        print(f"{'+'.join(features):32s} empty {empty:.3f} kept {kept:.3f}  {cells}")


if __name__ == "__main__":
    main()
