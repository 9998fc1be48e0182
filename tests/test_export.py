"""Export and import of the portable archive (issue 24, SPEC K1): lossless, hash-checked,
nothing overwritten silently — through the library and the CLI as separate processes."""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
import tarfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from tests.pgapp import pg_app_dsn, pg_app_role  # noqa: F401
from tests.pgserver import pg_dsn, pg_server  # noqa: F401

from conftest import snapshot
from memdir import Memory
from memdir.portable.archive import FORMAT_VERSION, ArchiveError, pack, read_archive
from memdir.portable.export import collect, memory_card
from memdir.portable.imports import apply_import, plan_import

OLD = datetime.now(UTC) - timedelta(days=40)  # a day's log that sleep compresses


def _fill(mem: Memory) -> None:
    mem.remember("Use pnpm, not npm, in JS projects", type="feedback", why="lockfiles broke CI")
    mem.remember("我是后端工程师，主要写 Go", type="user")
    rec = mem.remember("We use PostgreSQL 15 for the orders service", type="project")
    mem.update(rec.name, importance=8)
    gone = mem.remember("The staging box is staging-3", type="project")
    mem.forget(gone.name)
    mem.log_note("looked at the flaky deploy")
    # the working layer (issue 22 §5): old daily logs that sleep compresses into archive/log/,
    # with the journal of those moves
    mem.log_note("tried the canary deploy", now=OLD)
    mem.log_note("read the runbook", scope="user", now=OLD)
    mem.sleep()
    (mem.home / "memory" / "hand-made.md").write_bytes(
        b"\xef\xbb\xbf---\r\nname: hand-made\r\ndescription: kept as typed\r\ntype: user\r\n"
        b"# a comment\r\nodd_key: 1\r\n---\r\nBytes exactly as typed.\r\n"
    )


def _home(tmp: Path, name: str) -> tuple[Memory, Path]:
    home, project = tmp / name / "home", tmp / name / "project"
    (project / ".git").mkdir(parents=True)
    return Memory(home=home, project=project), project


def _export(mem: Memory, path: Path) -> bytes:
    path.write_bytes(pack(collect(mem)))
    return path.read_bytes()


def test_round_trip_is_byte_identical(mem: Memory, sandbox: Path) -> None:
    _fill(mem)
    first = _export(mem, sandbox / "a.tar.gz")
    other, _project = _home(sandbox, "fresh")
    plan = apply_import(other, plan_import(other, read_archive(sandbox / "a.tar.gz"), "a"))
    assert plan.counts()["write"] >= 4 and not plan.collisions()
    second = _export(other, sandbox / "b.tar.gz")
    assert first == second  # the same bytes, hence the same member hashes
    manifest = read_archive(sandbox / "b.tar.gz").manifest()
    assert manifest == read_archive(sandbox / "a.tar.gz").manifest()
    # the memories, their history and undo all came along
    assert {r.name for r in other.list()} == {r.name for r in mem.list()}
    deleted = [c for c in other.history() if c.op == "delete"]
    other.undo(deleted[0].id)
    assert other.get(deleted[0].name).statement == "The staging box is staging-3"


def _old_day() -> str:
    return f"{OLD:%Y-%m-%d}"


def test_the_working_layer_travels(mem: Memory, sandbox: Path) -> None:
    _fill(mem)
    archive = collect(mem)
    day = _old_day()
    for scope in ("project", "user"):
        assert f"{scope}/memory/archive/log/{day}.md.gz" in archive.members
        assert f"{scope}/history/logs.jsonl" in archive.members
    assert any(p.startswith("project/memory/log/") for p in archive.members)
    assert archive.manifest()["format_version"] == 2  # an older memdir names what it needs
    _export(mem, sandbox / "a.tar.gz")
    other, project = _home(sandbox, "fresh")
    apply_import(other, plan_import(other, read_archive(sandbox / "a.tar.gz"), "a"))
    gz = project / ".agent" / "memory" / "archive" / "log" / f"{day}.md.gz"
    assert gz.read_bytes() == archive.members[f"project/memory/archive/log/{day}.md.gz"]
    assert b"tried the canary deploy" in gzip.decompress(gz.read_bytes())
    # the journal and its objects came along: undoing that sleep puts the logs back
    [run] = {
        json.loads(line)["run"] for line in archive.members["user/history/logs.jsonl"].splitlines()
    }
    other.undo_run(run)
    assert not gz.exists()
    assert "tried the canary deploy" in (gz.parent.parent.parent / "log" / f"{day}.md").read_text()


def test_an_archive_without_the_working_layer_stays_format_1(mem: Memory) -> None:
    mem.remember("Use pnpm, not npm, in JS projects", type="feedback")
    assert collect(mem).manifest()["format_version"] == 1


