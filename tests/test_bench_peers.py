"""bench/peers.py's pure parts: the driver protocol (with memdir as the only real system), the
skip of a peer that cannot be installed, and the table writer. No network, no peer installed."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _bench() -> ModuleType:
    """``bench/peers.py`` is a script, not a package: load it by path."""
    path = ROOT / "bench" / "peers.py"
    spec = importlib.util.spec_from_file_location("bench_peers", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_peers"] = module
    spec.loader.exec_module(module)
    return module


peers = _bench()


@pytest.fixture
def memdir_system() -> object:
    system = peers.systems()[0]
    assert system.name == "memdir" and system.python == sys.executable
    return system


def test_the_memdir_driver_stores_and_finds_by_the_bench_ids(
    tmp_path: Path, memdir_system: object
) -> None:
    items = [
        {"id": "pnpm", "text": "Use pnpm, not npm, in JS projects", "type": "project"},
        {"id": "tz", "text": "Deploys run at 03:00 UTC from the release branch", "type": "project"},
        {"id": "tea", "text": "The team lunch is on Thursdays", "type": "project"},
    ]
    with peers.driver(memdir_system, None) as d:
        hello = d.request("hello")
        assert hello["system"] == "memdir" and hello["version"]
        d.request("open", path=str(tmp_path / "store"), dim=0, embedder="hashing")
        bulk = d.request("add", items=items[:2])
        single = d.request("add", items=items[2:], each=True)
        found = d.request("search", query="which package manager, pnpm or npm?", k=3)
    assert len(bulk["seconds"]) == 1 and len(single["seconds"]) == 1
    assert len(single["cpu_seconds"]) == 1 and bulk["index_seconds"] > 0
    assert found["hits"][0][0] == "pnpm"  # the bench's id, not memdir's file name
    assert {h[0] for h in found["hits"]} <= {"pnpm", "tz", "tea"}
    assert found["seconds"] > 0 and found["embed_seconds"] == 0.0
    assert (tmp_path / "store" / "project" / ".agent").is_dir()  # a real store on disk


def test_a_driver_error_names_the_op_and_the_driver_goes_on(
    tmp_path: Path, memdir_system: object
) -> None:
    with peers.driver(memdir_system, None) as d:
        with pytest.raises(peers.ProtocolError, match="search: RuntimeError: open a store"):
            d.request("search", query="anything")
        with pytest.raises(peers.ProtocolError, match="unknown op 'drop'"):
            d.request("drop")
        assert d.request("hello")["system"] == "memdir"


ECHO_DRIVER = """
import protocol

class Echo:
    def hello(self):
        return {"system": "echo", "version": "0", "config": ""}

    def search(self, query, k=10, mode="default"):
        timed = protocol.timed_search(lambda: protocol.embed([query], "query"))
        (vector,) = timed.pop("result")
        return {"hits": [[query, vector[0]]], **timed}

    def close(self):
        return {}

