"""Sleep on hand-written pairs (issue 22 §2): paraphrases merged, conflicts never merged.

Protocol (``python bench/sleep.py --pairs dev|heldout [--embedder use|hashing|e5] [--llm]``):

* Every memory of one language of one file of ``bench/sleep_pairs/`` goes into **one**
  throwaway store (project and user scope, each pair's type): ``a`` written 10 days before
  "now", ``b`` 2 days before, so each pair competes with every other memory of the store for its
  neighbours, as in a real store. One store per language because many Chinese items say what an
  English item of the same file says (a merge across them would be right, but unlabelled).
* ``sleep --dry-run`` plans over the whole store, offline unless ``--llm`` (then the configured
  endpoint judges every candidate pair: the LLM path on the same set).
* Scored per labelled pair: ``same`` merged into one memory is a hit; a merge that joins two
  memories not labelled ``same`` (a conflict, a look-alike, or two memories of different items)
  is a false merge. **Merge precision** = true merged pairs / all merged pairs; **merge
  recall** = ``same`` pairs merged / ``same`` pairs. Conflicts: merged (must be 0), superseded or
  tentative (caught), untouched. Look-alikes: merged, tentative or superseded (flagged), untouched.

``dev.yaml`` is what relate-v3 was developed on; ``heldout.yaml`` was committed before any
tuning (commit 7905ef1) and scored once with relate-v3; relate-v4 was developed on both.
``heldout2.yaml`` was committed before relate-v4 (commit 9e77d77) and scored once with it
(951f97f); relate-v5 was then written against what it got wrong. ``heldout3.yaml`` was scored
with ``--no-misses`` before and after relate-v6, which was developed on ``dev3.yaml`` and the rest.
``heldout4.yaml`` was committed alone (d5224b4) and scored with ``--no-misses`` before and after
relate-v7, which was developed on ``dev4.yaml`` (written after heldout4's first score) and the rest.
``heldout5.yaml`` was committed alone (f99feb6) and scored with ``--no-misses`` before and after
relate-v8, which was developed on the dev sets and the spent held-out sets (heldout4 among them).
``heldout6.yaml`` was committed alone (1efe341) and scored with ``--no-misses`` before (relate-v8)
and after relate-v9, which was developed on ``dev6.yaml`` (written after heldout6's first score)
and the rest; relate-v10 came after that score, so its heldout6 numbers are development numbers.
``heldout7.yaml`` was committed alone (20d389b) and scored with ``--no-misses`` before (relate-v10)
and after relate-v11 (e5's second opinion, fitted on the dev and spent sets).
"""

from __future__ import annotations

import itertools
import os
import tempfile
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
PAIRS = ROOT / "bench" / "sleep_pairs"
NOW = datetime(2026, 9, 1, 3, 0, tzinfo=UTC)


