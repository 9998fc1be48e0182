"""Hybrid recall (SPEC B2–B5): several signals, one versioned formula, and an explanation.

For a query, each scope's index (``index/sqlite.py``) is brought up to date, then three
signals score a pool of candidates:

* **keyword** — FTS5 BM25 with stemming and CJK bigrams; the query is always quoted; for the
  share of a query a memory in another script cannot match (a Chinese question and an English
  memory, or the other way round), the BM25 of the query's dictionary translation
  (``index/translate.py``) stands in, when the store holds another script at all;
* **vector** — cosine similarity between the query's embedding and each memory's; for a memory
  of a session, mixed with the cosine of its *context vector* (its text between its session
  neighbours', ``Weights.context`` of it: a turn like "they loved it" means something only with
  the turn before); in a store holding both Chinese and other memories, each side's language
  mean is taken out first (``_Centres``), since multilingual embedders keep every text near its
  language's mean;
* **entity** — file paths, ``#tags`` and words of the query that equal a memory's
  ``related_files`` (full path or file name) or ``tags``;
* **time** — the query names a date, month or year ("in July 2022", "2023年5月") and the memory
  was learned then (or shortly after: people talk about things after they happen).

Scores are normalised over the pool (keyword by its maximum, but at least ``KEYWORD_FLOOR``;
vector min–max) and added with fixed weights into a *signal*. A keyword can only match a memory
written in its own script (``index/text.py``): the share of the query's terms a memory could not
match at all (a Chinese question, an English memory) is ``1 − script_share``, and
``cross_script`` of that share of the keyword weight is handed to the vector signal, which
crosses languages (0 by default: on the bilingual slice it traded same-language hits for
cross-language ones, see ``docs/recall.md``).

Two terms then use the memory's ``session`` (the conversation it was learned in): memories of
one conversation share context that a single short memory often lacks ("yes, last Tuesday"
answers the question asked just before it). **session** gives a memory a share of the best
signal of *another* candidate of its session; **session text** scores the whole session as one
document (BM25 over the text of all its memories, normalised like the keyword signal), so a
conversation whose words cover the query lifts its matches even when no single memory does.
Both lift only memories with a signal of their own. The *relevance* is then scaled by small
priors — recency (half-life), importance, strength (how often the memory was returned before),
source (the person's own words rank above an inference) and confidence — so the priors reorder
close calls but never lift an irrelevant memory. ``explain`` returns every term; the parts add
up to the final score::

    moved     = cross_script·w_kw·(1 − script_share)          (0 when w_vec is 0)
    kw_n      = bm25/max_bm25 + (1 − script_share)·translated_bm25/max_translated
    cos       = (1 − w_ctx)·cos(q, own) + w_ctx·cos(q, context)  (own alone without a context)
    signal    = w_kw·kw_n + (w_vec + moved)·vec_n + w_ent·ent + w_time·time
    relevance = signal + w_sess·(best signal of another memory of the same session)
                       + w_stext·session_text_n                  (both 0 when signal is 0)
    final     = relevance + Σ_p relevance·w_p·x_p          (p ∈ recency, importance, …)

That ``final`` (v9's, ``explain["hybrid"]``) is pool-relative: in a store of three memories one
is always near the top of the scale and one at 0, whatever was asked. The score returned is
a calibrated relevance (``index/relevance.py``, ``CALIBRATION``): ``σ(logit)`` with ::

    logit = bias + w_sig·hybrid + w_z·vector_z + w_tr·translated_sat + w_nm·names_missing
            + w_st·store_z + w_ty·type_missing

fitted on the dev batches of ``bench/everyday`` (``store_z``, the memory's standing in its own
store, only where the candidates are the whole store; ``type_missing``, 1 when the question
asks for a kind of answer, a time, a number, a person, a place or a secret, that the memory
holds none of: ``index/answers.py``); hits below ``min_score`` (``MIN_SCORE`` by
default, for the embedder the calibration was fitted with) are not returned, and with
``with_cut`` (explain) follow the others marked ``below_min_score``.

Every recall is appended to the recall log of each scope that contributed (``FORMULA`` is
recorded with it); the memories returned gain a use. Identical recalls within ``CACHE_SECONDS``
are answered from a cache keyed on the files' fingerprint, so any write or hand edit misses it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from .backends import FileBackend
from .errors import BadFileError, NotFoundError, ValidationError
from .index.answers import holds, question_types
from .index.concepts import aliases, expand, is_instance
from .index.relevance import (
    CALIBRATION,
    STORE_MIN,
    Calibration,
    background,
    saturate,
    store_z,
)
from .index.sqlite import DocMeta, SqliteIndex
from .index.text import (
    query_entities,
    query_names,
    query_periods,
    query_terms,
    script_share,
    term_script,
)
from .index.translate import translate
from .paths import Scope
from .ports import Index, RecallLog, Store
from .providers.embeddings import Embedder
from .records import MemoryRecord, utc_iso

__all__ = ["FORMULA", "MIN_SCORE", "Hit", "Recaller", "Weights", "parse_time"]

FORMULA = f"hybrid-v11+{CALIBRATION}"
# the calibrated relevance below which nothing is returned (``min_score``): chosen on the dev
# and spent batches of bench/everyday pooled (``--sweep``) as the highest floor at which ≥ 95 %
# of the answerable questions keep their answer in the top 3 (docs/recall.md)
MIN_SCORE = 0.06
CACHE_SECONDS = 30.0
KEYWORD_FLOOR = 1.0  # the smallest best-BM25 that counts as a full keyword match
# a pasted log or a whole document as the query: its start is what is searched (embedding
# 240 kB took 5 s, an OR over thousands of terms seconds more, and neither ranks better), and
# its first distinct terms carry the keyword search
MAX_QUERY_CHARS = 4000
MAX_QUERY_TERMS = 64
# a language's mean vector is the language only when it averages many memories: below this
# many in either language, the mean is those few memories' topic, and nothing is centred
CENTER_MIN = 10
SIBLING = 0.5  # a memory naming another tool of the kind of one the query names, of a kind match
PER_NAME = 4  # translations of a query's name looked for in the store (_names_missing)
VECTOR_SPAN = 4.0  # background deviations a cosine needs to count as a full vector match
SOURCE_PRIOR = {"user": 1.0, "imported": 0.5, "external": 0.0, "inferred": 0.0}


@dataclass(frozen=True)
class Weights:
    """The weights of ``FORMULA``; change them and bump the formula name."""

    keyword: float = 0.5
    vector: float = 0.5
    entity: float = 0.5
    time: float = 0.3
    session: float = 0.5
    session_text: float = 0.3
    context: float = 0.7  # share of a memory's cosine taken with its context vector
    cross_script: float = 0.0  # share of the keyword weight no term could earn given to vector
    concept: float = 1.5  # a match of an instance of a kind the query names, as a keyword's
    recency: float = 0.10
    importance: float = 0.10
    strength: float = 0.05
    source: float = 0.05
    confidence: float = 0.05
    half_life_days: float = 90.0
    pool: int = 100


@dataclass(frozen=True)
class Hit:
    """One recalled memory, its final score and (always) the terms that made it."""

    record: MemoryRecord
    score: float
    explain: Mapping[str, float] = field(default_factory=dict)
    below_min_score: bool = False  # shown by explain only: what the floor cut

    def to_dict(self, *, explain: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {"score": round(self.score, 6), **self.record.to_dict()}
        if explain:
            out["explain"] = {k: round(v, 6) for k, v in self.explain.items()}
            out["below_min_score"] = self.below_min_score
        return out


@dataclass(frozen=True)
class _Candidate:
    scope: Scope
    meta: DocMeta
    keyword: float
    cosine: float
    entity: float
    time: float
    session_text: float  # BM25 of the candidate's whole session as one document
    share: float  # of the query's terms, those the candidate's scripts could match
    translated: float  # BM25 of the query's dictionary translation (Chinese → English)
    z: float  # its plain cosine, in standard deviations above the query's background cosines
    centred: bool = False  # its cosine was taken with each language's mean removed
    context: bool = False  # its cosine mixes in its context vector (its session neighbours)
    concept: float = 0.0  # 1 when it names an instance of a kind the query names (concepts.py)


_RELATIVE = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_time(value: str | datetime | None) -> str | None:
    """An ISO 8601 UTC string from ``2026-01-31``, ``2026-01-31T09:00:00+08:00``, a
    ``datetime`` or a span back from now such as ``30m``, ``12h``, ``7d``, ``2w``."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        unit = text[-1:].lower()
        if unit in _RELATIVE and text[:-1].isdigit():
            back = time.time() - int(text[:-1]) * _RELATIVE[unit]
            try:
                return datetime.fromtimestamp(back, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            except (OverflowError, ValueError, OSError):  # back before the year 1
                raise ValidationError(
                    f"the span {value!r} reaches back before the year 1: use a shorter one, "
                    "such as 3650d, or a date such as 2020-01-01"
                ) from None
    stamp = utc_iso(value)
    if stamp is None:
        raise ValidationError(
            f"cannot read the time {value!r}: use 2026-01-31, 2026-01-31T09:00:00Z, "
            "or a span such as 12h, 7d, 2w"
        )
    return stamp


def _sigmoid(logit: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(min(logit, 40.0), -40.0)))


