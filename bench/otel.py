"""What optional OpenTelemetry costs when it is off, and when it is on (issue 25).

Protocol:

* A temporary home and project with ``--memories`` (default 1,000) memories, the offline
  ``hashing`` embedder (so the number is memdir's work, not a model's).
* **Off**: ``--queries`` (default 300) recalls through ``Memory.recall`` (the wrapped facade
  method, telemetry off) and as many through the unwrapped method
  (``ConversationMemory.recall``), each with queries of its own (a query seen before is cheaper:
  its embedding is cached), interleaved pair by pair with the order alternating, so drift on a
  busy machine hits both alike; ``track=False`` so the recall log does not grow under one of
  them only. p50 and p95 of each, and the difference of the p50s.
* **The wrapper alone**: 1,000,000 calls of a no-op wrapped by ``otel.traced`` with telemetry
  off, against the bare no-op: nanoseconds per call.
* **On** (when ``opentelemetry-sdk`` is installed): the same recalls with the SDK's in-memory
  exporter configured, for scale.
* Whether any ``opentelemetry`` module was imported while off.

``python bench/otel.py`` prints a table and writes ``bench/results/otel.md``.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from provenance import provenance

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "otel.md"
TOPICS = "deploy cache index query schema build test lint merge review retry token".split()


def _store(count: int) -> object:
    from memdir import Memory

    memory = Memory()
    memory.init()
    items = [
        {
            "text": f"The {TOPICS[i % 12]} step of service {i} runs on host-{i % 97} "
            f"with {TOPICS[(i * 7) % 12]} checks",
            "type": "project",
        }
        for i in range(count)
    ]
    memory.remember_many(items)
    return memory


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _time(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    command = shlex.join(["bench/otel.py", *sys.argv[1:]])
    with tempfile.TemporaryDirectory(prefix="memdir-otel-") as tmp:
        os.environ.update(MEMDIR_HOME=f"{tmp}/home", MEMDIR_EMBEDDER="hashing")
        os.environ.pop("OTEL_EXPORTER_OTLP_ENDPOINT", None)
        project = Path(tmp) / "shop"
        (project / ".git").mkdir(parents=True)
        os.chdir(project)
        from memdir.memory.sessions import ConversationMemory
        from memdir.observe import otel

        memory = _store(args.memories)
        # three disjoint query sets: a query seen before is cheaper (its embedding is cached),
        # so no path may meet a query another path already ran
        queries = [
            f"which host runs the {TOPICS[i % 12]} step of service {i}"
            for i in range(3 * args.queries)
        ]
        wrapped, bare = [], []
        memory.recall("warm up", track=False)  # type: ignore[attr-defined]
        for i in range(args.queries):
            a, b = queries[3 * i], queries[3 * i + 1]
            first, second = (a, b) if i % 2 == 0 else (b, a)  # alternate which runs first
            for q in (first, second):
                if q == a:
                    wrapped.append(_time(lambda q=q: memory.recall(q, track=False)))  # type: ignore[attr-defined]
                else:
                    bare.append(
                        _time(lambda q=q: ConversationMemory.recall(memory, q, track=False))
                    )  # type: ignore[arg-type]
        imported = sorted(m for m in sys.modules if m.startswith("opentelemetry"))

        def noop() -> None:
            return None

        traced_noop = otel.traced("bench.noop")(noop)
        n = 1_000_000
        start = time.perf_counter()
        for _ in range(n):
            noop()
        plain_ns = (time.perf_counter() - start) / n * 1e9
        start = time.perf_counter()
        for _ in range(n):
            traced_noop()
        wrapped_ns = (time.perf_counter() - start) / n * 1e9

        on: list[float] = []
        try:
            from opentelemetry.sdk.metrics import MeterProvider
            from opentelemetry.sdk.metrics.export import InMemoryMetricReader
            from opentelemetry.sdk.trace import TracerProvider
            from opentelemetry.sdk.trace.export import SimpleSpanProcessor
            from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
                InMemorySpanExporter,
            )
        except ImportError:
            pass
        else:
            provider = TracerProvider()
            provider.add_span_processor(SimpleSpanProcessor(InMemorySpanExporter()))
            meter = MeterProvider(metric_readers=[InMemoryMetricReader()])
            otel.configure(tracer_provider=provider, meter_provider=meter)
            on = [_time(lambda q=q: memory.recall(q, track=False)) for q in queries[2::3]]  # type: ignore[attr-defined]
            otel.reset()

    rows = [
        ("recall, wrapped, telemetry off", wrapped),
        ("recall, unwrapped", bare),
        *([("recall, telemetry on (in-memory exporter)", on)] if on else []),
    ]
    lines = [
        "# OpenTelemetry: the cost when off, and when on",
        "",
        *provenance(shlex.split(command)),
        f"- store: {args.memories} memories, hashing embedder; {args.queries} recalls each",
        "",
        "| path | p50 ms | p95 ms |",
        "| --- | --- | --- |",
        *(f"| {name} | {_pct(v, 0.5):.2f} | {_pct(v, 0.95):.2f} |" for name, v in rows),
        "",
        f"- p50 difference, wrapped − unwrapped (off): "
        f"{_pct(wrapped, 0.5) - _pct(bare, 0.5):+.3f} ms "
        f"(median of pairwise differences "
        f"{statistics.median(a - b for a, b in zip(wrapped, bare, strict=True)):+.3f} ms)",
        f"- the wrapper alone, off: {wrapped_ns - plain_ns:.0f} ns per call "
        f"({wrapped_ns:.0f} ns wrapped, {plain_ns:.0f} ns bare no-op)",
        f"- opentelemetry modules imported while off: {imported or 'none'}",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(text, encoding="utf-8")
    print(f"written to {RESULTS.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
