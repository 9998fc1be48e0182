"""Sleep: the lifecycle pass that keeps a memory store small, current and consistent (SPEC H).

It is built as *plan, then apply* (STYLE habit 4):

* ``plan.py`` — ``take_snapshot`` reads a scope (files, archive, use counts, vectors) and
  ``plan_sleep`` turns snapshots, the policy and an explicit clock into a ``Plan`` of steps:
  merge duplicates, supersede or mark tentative conflicting statements, archive what decayed,
  delete what outlived the archive TTL, and name what to distill. Pure: no writes, no clock.
* ``similar.py`` — candidate pairs from embeddings (per-model threshold) and normalised text,
  and the offline rules that say duplicate / replaced value / unclear.
* ``promote.py`` — the daily log (``log/YYYY-MM-DD.md``) and the notes it promotes (H6).
* ``steps.py`` — ``Op``, ``Step``, ``Plan``: what a plan is made of.
* ``settle.py`` — ``memdir confirm NAME [--drop]``: one command ends a tentative conflict.
* ``judge.py`` — the LLM's say where one is configured (confirm, settle, write a conditional).
* ``apply.py`` — one locked, batched, hash-checked step through the ``FileStore``; each change
  logged with actor ``sleep``, its reason and the run id; ``undo_run`` reverts a whole run.

Invariants: the person's own words (``source: user``) are never deleted by sleep, and an
inference never overrides them; every file sleep touches comes back byte-for-byte with
``memdir undo RUN_ID``.
"""

from __future__ import annotations

from .apply import ACTOR, SleepReport, apply_plan, new_run_id, run_changes, undo_run
from .judge import JUDGE_PROMPT, Judge, LLMJudge
from .plan import ScopeState, plan_sleep, strength, take_snapshot
from .promote import Note, append_note, plan_promotions, read_notes
from .settle import settle
from .similar import RELATION_RULES, candidate_pairs, content_tokens, normalise, relate
from .steps import PLAN_VERSION, Op, Plan, Step

__all__ = [
    "ACTOR",
    "JUDGE_PROMPT",
    "PLAN_VERSION",
    "RELATION_RULES",
    "Judge",
    "LLMJudge",
    "Note",
    "Op",
    "Plan",
    "ScopeState",
    "SleepReport",
    "Step",
    "append_note",
    "apply_plan",
    "candidate_pairs",
    "content_tokens",
    "new_run_id",
    "normalise",
    "plan_promotions",
    "plan_sleep",
    "read_notes",
    "relate",
    "run_changes",
    "settle",
    "strength",
    "take_snapshot",
    "undo_run",
]
