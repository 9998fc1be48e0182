"""The sleep review: what an offline sleep would do now, step by step with each memory's text
before and the fields after, and the apply that follows a review.

**What was reviewed is what is applied.** The review carries a digest of the plan's steps; the
apply plans again on the same worker (no other request of this viewer can come in between)
and refuses with 409 if the plan is no longer the one reviewed — the memories changed in the
meantime — instead of applying something nobody saw. Every op also carries the content hash
it was planned on, so a file changed outside memdir is refused by the store as well.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..errors import ConflictError, ValidationError
from ..history import Change
from ..lifecycle import Plan
from ..memory import Memory

__all__ = ["apply_reviewed", "plan_view"]


def _digest(plan: Plan | None) -> str:
    """What identifies a plan across the review and the apply: each step's decision and, for
    each op, the file it touches and that file's content hash when planned — not the
    timestamps and strengths that the planning clock moves from one second to the next."""
    steps = [
        [s.action, s.scope, list(s.names), [[o.kind, o.scope, o.name, o.expect] for o in s.ops]]
        for s in (plan.steps if plan else ())
    ]
    return hashlib.sha256(json.dumps(steps).encode()).hexdigest()


def plan_view(m: Memory) -> dict[str, Any]:
    report = m.sleep(dry_run=True, offline=True, sessions=False)
    steps = [s.to_dict() for s in report.plan.steps] if report.plan else []
    texts = {(r.scope, r.name): r.statement for r in m.list() + m.archived()}
    for step in steps:
        step["before"] = [(n, texts.get((step["scope"], n))) for n in step["names"]]
    counts = report.plan.counts() if report.plan else {}
    return {"steps": steps, "digest": _digest(report.plan), "counts": counts}


def apply_reviewed(m: Memory, digest: str, chosen: list[int] | None) -> tuple[str | None, int]:
    """Apply the reviewed plan (``chosen``: only those steps, by position); the run id (which
    undoes all of it) and how many changes it made."""
    view = plan_view(m)
    if view["digest"] != digest:
        raise ConflictError(
            "the memories changed since you reviewed this plan, so it is no longer the plan "
            "sleep would apply: review it again"
        )
    steps = range(len(view["steps"])) if chosen is None else chosen
    if not list(steps):
        raise ValidationError("no step chosen: tick the steps to apply, or apply all")
    report = m.apply_sleep_steps(steps)
    changes: list[Change] = report.changes
    return report.run, len(changes)
