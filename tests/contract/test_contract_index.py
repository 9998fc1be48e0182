"""Index contract (``memdir.ports.Index``): the queries recall asks, answered from the store."""

from __future__ import annotations

import numpy as np
import pytest

from .contract_ports import Ports


@pytest.fixture
def filled(ports: Ports) -> Ports:
    ports.add("The deploy script lives in ops/deploy.sh", base="deploy",
              tags=["ops"], session="s1")  # fmt: skip
    ports.add("Releases are tagged every Friday afternoon", base="release", session="s1")
    ports.add("用户喜欢喝绿茶", base="tea", type="user")
    ports.add("The database is PostgreSQL 16", base="database", tags=["db"])
    return ports


def test_sync_and_docs(filled: Ports) -> None:
    index = filled.index()
    index.sync()
    docs = index.docs()
    assert set(docs) == {"deploy", "release", "tea", "database"}
    assert docs["deploy"].tags == ("ops",) and docs["tea"].type == "user"
    assert "cjk" in index.scripts() and "latin" in index.scripts()
    assert index.verify() == []


def test_generation_moves_with_the_store(filled: Ports) -> None:
    index = filled.index()
    index.sync()
    before = index.generation()
    filled.store.update("database", {"statement": "The database is PostgreSQL 17"}, actor="c")
    index.sync()
    assert index.generation() != before


def test_keyword_and_session_keyword(filled: Ports) -> None:
    index = filled.index()
    index.sync()
    found = index.keyword(["deploy"], 10)
    assert list(found)[:1] == ["deploy"] and all(v > 0 for v in found.values())
    assert index.keyword([], 10) == {}
    assert set(index.keyword(["绿茶"], 10)) == {"tea"}
    assert list(index.session_keyword(["friday"], 5)) == ["s1"]  # the session as one text
    assert index.keyword(['"quoted" AND OR NOT *'], 5) == {}  # query syntax is only text


def test_entities(filled: Ports) -> None:
    index = filled.index()
    index.sync()
    entities = index.entities()
    assert "deploy" in entities.get("ops", set())
    assert "database" in entities.get("db", set())


def test_nearest_k_within_and_also(filled: Ports) -> None:
    index = filled.index()
    index.sync()
    query = filled.embedder.encode(["where is the deploy script"], "query")[0]
    top = index.nearest(query, 2)
    assert len(top) == 2 and "deploy" in top
    assert all(-1.0001 <= v.cosine <= 1.0001 and v.name == n for n, v in top.items())
    only = index.nearest(query, 3, within={"tea", "database"})
    assert set(only) == {"tea", "database"}
    more = index.nearest(query, 1, within={"release"}, also=["database", "unknown"])
    assert set(more) == {"release", "database"}  # an unknown name is no answer
    assert index.nearest(query, 0) == {}


def test_nearest_is_exhaustive_and_ordered(filled: Ports) -> None:
    index = filled.index()
    index.sync()
    query = filled.embedder.encode(["releases on friday"], "query")[0]
    every = index.nearest(query, 10)
    assert set(every) == {"deploy", "release", "tea", "database"}
    cosines = sorted((v.cosine for v in every.values()), reverse=True)
    assert index.nearest(query, 1)[next(iter(index.nearest(query, 1)))].cosine == cosines[0]


def test_language_sums_and_centred_nearest(filled: Ports) -> None:
    index = filled.index()
    index.sync()
    sums = index.language_sums()
    assert sums.counts == (3, 1)
    assert sums.sums[0].shape == (filled.embedder.dim,)
    means = (sums.sums[0] / sums.counts[0], sums.sums[1] / sums.counts[1])
    query = filled.embedder.encode(["绿茶"], "query")[0]
    centred = index.nearest(query, 4, means=means, chinese=True)
    plain = index.nearest(query, 4)
    assert set(centred) == set(plain)
    assert all(centred[n].plain == pytest.approx(plain[n].plain) for n in plain)
    assert any(abs(centred[n].cosine - plain[n].cosine) > 1e-6 for n in plain)


def test_an_empty_index_answers_nothing(ports: Ports) -> None:
    ports.add("x")
    ports.store.delete("note", actor="c")
    index = ports.index()
    index.sync()
    assert index.docs() == {} and index.keyword(["x"], 5) == {}
    query = ports.embedder.encode(["x"], "query")[0]
    assert index.nearest(query, 5) == {}
    sums = index.language_sums()
    assert sums.counts == (0, 0) and not np.any(sums.sums[0])


def test_drop_then_sync_rebuilds(filled: Ports) -> None:
    index = filled.index()
    index.sync()
    index.drop()
    index.sync()
    assert set(index.docs()) == {"deploy", "release", "tea", "database"}


def test_has_context_marks_memories_of_a_session(filled: Ports) -> None:
    index = filled.index()
    index.sync()
    index.nearest(filled.embedder.encode(["deploy"], "query")[0], 4, context=0.5)
    assert index.has_context("deploy") and index.has_context("release")
    assert not index.has_context("database")  # in no session
