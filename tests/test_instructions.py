"""Instruction files (SPEC D1–D2): three levels kept in order, fallbacks, and ``@include`` with
its guards — depth, cycles, roots (``..``, absolute, symlinks), code fences, missing files."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdir import Memory
from memdir.instructions import Instructions, load_instructions


@pytest.fixture
def dirs(sandbox: Path) -> tuple[Path, Path]:
    """(home, project root) of the sandbox."""
    home = sandbox / "home"
    home.mkdir(exist_ok=True)
    return home, sandbox / "project"


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _load(dirs: tuple[Path, Path], **kwargs: object) -> Instructions:
    home, root = dirs
    return load_instructions(home=home, project_root=root, **kwargs)  # type: ignore[arg-type]


def _reasons(result: Instructions) -> str:
    return "\n".join(p.reason for p in result.problems)


# -- D1: three levels ----------------------------------------------------------------------
def test_three_levels_are_concatenated_in_order(dirs: tuple[Path, Path]) -> None:
    home, root = dirs
    _write(root / "AGENT.md", "TEAM: run the tests.\n")
    _write(root / ".agent" / "AGENT.md", "PERSONAL: I review on Fridays.\n")
    _write(home / "AGENT.md", "USER: answer in Chinese.\n")
    result = _load(dirs)
    assert result.text == (
        "TEAM: run the tests.\n\n---\n\nPERSONAL: I review on Fridays.\n\n---\n\n"
        "USER: answer in Chinese."
    )
    assert [f.level for f in result.files] == ["project", "personal", "user"]
    assert result.problems == ()


def test_missing_levels_are_skipped(dirs: tuple[Path, Path]) -> None:
    home, _ = dirs
    _write(home / "AGENT.md", "only mine\n")
    assert _load(dirs).text == "only mine"
    assert load_instructions(home=home / "nowhere", project_root=None).text == ""


def test_agents_md_and_claude_md_where_agent_md_is_absent(dirs: tuple[Path, Path]) -> None:
    home, root = dirs
    _write(root / "AGENTS.md", "from AGENTS.md\n")
    _write(root / "CLAUDE.md", "from CLAUDE.md\n")
    _write(root / ".agent" / "CLAUDE.md", "personal CLAUDE.md\n")
    _write(home / "AGENT.md", "user AGENT.md\n")
    _write(home / "CLAUDE.md", "user CLAUDE.md (shadowed)\n")
    result = _load(dirs)
    assert result.text.split("\n\n---\n\n") == [
        "from AGENTS.md",  # the first name found wins: a copy is not read twice
        "personal CLAUDE.md",
        "user AGENT.md",
    ]
    _write(root / "AGENT.md", "from AGENT.md\n")
    assert _load(dirs).text.startswith("from AGENT.md\n\n---")


def test_the_names_are_configurable(mem: Memory, dirs: tuple[Path, Path]) -> None:
    _, root = dirs
    _write(root / "AGENT.md", "agent\n")
    _write(root / "GEMINI.md", "gemini\n")
    _write(root / ".agent" / "memory-policy.yaml", "instructions:\n  file_names: [GEMINI.md]\n")
    assert Memory().instructions().text == "gemini"


# -- D2: includes --------------------------------------------------------------------------
def test_include_and_bare_path_lines_are_inlined(dirs: tuple[Path, Path]) -> None:
    _, root = dirs
    _write(root / "docs" / "style.md", "Use ruff.\n@../notes/deploy.md\n")
    _write(root / "notes" / "deploy.md", "Deploy with make.")  # no final newline
    _write(root / "README.md", "readme\n")
    _write(
        root / "AGENT.md",
        "# Team\n@include docs/style.md\n@README.md\n@alice please review\n@bob\nend\n",
    )
    result = _load(dirs)
    assert result.text == (
        "# Team\nUse ruff.\nDeploy with make.\nreadme\n@alice please review\n@bob\nend"
    )
    assert result.problems == ()


def test_depth_five_is_followed_and_the_sixth_is_refused(dirs: tuple[Path, Path]) -> None:
    _, root = dirs
    _write(root / "AGENT.md", "top\n@include d1.md\n")
    for n in range(1, 7):
        _write(root / f"d{n}.md", f"level {n}\n@include d{n + 1}.md\n")
    result = _load(dirs)
    for n in range(1, 6):
        assert f"level {n}\n" in result.text
    assert "level 6" not in result.text
    assert "@include d6.md" in result.text  # the refused line is left as written
    [problem] = result.problems
    assert "deeper than 5 levels" in problem.reason and problem.path == root / "d5.md"


def test_cycles_are_reported_and_not_followed(dirs: tuple[Path, Path]) -> None:
    _, root = dirs
    _write(root / "AGENT.md", "top\n@include a.md\n@include AGENT.md\n")
    _write(root / "a.md", "A\n@include b.md\n")
    _write(root / "b.md", "B\n@include a.md\n")
    result = _load(dirs)
    assert result.text.count("A\n") == 1 and result.text.count("B\n") == 1
    reasons = _reasons(result)
    assert "include cycle (AGENT.md → a.md → b.md → a.md)" in reasons
    assert "include cycle (AGENT.md → AGENT.md)" in reasons


def test_a_file_may_be_included_twice_without_a_cycle(dirs: tuple[Path, Path]) -> None:
    _, root = dirs
    _write(root / "AGENT.md", "@include x.md\n@include x.md\n")
    _write(root / "x.md", "X\n")
    assert _load(dirs).text == "X\nX" and _load(dirs).problems == ()


def test_paths_outside_the_root_are_refused(dirs: tuple[Path, Path], sandbox: Path) -> None:
    _, root = dirs
    secret = _write(sandbox / "secret.txt", "SECRET\n")
    _write(root / "inside.md", "inside\n")
    (root / "link-out.md").symlink_to(secret)
    (root / "link-in.md").symlink_to(root / "inside.md")
    _write(
        root / "AGENT.md",
        f"@include ../secret.txt\n@include {secret}\n@link-out.md\n@link-in.md\n"
        f"@include {root / 'inside.md'}\n",
    )
    result = _load(dirs)
    assert "SECRET" not in result.text
    assert result.text.count("inside") == 2  # a symlink inside, and an absolute path inside
    assert _reasons(result).count(f"outside {root.resolve()}; refused") == 3


def test_each_level_has_its_own_root(dirs: tuple[Path, Path]) -> None:
    home, root = dirs
    _write(root / "team.md", "TEAM FILE\n")
    _write(home / "mine.md", "MY FILE\n")
    _write(root / ".agent" / "AGENT.md", "@include ../team.md\n")  # personal level: project root
    _write(home / "AGENT.md", f"@include mine.md\n@include {root / 'team.md'}\n")
    result = _load(dirs)
    assert result.text == f"TEAM FILE\n\n---\n\nMY FILE\n@include {root / 'team.md'}"
    [problem] = result.problems
    assert f"outside {home.resolve()}" in problem.reason


def test_includes_inside_code_fences_are_left_alone(dirs: tuple[Path, Path]) -> None:
    _, root = dirs
    _write(root / "x.md", "X\n")
    text = (
        "```md\n@include x.md\n```\n"
        "~~~\n@x.md\n```\nstill fenced: @include x.md\n~~~\n"
        "````\n```\n@include x.md\n```\n````\n"
        "@include x.md\n"
    )
    _write(root / "AGENT.md", text)
    result = _load(dirs)
    assert result.text == text.replace("````\n@include x.md\n", "````\nX\n").rstrip("\n")
    assert result.problems == ()


def test_a_missing_include_is_reported_and_the_rest_is_read(dirs: tuple[Path, Path]) -> None:
    _, root = dirs
    _write(root / "there.md", "THERE\n")
    _write(root / "AGENT.md", "before\n@include gone.md\n@include there.md\nafter\n")
    result = _load(dirs)
    assert result.text == "before\n@include gone.md\nTHERE\nafter"
    [problem] = result.problems
    assert "not found" in problem.reason and problem.path == root / "AGENT.md"


def test_unreadable_files_are_reported(dirs: tuple[Path, Path]) -> None:
    _, root = dirs
    (root / "bin.md").write_bytes(b"\xff\xfe\x00 not utf-8")
    (root / "dir.md").mkdir()
    _write(root / "AGENT.md", "@include bin.md\n@include dir.md\nok\n")
    result = _load(dirs)
    assert result.text == "@include bin.md\n@include dir.md\nok"
    assert len(result.problems) == 2


def test_instructions_reach_the_guide(mem: Memory, dirs: tuple[Path, Path]) -> None:
    _, root = dirs
    _write(root / "docs" / "rules.md", "RULE FROM AN INCLUDE\n")
    _write(root / "AGENT.md", "@include docs/rules.md\n@include ../../etc/passwd\n")
    assert "RULE FROM AN INCLUDE" in mem.instructions().text
    assert "refused" in _reasons(mem.instructions())
    guide = mem.context(format="text")
    assert isinstance(guide, str) and "RULE FROM AN INCLUDE" in guide
    assert "root:" not in guide
