"""Sync across devices (issue 24, SPEC K3): two stores edit offline, sync in every order
through a shared folder (and a git remote), and converge to the same files; a true conflict
keeps both versions, tentative; a sync killed midway loses and doubles nothing."""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memdir import Memory
from memdir.portable.sync import merge_log_lines, sync_folder, sync_git


def _device(root: Path, name: str) -> Memory:
    return Memory(home=root / name / "home", cwd=root / name)


def _files(mem: Memory) -> dict[str, bytes]:
    store = mem.store("user")
    return {n: (store.dirs.memory / n).read_bytes() for n in store.memory_names()}


def _all(mem: Memory) -> dict[str, bytes]:
    """Everything sync carries: the memories, archive/ (memories and compressed logs), log/."""
    root = mem.store("user").dirs.memory
    out = _files(mem)
    for folder in ("archive", "log", "archive/log"):
        for path in sorted((root / folder).glob("*")):
            if path.is_file():
                out[f"{folder}/{path.name}"] = path.read_bytes()
    return out


OLD = datetime.now(UTC) - timedelta(days=40)  # a day's log that sleep compresses
DAY = f"{OLD:%Y-%m-%d}"
RECENT = OLD + timedelta(days=35)  # a day's log sleep leaves alone (a fixed day: no midnight)


def _start(tmp: Path) -> tuple[Memory, Memory, Path]:
    """Two devices that share four memories and an old daily log (A wrote them, both synced
    once)."""
    a, b, shared = _device(tmp, "a"), _device(tmp, "b"), tmp / "shared"
    for text in ("I prefer tabs in Python", "I use Neovim", "I live in Lisbon", "I own a cat"):
        a.remember(text, type="user")
    a.log_note("looked at the flaky deploy", now=OLD)
    sync_folder(a, shared)
    sync_folder(b, shared)
    assert _all(a) == _all(b) and f"log/{DAY}.md" in _all(b)
    return a, b, shared


def _offline_edits(a: Memory, b: Memory) -> None:
    a.update("i-prefer-tabs-in-python", statement="I prefer spaces in Python")  # only A
    a.remember("I drink tea, not coffee", type="user")  # new on A
    b.forget("i-live-in-lisbon")  # only B
    b.remember("I run on Tuesdays", type="user")  # new on B
    # the working layer: both write today's log; A's sleep compresses the old one; B archives
    a.log_note("A: tried the canary deploy", now=RECENT)
    b.log_note("B: read the runbook", now=RECENT)
    assert a.sleep().run
    b.store("user").archive("i-own-a-cat", actor="user", stamp="2026-01-01T00:00:00Z")


def _check_working_layer(a: Memory, b: Memory) -> None:
    files = _all(a)
    assert f"log/{DAY}.md" not in files and f"archive/log/{DAY}.md.gz" in files  # not revived
    [today] = [k for k in files if k.startswith("log/")]
    assert today == f"log/{RECENT:%Y-%m-%d}.md"
    text = files[today].decode()
    assert "A: tried the canary deploy" in text and "B: read the runbook" in text
    assert text.count("runbook") == 1  # merged, not doubled
    assert "i-own-a-cat.md" not in files and "archive/i-own-a-cat.md" in files
    assert [r.name for r in b.archived()] == ["i-own-a-cat"]
    assert a.doctor() == [] and b.doctor() == []  # every file the sync wrote is in the log


ORDERS = ["ab", "ba", "aab", "abab", "baba", "bba"]


