"""mem0 (``mem0ai``) behind the peers protocol, run by the interpreter of its own venv.

Local mode, nothing hosted: the embedded Qdrant (``path`` in the store's folder, on disk), the
history SQLite beside it, ``add(messages, infer=False)`` (each message stored verbatim as one
memory: no LLM), and mem0's own search. The embedder is ``BenchEmbedder``, a subclass of
mem0's ``EmbeddingBase`` that asks the bench for memdir's vectors (``protocol.embed``:
``search`` → query vectors, ``add``/``update`` → passage vectors), so both systems rank with
the same embeddings.

Two search modes over one store:

* ``hybrid`` — mem0's default when its store supports keyword search: the semantic pool
  re-scored with Qdrant's BM25 sparse vectors (fastembed's ``Bm25``: Snowball-stemmed, IDF
  in Qdrant). The model files of ``Qdrant/bm25`` are only its stopword lists, on a model hub
  this machine cannot reach, so the encoder is built from an empty local folder: stemming
  on, no stopword list (IDF still discounts common words). Without spaCy (not installed:
  its English model is not on PyPI) mem0 lemmatises nothing and boosts no entities.
* ``semantic`` — the same store with the BM25 encoder marked unavailable (mem0's own
  sentinel), which is how mem0 searches without fastembed: vector similarity only.

``threshold=0`` so nothing is cut before ranking (memdir runs with ``min_score=0`` too).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("MEM0_TELEMETRY", "False")
# mem0 keeps a config and a user id under ~/.mem0: the bench's cache, not the person's home
os.environ.setdefault(
    "MEM0_DIR", str(Path(__file__).resolve().parents[1] / ".cache" / "peers" / "mem0" / "home")
)
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("OPENAI_API_KEY", "unused-no-llm-call-is-made")
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import protocol  # noqa: E402
from mem0 import Memory  # noqa: E402
from mem0.embeddings.base import EmbeddingBase  # noqa: E402

try:
    from importlib.metadata import version
except ImportError:  # pragma: no cover
    version = None  # type: ignore[assignment]

USER = "bench"


class BenchEmbedder(EmbeddingBase):
    """mem0's embedder interface, answered with the bench's (memdir's) embedder."""

    def embed(self, text: Any, memory_action: Any = None) -> list[float]:
        kind = "query" if memory_action == "search" else "passage"
        return protocol.embed([str(text)], kind)[0]

    def embed_batch(self, texts: Any, memory_action: str = "add") -> list[list[float]]:
        kind = "query" if memory_action == "search" else "passage"
        return protocol.embed([str(t) for t in texts], kind)


class Mem0Driver:
    def __init__(self) -> None:
        self.memory: Any = None
        self.bm25: Any = None

    def hello(self) -> dict[str, Any]:
        import qdrant_client  # noqa: F401

        fastembed = _version("fastembed")
        return {
            "system": "mem0",
            "version": _version("mem0ai"),
            "config": "Memory.from_config: Qdrant local (on disk, "
            f"qdrant-client {_version('qdrant-client')}), add(infer=False), "
            "search(threshold=0); embedder: memdir's via the bench; hybrid: fastembed "
            f"{fastembed} Bm25 (Snowball stemmer, no stopword list), no spaCy",
        }

    def open(self, path: str, dim: int, embedder: str | None = None) -> dict[str, Any]:
        root = Path(path)
        root.mkdir(parents=True, exist_ok=True)
        config = {
            "vector_store": {
                "provider": "qdrant",
                "config": {
                    "collection_name": "bench",
                    "path": str(root / "qdrant"),
                    "embedding_model_dims": dim,
                    "on_disk": True,
                },
            },
            "embedder": {"provider": "openai", "config": {"api_key": "unused"}},
            "llm": {"provider": "openai", "config": {"api_key": "unused"}},
            "history_db_path": str(root / "history.db"),
        }
        self.memory = Memory.from_config(config)
        self.memory.embedding_model = BenchEmbedder()  # replaces the unused OpenAI client
        self.bm25 = self._bm25_encoder(root / "bm25-model")
        self.memory.vector_store._bm25_encoder = self.bm25
        return {"hybrid": self.bm25 is not False}

    @staticmethod
    def _bm25_encoder(folder: Path) -> Any:
        try:
            from fastembed import SparseTextEmbedding
        except ImportError:
            return False  # mem0's own "tried and failed" sentinel: semantic search only
        folder.mkdir(parents=True, exist_ok=True)
        return SparseTextEmbedding(model_name="Qdrant/bm25", specific_model_path=str(folder))

    def passages(self, path: str, items: list[dict[str, Any]]) -> dict[str, Any]:
        """mem0 embeds the message's content as given: the item's text."""
        return {"texts": [item["text"] for item in items]}

    def add(
        self, items: list[dict[str, Any]], each: bool = False, shared: bool = False
    ) -> dict[str, Any]:
        with protocol.sharing(shared):
            return self._add(items, each)

    def _add(self, items: list[dict[str, Any]], each: bool) -> dict[str, Any]:
        def message(item: dict[str, Any]) -> dict[str, Any]:
            return {"role": "user", "content": item["text"]}

        def write(item: dict[str, Any]) -> None:
            self.memory.add(
                [message(item)], user_id=USER, metadata={"bench_id": item["id"]}, infer=False
            )

        if each:
            return protocol.each_timed(items, write)
        started = time.perf_counter()
        for item in items:  # metadata is per call, so the bulk path is one call per item too
            write(item)
        return {"seconds": [time.perf_counter() - started]}

    def search(self, query: str, k: int = 10, mode: str = "hybrid") -> dict[str, Any]:
        if mode not in ("hybrid", "semantic"):
            raise ValueError(f"mode {mode!r}: hybrid or semantic")
        store = self.memory.vector_store
        store._bm25_encoder = self.bm25 if mode == "hybrid" else False
        try:
            timed = protocol.timed_search(
                lambda: self.memory.search(query, filters={"user_id": USER}, top_k=k, threshold=0.0)
            )
        finally:
            store._bm25_encoder = self.bm25
        found = timed.pop("result")
        results = found["results"] if isinstance(found, dict) else found
        hits = [[(r.get("metadata") or {}).get("bench_id", r["id"]), r["score"]] for r in results]
        return {"hits": hits, **timed}

    def close(self) -> dict[str, Any]:
        if self.memory is not None:
            self.memory.vector_store.client.close()
        self.memory = None
        return {}


def _version(name: str) -> str:
    try:
        return version(name) if version else "unknown"
    except Exception:  # noqa: BLE001 — PackageNotFoundError, whichever module defines it
        return "not installed"


if __name__ == "__main__":
    protocol.serve(Mem0Driver())
