"""The read-only wiki view (issue 24 step 4, SPEC K4): generated from the user's memory,
regenerated only when it changed, and a hand edit there is reported and kept, never lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from memdir import Memory
from memdir.agent import Agent, AgentEvent
from memdir.portable.wiki import SECTIONS, is_current, project, workspace
from memdir.providers import OpenAIChat
from scripted_model import Say, serve
from waiting import HANG_GUARD_S


def _fill(mem: Memory) -> None:
    mem.remember("I prefer tabs in Python", type="feedback", tags=["python"], importance=8)
    mem.remember("I live in Lisbon", type="user", tags=["lisbon"])
    mem.remember("Our wiki lives at wiki.example.org", type="reference", scope="user")


def test_projection_layout_and_content(mem: Memory) -> None:
    _fill(mem)
    report = project(mem)
    root = workspace(mem)
    assert report.regenerated and root == mem.project_root / ".memory"  # type: ignore[operator]
    for name in ("hot.md", "index.md", "log.md"):
        assert (root / name).is_file()
    for section in SECTIONS:
        assert (root / "wiki" / section).is_dir()
    assert "I prefer tabs in Python" in (root / "hot.md").read_text()
    index = (root / "index.md").read_text()
    assert "(wiki/concepts/i-prefer-tabs-in-python.md)" in index
    assert "(wiki/references/our-wiki-lives-at-wiki-example-org.md)" in index
    assert (root / "wiki" / "entities" / "python.md").is_file()
    assert list((root / "wiki" / "journal").glob("*.md"))
    assert "create `i-live-in-lisbon`" in (root / "log.md").read_text()


def test_regenerated_only_when_the_store_changed(mem: Memory) -> None:
    _fill(mem)
    project(mem)
    assert is_current(mem)
    assert not project(mem).regenerated
    mem.forget("i-live-in-lisbon")
    assert not is_current(mem)
    assert project(mem).regenerated
    root = workspace(mem)
    assert not (root / "wiki" / "concepts" / "i-live-in-lisbon.md").exists()


def test_hand_edit_is_reported_and_kept(mem: Memory) -> None:
    _fill(mem)
    project(mem)
    page = workspace(mem) / "wiki" / "concepts" / "i-prefer-tabs-in-python.md"
    page.write_text("# my own notes, typed here by hand\n", encoding="utf-8")
    report = project(mem)
    assert report.regenerated and len(report.hand_edits) == 1
    kept = Path(report.hand_edits[0]["kept_at"])
    assert kept.read_text() == "# my own notes, typed here by hand\n"
    assert "I prefer tabs in Python" in page.read_text()  # the page shows the memory again
    page.write_text("# a second edit\n", encoding="utf-8")
    second = Path(project(mem).hand_edits[0]["kept_at"])
    assert second != kept and kept.read_text().startswith("# my own")  # the first one stays


def test_a_page_the_projection_did_not_write_is_never_overwritten(mem: Memory) -> None:
    _fill(mem)
    root = workspace(mem)
    root.mkdir()
    (root / "index.md").write_text("# my own index, made before `memdir wiki`\n", "utf-8")
    first = project(mem)
    assert [Path(e["kept_at"]).read_text() for e in first.hand_edits] == [
        "# my own index, made before `memdir wiki`\n"
    ]
    page = root / "hot.md"
    page.write_text("# edited by hand\n", encoding="utf-8")
    (root / ".projection.json").unlink()  # and the record of what was written is lost
    second = project(mem)
    kept = [Path(e["kept_at"]) for e in second.hand_edits if e["file"] == str(page)]
    assert [k.read_text() for k in kept] == ["# edited by hand\n"]
    assert "Hot memory" in page.read_text()


def test_cli(sandbox: Path) -> None:
    env = {**os.environ}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "memdir.cli", *args],
            cwd=sandbox / "project",
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )

    assert run("remember", "I prefer tabs in Python", "--type", "feedback").returncode == 0
    assert run("wiki", "--check").returncode == 1
    done = json.loads(run("wiki", "--json").stdout)
    assert done["regenerated"] and done["files"] >= 4
    assert run("wiki", "--check").returncode == 0
    assert "nothing to do" in run("wiki").stdout


# -- the agent loop keeps the view fresh (issue 24 item 4) ------------------------------------
def _files(root: Path) -> dict[str, tuple[int, int, int]]:
    """Every file under ``root`` with (inode, size, mtime_ns): an atomic rewrite changes the
    inode, an in-place one the mtime — either shows, no clock involved."""
    return {
        str(p.relative_to(root)): (p.stat().st_ino, p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _agent_turns(mem: Memory, *texts: str) -> list[list[AgentEvent]]:
    out = []
    with serve(lambda r: Say("Noted.")) as (_, url):
        agent = Agent(mem, OpenAIChat("test-model", base_url=f"{url}/v1", api_key="sk-test"))
        try:
            for text in texts:
                out.append(list(agent.send(text)))
                assert mem.flush_extraction(timeout=HANG_GUARD_S)  # the background pass is done
        finally:
            agent.close()
    return out


def test_agent_never_creates_the_wiki(mem: Memory, sandbox: Path) -> None:
    _agent_turns(mem, "Remember that I prefer tabs in Python", "What do I prefer?")
    assert mem.list()  # the turn stored something: the store did change
    assert not (mem.project_root / ".memory").exists()  # type: ignore[operator]
    assert not list(sandbox.rglob(".memory"))


def test_agent_regenerates_the_wiki_before_a_turn_when_the_store_changed(mem: Memory) -> None:
    _fill(mem)
    project(mem)
    root = workspace(mem)
    mem.remember("I drink my coffee black", type="user")
    assert not is_current(mem)
    [first, second] = _agent_turns(mem, "Hello there", "Remember that I prefer dark mode")
    assert "I drink my coffee black" in (root / "index.md").read_text()  # before turn 1
    assert "dark mode" in (root / "index.md").read_text()  # stored in turn 2, shown at once
    assert is_current(mem) and not [e for e in first + second if e.kind == "notice"]


def test_a_turn_with_an_unchanged_store_reads_and_writes_nothing_in_the_wiki(mem: Memory) -> None:
    _fill(mem)
    project(mem)
    root = workspace(mem)
    _agent_turns(mem, "Hello there")  # the first turn records the stamp (no re-render needed)
    before = _files(root)
    _agent_turns(mem, "How are you?", "And the weather?")
    assert _files(root) == before  # nothing rewritten, the stamp included
    assert is_current(mem)


def test_a_hand_edit_in_the_wiki_survives_the_agent(mem: Memory) -> None:
    _fill(mem)
    project(mem)
    page = workspace(mem) / "wiki" / "concepts" / "i-prefer-tabs-in-python.md"
    page.write_text("# my notes, typed by hand\n", encoding="utf-8")
    [quiet] = _agent_turns(mem, "Hello there")
    assert page.read_text() == "# my notes, typed by hand\n"  # the store did not change
    assert not [e for e in quiet if e.kind == "notice"]
    mem.remember("I drink my coffee black", type="user")
    [turn] = _agent_turns(mem, "Hello again")
    [notice] = [e for e in turn if e.kind == "notice"]
    assert str(page) in notice.text and "memdir edit" in notice.text
    kept = workspace(mem) / "hand-edits" / "wiki" / "concepts" / "i-prefer-tabs-in-python.md"
    assert kept.read_text() == "# my notes, typed by hand\n" and str(kept) in notice.text
    assert "I prefer tabs in Python" in page.read_text()
