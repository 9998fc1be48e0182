"""Optional OpenTelemetry: spans and metrics for recall, writes, extraction, sleep and HTTP.

**Off unless asked for, and then nothing is imported.** ``traced`` wraps a facade method; while
telemetry is off the wrapper costs one check of a module flag per call and ``opentelemetry`` is
never imported (``tests/test_otel.py`` checks ``sys.modules`` after a recall; bench/otel.py
measures the cost). It turns on in one of two ways:

* ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set (the standard variable), or else ``otel.endpoint``
  in ``config.yaml`` (``memdir config set otel.endpoint http://localhost:4318``), and
  ``opentelemetry-sdk`` with ``opentelemetry-exporter-otlp-proto-http`` is installed
  (``OTEL_SDK_DISABLED=true`` wins over both): memdir makes its own tracer and meter providers
  (service name ``OTEL_SERVICE_NAME``, else ``otel.service_name``, else ``memdir``) exporting
  OTLP over HTTP — from the variable the exporter reads the standard ``OTEL_EXPORTER_OTLP_*``
  variables itself; from the file it is given ``<endpoint>/v1/traces`` and ``/v1/metrics`` —
  and leaves the application's global providers alone. Configured but not installed: one
  warning on stderr saying what to install, then off. Reading the file costs one small read
  on the first traced call; nothing of OpenTelemetry is imported unless an endpoint is set.
* ``configure(tracer_provider=..., meter_provider=...)`` from an application that already has
  providers (or a test with the SDK's in-memory exporter).

The names and attributes are listed in docs/observability.md; query texts and memory contents
are never attributes (only their sizes and counts), so a trace backend learns nothing a person
said.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, ParamSpec, TypeVar

__all__ = [
    "ENDPOINT_VAR",
    "RequestSpans",
    "background_result",
    "configure",
    "enabled",
    "extract_attributes",
    "hits_attributes",
    "recall_attributes",
    "record_span",
    "reset",
    "sleep_attributes",
    "sleep_result",
    "traced",
    "write_attributes",
]

ENDPOINT_VAR = "OTEL_EXPORTER_OTLP_ENDPOINT"
P = ParamSpec("P")
R = TypeVar("R")
Attributes = Mapping[str, str | int | float | bool]


class _Telemetry:
    """The tracer and the two instruments every span also feeds."""

    def __init__(self, tracer_provider: Any, meter_provider: Any) -> None:
        self.tracer = tracer_provider.get_tracer("memdir")
        meter = meter_provider.get_meter("memdir")
        self.count = meter.create_counter(
            "memdir.operations", unit="1", description="memdir operations, by name and outcome"
        )
        self.duration = meter.create_histogram(
            "memdir.operation.duration", unit="s", description="how long each operation took"
        )
        self.providers = (tracer_provider, meter_provider)


_lock = threading.Lock()
_decided = False
_telemetry: _Telemetry | None = None


def _configured() -> tuple[str, str | None, str]:
    """Where to export: (where it was set, the endpoint for the exporter or ``None`` to let it
    read the variables itself, the service name); ``("", None, ...)`` when nowhere."""
    endpoint = os.environ.get(ENDPOINT_VAR, "").strip()
    service = os.environ.get("OTEL_SERVICE_NAME", "").strip()
    if endpoint:
        return ENDPOINT_VAR, None, service or "memdir"
    from ..errors import ConfigError
    from ..settings import read_file, settings_file

    try:
        values = read_file()
    except ConfigError as exc:  # the file's own error: said once, telemetry stays off
        print(f"memdir: telemetry off: {exc}", file=sys.stderr)
        return "", None, "memdir"
    endpoint = str(values.get("otel.endpoint") or "")
    service = service or str(values.get("otel.service_name") or "memdir")
    return (f"otel.endpoint in {settings_file()}" if endpoint else ""), endpoint or None, service


def _from_environment() -> _Telemetry | None:
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return None
    where, endpoint, service = _configured()
    if not where:
        return None
    try:
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError as exc:
        unset = (
            "unset the variable" if where == ENDPOINT_VAR else "`memdir config unset otel.endpoint`"
        )
        print(
            f"memdir: {where} is set but OpenTelemetry is not installed ({exc.name}); "
            "install it with `pip install opentelemetry-sdk "
            f"opentelemetry-exporter-otlp-proto-http`, or {unset}",
            file=sys.stderr,
        )
        return None
    resource = Resource.create({"service.name": service})
    tracer_provider = TracerProvider(resource=resource)
    spans = OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces") if endpoint else OTLPSpanExporter()
    tracer_provider.add_span_processor(BatchSpanProcessor(spans))
    metrics = (
        OTLPMetricExporter(endpoint=f"{endpoint}/v1/metrics") if endpoint else OTLPMetricExporter()
    )
    reader = PeriodicExportingMetricReader(metrics)
    meter_provider = MeterProvider(resource=resource, metric_readers=[reader])
    return _Telemetry(tracer_provider, meter_provider)


def _current() -> _Telemetry | None:
    global _decided, _telemetry
    if not _decided:
        with _lock:
            if not _decided:
                _telemetry = _from_environment()
                _decided = True
    return _telemetry


def enabled() -> bool:
    """Whether spans are being made (deciding from the environment on first use)."""
    return _current() is not None


def configure(*, tracer_provider: Any, meter_provider: Any) -> None:
    """Send memdir's spans and metrics to these providers (OpenTelemetry SDK objects)."""
    global _decided, _telemetry
    with _lock:
        _telemetry = _Telemetry(tracer_provider, meter_provider)
        _decided = True


