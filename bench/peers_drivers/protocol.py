"""The JSON-lines protocol between ``bench/peers.py`` and one system's driver process.

Each system runs in its own virtual environment's interpreter as ``python DRIVER``, so nothing
of a peer is imported into memdir's process (and nothing of memdir into a peer's, except the
memdir driver, which runs in memdir's own environment). One JSON object per line:

* the bench sends a **request** ``{"op": NAME, ...arguments}`` on the driver's stdin;
* the driver answers with exactly one ``{"ok": RESULT}`` or ``{"error": MESSAGE}`` line on
  its stdout — but before that it may send any number of **embed calls**
  ``{"embed": [TEXT, ...], "kind": "query" | "passage"}``, each answered by the bench with
  ``{"vectors": [[FLOAT, ...], ...]}`` computed by memdir's own embedder. That is how a peer
  gets *the same embedder* memdir uses without loading it: the comparison is of retrieval.

Operations every driver implements (``serve`` dispatches them to a handler object):

* ``hello`` → ``{"system", "version", "config"}``;
* ``open {"path", "dim"}`` — a new, empty store in the folder ``path`` (``dim``: the shared
  embedder's dimension, for stores that must be told);
* ``add {"items": [{"id", "text", ...}], "each": BOOL}`` — store the items; ``each`` true means
  one write call per item, timed one by one (``{"seconds": [...]}``), false the system's own
  bulk path (``{"seconds": [TOTAL]}``);
* ``search {"query", "k", "mode"}`` → ``{"hits": [[ID, SCORE], ...], "seconds": S,
  "embed_seconds": E}`` — ``ID`` is the item's own id, ``S`` the wall time of the system's
  search call and ``E`` the part of it spent waiting for embeddings from the bench;
* ``close``.

stdout carries the protocol only: a driver's ``print`` or a library's chatter on stdout would
corrupt it, so ``serve`` moves ``sys.stdout`` to stderr before any handler runs. This file runs
in every peer's interpreter: standard library only, Python 3.9 or later.
"""

from __future__ import annotations

import json
import sys
import time
import traceback
from typing import IO, Any

_OUT: IO[str] = sys.stdout
_IN: IO[str] = sys.stdin
EMBED_SECONDS = [0.0]  # time spent in embed calls since the last reset (read by ``search``)


def send(message: dict[str, Any]) -> None:
    _OUT.write(json.dumps(message, ensure_ascii=False) + "\n")
    _OUT.flush()


def embed(texts: list[str], kind: str = "passage") -> list[list[float]]:
    """Vectors for ``texts`` from the bench's embedder (a round trip over the pipes)."""
    started = time.perf_counter()
    send({"embed": list(texts), "kind": kind})
    line = _IN.readline()
    if not line:
        raise SystemExit("the bench closed the pipe during an embed call")
    vectors: list[list[float]] = json.loads(line)["vectors"]
    EMBED_SECONDS[0] += time.perf_counter() - started
    return vectors


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


def timed_search(call: Any) -> tuple[Any, float, float]:
    """Run ``call()``; return its result, its wall seconds and the embed seconds within."""
    EMBED_SECONDS[0] = 0.0
    started = time.perf_counter()
    result = call()
    return result, time.perf_counter() - started, EMBED_SECONDS[0]


def each_timed(items: list[dict[str, Any]], write: Any) -> list[float]:
    """``write(item)`` for every item, each timed."""
    seconds = []
    for item in items:
        started = time.perf_counter()
        write(item)
        seconds.append(time.perf_counter() - started)
    return seconds
