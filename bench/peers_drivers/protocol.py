"""The JSON-lines protocol between ``bench/peers.py`` and one system's driver process.

Each system runs in its own virtual environment's interpreter as ``python DRIVER``, so nothing
of a peer is imported into memdir's process (and nothing of memdir into a peer's, except the
memdir driver, which runs in memdir's own environment). One JSON object per line:

* the bench sends a **request** ``{"op": NAME, ...arguments}`` on the driver's stdin;
* the driver answers with exactly one ``{"ok": RESULT}`` or ``{"error": MESSAGE}`` line on
  its stdout — but before that it may send any number of **embed calls**
  ``{"embed": [TEXT, ...], "kind": "query" | "passage"}``, each answered by the bench with
  ``{"vectors": [[FLOAT, ...], ...], "cpu": SECONDS}`` computed by memdir's own embedder
  (``cpu``: the CPU time that took, so a peer's CPU time includes its embedding). That is how a peer
  gets *the same embedder* memdir uses without loading it: the comparison is of retrieval.

Operations every driver implements (``serve`` dispatches them to a handler object):

* ``hello`` → ``{"system", "version", "config"}``;
* ``open {"path", "dim"}`` — a new, empty store in the folder ``path`` (``dim``: the shared
  embedder's dimension, for stores that must be told);
* ``add {"items": [{"id", "text", ...}], "each": BOOL}`` — store the items; ``each`` true means
  one write call per item, timed one by one (``{"seconds": [...], "cpu_seconds": [...]}``),
  false the system's own bulk path (``{"seconds": [TOTAL]}``);
* ``search {"query", "k", "mode"}`` → ``{"hits": [[ID, SCORE], ...], "seconds": S,
  "embed_seconds": E}`` — ``ID`` is the item's own id, ``S`` the wall time of the system's
  search call and ``E`` the part of it spent waiting for embeddings from the bench (and
  ``cpu_seconds``: the CPU time, the bench's embedding included — see ``cpu``);
* ``passages {"path", "items"}`` → ``{"texts": [...]}`` — the text the system embeds for each
  item (memdir: description, statement and why, as its index does; built in a scratch store
  at ``path``), so the bench can embed a corpus once for every system;
* ``close``.

**Shared vectors.** The latency protocol's bulk load sends ``add`` with ``"shared": true``:
while it runs, the driver's passage embeddings (memdir's too) go to the bench as embed calls
with ``"shared": true`` (and ``"pooled": true`` for memdir's pool rows), answered from vectors
the bench computed once for the whole corpus, as ``{"b64": BASE64, "shape": [N, DIM]}`` of
float32 (``"pools_b64"``, ``"pools_shape"`` too when pooled) instead of JSON lists. So neither
system pays the model inside its bulk timing, and every system gets the very same vectors.

stdout carries the protocol only: a driver's ``print`` or a library's chatter on stdout would
corrupt it, so ``serve`` moves ``sys.stdout`` to stderr before any handler runs. This file runs
in every peer's interpreter: standard library only, Python 3.9 or later.
"""

from __future__ import annotations

import base64
import json
import sys
import time
import traceback
from array import array
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

_OUT: IO[str] = sys.stdout
_IN: IO[str] = sys.stdin
EMBED_SECONDS = [0.0]  # wall time spent in embed calls since the last reset
EMBED_CPU = [0.0]  # CPU time the bench reported spending on those embed calls
SHARED = [False]  # inside ``sharing()``: passage embeddings come from the bench's shared set


def send(message: dict[str, Any]) -> None:
    _OUT.write(json.dumps(message, ensure_ascii=False) + "\n")
    _OUT.flush()


def ask(texts: list[str], kind: str = "passage", pooled: bool = False) -> dict[str, Any]:
    """One embed call: the bench's answer as it came (see the module's docstring)."""
    started = time.perf_counter()
    shared = SHARED[0] and kind == "passage"
    send({"embed": list(texts), "kind": kind, "shared": shared, "pooled": pooled})
    line = _IN.readline()
    if not line:
        raise SystemExit("the bench closed the pipe during an embed call")
    answer: dict[str, Any] = json.loads(line)
    EMBED_SECONDS[0] += time.perf_counter() - started
    EMBED_CPU[0] += answer.get("cpu", 0.0)
    return answer


def rows(b64: str, shape: list[int]) -> list[list[float]]:
    """A base64 float32 matrix as lists of floats."""
    flat = array("f")
    flat.frombytes(base64.b64decode(b64))
    width = shape[1]
    return [flat[i * width : (i + 1) * width].tolist() for i in range(shape[0])]


def embed(texts: list[str], kind: str = "passage") -> list[list[float]]:
    """Vectors for ``texts`` from the bench's embedder (a round trip over the pipes)."""
    answer = ask(texts, kind)
    if "b64" in answer:
        return rows(answer["b64"], answer["shape"])
    vectors: list[list[float]] = answer["vectors"]
    return vectors


@contextmanager
def sharing(on: bool) -> Iterator[None]:
    """Within: passage embed calls ask for the bench's shared vectors (when ``on``)."""
    before = SHARED[0]
    SHARED[0] = on
    try:
        yield
    finally:
        SHARED[0] = before


def cpu() -> float:
    """CPU seconds of this process plus those the bench spent embedding for it: on a loaded
    machine the wall time measures the queue, the CPU time the work."""
    return time.process_time() + EMBED_CPU[0]


def serve(handler: Any) -> None:
    """Answer requests until ``close`` or end of input: ``op`` → ``handler.op(**arguments)``."""
    sys.stdout = sys.stderr  # only ``send`` writes to the real stdout
    for line in _IN:
        if not line.strip():
            continue
        request = json.loads(line)
        op = request.pop("op")
        method = getattr(handler, op, None)
        if method is None or op.startswith("_"):
            send({"error": f"unknown op {op!r}"})
            continue
        try:
            result = method(**request)
        except Exception as exc:  # noqa: BLE001 — a process edge: the error goes to the bench
            traceback.print_exc(file=sys.stderr)
            send({"error": f"{type(exc).__name__}: {exc}"})
            continue
        send({"ok": result})
        if op == "close":
            return


def timed_search(call: Any) -> dict[str, Any]:
    """Run ``call()``: ``{"result", "seconds", "cpu_seconds", "embed_seconds"}`` — its wall
    and CPU time, and the wall time of the embed calls within."""
    EMBED_SECONDS[0] = 0.0
    started, started_cpu = time.perf_counter(), cpu()
    result = call()
    return {"result": result, "seconds": time.perf_counter() - started,
            "cpu_seconds": cpu() - started_cpu, "embed_seconds": EMBED_SECONDS[0]}  # fmt: skip


def each_timed(items: list[dict[str, Any]], write: Any) -> dict[str, list[float]]:
    """``write(item)`` for every item, each timed: ``{"seconds", "cpu_seconds"}`` lists."""
    seconds, cpu_seconds = [], []
    for item in items:
        started, started_cpu = time.perf_counter(), cpu()
        write(item)
        seconds.append(time.perf_counter() - started)
        cpu_seconds.append(cpu() - started_cpu)
    return {"seconds": seconds, "cpu_seconds": cpu_seconds}
