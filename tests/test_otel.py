"""Optional OpenTelemetry (issue 25): off by default with nothing imported; on, the facade's
recall, writes, extraction and sleep and every HTTP request are spans (checked with the SDK's
in-memory exporter and reader), and ``OTEL_EXPORTER_OTLP_ENDPOINT`` sends them over OTLP/HTTP
to a real loopback receiver from a separate ``memdir`` process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from memdir import Memory
from memdir.observe import otel
from waiting import HANG_GUARD_S

sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
from opentelemetry.sdk.metrics import MeterProvider  # noqa: E402
from opentelemetry.sdk.metrics.export import InMemoryMetricReader  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)

QUERY = "which database does the orders service use"


@pytest.fixture
def spans() -> Iterator[tuple[InMemorySpanExporter, InMemoryMetricReader]]:
    exporter = InMemorySpanExporter()
    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    otel.configure(tracer_provider=provider, meter_provider=MeterProvider(metric_readers=[reader]))
    try:
        yield exporter, reader
    finally:
        otel.reset()


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env.update(extra)
    return env


def _python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        env=env,
        check=False,
    )


RECALL_THEN_MODULES = (
    "import sys\nfrom memdir import Memory\nm = Memory()\n"
    "m.remember('The orders service runs on PostgreSQL 15', type='project')\n"
    "m.recall('orders database')\n"
    "print(sorted({k.split('.')[0] for k in sys.modules if k.startswith('opentelemetry')}))\n"
)


def test_off_by_default_nothing_is_imported(mem: Memory) -> None:
    done = _python(RECALL_THEN_MODULES, _env())
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_set_but_not_installed_warns_once_and_stays_off(mem: Memory) -> None:
    code = "import sys\nsys.modules['opentelemetry'] = None\n" + RECALL_THEN_MODULES
    done = _python(code, _env(OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:9"))
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("OpenTelemetry is not installed") == 1
    assert "pip install opentelemetry-sdk" in done.stderr


def test_recall_writes_extraction_and_sleep_are_spans(mem: Memory, spans: Any) -> None:
    exporter, reader = spans
    record = mem.remember("The orders service runs on PostgreSQL 15", type="project")
    hits = mem.recall(QUERY, top_k=3)
    mem.update(record.name, tags=["db"])
    mem.capture_explicit("Remember that staging runs Redis 7.")
    mem.sleep(dry_run=True, offline=True)
    mem.forget(record.name)
    names = [s.name for s in exporter.get_finished_spans()]
    assert names.count("memdir.recall") >= 1 and "memdir.sleep" in names
    assert "memdir.extract" in names and names.count("memdir.write") >= 3
    [recall] = [s for s in exporter.get_finished_spans() if s.name == "memdir.recall"][:1]
    assert recall.attributes is not None
    assert recall.attributes["memdir.recall.hits"] == len(hits)
    assert recall.attributes["memdir.query.chars"] == len(QUERY)
    every = [v for s in exporter.get_finished_spans() for v in (s.attributes or {}).values()]
    assert QUERY not in every and not any("PostgreSQL" in str(v) for v in every)  # no content
    writes = {
        (s.attributes or {}).get("memdir.write.op")
        for s in exporter.get_finished_spans()
        if s.name == "memdir.write"
    }
    assert {"remember", "update", "forget"} <= writes
    data = reader.get_metrics_data()
    metrics = {
        m.name: m for rm in data.resource_metrics for sm in rm.scope_metrics for m in sm.metrics
    }
    assert {"memdir.operations", "memdir.operation.duration"} <= set(metrics)
    counted = {
        (p.attributes or {}).get("memdir.operation"): p.value
        for p in metrics["memdir.operations"].data.data_points
    }
    assert counted["memdir.sleep"] == 1


def test_the_background_extraction_pass_is_a_span(mem: Memory, spans: Any) -> None:
    exporter, reader = spans
    with mem.session() as s:
        s.append({"role": "user", "content": "We use Kafka 3.7 for the order events."})
        s.append({"role": "assistant", "content": "Noted."})
    mem.after_turn(s)
    assert mem.flush_extraction(timeout=HANG_GUARD_S)
    passes = [sp for sp in exporter.get_finished_spans() if sp.name == "memdir.extract.background"]
    # the first turn of a process also queues the pass over sessions left pending, which may
    # take this one first: the later pass then finds nothing left (turns 0)
    mine = [dict(sp.attributes or {}) for sp in passes]
    assert {a["memdir.session"] for a in mine} == {s.id}
    assert sorted(a["memdir.extract.turns"] for a in mine)[-1:] == [1]
    assert sum(a["memdir.extract.turns"] for a in mine) == 1
    [got] = [a for a in mine if a["memdir.extract.turns"] == 1]
    assert got["memdir.extract.kind"] == "background" and got["memdir.extract.turns"] == 1
    assert str(got["memdir.extract.method"]).startswith(("rules:", "llm:"))
    assert got["memdir.extract.failures"] == 0 and got["memdir.extract.queued"] >= 0
    assert got["memdir.extract.written"] == len(mem.list())
    assert not any("Kafka" in str(v) for v in got.values())  # no content
    data = reader.get_metrics_data()
    counted = {
        (p.attributes or {}).get("memdir.operation")
        for rm in data.resource_metrics
        for sm in rm.scope_metrics
        for m in sm.metrics
        if m.name == "memdir.operations"
        for p in m.data.data_points
    }
    assert "memdir.extract.background" in counted


def test_a_failed_call_is_a_span_with_its_error(mem: Memory, spans: Any) -> None:
    exporter, _ = spans
    with pytest.raises(Exception, match="no memory"):
        mem.forget("no-such-memory")
    [span] = [s for s in exporter.get_finished_spans() if s.name == "memdir.write"]
    assert (span.attributes or {})["memdir.error"] == "NotFoundError"


def test_http_requests_are_spans(tmp_path: Any, spans: Any) -> None:
    from memdir.http import create_app
    from web_helpers import serving

    exporter, _ = spans
    app = create_app(tmp_path / "data", embedder=None)
    with serving(app) as (base, _):
        assert httpx.get(f"{base}/health", timeout=60).status_code == 200
        assert httpx.get(f"{base}/v1/memories", timeout=60).status_code == 401
    app.state.users.close()
    got = [
        ((s.attributes or {})["url.path"], (s.attributes or {})["http.response.status_code"])
        for s in exporter.get_finished_spans()
        if s.name == "memdir.http.request"
    ]
    assert got == [("/health", 200), ("/v1/memories", 401)]


class _Receiver(BaseHTTPRequestHandler):
    bodies: list[tuple[str, bytes]]
    got: threading.Event

    def do_POST(self) -> None:
        size = int(self.headers.get("Content-Length", "0"))
        self.bodies.append((self.path, self.rfile.read(size)))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()
        if self.path == "/v1/traces":
            self.got.set()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def _receiver() -> Iterator[tuple[str, Any]]:
    """A loopback OTLP/HTTP receiver: its base URL and its handler class (``bodies``, ``got``)."""
    handler = type("Receiver", (_Receiver,), {"bodies": [], "got": threading.Event()})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", handler
    finally:
        httpd.shutdown()
        httpd.server_close()


def _memdir(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memdir.cli", *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        env=env,
        check=False,
    )


def _traces(handler: Any) -> bytes:
    return b"".join(body for path, body in handler.bodies if path == "/v1/traces")


def test_the_endpoint_variable_exports_over_otlp_http(mem: Memory) -> None:
    pytest.importorskip("opentelemetry.exporter.otlp.proto.http")
    mem.remember("The orders service runs on PostgreSQL 15", type="project")
    with _receiver() as (endpoint, handler):
        done = _memdir("recall", "orders database", env=_env(OTEL_EXPORTER_OTLP_ENDPOINT=endpoint))
        assert done.returncode == 0, done.stderr
        assert handler.got.wait(HANG_GUARD_S)  # the spans are flushed when the process exits
    traces = _traces(handler)
    assert b"memdir.recall" in traces and b"memdir" in traces
    assert b"orders database" not in traces  # the query text never leaves


def test_the_config_key_exports_and_the_variable_wins(mem: Memory) -> None:
    pytest.importorskip("opentelemetry.exporter.otlp.proto.http")
    mem.remember("The orders service runs on PostgreSQL 15", type="project")
    with _receiver() as (from_file, filed), _receiver() as (from_env, envd):
        done = _memdir("config", "set", "otel.endpoint", from_file, "otel.service_name",
                       "memdir-test", env=_env())  # fmt: skip
        assert done.returncode == 0, done.stderr
        listed = _memdir("config", "get", "otel.endpoint", "--json", env=_env())
        assert json.loads(listed.stdout) == {"key": "otel.endpoint", "value": from_file,
                                             "source": "file"}  # fmt: skip
        done = _memdir("recall", "orders database", env=_env())
        assert done.returncode == 0, done.stderr
        assert filed.got.wait(HANG_GUARD_S)
        assert b"memdir.recall" in _traces(filed) and b"memdir-test" in _traces(filed)
        assert envd.bodies == []
        # the standard variable beats the file; the process has exited when run returns, so
        # whatever it sent has arrived: the file's receiver getting nothing more is final
        before = len(filed.bodies)
        done = _memdir("recall", "orders database", env=_env(OTEL_EXPORTER_OTLP_ENDPOINT=from_env))
        assert done.returncode == 0, done.stderr
        assert envd.got.wait(HANG_GUARD_S) and b"memdir.recall" in _traces(envd)
        assert len(filed.bodies) == before


def test_a_configured_endpoint_is_off_under_otel_sdk_disabled(mem: Memory) -> None:
    done = _memdir("config", "set", "otel.endpoint", "http://127.0.0.1:9", env=_env())
    assert done.returncode == 0, done.stderr
    off = _python(RECALL_THEN_MODULES, _env(OTEL_SDK_DISABLED="true"))
    assert off.returncode == 0, off.stderr
    assert off.stdout.strip() == "[]"


def test_a_bad_endpoint_value_is_refused_and_nothing_is_written(mem: Memory) -> None:
    from memdir.settings import settings_file

    before = settings_file().read_bytes() if settings_file().exists() else None
    done = _memdir("config", "set", "otel.endpoint", "localhost:4318", env=_env())
    assert done.returncode != 0
    assert "otel.endpoint must be an http:// or https:// URL" in done.stderr
    after = settings_file().read_bytes() if settings_file().exists() else None
    assert after == before