def reset() -> None:
    """Forget the providers; the environment is read again on the next call."""
    global _decided, _telemetry
    with _lock:
        _telemetry, _decided = None, False


@contextmanager
def _span(telemetry: _Telemetry, name: str, attributes: Attributes) -> Iterator[Any]:
    start = time.perf_counter()
    outcome = "ok"
    with telemetry.tracer.start_as_current_span(name, attributes=dict(attributes)) as span:
        try:
            yield span
        except BaseException as exc:
            outcome = type(exc).__name__
            span.set_attribute("memdir.error", outcome)
            raise
        finally:
            labels = {"memdir.operation": name, "memdir.outcome": outcome}
            telemetry.count.add(1, labels)
            telemetry.duration.record(time.perf_counter() - start, labels)


def traced(
    name: str,
    describe: Callable[..., Attributes] | None = None,
    result: Callable[[Any], Attributes] | None = None,
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Wrap ``fn`` in a span ``name`` when telemetry is on. ``describe(*args, **kwargs)`` gives
    attributes from the call, ``result(value)`` from what it returned."""

    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(fn)
        def inner(*args: P.args, **kwargs: P.kwargs) -> R:
            telemetry = _telemetry if _decided else _current()
            if telemetry is None:
                return fn(*args, **kwargs)
            attributes = describe(*args, **kwargs) if describe is not None else {}
            with _span(telemetry, name, attributes) as span:
                value = fn(*args, **kwargs)
                for key, item in (result(value) if result is not None else {}).items():
                    span.set_attribute(key, item)
                return value

        return inner

    return wrap


def record_span(
    name: str,
    attributes: Attributes | Callable[[], Attributes],
    fn: Callable[[], R],
    result: Callable[[R], Attributes] | None = None,
) -> R:
    """``fn()`` inside a span ``name`` when telemetry is on (for code that is not a method).
    ``attributes`` may be a function, called only when the span is made; ``result(value)``
    adds attributes from what ``fn`` returned."""
    telemetry = _telemetry if _decided else _current()
    if telemetry is None:
        return fn()
    with _span(telemetry, name, attributes() if callable(attributes) else attributes) as span:
        value = fn()
        for key, item in (result(value) if result is not None else {}).items():
            span.set_attribute(key, item)
        return value


class RequestSpans:
    """ASGI middleware: one ``memdir.http.request`` span per HTTP request when telemetry is
    on (method, path without the query string, status); a plain pass-through when it is off."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        telemetry = _telemetry if _decided else _current()
        if telemetry is None or scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        status = {"code": 0}

        async def watched(message: Any) -> None:
            if message.get("type") == "http.response.start":
                status["code"] = int(message.get("status", 0))
            await send(message)

        attributes = {
            "http.request.method": str(scope.get("method", "")),
            "url.path": scope["path"],
        }
        with _span(telemetry, "memdir.http.request", attributes) as span:
            await self.app(scope, receive, watched)
            span.set_attribute("http.response.status_code", status["code"])


# -- the attributes of the facade's spans (docs/observability.md) --------------------------
def recall_attributes(memory: Any, query: Any = "", *args: Any, **kwargs: Any) -> Attributes:
    return {
        "memdir.query.chars": len(query) if isinstance(query, str) else 0,
        "memdir.recall.top_k": int(kwargs.get("top_k", 5)),
        "memdir.actor": str(getattr(memory, "actor", "")),
    }


def hits_attributes(hits: Any) -> Attributes:
    return {"memdir.recall.hits": len(hits) if isinstance(hits, list) else 0}


def write_attributes(op: str) -> Callable[..., Attributes]:
    def describe(memory: Any, *args: Any, **kwargs: Any) -> Attributes:
        scope = kwargs.get("scope")
        return {
            "memdir.write.op": op,
            "memdir.actor": str(getattr(memory, "actor", "")),
            "memdir.scope": str(scope) if scope else "",
        }

    return describe


def extract_attributes(kind: str) -> Callable[..., Attributes]:
    def describe(memory: Any, *args: Any, **kwargs: Any) -> Attributes:
        return {"memdir.extract.kind": kind, "memdir.offline": bool(kwargs.get("offline"))}

    return describe


def background_result(report: Any) -> Attributes:
    """What one background extraction pass did (``extract.runner.SessionReport``)."""
    outcomes = list(getattr(report, "outcomes", []) or [])
    written = sum(1 for o in outcomes if o.status in ("stored", "updated", "forgotten"))
    return {
        "memdir.extract.method": str(getattr(report, "method", "")),
        "memdir.extract.turns": int(getattr(report, "turns", 0)),
        "memdir.extract.written": written,
        "memdir.extract.refused": sum(1 for o in outcomes if o.status == "refused"),
        "memdir.extract.failures": len(getattr(report, "failures", []) or []),
    }


def sleep_attributes(memory: Any, *args: Any, **kwargs: Any) -> Attributes:
    return {
        "memdir.sleep.dry_run": bool(kwargs.get("dry_run")),
        "memdir.offline": bool(kwargs.get("offline")),
    }


def sleep_result(report: Any) -> Attributes:
    return {
        "memdir.sleep.changes": len(getattr(report, "changes", []) or []),
        "memdir.sleep.run": str(getattr(report, "run", None) or ""),
    }