def _stamp(days_ago: float) -> str:
    return (NOW - timedelta(days=days_ago)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _lang(text: str) -> str:
    return "zh" if any("\u4e00" <= c <= "\u9fff" for c in text) else "en"


def run_pairs(which: str, embedder: str, llm: bool) -> dict[str, Any]:
    items = yaml.safe_load((PAIRS / f"{which}.yaml").read_text(encoding="utf-8"))
    os.environ["MEMDIR_EMBEDDER"] = embedder
    model, names, steps = "", [], []
    ordered = []
    for lang in ("en", "zh"):
        part = [item for item in items if _lang(item["a"]) == lang]
        model, part_names, part_steps = _plan(part, llm)
        ordered += part
        names += part_names
        steps += part_steps
    return {"which": which, "embedder": model, "llm": llm, **score(ordered, names, steps)}


def _plan(items: list[dict[str, Any]], llm: bool) -> tuple[str, list[tuple[str, str]], list[Any]]:
    tmp = Path(tempfile.mkdtemp(prefix="memdir-bench-pairs-"))
    os.environ["MEMDIR_HOME"] = str(tmp / "home")
    project = tmp / "project"
    (project / ".git").mkdir(parents=True)
    from memdir import Memory

    m = Memory(project=project, llm=None if llm else False)
    m.init()
    batch = []
    # hand-written facts, not what the guard is measured on: guard-v8's learned reading refuses
    # "Production database backups run nightly" (heldout4) as destructive, as a person may
    # store it anyway from a terminal (``--allow destructive``); guard-model-v2 also refuses
    # "skip the preamble …" (dev3) and a permission-like fact (heldout3), so every kind a
    # person may allow is allowed here
    allow = {
        "allow": ["permission", "disables-safety", "remote-code", "exfiltration", "destructive"]
    }
    for item in items:
        batch.append({"text": item["a"], "type": item["type"], "created": _stamp(10), **allow})
        batch.append({"text": item["b"], "type": item["type"], "created": _stamp(2), **allow})
    records = m.remember_many(batch)
    names = [(records[2 * i].name, records[2 * i + 1].name) for i in range(len(items))]
    report = m.sleep(dry_run=True, now=NOW, offline=not llm, sessions=False)
    assert report.plan is not None
    return m.embedder.model_id, names, list(report.plan.steps)


def score(items: list[dict[str, Any]], names: list[tuple[str, str]], steps: Any) -> dict[str, Any]:
    merged: set[frozenset[str]] = set()
    flagged: set[frozenset[str]] = set()
    superseded: set[frozenset[str]] = set()
    for step in steps:
        if step.action in ("merge", "conditional"):
            merged |= {frozenset(p) for p in itertools.combinations(step.names, 2)}
        elif step.action in ("supersede", "tentative"):
            flagged.add(frozenset(step.names))
            if step.action == "supersede":
                superseded.add(frozenset(step.names))
    same = {frozenset(n) for n, item in zip(names, items, strict=True) if item["label"] == "same"}
    outcome: Counter[tuple[str, str, str]] = Counter()
    misses = []
    for pair, item in zip(names, items, strict=True):
        key = frozenset(pair)
        got = "merged" if key in merged else "flagged" if key in flagged else "untouched"
        outcome[(item["label"], _lang(item["a"]), got)] += 1
        bad = (item["label"] == "same") != (got == "merged") or (
            item["label"] == "unrelated" and got == "flagged"
        )
        if bad:
            misses.append(f"{item['label']} → {got}: {item['a']} / {item['b']}")
    # a look-alike superseded is a true fact archived: not a merge, but a loss all the same
    lookalikes = {
        frozenset(n) for n, it in zip(names, items, strict=True) if it["label"] == "unrelated"
    }
    true_merged = len(merged & same)
    false_merged = sorted(" + ".join(sorted(p)) for p in merged - same)
    return {
        "outcome": outcome,
        "same": len(same),
        "true_merged": true_merged,
        "false_merged": false_merged,
        "lookalikes_superseded": len(superseded & lookalikes),
        "precision": true_merged / len(merged) if merged else 1.0,
        "recall": true_merged / len(same) if same else 1.0,
        "misses": misses,
    }


def _misses(result: dict[str, Any]) -> list[str]:
    if result["misses"] is None:  # --no-misses: a held-out score, its items not shown
        return ["Which items failed is not shown: this set is held out (`--no-misses`)."]
    return [
        "## What went wrong",
        "",
        *[f"- {m}" for m in result["misses"]],
        *[f"- false merge: {m}" for m in result["false_merged"]],
    ]


def pairs_report(result: dict[str, Any], header: list[str]) -> str:
    o = result["outcome"]
    rows = [
        "| label | lang | pairs | merged | superseded or tentative | untouched |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for label in ("same", "conflict", "unrelated"):
        for lang in ("en", "zh"):
            cells = [o[(label, lang, g)] for g in ("merged", "flagged", "untouched")]
            counts = " | ".join(map(str, cells))
            rows.append(f"| {label} | {lang} | {sum(cells)} | {counts} |")
    conflicts_merged = o[("conflict", "en", "merged")] + o[("conflict", "zh", "merged")]
    mode = "the configured LLM judges every pair" if result["llm"] else "offline rules"
    lines = [
        f"# Sleep on hand-written pairs: `{result['which']}` (issue 22)",
        "",
        *header,
        "",
        f"Embedder `{result['embedder']}`, {mode}; every memory of the file in one store.",
        "",
        "| metric | value | target |",
        "| --- | --- | --- |",
        f"| merge precision | **{result['precision']:.3f}** | ≥ 0.95 |",
        f"| merge recall | **{result['recall']:.3f}** ({result['true_merged']}/{result['same']}) "
        "| ≥ 0.8 |",
        f"| conflicts merged | **{conflicts_merged}** | 0 |",
        f"| false merges (pairs of memories) | {len(result['false_merged'])} | |",
        f"| look-alikes superseded (a true fact archived) | "
        f"{result.get('lookalikes_superseded', '-')} | |",
        "",
        *rows,
        "",
        *_misses(result),
        "",
    ]
    return "\n".join(lines)
