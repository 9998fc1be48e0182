"""memdir behind the peers protocol (``protocol.py``), run by memdir's own interpreter.

memdir embeds with its own embedder in this process (``open``'s ``embedder``: its default
unless named), as a user's memdir does; the peers get the same embedder through the bench.
An item's fields other than ``id`` are ``remember``'s arguments (``type`` defaults to
``project``). After every ``add`` the index is caught up (``reindex``) outside the write
timings, so a search never pays for embedding the writes before it: that cost is reported as
``index_seconds`` instead.

The embedder is wrapped in ``SharedPassages``: inside an ``add`` sent with ``shared`` (the
latency protocol's bulk load) its passage vectors and pool rows come from the bench, computed
once for every system (``protocol.py``: shared vectors); queries and every other write embed
in process, as always.
"""

from __future__ import annotations

import base64
import os
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import protocol  # noqa: E402

import memdir  # noqa: E402
from memdir import Memory, recall  # noqa: E402
from memdir.index.sqlite import embed_text  # noqa: E402
from memdir.providers.embeddings import DelegatingEmbedder, Embedder, Kind, get_embedder  # noqa: E402


def _matrix(b64: str, shape: list[int]) -> Any:
    return np.frombuffer(base64.b64decode(b64), dtype=np.float32).reshape(shape).copy()


class SharedPassages(DelegatingEmbedder):
    """memdir's embedder; passages from the bench's shared vectors while ``protocol.SHARED``."""

    def __init__(self, inner: Embedder) -> None:
        super().__init__(inner)
        self.shared = 0  # passages served from the bench

    def encode(self, texts: Sequence[str], kind: Kind = "passage") -> Any:
        if kind != "passage" or not protocol.SHARED[0]:
            return self.inner.encode(texts, kind)
        answer = protocol.ask(list(texts), kind)
        self.shared += len(texts)
        return _matrix(answer["b64"], answer["shape"])

    def encode_pooled(self, texts: Sequence[str]) -> tuple[Any, Any]:
        if not protocol.SHARED[0]:
            return self.inner.encode_pooled(texts)
        answer = protocol.ask(list(texts), "passage", pooled=True)
        self.shared += len(texts)
        return (_matrix(answer["b64"], answer["shape"]),
                _matrix(answer["pools_b64"], answer["pools_shape"]))  # fmt: skip


class MemdirDriver:
    def __init__(self) -> None:
        self.memory: Memory | None = None
        self.ids: dict[str, str] = {}  # memdir's memory name → the bench's item id
        self.embedder_name: str | None = None
        self.embedder: SharedPassages | None = None

    def hello(self) -> dict[str, Any]:
        return {
            "system": "memdir",
            "version": memdir.__version__,
            "config": f"Memory(home, project), default recall ({recall.FORMULA}), "
            "track=False, min_score=0; its own embedder in process",
        }

    def open(self, path: str, dim: int = 0, embedder: str | None = None) -> dict[str, Any]:
        root = Path(path)
        (root / "project" / ".agent").mkdir(parents=True, exist_ok=True)
        self.embedder_name = embedder
        emb = self.embedder = SharedPassages(get_embedder(embedder))
        self.memory = Memory(home=root / "home", project=root / "project", embedder=emb)
        self.ids = {}
        return {"embedder": emb.model_id}

    def passages(self, path: str, items: list[dict[str, Any]]) -> dict[str, Any]:
        """The text memdir's index embeds for each item, from records written to a scratch
        store at ``path`` (removed after) the way ``add`` writes them."""
        root = Path(path)
        shutil.rmtree(root, ignore_errors=True)
        (root / "project" / ".agent").mkdir(parents=True)
        scratch = Memory(home=root / "home", project=root / "project")
        try:
            records = scratch.remember_many(self._fields(items))
            return {"texts": [embed_text(r) for r in records]}
        finally:
            shutil.rmtree(root, ignore_errors=True)

    @staticmethod
    def _fields(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{"type": "project", **{k: v for k, v in it.items() if k != "id"}} for it in items]

    def _memory(self) -> Memory:
        if self.memory is None:
            raise RuntimeError("open a store first")
        return self.memory

    def add(
        self, items: list[dict[str, Any]], each: bool = False, shared: bool = False
    ) -> dict[str, Any]:
        emb = self.embedder
        before = emb.shared if emb is not None else 0
        with protocol.sharing(shared):
            done = self._add(items, each)
        return {**done, "shared_passages": (emb.shared if emb is not None else 0) - before}

    def _add(self, items: list[dict[str, Any]], each: bool) -> dict[str, Any]:
        m = self._memory()
        fields = self._fields(items)
        if each:
            records = []

            def write(item: dict[str, Any]) -> None:
                records.append(m.remember(item.pop("text"), **item))

            timings = protocol.each_timed(fields, write)
        else:
            started = time.perf_counter()
            records = m.remember_many(fields)
            timings = {"seconds": [time.perf_counter() - started]}
        for record, item in zip(records, items, strict=True):
            self.ids[record.name] = item["id"]
        started = time.perf_counter()
        m.reindex()
        return {**timings, "index_seconds": time.perf_counter() - started}

    def search(self, query: str, k: int = 10, mode: str = "default") -> dict[str, Any]:
        m = self._memory()
        timed = protocol.timed_search(lambda: m.recall(query, top_k=k, track=False, min_score=0))
        hits = timed.pop("result")
        # embed_seconds stays 0: memdir embeds in process, inside ``seconds``
        return {"hits": [[self.ids.get(h.record.name, h.record.name), h.score] for h in hits],
                **timed}  # fmt: skip

    def close(self) -> dict[str, Any]:
        self.memory = None
        return {}


if __name__ == "__main__":
    protocol.serve(MemdirDriver())
