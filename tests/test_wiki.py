"""The read-only wiki view (issue 24 step 4, SPEC K4): generated from the user's memory,
regenerated only when it changed, and a hand edit there is reported and kept, never lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from memdir import Memory
from memdir.portable.wiki import SECTIONS, is_current, project, workspace


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