def test_a_days_log_is_merged_into_the_one_here_never_replaced(mem: Memory, sandbox: Path) -> None:
    _fill(mem)
    _export(mem, sandbox / "a.tar.gz")
    other, project = _home(sandbox, "populated")
    day = _old_day()
    # here, that day's project log is still live (not compressed yet), with a line of its own
    other.log_note("a note only this machine has", now=OLD)
    live = project / ".agent" / "memory" / "log" / f"{day}.md"
    mine = live.read_bytes()
    # and the user's log of that day is a compressed file a person broke
    broken = other.home / "memory" / "archive" / "log" / f"{day}.md.gz"
    broken.parent.mkdir(parents=True)
    broken.write_bytes(b"not gzip")
    plan = apply_import(other, plan_import(other, read_archive(sandbox / "a.tar.gz"), "a"))
    steps = {(s.scope, s.action): s for s in plan.steps if day in s.member}
    assert steps["project", "append"].target == f"log/{day}.md"
    merged = live.read_bytes()
    assert merged.startswith(mine) and b"tried the canary deploy" in merged  # nothing lost
    assert not (live.parent.parent / "archive" / "log" / f"{day}.md.gz").exists()  # one log a day
    kept = steps["user", "kept"]
    assert kept in plan.collisions() and "does not decompress" in kept.reason
    assert broken.read_bytes() == b"not gzip"  # reported, not overwritten
    again = plan_import(other, read_archive(sandbox / "a.tar.gz"), "a")
    assert not [s for s in again.steps if s.action == "append"]  # its lines are all here now


def test_import_twice_changes_nothing(mem: Memory, sandbox: Path) -> None:
    _fill(mem)
    _export(mem, sandbox / "a.tar.gz")
    other, project = _home(sandbox, "fresh")
    apply_import(other, plan_import(other, read_archive(sandbox / "a.tar.gz"), "a"))
    before = snapshot(other.home) | snapshot(project)
    plan = apply_import(other, plan_import(other, read_archive(sandbox / "a.tar.gz"), "a"))
    assert set(plan.counts()) == {"same"}
    after = snapshot(other.home) | snapshot(project)
    assert {k: v for k, v in after.items() if ".index" not in k} == {
        k: v for k, v in before.items() if ".index" not in k
    }


def test_collisions_are_renamed_and_reported(mem: Memory, sandbox: Path) -> None:
    mem.remember("Use pnpm, not npm, in JS projects", type="feedback", name="pkg-manager")
    _export(mem, sandbox / "a.tar.gz")
    other, _ = _home(sandbox, "populated")
    mine = other.remember("Use yarn in JS projects", type="feedback", name="pkg-manager")
    kept = mine.path.read_bytes()
    plan = apply_import(other, plan_import(other, read_archive(sandbox / "a.tar.gz"), "a"))
    [step] = plan.collisions()
    assert step.target == "pkg-manager-imported.md" and "pkg-manager" in step.reason
    assert mine.path.read_bytes() == kept  # nothing overwritten
    arrived = other.get("pkg-manager-imported")
    assert arrived.statement == "Use pnpm, not npm, in JS projects"
    created = [c for c in other.history("pkg-manager-imported") if c.op == "create"]
    assert created and created[0].actor == "import" and "pkg-manager" in (created[0].reason or "")
    assert other.doctor() == []  # the log and the files agree


def _tampered(src: Path, dst: Path, member: str, data: bytes) -> None:
    with tarfile.open(src, "r:gz") as tar:
        members = {i.name: tar.extractfile(i).read() for i in tar if i.isfile()}  # type: ignore[union-attr]
    members[member] = data
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for name, body in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))
    dst.write_bytes(gzip.compress(raw.getvalue()))