@pytest.mark.parametrize("order", ORDERS)
def test_non_conflicting_changes_converge_in_any_order(tmp_path: Path, order: str) -> None:
    a, b, shared = _start(tmp_path)
    _offline_edits(a, b)
    devices = {"a": a, "b": b}
    for who in order:
        sync_folder(devices[who], shared)
    for who in "ab":  # one more round each: everything has arrived everywhere
        sync_folder(devices[who], shared)
    assert _all(a) == _all(b)
    _check_working_layer(a, b)
    names = set(_files(a))
    assert "i-live-in-lisbon.md" not in names
    assert {"i-drink-tea-not-coffee.md", "i-run-on-tuesdays.md", "i-use-neovim.md"} <= names
    assert a.get("i-prefer-tabs-in-python").statement == "I prefer spaces in Python"
    assert not a.tentative() and not b.tentative()
    # replay is idempotent: syncing again changes nothing and logs nothing
    journal = a.store("user").dirs.history / "logs.jsonl"
    before = (_all(a), len(a.history()), journal.read_bytes())
    sync_folder(a, shared)
    assert (_all(a), len(a.history()), journal.read_bytes()) == before


@pytest.mark.parametrize("order", ["ab", "ba", "abab"])
def test_true_conflict_keeps_both_tentative_and_converges(tmp_path: Path, order: str) -> None:
    a, b, shared = _start(tmp_path)
    a.update("i-use-neovim", statement="I use Helix")
    b.update("i-use-neovim", statement="I use Emacs")
    devices = {"a": a, "b": b}
    reports = [sync_folder(devices[who], shared) for who in order]
    for who in "ab":
        sync_folder(devices[who], shared)
    assert _files(a) == _files(b)
    assert any(r.conflicts for r in reports)
    statements = {r.statement for r in a.tentative()}
    assert statements == {"I use Helix", "I use Emacs"}  # both kept, both tentative
    assert {r.name for r in a.tentative()} == {r.name for r in b.tentative()}


def test_edit_against_delete_keeps_the_edit(tmp_path: Path) -> None:
    a, b, shared = _start(tmp_path)
    a.update("i-use-neovim", statement="I use Neovim 0.10")
    b.forget("i-use-neovim")
    for mem in (b, a, b, a):
        sync_folder(mem, shared)
    assert _files(a) == _files(b)
    assert a.get("i-use-neovim").statement == "I use Neovim 0.10"
    assert a.get("i-use-neovim").confidence == "tentative"


def test_every_interleaving_of_two_rounds_converges(tmp_path: Path) -> None:
    for n, order in enumerate(sorted(set(itertools.permutations("aabb")))):
        a, b, shared = _start(tmp_path / str(n))
        _offline_edits(a, b)
        a.update("i-use-neovim", statement="I use Helix")
        b.update("i-use-neovim", statement="I use Emacs")
        devices = {"a": a, "b": b}
        for who in order:
            sync_folder(devices[who], shared)
        for who in "ab":
            sync_folder(devices[who], shared)
        assert _all(a) == _all(b), order
        _check_working_layer(a, b)


