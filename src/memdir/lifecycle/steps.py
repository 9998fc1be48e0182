"""What a sleep plan is made of: ``Op`` (one file operation), ``Step`` (one decision, for
people, carrying its ops) and ``Plan`` (the steps of one run, with the clock it was made for)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

from .similar import RELATION_RULES

if TYPE_CHECKING:
    from ..paths import Scope

__all__ = ["PLAN_VERSION", "Op", "OpKind", "Plan", "Step", "free_name", "iso"]

PLAN_VERSION = f"sleep-v1/{RELATION_RULES}"


def free_name(base: str, taken: set[str]) -> str:
    """``base``, or ``base-2``, ``base-3``… — the first not in ``taken`` (lowercased), which
    it joins: names the plan gives new memories are fixed before anything is written."""
    name, n = base, 2
    while name.lower() in taken:
        name, n = f"{base}-{n}", n + 1
    taken.add(name.lower())
    return name


def iso(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# compress_log / delete_log: a daily log, not a memory (``logs.py``); ``name`` is its path
OpKind = Literal["update", "archive", "delete_archived", "create", "compress_log", "delete_log"]


@dataclass(frozen=True)
class Op:
    """One file operation. ``expect`` is the file's content hash when the plan was made."""

    kind: OpKind
    scope: Scope
    name: str
    expect: str | None = None
    fields: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "op": self.kind,
            "scope": self.scope,
            "name": self.name,
            "fields": dict(self.fields),
        }


@dataclass(frozen=True)
class Step:
    """One decision: ``action`` on ``names`` because of ``reason``, carried out by ``ops``."""

    # merge | supersede | tentative | conditional | archive | delete | keep | distill | promote
    # | rule | skill | propose | compress
    action: str
    scope: Scope
    names: tuple[str, ...]
    reason: str
    ops: tuple[Op, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "scope": self.scope,
            "names": list(self.names),
            "reason": self.reason,
            "ops": [o.to_dict() for o in self.ops],
        }


@dataclass(frozen=True)
class Plan:
    now: datetime
    steps: tuple[Step, ...]
    version: str = PLAN_VERSION

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for step in self.steps:
            out[step.action] = out.get(step.action, 0) + 1
        return out

    @property
    def ops(self) -> list[Op]:
        return [op for step in self.steps for op in step.ops]

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "now": iso(self.now),
            "counts": self.counts(),
            "steps": [s.to_dict() for s in self.steps],
        }