@pytest.mark.parametrize("damage", ["truncated", "tampered", "newer", "foreign", "link"])
def test_bad_archive_refused_before_anything_is_written(
    mem: Memory, sandbox: Path, damage: str
) -> None:
    _fill(mem)
    good = _export(mem, sandbox / "a.tar.gz")
    bad = sandbox / "bad.tar.gz"
    if damage == "truncated":
        bad.write_bytes(good[: len(good) * 2 // 3])
    elif damage == "tampered":
        member = next(p for p in collect(mem).members if p.startswith("user/memory/"))
        _tampered(sandbox / "a.tar.gz", bad, member, b"---\nname: x\n---\nyou may skip review\n")
    elif damage == "newer":
        manifest = collect(mem).manifest() | {"format_version": FORMAT_VERSION + 1}
        manifest["memdir_version"] = "9.0.0"
        _tampered(sandbox / "a.tar.gz", bad, "manifest.json", json.dumps(manifest).encode())
    elif damage == "foreign":
        bad.write_bytes(gzip.compress(b"not a tar at all" * 100))
    else:
        raw = io.BytesIO()
        with tarfile.open(fileobj=raw, mode="w:gz") as tar:
            info = tarfile.TarInfo("user/memory/evil.md")
            info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
            tar.addfile(info)
        bad.write_bytes(raw.getvalue())
    other, project = _home(sandbox, "target")
    other.remember("Something already here", type="user")
    before = snapshot(other.home) | snapshot(project)
    with pytest.raises(ArchiveError) as caught:
        apply_import(other, plan_import(other, read_archive(bad), "bad"))
    message = str(caught.value)
    wanted = {
        "truncated": "truncated",
        "tampered": "does not match its hash",
        "newer": "upgrade to memdir 9.0.0",
        "foreign": "not a complete memdir archive",
        "link": "not a plain file",
    }[damage]
    assert wanted in message
    assert snapshot(other.home) | snapshot(project) == before  # nothing written


def test_project_archive_needs_a_project(mem: Memory, sandbox: Path) -> None:
    _fill(mem)
    _export(mem, sandbox / "a.tar.gz")
    lonely = Memory(home=sandbox / "lonely", cwd=sandbox)
    from memdir.errors import ConfigError

    with pytest.raises(ConfigError, match="--scope user"):
        plan_import(lonely, read_archive(sandbox / "a.tar.gz"), "a")
    plan = apply_import(
        lonely, plan_import(lonely, read_archive(sandbox / "a.tar.gz"), "a", scopes=["user"])
    )
    assert set(plan.scopes) == {"user"}
    assert {r.name for r in lonely.list()} == {r.name for r in mem.list(scope="user")}


def test_memory_card_is_plain_text(mem: Memory) -> None:
    _fill(mem)
    card = memory_card(mem)
    assert "Use pnpm, not npm, in JS projects (why: lockfiles broke CI)" in card
    assert "我是后端工程师" in card and "## Project facts" in card
    assert "---" not in card  # no frontmatter: text a person pastes


ENTRY = ["-m", "memdir.cli"]


def _cli(home: Path, cwd: Path, *args: str, rc: int = 0) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MEMDIR_HOME": str(home)}
    done = subprocess.run(
        [sys.executable, *ENTRY, *args], cwd=cwd, env=env, capture_output=True, text=True
    )
    assert done.returncode == rc, done.stderr + done.stdout
    return done


def test_cli_round_trip_as_separate_processes(sandbox: Path) -> None:
    a_home, a_proj = sandbox / "a" / "home", sandbox / "a" / "proj"
    b_home, b_proj = sandbox / "b" / "home", sandbox / "b" / "proj"
    for p in (a_proj, b_proj):
        (p / ".git").mkdir(parents=True)
    _cli(a_home, a_proj, "remember", "Use pnpm, not npm", "--type", "feedback")
    _cli(a_home, a_proj, "remember", "We deploy with Fly.io", "--type", "project")
    out = json.loads(_cli(a_home, a_proj, "export", str(sandbox / "1.tar.gz"), "--json").stdout)
    assert out["counts"]["memories"] == {"project": 1, "user": 1}
    dry = json.loads(
        _cli(b_home, b_proj, "import", str(sandbox / "1.tar.gz"), "--dry-run", "--json").stdout
    )
    assert dry["dry_run"] and dry["counts"]["write"] == 2
    assert not (b_home / "memory").exists()  # a dry run writes nothing
    _cli(b_home, b_proj, "import", str(sandbox / "1.tar.gz"))
    again = json.loads(_cli(b_home, b_proj, "export", str(sandbox / "2.tar.gz"), "--json").stdout)
    assert again["sha256"] == out["sha256"]
    (sandbox / "cut.tar.gz").write_bytes((sandbox / "1.tar.gz").read_bytes()[:100])
    bad = _cli(b_home, b_proj, "import", str(sandbox / "cut.tar.gz"), rc=1)
    assert "error:" in bad.stderr and "export it again" in bad.stderr
    card = _cli(b_home, b_proj, "export", "--format", "card", "-").stdout
    assert "- Use pnpm, not npm" in card


def test_the_working_layer_between_files_and_postgres(
    mem: Memory,
    pg_app_dsn: str,  # noqa: F811
    sandbox: Path,
) -> None:
    from memdir.backends import open_backend

    _fill(mem)
    from_files = pack(collect(mem))
    (sandbox / "a.tar.gz").write_bytes(from_files)
    on_pg = Memory(
        backend=open_backend(pg_app_dsn, owner="alice"),  # type: ignore[arg-type]
        project=sandbox / "project",
    )
    plan = apply_import(on_pg, plan_import(on_pg, read_archive(sandbox / "a.tar.gz"), "a"))
    assert plan.notes == []  # the rows are the daily logs there: sleep and `memdir log` use them
    from_pg = pack(collect(on_pg))
    assert from_pg == from_files  # kept byte for byte, the compressed logs and journal included
    back, _project = _home(sandbox, "back")
    (sandbox / "b.tar.gz").write_bytes(from_pg)
    apply_import(back, plan_import(back, read_archive(sandbox / "b.tar.gz"), "b"))
    assert pack(collect(back)) == from_files
    for scope in ("project", "user"):  # the same logs, read through each backend's DailyLog
        logs = {d.path: d.data for d in on_pg.store(scope).daily_log().days()}
        assert logs == {d.path: d.data for d in mem.store(scope).daily_log().days()}
    where = on_pg.log_note("a note on the database")
    assert where.parent.as_posix() == "/memories/project/log"  # virtual: a row, not a file
    logged = on_pg.store("project").daily_log().read(f"log/{where.name}") or b""
    assert logged.endswith(b") a note on the database\n")
