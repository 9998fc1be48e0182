"""Sleep: the lifecycle pass that keeps a memory store small, current and consistent (SPEC H).

It is built as *plan, then apply* (STYLE habit 4):

* ``plan.py`` — ``take_snapshot`` reads a scope (files, archive, use counts, vectors) and
  ``plan_sleep`` turns snapshots, the policy and an explicit clock into a ``Plan`` of steps:
  merge duplicates, supersede or mark tentative conflicting statements, archive what decayed,
  delete what outlived the archive TTL, and name what to distill. Pure: no writes, no clock.
* ``similar.py`` — candidate pairs from embeddings (per-model threshold) and normalised text,
  and the offline rules that say duplicate / replaced value / unclear; ``wording.py`` reads a
  statement as units (names, numbers, values, negations), ``evidence.py`` weighs what argues
  for or against one fact (the store's mutual-nearest vouch, swaps, changed values).
* ``promote.py`` — the daily log (``log/YYYY-MM-DD.md``) and the notes it promotes (H6):
  memories, ``feedback`` rules, and skills (a repeated procedure).
* ``working.py`` — the working layer (seeds 003/004): what the agent loop notes per turn
  (decided, procedure, learned, done) and what session end makes of it (a summary line,
  promotion decided at once).
* ``logs.py`` — old daily logs compressed into ``archive/log/`` and deleted past the TTL, with
  a journal of their own that ``undo_run`` reverses.
* ``propose.py`` — seed 001's second filter: project memories that hold in any project are
  proposed for the user scope, tentative, with their provenance.
* ``offer.py`` / ``stack.py`` — what the agent is handed at a turn: skills at a task's start, a
  question about a tentative memory that became relevant, and memories of another stack set
  aside after a stack switch (seed 003).
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
from .logs import plan_logs
from .offer import Offer, plan_offer
from .plan import ScopeState, plan_sleep, strength, take_snapshot
from .promote import SKILL_TAG, Note, append_note, plan_promotions, read_notes
from .propose import crosses_projects, plan_proposals
from .settle import settle
from .similar import RELATION_RULES, candidate_pairs, content_tokens, normalise, relate
from .stack import Drift, drift, memory_stack, project_stack
from .steps import PLAN_VERSION, Op, Plan, Step
from .working import SessionEnd, TurnNote, turn_notes

__all__ = [
    "ACTOR",
    "JUDGE_PROMPT",
    "PLAN_VERSION",
    "RELATION_RULES",
    "SKILL_TAG",
    "Drift",
    "Judge",
    "LLMJudge",
    "Note",
    "Offer",
    "Op",
    "Plan",
    "ScopeState",
    "SessionEnd",
    "SleepReport",
    "Step",
    "TurnNote",
    "append_note",
    "apply_plan",
    "candidate_pairs",
    "content_tokens",
    "crosses_projects",
    "drift",
    "memory_stack",
    "new_run_id",
    "normalise",
    "plan_logs",
    "plan_offer",
    "plan_promotions",
    "plan_proposals",
    "plan_sleep",
    "project_stack",
    "read_notes",
    "relate",
    "run_changes",
    "settle",
    "strength",
    "take_snapshot",
    "turn_notes",
    "undo_run",
]
