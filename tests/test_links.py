"""Issue 26, class 2: a symbolic link under a scope never leads memdir out of it.

A cloned repository can ship links in its ``.agent/``: every file memdir reads or writes under a
scope — memories, archive, log, sessions, history, index, policy — is refused when a link leads
out (``LinkError`` naming the link and how to fix it), and the link's target is neither read
nor written. Links that stay inside the scope are followed as before.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from memdir import Memory
from memdir.cli import main
from memdir.errors import LinkError
from memdir.files import inside


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside every scope, with one file in it that must stay untouched."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "secret.md").write_text("---\nname: secret\ntype: user\ndescription: s\n---\nx\n")
    return folder


def _untouched(folder: Path) -> None:
    assert sorted(p.name for p in folder.iterdir()) == ["secret.md"]  # no .index/, no log


def _error(capsys: pytest.CaptureFixture[str], args: list[str]) -> str:
    assert main(args) != 0
    err = capsys.readouterr().err
    assert "symbolic link that leads out of" in err and "replace the link" in err
    return err


def test_inside_allows_links_that_stay_and_refuses_links_out(tmp_path: Path) -> None:
    root = tmp_path / "scope"
    (root / "real").mkdir(parents=True)
    (root / "in").symlink_to(root / "real")
    (root / "out").symlink_to(tmp_path)
    assert inside(root, root / "in" / "x.md") == root / "in" / "x.md"
    with pytest.raises(LinkError) as caught:
        inside(root, root / "out" / "x.md")
    assert caught.value.path == root / "out"  # names the link, not the file below it


def test_list_and_recall_archived_refuse_a_linked_archive(
    mem: Memory, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mem.remember("kept fact", type="project")
    store = mem.store("project")
    store.dirs.archive.symlink_to(outside)
    err = _error(capsys, ["list", "--archived"])
    assert str(store.dirs.archive) in err
    _error(capsys, ["recall", "secret", "--archived"])
    _untouched(outside)
    store.dirs.archive.unlink()  # what the message says to do
    assert [r.statement for r in Memory().list()] == ["kept fact"]  # nothing lost


def test_memdir_log_refuses_a_linked_log_folder(
    mem: Memory, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mem.store("project").dirs.log.symlink_to(outside)
    err = _error(capsys, ["log", "the build takes ten minutes"])
    assert "log" in err
    _untouched(outside)


@pytest.mark.parametrize("folder", [".history", ".index"])
def test_a_linked_history_or_index_folder_is_refused_on_write(
    mem: Memory, outside: Path, capsys: pytest.CaptureFixture[str], folder: str
) -> None:
    store = mem.store("project")
    rec = mem.remember("first", type="project")
    link = store.dirs.memory / folder
    os.rename(link, outside / "moved")  # the real folder goes away; a link takes its place
    link.symlink_to(outside)
    before = sorted(p.name for p in outside.iterdir())
    err = _error(capsys, ["remember", "second", "--type", "project"])
    assert str(link) in err
    assert sorted(p.name for p in outside.iterdir()) == before  # nothing written through it
    link.unlink()
    os.rename(outside / "moved", link)
    assert [r.name for r in Memory().list()] == [rec.name]  # nothing lost


def test_sessions_show_and_resume_refuse_a_linked_session_file(
    mem: Memory, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = outside / "foreign.jsonl"
    line = {"type": "user", "ts": "2026-01-01T00:00:00.000Z", "content": {"role": "user"}}
    target.write_text(json.dumps(line) + "\n")
    folder = mem.sessions_dir()
    folder.mkdir(parents=True, exist_ok=True)
    sid = "20260101-000000-abcd"
    (folder / f"{sid}.jsonl").symlink_to(target)
    data = target.read_bytes()
    err = _error(capsys, ["sessions", "show", sid])
    assert f"{sid}.jsonl" in err
    _error(capsys, ["sessions", "resume", sid])
    assert target.read_bytes() == data  # not appended to
    assert main(["sessions", "list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []  # not listed (nor read) either


def test_a_linked_policy_file_is_refused(
    mem: Memory, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (outside / "policy.yaml").write_text("sessions:\n  keep_days: 1\n")
    policy = mem.project_root / ".agent" / "memory-policy.yaml"  # type: ignore[operator]
    policy.symlink_to(outside / "policy.yaml")
    with pytest.raises(LinkError, match=r"memory-policy\.yaml"):
        mem.policy()


def test_a_link_that_stays_inside_the_scope_still_works(mem: Memory) -> None:
    store = mem.store("project")
    real = store.dirs.memory / "notes"
    real.mkdir()
    store.dirs.log.symlink_to(real)
    mem.log_note("the build takes ten minutes")
    assert list(real.iterdir())  # followed: it stays inside the scope


# -- the scope's own folder: a cloned .agent (or .agent/memory) that is a link out ------------
DOORS = [
    ["remember", "we deploy on fridays", "--type", "project"],
    ["list"],
    ["recall", "fridays"],
    ["show", "secret"],
    ["history"],
    ["doctor"],
    ["reindex"],
    ["init"],
    ["context"],
    ["log", "the build takes ten minutes"],
]
SESSION_DOORS = [["sessions", "list"], ["sessions", "show", "20260101-000000-abcd"]]


@pytest.mark.parametrize(
    ("linked", "doors"),
    [
        (".agent", DOORS + SESSION_DOORS),
        (".agent/memory", DOORS),
        (".agent/sessions", SESSION_DOORS),
    ],
)
def test_a_project_scope_folder_linked_out_of_the_project_is_refused_at_every_door(
    sandbox: Path,
    outside: Path,
    capsys: pytest.CaptureFixture[str],
    linked: str,
    doors: list[list[str]],
) -> None:
    """A cloned repository's ``.agent`` (or a folder in it) pointing anywhere else: no
    command reads, lists or writes through it (not even a ``.index/`` or a lock); the user
    scope's memories are all still there once the link is replaced."""
    Memory().remember("I like tea", type="user")
    project = sandbox / "project"
    if linked != ".agent":
        (project / ".agent").mkdir()
    (project / linked).symlink_to(outside)
    for args in doors:
        err = _error(capsys, args)
        assert f"{project / linked}:" in err, (args, err)
    _untouched(outside)
    (project / linked).unlink()  # what the message says to do
    assert [r.statement for r in Memory().list()] == ["I like tea"]  # nothing lost


