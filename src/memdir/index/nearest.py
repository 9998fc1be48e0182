"""The vector queries of the SQLite index: ``nearest`` and ``language_sums`` (``ports.Index``).

Recall asks for the ``k`` memories nearest a query, not for the matrix: that is the question a
vector database answers (pgvector: ``ORDER BY vec <=> q LIMIT k``). Here the answer is one
product with the in-memory matrix (``views.Matrix``), as before; what changed is who computes
it. Centring by language needs each language's mean over every scope searched, so the means
come in from the caller (summed from each scope's ``language_sums``), and the per-row products
the centred cosine needs are kept per index state (``_Centres``)."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ..ports import LanguageSums, Near
from .views import DocMeta

if TYPE_CHECKING:
    from ..providers.embeddings import Embedder, Vectors
    from .views import Matrix

__all__ = ["Centres", "language_sums", "nearest"]

if TYPE_CHECKING:  # (np.ndarray read at import would import numpy: see memdir.lazy.defer)
    Means = tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]
else:
    Means = tuple


@dataclass(frozen=True)
class Centres:
    """The mean vector of the Chinese memories and of the others, to compare a query and a
    memory with their language's mean taken out: multilingual embedders place every text of
    one language near that language's mean (a bias of the model, not of the meaning), so an
    English question's cosine to any Chinese memory is lower than to an English one that
    means less. Subtracting each side's language mean removes that offset (Libovický et al.,
    "On the language neutrality of pre-trained multilingual representations", 2020).

    Built once per state of the index and means, with the products the centred cosine needs,
    so a query costs a few vector operations over its plain cosines rather than a second pass
    over the matrix: (q − μq)·(d − μd) = q·d − q·μd − μq·d + μq·μd. A query with Chinese in it
    is centred on the Chinese mean; a memory is Chinese when Chinese is one of its scripts."""

    chinese: np.ndarray[Any, Any]  # per row: is the memory Chinese
    means: Means  # (others, Chinese)
    along: Means  # per row: d·μ_others, d·μ_zh
    norms: np.ndarray[Any, Any]  # per row: |d − μ_its language|

    @classmethod
    def of(
        cls, matrix: np.ndarray[Any, Any], chinese: np.ndarray[Any, Any], means: Means
    ) -> Centres:
        both = matrix @ np.stack(means, axis=1).astype(matrix.dtype)  # one pass, in float32
        along = (both[:, 0], both[:, 1])
        own = np.where(chinese, along[1], along[0])
        square = np.where(chinese, float(means[1] @ means[1]), float(means[0] @ means[0]))
        sq_rows = np.einsum("ij,ij->i", matrix, matrix)
        norms = np.sqrt(np.maximum(sq_rows - 2 * own + square, 1e-12))
        return cls(chinese, means, along, norms)

    def cosines(
        self, sims: np.ndarray[Any, Any], qvec: np.ndarray[Any, Any], *, chinese: bool
    ) -> np.ndarray[Any, Any]:
        """The centred cosine of the query (of the language ``chinese`` says) to every row,
        from its plain cosines ``sims``."""
        mq = self.means[int(chinese)]
        q_on = np.where(self.chinese, float(qvec @ self.means[1]), float(qvec @ self.means[0]))
        cross = np.where(self.chinese, float(mq @ self.means[1]), float(mq @ self.means[0]))
        dot = sims - q_on - self.along[int(chinese)] + cross
        q_norm = math.sqrt(max(float(qvec @ qvec) - 2 * float(qvec @ mq) + float(mq @ mq), 1e-12))
        result: np.ndarray[Any, Any] = dot / (q_norm * self.norms)
        return result


def chinese_rows(names: list[str], docs: Mapping[str, DocMeta]) -> np.ndarray[Any, Any]:
    """Per row of the matrix: is that memory Chinese (Chinese among its scripts)."""
    return np.array([n in docs and "cjk" in docs[n].scripts for n in names], bool)


def language_sums(
    names: list[str], matrix: np.ndarray[Any, Any], docs: Mapping[str, DocMeta], dim: int
) -> LanguageSums:
    """The sum and count of the rows of each language (others, Chinese); an empty index sums
    to zero vectors of ``dim``."""
    chinese = chinese_rows(names, docs)
    if not names:
        zero = np.zeros(dim, dtype=np.float32)
        return LanguageSums((zero, zero), (0, 0))
    # a product with the mask, not a copy of the rows it selects
    sums = ((chinese == False) @ matrix, (chinese == True) @ matrix)  # noqa: E712
    counts = (int((chinese == False).sum()), int((chinese == True).sum()))  # noqa: E712
    return LanguageSums(sums, counts)


def means_key(means: Means) -> str:
    """A short digest of the means: ``Centres`` are kept per index state and means."""
    digest = hashlib.blake2b(digest_size=16)
    for mean in means:
        digest.update(np.ascontiguousarray(mean).tobytes())
    return digest.hexdigest()


def nearest(
    names: list[str],
    matrix: np.ndarray[Any, Any],
    rows: Mapping[str, int],
    query_vector: np.ndarray[Any, Any],
    k: int,
    *,
    within: Collection[str] | None,
    also: Iterable[str],
    centres: Centres | None,
    chinese: bool,
) -> dict[str, Near]:
    """The best ``k`` rows by (centred) cosine, limited to ``within`` when given, then the
    cosine of each of ``also`` not among them."""
    if not names or k < 1:
        return {}
    plain = sims = matrix @ query_vector
    if centres is not None:
        sims = centres.cosines(sims, query_vector, chinese=chinese)
    if within is not None:
        order = [i for i in np.argsort(-sims) if names[i] in within][:k]
    else:
        order = np.argpartition(-sims, min(k, len(names) - 1))[:k].tolist()
    out = {names[i]: Near(names[i], float(sims[i]), float(plain[i])) for i in order}
    for name in also:
        row = rows.get(name)
        if name not in out and row is not None:
            out[name] = Near(name, float(sims[row]), float(plain[row]))
    return out


class _Matrixed(Protocol):
    """What ``VectorQueries`` needs of the index it is mixed into (``SqliteIndex``)."""

    embedder: Embedder
    _last: Matrix | None
    _centres: tuple[object, Centres] | None

    def vectors(self, context: float = 0.0) -> tuple[list[str], Vectors]: ...
    def generation(self) -> object: ...
    def docs(self) -> dict[str, DocMeta]: ...


class VectorQueries:
    """The vector queries of ``ports.Index`` over one process's matrix, for ``SqliteIndex``
    (the arithmetic is the functions above)."""

    _centres: tuple[object, Centres] | None = None  # per index state and means

    def nearest(
        self: _Matrixed,
        query_vector: np.ndarray[Any, Any],
        k: int,
        *,
        within: Collection[str] | None = None,
        also: Iterable[str] = (),
        context: float = 0.0,
        means: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]] | None = None,
        chinese: bool = False,
    ) -> dict[str, Near]:
        """``ports.Index.nearest`` over this process's matrix (one product with the query)."""
        names, matrix = self.vectors(context)
        centres = None
        if means is not None and names:
            key = (self.generation(), context, means_key(means))
            if self._centres is None or self._centres[0] != key:
                rows_zh = chinese_rows(names, self.docs())
                self._centres = (key, Centres.of(matrix, rows_zh, means))
            centres = self._centres[1]
        rows = self._last.rows if self._last is not None else {}
        return nearest(
            names, matrix, rows, query_vector, k,
            within=within, also=also, centres=centres, chinese=chinese,
        )  # fmt: skip

    def language_sums(self: _Matrixed, context: float = 0.0) -> LanguageSums:
        """``ports.Index.language_sums``: per language, the sum and count of the vectors."""
        names, matrix = self.vectors(context)
        return language_sums(names, matrix, self.docs(), self.embedder.dim)
