"""Does memory work? Per-turn traces, ``memdir stats`` and optional OpenTelemetry (issue 25).

``trace`` derives what happened in each turn of a session from what is on disk; ``overlap`` is
the offline measure of whether an answer used what was read; ``stats`` sums it all up per scope
for ``memdir stats`` and the web page; ``toollog`` is the MCP server's record of the calls it
serves; ``otel`` emits spans and metrics when asked to. The facade (``Memory.trace``,
``Memory.stats``) gathers the inputs: ``trace`` and ``stats`` are pure functions of them.
"""

from __future__ import annotations

import typing as _typing

from ..lazy import exports as _exports

if _typing.TYPE_CHECKING:
    from .overlap import MEASURE_VERSION, Overlap, used
    from .stats import ScopeInput, ScopeStats, Stats, compute_stats, parse_since
    from .trace import Opened, SessionTrace, TurnTrace, trace_records

# Imported on first use (PEP 562): the facade imports ``observe.otel`` for its spans, and
# loading ``stats`` with it would compile the guard's patterns in every ``memdir recall``.
_HOME = {"MEASURE_VERSION": "overlap", "Overlap": "overlap", "used": "overlap"}
_HOME.update(dict.fromkeys(("ScopeInput", "ScopeStats", "Stats", "compute_stats"), "stats"))
_HOME["parse_since"] = "stats"

__all__ = [
    "MEASURE_VERSION",
    "Opened",
    "Overlap",
    "ScopeInput",
    "ScopeStats",
    "SessionTrace",
    "Stats",
    "TurnTrace",
    "compute_stats",
    "parse_since",
    "trace_records",
    "used",
]

__getattr__ = _exports(__name__, __all__, _HOME, "trace")