def test_a_dangling_agent_link_is_not_created_through(
    sandbox: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project, target = sandbox / "project", sandbox / "nowhere"
    (project / ".agent").symlink_to(target)  # the target does not exist yet
    _error(capsys, ["remember", "we deploy on fridays", "--type", "project"])
    _error(capsys, ["init"])
    assert not os.path.lexists(target)  # nothing was made at the far end of the link


def test_an_agent_folder_linked_inside_the_project_still_works(sandbox: Path) -> None:
    project = sandbox / "project"
    (project / "config" / "agent").mkdir(parents=True)
    (project / ".agent").symlink_to(project / "config" / "agent")
    rec = Memory().remember("we deploy on fridays", type="project")
    assert (project / "config" / "agent" / "memory" / f"{rec.name}.md").is_file()
    assert [r.name for r in Memory().list()] == [rec.name]
    with Memory().session() as session:
        session.append({"role": "user", "content": "hello"})
    assert list((project / "config" / "agent" / "sessions").glob("*.jsonl"))


def test_a_project_instruction_file_linked_out_is_not_read(
    sandbox: Path, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A committed ``AGENT.md`` that is a link to a file of the person's never reaches the
    model; the other levels still do, and ``context`` names the link."""
    project = sandbox / "project"
    (outside / "private.md").write_text("PRIVATE KEY MATERIAL\n")
    (project / "AGENT.md").symlink_to(outside / "private.md")
    (sandbox / "home").mkdir()
    (sandbox / "home" / "AGENT.md").write_text("answer briefly\n")
    result = Memory().instructions()
    assert "PRIVATE KEY MATERIAL" not in result.text and "answer briefly" in result.text
    [problem] = result.problems
    assert problem.path == project / "AGENT.md" and "replace the link" in problem.reason
    assert main(["context"]) == 0
    out = capsys.readouterr()
    assert "PRIVATE KEY MATERIAL" not in out.out and "answer briefly" in out.out


@pytest.mark.parametrize("name", ["index.sqlite", "index.sqlite-wal", "sync.lock"])
def test_a_derived_file_linked_out_is_refused_and_its_target_untouched(
    mem: Memory, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """Session 11's walk: ``.index/`` was checked, the files in it were not — an
    ``index.sqlite`` linked to a database elsewhere was opened and written (WAL mode, then set
    aside as damaged), a ``-wal`` link would take sqlite's writes."""
    import hashlib
    import sqlite3

    rec = mem.remember("The project uses Postgres", type="project")
    mem.recall("postgres")  # the index exists
    target = tmp_path / "elsewhere.sqlite"
    db = sqlite3.connect(target)
    db.execute("CREATE TABLE t(x)")
    db.commit()
    db.close()
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    link = mem.store("project").dirs.derived / name
    link.unlink(missing_ok=True)
    link.symlink_to(target)
    err = _error(capsys, ["recall", "postgres"])
    assert str(link) in err
    assert hashlib.sha256(target.read_bytes()).hexdigest() == digest
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("elsewhere")) == [
        "elsewhere.sqlite"
    ]
    link.unlink()
    assert [h.record.name for h in Memory().recall("postgres")] == [rec.name]  # nothing lost


class _SwapOnOpen:
    """Swaps a file for a symbolic link at the moment memdir opens it — after its checks, before
    the open itself (issue 26: the check-then-open race). Synchronised by the interpreter's own
    ``open`` audit event, which fires before the system call: no sleep, no patched memdir code.
    One hook for the run (audit hooks cannot be removed); armed for one swap at a time."""

    def __init__(self) -> None:
        self.armed: tuple[str, Path] | None = None
        self.swapped = 0
        sys.addaudithook(self._hook)

    def arm(self, path: Path, target: Path) -> None:
        self.armed, self.swapped = (os.path.abspath(path), target), 0

    def _hook(self, event: str, args: tuple[object, ...]) -> None:
        if event != "open" or self.armed is None or not args:
            return
        opened = args[0]
        if not isinstance(opened, str | bytes | os.PathLike):
            return
        path, target = self.armed
        if os.path.abspath(os.fsdecode(opened)) == path:
            self.armed = None
            os.unlink(path)
            os.symlink(target, path)
            self.swapped += 1


SWAP = _SwapOnOpen()


def test_a_memory_swapped_for_a_link_between_check_and_open_is_not_read(
    mem: Memory, outside: Path
) -> None:
    mem.remember("kept fact", type="project")
    [record] = mem.list()
    secret = outside / "secret.md"
    before = secret.read_bytes()
    store = Memory().store("project")  # a fresh store: nothing of the file is cached yet
    SWAP.arm(record.path, secret)
    with pytest.raises(LinkError) as caught:
        store.read(record.name)
    assert SWAP.swapped == 1 and record.path.is_symlink()
    message = str(caught.value)
    assert caught.value.path == record.path
    assert "symbolic link that leads out of" in message and "replace the link" in message
    assert secret.read_bytes() == before
    _untouched(outside)


def test_a_memory_swapped_for_a_link_before_a_write_reads_and_writes_nothing_out(
    mem: Memory, outside: Path
) -> None:
    """The write path reads what it replaces into the history (``.history/objects``): through
    a link swapped in it would copy the outside file into the scope, then replace the link."""
    mem.remember("kept fact", type="project")
    [record] = mem.list()
    secret = outside / "secret.md"
    before = secret.read_bytes()
    store = mem.store("project")
    store.read(record.name)  # the write's own read is done: the swap hits the write's open
    objects = store.dirs.objects
    kept = sorted(p.read_bytes() for p in objects.rglob("*") if p.is_file())
    SWAP.arm(record.path, secret)
    with pytest.raises(LinkError) as caught:
        mem.forget(record.name)
    assert SWAP.swapped == 1
    assert "symbolic link that leads out of" in str(caught.value)
    assert secret.read_bytes() == before and record.path.is_symlink()
    assert sorted(p.read_bytes() for p in objects.rglob("*") if p.is_file()) == kept
    _untouched(outside)


def test_the_lock_files_swapped_for_links_are_not_written_through(
    mem: Memory, outside: Path
) -> None:
    mem.remember("kept fact", type="project")
    store = mem.store("project")
    ticket = store.dirs.lock.with_name(store.dirs.lock.name + ".queue") / "ticket"
    secret = outside / "secret.md"
    before = secret.read_bytes()
    SWAP.arm(ticket, secret)
    with pytest.raises(LinkError) as caught:
        mem.remember("another fact", type="project")
    assert SWAP.swapped == 1 and caught.value.path == ticket
    assert "is a symbolic link; memdir does not follow it" in str(caught.value)
    assert secret.read_bytes() == before
    assert [r.statement for r in mem.list()] == ["kept fact"]
    _untouched(outside)