def _cli(
    home: Path, cwd: Path, *args: str, crash: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "MEMDIR_TEST_CRASH"}
    env["MEMDIR_HOME"] = str(home)
    if crash:
        env["MEMDIR_TEST_CRASH"] = crash
    return subprocess.run(
        [sys.executable, "-m", "memdir.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_killed_sync_loses_and_doubles_nothing(tmp_path: Path) -> None:
    a, b, shared = _start(tmp_path)
    for n in range(5):
        a.remember(f"I own guitar number {n}", type="user")
    a.log_note("A: restrung guitar number 3", now=RECENT)
    sync_folder(a, shared)
    b_home, b_cwd = tmp_path / "b" / "home", tmp_path / "b"
    killed = _cli(b_home, b_cwd, "sync", str(shared), crash="sync-applied:2")
    assert killed.returncode == -9
    assert len([n for n in b.store("user").memory_names() if "guitar" in n]) == 2
    again = _cli(b_home, b_cwd, "sync", str(shared), "--json")
    assert again.returncode == 0, again.stderr
    b2 = Memory(home=b_home, cwd=b_cwd)
    assert _files(b2) == _files(a)
    creates = [c for c in b2.history() if c.op == "create" and "guitar" in c.name]
    assert len(creates) == 5  # each written once: nothing doubled in the files or the log
    assert _all(b2) == _all(a)  # the daily log too
    journal = (b2.store("user").dirs.history / "logs.jsonl").read_text().splitlines()
    today = [k for k in _all(a) if k.startswith("log/") and DAY not in k]
    assert len([line for line in journal if today[0] in line]) == 1  # journaled once


def test_cli_lists_conflicts(tmp_path: Path) -> None:
    a, b, shared = _start(tmp_path)
    a.update("i-use-neovim", statement="I use Helix")
    b.update("i-use-neovim", statement="I use Emacs")
    sync_folder(a, shared)
    done = _cli(tmp_path / "b" / "home", tmp_path / "b", "sync", str(shared))
    assert done.returncode == 0, done.stderr
    assert (
        "conflict" in done.stdout and "i-use-neovim" in done.stdout and "tentative" in done.stdout
    )


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_sync_through_a_git_remote(tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
    a, b = _device(tmp_path, "a"), _device(tmp_path, "b")
    a.remember("I prefer tabs in Python", type="user")
    b.remember("I use Neovim", type="user")
    url = remote.as_uri()
    for mem in (a, b, a):
        sync_git(mem, url)
    assert _files(a) == _files(b) and len(_files(a)) == 2


def test_conflict_copy_of_a_long_name_is_still_a_valid_name(tmp_path: Path) -> None:
    from memdir.records import check_name

    a, b, shared = _device(tmp_path, "a"), _device(tmp_path, "b"), tmp_path / "shared"
    long = "n" * 80
    a.remember("I keep a very long name", type="user", name=long)
    sync_folder(a, shared)
    sync_folder(b, shared)
    a.update(long, statement="I keep a very long name, version A")
    b.update(long, statement="I keep a very long name, version B")
    for mem in (a, b, a):
        sync_folder(mem, shared)
    names = [n[:-3] for n in a.store("user").memory_names()]
    assert len(names) == 2 and all(check_name(n) == n for n in names)
    assert _files(a) == _files(b)


def test_a_log_extended_on_one_side_and_compressed_on_the_other_keeps_every_line(
    tmp_path: Path,
) -> None:
    a, b, shared = _start(tmp_path)
    assert a.sleep().run  # A compresses the old day
    b.log_note("B: a late note about that day", now=OLD)  # B adds to it
    for mem in (a, b, a, b):
        sync_folder(mem, shared)
    assert _all(a) == _all(b)
    live = _all(a)[f"log/{DAY}.md"].decode()
    assert "flaky deploy" in live and "a late note" in live  # the extended log stands
    assert a.doctor() == [] and b.doctor() == []


def test_merging_two_logs_is_symmetric_and_loses_no_line() -> None:
    head = [b"# Log 2026-01-01\n", b"\n", b"- 09:00:00Z (user) start\n"]
    mine = [*head, b"- 10:00:00Z (user) mine\n", b"- 12:00:00Z (user) same\n"]
    theirs = [*head, b"- 11:00:00Z (user) theirs\n", b"- 12:00:00Z (user) same\n"]
    merged = merge_log_lines(mine, theirs)
    assert merged == merge_log_lines(theirs, mine)
    assert merged == [
        *head,
        b"- 10:00:00Z (user) mine\n",
        b"- 11:00:00Z (user) theirs\n",
        b"- 12:00:00Z (user) same\n",
    ]
    assert merge_log_lines(head, mine) == mine  # only added lines: taken as it is
    assert merge_log_lines(merged, mine) == merged


def test_dry_run_shows_the_log_merge_and_writes_nothing(tmp_path: Path, sandbox: Path) -> None:
    from conftest import snapshot

    a, b, shared = _start(tmp_path)
    a.log_note("A: tried the canary deploy", now=RECENT)
    b.log_note("B: read the runbook", now=RECENT)
    sync_folder(a, shared)
    before = snapshot(tmp_path)
    report = sync_folder(b, shared, dry_run=True)
    assert [m["name"] for m in report.merged] == [f"log/{RECENT:%Y-%m-%d}.md"]
    assert snapshot(tmp_path) == before