protocol.serve(Echo())
"""


def test_a_peer_gets_its_vectors_from_the_bench(tmp_path: Path) -> None:
    """The embed call: the driver asks mid-request, the bench answers, the request goes on."""
    script = tmp_path / "echo_driver.py"
    script.write_text(ECHO_DRIVER, encoding="utf-8")
    (tmp_path / "protocol.py").write_bytes((peers.DRIVERS / "protocol.py").read_bytes())
    asked: list[tuple[list[str], str]] = []

    def embed(texts: list[str], kind: str) -> list[list[float]]:
        asked.append((texts, kind))
        return [[float(len(t)), 0.0] for t in texts]

    d = peers.Driver(sys.executable, script, embed, tmp_path / "echo.log")
    try:
        found = d.request("search", query="four")
    finally:
        d.close()
    assert asked == [(["four"], "query")]
    assert found["hits"] == [["four", 4.0]]
    assert found["embed_seconds"] > 0  # the round trip, timed by the driver
    assert found["cpu_seconds"] >= 0  # the driver's CPU plus what the bench reported


def test_a_driver_that_dies_is_an_error_that_points_at_its_log(tmp_path: Path) -> None:
    script = tmp_path / "dies.py"
    script.write_text("import sys; sys.stderr.write('boom'); sys.exit(3)\n", encoding="utf-8")
    d = peers.Driver(sys.executable, script, None, tmp_path / "dies.log")
    try:
        with pytest.raises(peers.ProtocolError, match=r"exited during 'hello': see .*dies\.log"):
            d.request("hello")
    finally:
        d.close()
    assert "boom" in (tmp_path / "dies.log").read_text(encoding="utf-8")


def test_a_peer_that_cannot_be_installed_is_skipped_with_the_reason() -> None:
    system = peers.System("future", "memdir_driver.py", ("no-such-package",), min_python=(99, 0))
    peers.install(system)
    assert system.python is None
    assert system.skipped is not None and "needs Python ≥ 99.0" in system.skipped
    table = peers.systems_table([system], "hashing")
    assert "| future | — | skipped: needs Python ≥ 99.0" in table


def test_markdown_table_formats_floats_dashes_and_pipes() -> None:
    text = peers.markdown_table(["a", "b", "c"], [[0.5, None, "x|y"], [1, 2.0, "z"]])
    assert text.splitlines() == [
        "| a | b | c |",
        "|---|---|---|",
        "| 0.500 | — | x\\|y |",
        "| 1 | 2.000 | z |",
    ]


def test_percentile_is_nearest_rank_in_ms() -> None:
    values = [0.001 * i for i in range(1, 101)]
    assert peers.percentile_ms(values, 0.5) == 51.0
    assert peers.percentile_ms(values, 0.95) == 95.0
    assert peers.percentile_ms([0.002], 0.95) == 2.0


def test_rows_are_one_per_search_mode() -> None:
    memdir, mem0, _ = peers.systems()
    assert peers.rows_of(memdir) == ["memdir"]
    assert peers.rows_of(mem0) == ["mem0 (semantic)", "mem0 (hybrid)"]


def test_a_bulk_load_gets_the_corpus_vectors_embedded_once_by_the_bench(
    tmp_path: Path, memdir_system: object
) -> None:
    """Shared vectors: the driver names the texts it embeds, the bench embeds them once (and
    keeps them on disk), and the bulk load takes them from the bench instead of the model."""
    from memdir.providers.embeddings import get_embedder

    embedder = get_embedder("hashing")
    items = [
        {"id": "pnpm", "text": "Use pnpm, not npm, in JS projects", "type": "project"},
        {"id": "tz", "text": "Deploys run at 03:00 UTC", "why": "quiet hours", "type": "project"},
    ]
    shared = peers.SharedVectors(embedder, tmp_path / "vectors")
    with peers.driver(memdir_system, None, shared) as d:
        texts = d.request("passages", path=str(tmp_path / "scratch"), items=items)["texts"]
        assert texts[0] == items[0]["text"] and "quiet hours" in texts[1]  # what memdir embeds
        assert not (tmp_path / "scratch").exists()  # the scratch store is gone
        assert shared.fill(texts) == 2
        shared.save()
        d.request("open", path=str(tmp_path / "store"), dim=embedder.dim, embedder="hashing")
        bulk = d.request("add", items=items, shared=True)
        single = d.request("add", items=[{"id": "tea", "text": "Lunch is on Thursdays"}])
        found = d.request("search", query="which package manager, pnpm or npm?", k=3)
    assert bulk["shared_passages"] == 2 and shared.misses == 0  # none embedded in the driver
    assert single["shared_passages"] == 0  # outside a shared bulk load memdir embeds itself
    assert found["hits"][0][0] == "pnpm"
    again = peers.SharedVectors(embedder, tmp_path / "vectors")  # a later run: from disk
    assert again.fill(texts) == 0 and again.computed == 0
    assert again.answer(texts[:1], pooled=False)["shape"] == [1, embedder.dim]


def test_keep_carries_a_skipped_protocols_section_marked_with_its_run(tmp_path: Path) -> None:
    old = tmp_path / "peers.md"
    old.write_text(
        "# memdir beside its peers\n\n- date: 2026-12-02 06:54 UTC\n- commit: 5a2700b\n"
        "- command: `python bench/peers.py --sizes 1000`\n\n## LoCoMo recall (all)\n\n| a |\n\n"
        "## Latency (old)\n\n| b |\n",
        encoding="utf-8",
    )
    kept = peers.kept_sections(old, {"locomo"})
    assert set(kept) == {"locomo"}  # latency was measured again: not kept
    assert kept["locomo"].startswith("## LoCoMo recall (all)\n\n*From the run of 2026-12-02 "
                                      "06:54 UTC at commit 5a2700b, `python bench/peers.py "
                                      "--sizes 1000`, not this run.*")  # fmt: skip
    assert "not this run.*\n\n| a |" in kept["locomo"]
    # kept again by a later run: its mark (the run that measured it) stays as it was
    old.write_text("# x\n\n- date: later\n- commit: abc\n\n" + kept["locomo"] + "\n", "utf-8")
    assert peers.kept_sections(old, {"locomo"}) == kept
    assert peers.kept_sections(tmp_path / "none.md", {"locomo"}) == {}
