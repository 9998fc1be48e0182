"""Sleep on a realistic store, and what the first-message recall costs (issue 22 item 5).

Protocol (``python bench/sleep.py --store [--embedder use]``):

* One throwaway project store holding every memory of ``bench/everyday`` (dev, heldout and
  heldout3: 261 hand-written agent memories — preferences, corrections, project facts,
  references, about a third Chinese) plus both memories of every item of
  ``bench/sleep_pairs/dev.yaml`` and ``heldout.yaml`` (160 pairs written as people restate,
  change or nearly repeat a memory; ``heldout2.yaml`` is never read here). Each memory is
  created on a seeded-random day of the 120 before now (a pair's newer side 1–20 days after
  the older), so ageing has something to archive.
* Use: every everyday question is asked once through ``recall`` (tracked), so the memories
  that answer questions have uses, as in a store an agent reads.
* ``sleep --dry-run`` then ``sleep`` (offline rules); reported: memories, archived and
  MEMORY.md characters before and after, the plan's steps by action, and each merge,
  supersede and tentative with its statements.
* **First-message recall cost.** On the store sleep left, for 200 of the everyday questions
  (a seeded sample): a new
  session, the question as its first message, and the request built (``Memory.context``) with
  ``long_memory.recalled`` 0 and 5, alternated in one run (the machine is loaded: read the
  ratio); then the same with a ``package.json`` in the project (a stack switch: the recall is
  weighted by stack, ``lifecycle/stack.py``). Only a session's first request pays it: the block
  is recorded and later requests read the record.
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
SEED = 22
COST_SAMPLE = 200  # questions (seeded sample) whose first request is timed, each way


def _stamp(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _memories(rng: random.Random, now: datetime) -> tuple[list[dict[str, Any]], list[str]]:
    batch: list[dict[str, Any]] = []
    questions: list[str] = []
    for part in ("dev", "heldout", "heldout3"):
        data = yaml.safe_load((ROOT / "bench" / "everyday" / f"{part}.yaml").read_text("utf-8"))
        for group in data["groups"].values():
            for kind, text in group["memories"].values():
                when = now - timedelta(days=rng.uniform(0, 120))
                batch.append({"text": text, "type": kind, "created": _stamp(when)})
            questions += [q[0] for q in group.get("queries", [])]
    for part in ("dev", "heldout"):
        items = yaml.safe_load((ROOT / "bench" / "sleep_pairs" / f"{part}.yaml").read_text("utf-8"))
        for item in items:
            older = now - timedelta(days=rng.uniform(21, 120))
            newer = older + timedelta(days=rng.uniform(1, 20))
            batch.append({"text": item["a"], "type": item["type"], "created": _stamp(older)})
            batch.append({"text": item["b"], "type": item["type"], "created": _stamp(newer)})
    return batch, questions


def _count(m: Any) -> dict[str, int]:
    store = m.store("project")
    memory_md = store.dirs.memory / "MEMORY.md"
    return {
        "memories": len(m.list(scope="project")),
        "archived": len(store.archived().scan()[0]),
        "memory_md_chars": len(memory_md.read_text("utf-8")) if memory_md.exists() else 0,
    }


def run_store(embedder: str) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="memdir-bench-store-"))
    os.environ["MEMDIR_HOME"] = str(tmp / "home")
    os.environ["MEMDIR_EMBEDDER"] = embedder
    project = tmp / "project"
    (project / ".git").mkdir(parents=True)
    os.chdir(project)
    from memdir import Memory
    from memdir.lifecycle.similar import RELATION_RULES

    now = datetime.now(UTC)
    rng = random.Random(SEED)
    m = Memory(project=project, llm=False)
    m.init()
    batch, questions = _memories(rng, now)
    from memdir.errors import RefusedError

    refused = 0
    for item in batch:  # everything in the project store: one store
        try:
            m.remember(**item, scope="project")
        except RefusedError:
            refused += 1  # the guard's call (a grant of permission): not a memory here either
    for question in questions:
        m.recall(question, scopes=["project"])
    before = _count(m)
    plan = m.sleep(dry_run=True, offline=True, sessions=False).plan
    assert plan is not None
    by_name = {r.name: r.statement for r in m.list(scope="project")}
    steps = [
        (s.action, [by_name.get(n, n) for n in s.names], s.reason)
        for s in plan.steps
        if s.action in ("merge", "supersede", "tentative", "conditional")
    ]
    started = time.perf_counter()
    report = m.sleep(offline=True, sessions=False)
    took = time.perf_counter() - started
    after = _count(m)
    cost = _first_message_cost(m, project, rng.sample(questions, min(COST_SAMPLE, len(questions))))
    return {
        "embedder": m.embedder.model_id,
        "rules": RELATION_RULES,
        "loaded": len(batch) - refused,
        "refused": refused,
        "questions": len(questions),
        "before": before,
        "after": after,
        "actions": Counter(s.action for s in plan.steps),
        "steps": steps,
        "run": report.run,
        "apply_s": took,
        "cost": cost,
    }


def _first_message_cost(m: Any, project: Path, questions: list[str]) -> dict[str, Any]:
    policy = project / ".agent" / "memory-policy.yaml"
    out: dict[str, Any] = {}
    for label, manifest in (("no stack switch", None), ("stack switch (package.json)", True)):
        if manifest:
            (project / "package.json").write_text("{}\n", encoding="utf-8")
        times: dict[int, list[float]] = {0: [], 5: []}
        aside = 0
        for question in questions:
            for k in (0, 5):
                policy.write_text(f"long_memory:\n  recalled: {k}\n", encoding="utf-8")
                with m.session() as s:
                    s.append({"role": "user", "content": question})
                    started = time.perf_counter()
                    m.context(s)
                    times[k].append(time.perf_counter() - started)
                    if k:
                        aside += sum(
                            len(r.content.get("set_aside", [])) for r in s.meta("recalled")
                        )
        p50 = {k: statistics.median(v) * 1000 for k, v in times.items()}
        out[label] = {"p50_ms": p50, "ratio": p50[5] / p50[0], "set_aside": aside}
    return out


def store_report(result: dict[str, Any], header: list[str]) -> str:
    b, a = result["before"], result["after"]
    actions = ", ".join(f"{n} {k}" for k, n in sorted(result["actions"].items()))
    lines = [
        "## A realistic store (issue 22 item 5)",
        "",
        *header,
        "",
        f"{result['loaded']} memories in one project store — every `bench/everyday` memory and "
        "both sides of every `bench/sleep_pairs` dev and (spent) heldout item "
        f"({result['refused']} refused by the guard), created over the "
        f"120 days before now; {result['questions']} everyday questions asked once through recall "
        f"(uses). Embedder `{result['embedder']}`, offline rules ({result['rules']}). "
        f"Plan: {actions}; applied as run `{result['run']}` in {result['apply_s']:.1f} s.",
        "",
        "| | before | after |",
        "| --- | --- | --- |",
        f"| memories | {b['memories']} | {a['memories']} |",
        f"| archived | {b['archived']} | {a['archived']} |",
        f"| MEMORY.md characters | {b['memory_md_chars']:,} | {a['memory_md_chars']:,} |",
        "",
        "What the plan merged, superseded and marked tentative (statements, oldest first where "
        "the plan orders them):",
        "",
    ]
    for action, statements, _why in result["steps"]:
        lines.append(f"- **{action}**: " + " ⟷ ".join(f"“{s}”" for s in statements))
    lines += [
        "",
        "First-message recall (`long_memory.recalled: 5`) — what building the first request "
        f"costs, per session, over {COST_SAMPLE} sampled questions, both settings alternated in "
        "one run (later requests of a session read the recorded block; the cost is the query's "
        "embedding and the hybrid recall over the store):",
        "",
        "| project | p50 recalled 0 | p50 recalled 5 | ratio | memories set aside |",
        "| --- | --- | --- | --- | --- |",
    ]
    for label, row in result["cost"].items():
        p50 = row["p50_ms"]
        lines.append(
            f"| {label} | {p50[0]:.1f} ms | {p50[5]:.1f} ms | {row['ratio']:.2f}× | "
            f"{row['set_aside']} |"
        )
    lines.append("")
    return "\n".join(lines)