def _age_days(when: str | None, now: datetime) -> float | None:
    if not when:
        return None
    try:
        stamp = datetime.fromisoformat(when.replace("Z", "+00:00"))
    except ValueError:
        return None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=UTC)
    return max((now - stamp).total_seconds() / 86400.0, 0.0)


if TYPE_CHECKING:  # the language means (others, Chinese); see memdir.lazy.defer
    Means = tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]
else:
    Means = tuple


class Recaller:
    """Runs recalls over the indexes of the given scopes."""

    def __init__(
        self,
        indexes: Mapping[Scope, Index],
        embedder: Embedder,
        weights: Weights | None = None,
        calibration: Calibration | None = None,
        *,
        stores: Mapping[Scope, Store] | None = None,
        logs: Mapping[Scope, RecallLog] | None = None,
    ) -> None:
        """``stores`` (where hits are read) and ``logs`` (where recalls are recorded) default
        to the file backend's for indexes of that backend (``SqliteIndex``)."""
        self.indexes: dict[Scope, Index] = dict(indexes)
        files = {s: ix.store for s, ix in indexes.items() if isinstance(ix, SqliteIndex)}
        self.stores: dict[Scope, Store] = dict(stores) if stores is not None else dict(files)
        opener = FileBackend()  # the default is the file backend's
        self.logs: dict[Scope, RecallLog] = (
            dict(logs) if logs is not None else {s: opener.recalls(st) for s, st in files.items()}
        )
        self.embedder = embedder
        self.weights = weights or Weights()
        self.calibration = calibration or Calibration()
        self._cache: dict[tuple[Any, ...], tuple[float, tuple[str, ...], list[Hit]]] = {}
        self._centres: tuple[tuple[str, ...], Means | None] | None = None
        self._base: tuple[float, float] | None = None  # the query's background mean and std
        self._missing = 0.0  # the query's names no memory contains (_names_missing)
        self._kinds: frozenset[str] = frozenset()  # the kinds of answer it asks for (answers.py)
        self._whole = False  # every memory searched is a candidate (store_z, _score)

    # -- candidates ----------------------------------------------------------------------
    def _allowed(
        self, meta: DocMeta, types: set[str], tags: set[str], since: str | None, until: str | None
    ) -> bool:
        created = meta.created or ""
        return (
            (not types or meta.type in types)
            and tags.issubset(meta.tags)
            and (since is None or created >= since)
            and (until is None or created <= until)
        )

    def _candidates(
        self,
        scope: Scope,
        query: str,
        qvec: np.ndarray[Any, Any],
        filters: tuple[set[str], set[str], str | None, str | None],
        means: Means | None,
        base: tuple[float, float],
    ) -> list[_Candidate]:
        index = self.indexes[scope]
        docs = index.docs()
        if any(filters):
            docs = {n: m for n, m in docs.items() if self._allowed(m, *filters)}
        if not docs:
            return []
        pool = self.weights.pool
        self._whole = self._whole and len(docs) <= pool  # the vector pool holds all of them
        wanted = pool * 4 if any(filters) else pool  # filters drop some of what FTS returns
        terms = query_terms(query)[:MAX_QUERY_TERMS]
        shares: dict[tuple[str, ...], float] = {}  # few distinct script sets: once each

        def share(scripts: tuple[str, ...]) -> float:
            if scripts not in shares:
                shares[scripts] = script_share(terms, scripts)
            return shares[scripts]

        found = index.keyword(terms, wanted)
        keyword = dict(
            sorted(((n, v) for n, v in found.items() if n in docs), key=lambda kv: -kv[1])[:pool]
        )
        entity = self._entity_scores(index.entities(), query_entities(query), docs)
        # the query in the other language (Chinese words in English, English words in
        # Chinese): keyword evidence for the memories its own words cannot reach (weighted by
        # 1 − script share in scoring); only worth it when the store holds that language
        own = {term_script(t) for t in terms}
        other = "latin" if "cjk" in own else "cjk" if "latin" in own else None
        bilingual = other in index.scripts()
        words = translate(query)[:MAX_QUERY_TERMS] if bilingual else []
        translated = (
            {
                n: v
                for n, v in index.keyword(words, wanted).items()
                if n in docs and share(docs[n].scripts) < 1.0
            }
            if bilingual
            else {}
        )
        # the session's text is context for its memories, whether or not a filter keeps them
        sessions = index.session_keyword(terms, pool)
        concept = self._concepts(index, query, docs, wanted)

        periods = query_periods(query)
        others = set(keyword) | set(entity) | set(translated) | set(concept)
        cosines, plain = self._cosines(index, qvec, docs, means, "cjk" in own, any(filters), others)
        return [
            _Candidate(
                scope,
                docs[n],
                keyword.get(n, 0.0),
                cosines.get(n, 0.0),
                entity.get(n, 0.0),
                self._time_score(docs[n], periods),
                sessions.get(docs[n].session or "", 0.0),
                share(docs[n].scripts),
                translated.get(n, 0.0),
                (plain.get(n, base[0]) - base[0]) / base[1],
                means is not None and bool(cosines),
                bool(self.weights.context) and index.has_context(n),
                concept.get(n, 0.0),
            )
            # as of ``docs``: a memory another facade indexed since (its vector read after
            # ``docs`` was) is this recall's future, not a candidate
            for n in others | set(cosines)
            if n in docs
        ]

    def _concepts(
        self, index: Index, query: str, docs: Mapping[str, DocMeta], wanted: int
    ) -> dict[str, float]:
        """Per memory naming an instance of a kind the query names: 1 (``SIBLING`` when it
        names only a sibling of a tool the query names). Matched or not, like an entity: BM25
        says nothing in the few memories of an everyday scope (a term in half scores ~0)."""
        if self.weights.concept <= 0:
            return {}
        named, near = expand(query)
        out = {n: SIBLING for n in index.keyword(near[:MAX_QUERY_TERMS], wanted) if n in docs}
        out |= {n: 1.0 for n in index.keyword(named[:MAX_QUERY_TERMS], wanted) if n in docs}
        return out

    def _cosines(
        self,
        index: Index,
        qvec: np.ndarray[Any, Any],
        docs: Mapping[str, DocMeta],
        means: Means | None,
        chinese: bool,
        filtered: bool,
        others: set[str],
    ) -> tuple[dict[str, float], dict[str, float]]:
        """The best ``pool`` cosines among ``docs`` (context-mixed, centred where the store is
        bilingual), plus the cosine of each of ``others`` (the other signals' hits) outside them;
        and the same memories' plain cosines (not centred), which the calibration reads."""
        near = index.nearest(
            qvec,
            self.weights.pool,
            within=docs if filtered else None,
            also=others,  # hits of the other signals outside the vector pool
            context=self.weights.context,
            means=means,
            chinese=chinese,
        )
        return {n: v.cosine for n, v in near.items()}, {n: v.plain for n, v in near.items()}

    def _centring(self) -> Means | None:
        """The language means to centre cosines on (others, Chinese); ``None`` when the scopes
        searched hold too few memories of one language. The means are over every scope
        searched, so that the cosines of all scopes stay on one scale."""
        state = tuple(ix.generation() for ix in self.indexes.values())
        if self._centres is not None and self._centres[0] == state:
            return self._centres[1]
        self._centres = (state, None)
        scripts = set().union(*(ix.scripts() for ix in self.indexes.values()))
        if "cjk" not in scripts or scripts == {"cjk"}:
            return None  # one language: nothing to centre (and nothing to compute)
        sums = [ix.language_sums(self.weights.context) for ix in self.indexes.values()]
        counts = [sum(s.counts[lang] for s in sums) for lang in (0, 1)]
        out: Means | None = None
        if min(counts) >= CENTER_MIN:
            out = (
                sum((s.sums[0] for s in sums), np.zeros(self.embedder.dim)) / counts[0],
                sum((s.sums[1] for s in sums), np.zeros(self.embedder.dim)) / counts[1],
            )
        self._centres = (state, out)
        return out

    @staticmethod
    def _time_score(meta: DocMeta, periods: list[tuple[str, str]]) -> float:
        """1 when the memory was learned within a period the query names, else 0."""
        created = meta.created or ""
        return float(any(start <= created <= end for start, end in periods))

    @staticmethod
    def _entity_scores(
        known: Mapping[str, set[str]], entities: set[str], docs: Mapping[str, DocMeta]
    ) -> dict[str, float]:
        """Per memory: 1 when it carries an entity the query names (a path, file name or tag),
        else 0. A named file or tag is an explicit pointer: one match is enough."""
        return {n: 1.0 for e in entities for n in known.get(e, ()) if n in docs}

    # -- scoring -------------------------------------------------------------------------
    def _relevance(self, cands: Sequence[_Candidate]) -> list[dict[str, float]]:
        """Per candidate: raw and normalised signals and their weighted parts."""
        w = self.weights
        # BM25 collapses to ~0 when a term is in most documents (tiny stores): never let
        # such a score stretch to 1
        max_kw = max(max((c.keyword for c in cands), default=0.0), KEYWORD_FLOOR)
        max_st = max(max((c.session_text for c in cands), default=0.0), KEYWORD_FLOOR)
        max_tr = max(max((c.translated for c in cands), default=0.0), KEYWORD_FLOOR)
        cos = [c.cosine for c in cands if c.cosine]
        lo, hi = (min(cos), max(cos)) if cos else (0.0, 0.0)
        if cos and self._base is not None and not any(c.centred for c in cands):
            # a few candidates span no range worth stretching to [0, 1]: the query's
            # background cosines anchor it (the worst at most "unrelated", the best at least
            # VECTOR_SPAN deviations above it)
            mean, std = self._base
            lo, hi = min(lo, mean), max(hi, mean + VECTOR_SPAN * std)
        rows = []
        for c in cands:
            tr_n = c.translated / max_tr
            # the query's own words where the memory's script can match them, their
            # translation where it cannot
            # and, at ``concept`` of a keyword, the instances of a kind it names
            kw_n = c.keyword / max_kw + (1.0 - c.share) * tr_n + w.concept * c.concept
            vec_n = max((c.cosine - lo) / (hi - lo), 0.0) if hi > lo else float(c.cosine > 0)
            # the part of the keyword weight no term could earn (a Chinese query, an English
            # memory) goes to the vector signal, which crosses scripts; with no vector signal
            # (a keyword-only ranking) there is nothing to hand it to
            moved = w.cross_script * w.keyword * (1.0 - c.share) if w.vector > 0 else 0.0
            row = {
                "keyword_bm25": c.keyword,
                "keyword_norm": kw_n,
                "script_share": c.share,
                "translated_bm25": c.translated,
                "translated_norm": tr_n,
                "concept_match": c.concept,
                "vector_cosine": c.cosine,
                "vector_centred": float(c.centred),
                "vector_context": w.context if c.context else 0.0,
                "vector_norm": vec_n,
                "entity_match": c.entity,
                "time_match": c.time,
                "session_text_bm25": c.session_text,
                "session_text_norm": c.session_text / max_st,
                "keyword_part": w.keyword * kw_n,
                "vector_part": (w.vector + moved) * vec_n,
                "entity_part": w.entity * c.entity,
                "time_part": w.time * c.time,
            }
            row["signal"] = sum(row[f"{k}_part"] for k in ("keyword", "vector", "entity", "time"))
            rows.append(row)
        # context: a memory learned in the same session as a strong match shares its context,
        # so it gains a share of the best *other* match of its session
        top: dict[str, list[tuple[float, int]]] = {}
        for i, c in enumerate(cands):
            if c.meta.session:
                pair = top.setdefault(c.meta.session, [])
                pair.append((rows[i]["signal"], i))
                pair.sort(reverse=True)
                del pair[2:]
        for i, c in enumerate(cands):
            others = [v for v, j in top.get(c.meta.session or "", []) if j != i]
            peer = others[0] if others else 0.0
            own = rows[i]["signal"] > 0  # a session lifts its matches, never a non-match
            rows[i]["session_part"] = w.session * peer if own else 0.0
            rows[i]["session_text_part"] = (
                w.session_text * rows[i]["session_text_norm"] if own else 0.0
            )
            rows[i]["relevance"] = (
                rows[i]["signal"] + rows[i]["session_part"] + rows[i]["session_text_part"]
            )
        for c, row in zip(cands, rows, strict=True):  # the absolute signals the logistic reads
            row["vector_z"] = c.z
            row["keyword_sat"] = saturate(c.keyword)
            row["translated_sat"] = (1.0 - c.share) * saturate(c.translated)
        return rows

    def _score(
        self, cands: Sequence[_Candidate]
    ) -> list[tuple[_Candidate, float, dict[str, float]]]:
        w = self.weights
        now = datetime.now(UTC)
        out = []
        rows = self._relevance(cands)
        scored = [(c, row) for c, row in zip(cands, rows, strict=True) if row["relevance"] > 0]
        # the store's own distribution of the query's cosines, where the candidates are the
        # whole store and it is not a handful (relevance.py, store_z); elsewhere the weights
        # fitted without it
        fitted = self.calibration.fits(self.embedder.model_id)
        whole = self._whole and w.vector > 0 and fitted and len(cands) >= STORE_MIN
        cal = self.calibration if whole else self.calibration.without_standing()
        standing = store_z([c.z for c, _ in scored]) if whole else [0.0] * len(scored)
        for (c, explain), stand in zip(scored, standing, strict=True):
            relevance = explain["relevance"]
            age = _age_days(c.meta.updated or c.meta.created, now)
            priors = {
                "recency": 0.0 if age is None else 0.5 ** (age / w.half_life_days),
                "importance": ((c.meta.importance or 5) - 5) / 5.0,
                "strength": 1.0 - math.exp(-c.meta.uses / 3.0),
                "source": SOURCE_PRIOR.get(c.meta.source, 0.0),
                "confidence": -1.0 if c.meta.confidence == "tentative" else 0.0,
            }
            hybrid = relevance
            for name, x in priors.items():
                contribution = relevance * getattr(w, name) * x
                explain[f"{name}_part"] = contribution
                hybrid += contribution
            explain["hybrid"] = hybrid
            # the absolute signals count only for the embedder the calibration was fitted
            # with: another one's cosines have another scale (its z is set aside, and with it
            # the translation's weight, so its ranking is the hybrid's own)
            explain["store_z"] = stand
            features = {
                "vector_z": min(explain["vector_z"], cal.z_cap) if w.vector > 0 and fitted else 0.0,
                "keyword_sat": explain["keyword_sat"] if w.keyword > 0 and fitted else 0.0,
                "translated_sat": explain["translated_sat"] if w.keyword > 0 and fitted else 0.0,
                "entity": c.entity if w.entity > 0 and fitted else 0.0,
                "signal": hybrid,
                "concept": c.concept if w.concept > 0 and fitted else 0.0,
                "names_missing": min(self._missing, 2.0) if fitted else 0.0,
                "store_z": stand,
                "type_missing": self._type_missing(c.meta) if fitted else 0.0,
            }
            logit = cal.bias
            for name, x in features.items():
                explain[f"calibrated_{name}"] = getattr(cal, name) * x
                logit += explain[f"calibrated_{name}"]
            explain["names_missing"] = self._missing
            explain["type_missing"] = features["type_missing"]
            explain["calibrated_bias"] = cal.bias
            explain["logit"] = logit
            explain["final"] = final = _sigmoid(logit)
            out.append((c, final, explain))
        return out

    # -- the call ------------------------------------------------------------------------
    def recall(
        self,
        query: str,
        *,
        top_k: int = 5,
        types: Iterable[str] = (),
        tags: Iterable[str] = (),
        since: str | None = None,
        until: str | None = None,
        track: bool = True,
        min_score: float | None = None,
        with_cut: bool = False,
    ) -> list[Hit]:
        """The best ``top_k`` memories whose calibrated score is at least ``min_score``
        (default ``MIN_SCORE``; 0 returns every candidate); with ``with_cut``, those of the
        ``top_k`` the floor cut follow them, marked ``below_min_score`` (for explain)."""
        if not isinstance(query, str) or not query.strip():
            raise ValidationError("the query is empty: say what to recall")
        if top_k < 1:
            raise ValidationError("top_k must be at least 1")
        default = MIN_SCORE if self.calibration.fits(self.embedder.model_id) else 0.0
        floor = default if min_score is None else min_score
        if not 0.0 <= floor <= 1.0:
            raise ValidationError(
                f"min_score must be between 0 and 1 (got {floor}): scores are calibrated "
                "relevances in [0, 1]; use 0 to return every candidate"
            )
        query = query[:MAX_QUERY_CHARS]
        filters = (set(types), set(tags), since, until)
        for index in self.indexes.values():
            index.sync()
        key = (
            query,
            top_k,
            tuple(sorted(filters[0])),
            tuple(sorted(filters[1])),
            since,
            until,
            tuple(sorted(self.indexes)),
        )
        state = tuple(ix.generation() for ix in self.indexes.values())
        cached = self._cache.get(key)
        if cached and cached[1] == state and time.monotonic() - cached[0] < CACHE_SECONDS:
            hits = cached[2]
        else:
            hits = self._rank(query, top_k, filters)
            self._cache[key] = (time.monotonic(), state, hits)
        marked = [
            replace(h, explain={**h.explain, "min_score": floor, "below_min_score": float(cut)},
                    below_min_score=cut)
            for h in hits
            for cut in [h.score < floor]
        ]  # fmt: skip
        kept = [h for h in marked if not h.below_min_score]
        if track:
            self._log(query, top_k, kept)
        return marked if with_cut else kept

    def _rank(
        self, query: str, top_k: int, filters: tuple[set[str], set[str], str | None, str | None]
    ) -> list[Hit]:
        qvec = self.embedder.encode([query], "query")[0]
        centring = self._centring()  # across scopes: their cosines stay on one scale
        base = self._base = background(self.embedder).stats(qvec)
        self._whole = True  # until a scope holds more than the pool (_candidates)
        cands = [
            c
            for s in self.indexes
            for c in self._candidates(s, query, qvec, filters, centring, base)
        ]
        self._missing = self._names_missing(query, cands)
        self._kinds = question_types(query)
        scored = sorted(self._score(cands), key=lambda t: (-t[1], t[0].meta.name))
        hits: list[Hit] = []
        for cand, final, explain in scored:
            try:
                record = self.stores[cand.scope].read(cand.meta.name)
            except (BadFileError, NotFoundError):
                continue  # changed since the sync; the next call reindexes it
            hits.append(Hit(record, final, explain))
            if len(hits) == top_k:
                break
        return hits

    def _type_missing(self, meta: DocMeta) -> float:
        """1 when the query asks for a kind of answer (a time, a number, a person, a place, a
        secret: ``answers.py``) and the memory holds no expression of it. Not for a memory of
        a session: a turn is said at a time, by someone, and its answer is often in its
        neighbours ("yes, last Tuesday"); nor for a description cut short (the rest is
        unread)."""
        if not self._kinds or meta.session or meta.description.endswith("…"):
            return 0.0
        return float(not holds(meta.description, self._kinds))

    def _names_missing(self, query: str, cands: Sequence[_Candidate]) -> float:
        """How many names of the query (``query_names``) no memory searched contains, under
        any spelling; a known tool counts as found when a memory names another of its kind
        (the memory that says what to use instead). The same for every candidate: it moves
        the query's scores against the floor, never their order."""
        named_kind = any(c.concept > 0 for c in cands)
        missing = 0
        bilingual = any("cjk" in ix.scripts() for ix in self.indexes.values())
        for name in query_names(query)[:MAX_QUERY_TERMS]:
            # a name may be written in the store's other language ("China", 中国)
            spellings = [*aliases(name), *(translate(name)[:PER_NAME] if bilingual else ())]
            found = any(ix.keyword(spellings, 1) for ix in self.indexes.values())
            missing += not (found or (named_kind and is_instance(name)))
        return float(missing)

    def _log(self, query: str, top_k: int, hits: list[Hit]) -> None:
        stamp = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        for scope in self.indexes:
            mine = [h for h in hits if h.record.scope == scope]
            entry = {
                "time": stamp,
                "query": query,
                "top_k": top_k,
                "formula": FORMULA,
                "embedder": self.embedder.model_id,
                "returned": [h.record.name for h in mine],
                "scores": {h.record.name: round(h.score, 6) for h in mine},
            }
            self.logs[scope].append(entry)
