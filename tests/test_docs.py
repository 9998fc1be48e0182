"""Docs kept honest: every command and option is documented, and the README's two commands are
the ones CI and the scripts run."""

from __future__ import annotations

import re
from pathlib import Path

import click

from memdir import Memory
from memdir.cli import cli

ROOT = Path(__file__).parents[1]
CLI_DOC = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_command_and_option_is_documented() -> None:
    assert isinstance(cli, click.Group)
    for name, command in cli.commands.items():
        assert f"\n## {name}\n" in CLI_DOC, f"docs/cli.md has no section for `memdir {name}`"
        section = CLI_DOC.split(f"\n## {name}\n", 1)[1].split("\n## ", 1)[0]
        for param in command.params:
            for opt in getattr(param, "opts", []):
                if opt.startswith("-") and opt not in ("-h", "--help"):
                    assert opt in section, f"`memdir {name} {opt}` is not in docs/cli.md"
        assert command.help, f"`memdir {name}` has no help text"
        if isinstance(command, click.Group):
            _check_subcommands(name, command, section)


def _check_subcommands(name: str, group: click.Group, section: str) -> None:
    """A group (``memdir sessions``) documents each subcommand under ``### <group> <sub>``."""
    for sub, command in group.commands.items():
        heading = f"\n### {name} {sub}\n"
        assert heading in section, f"docs/cli.md has no section for `memdir {name} {sub}`"
        usage = section.split("\n### ", 1)[0]  # the synopsis block names every option too
        text = section.split(heading, 1)[1].split("\n### ", 1)[0]
        for param in command.params:
            for opt in getattr(param, "opts", []):
                if opt.startswith("-") and opt not in ("-h", "--help"):
                    assert opt in text or opt in usage, f"`memdir {name} {sub} {opt}` undocumented"
        assert command.help, f"`memdir {name} {sub}` has no help text"


def test_readme_names_the_two_commands_and_ci_runs_the_second() -> None:
    blocks = re.findall(r"```sh\n(.+?)\n```", README, re.S)
    assert blocks[:2] == ["bash scripts/tour.sh", "bash scripts/test.sh"]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "bash scripts/test.sh" in ci.splitlines()


def test_readme_points_at_the_docs() -> None:
    for doc in ("docs/format.md", "docs/cli.md", "docs/architecture.md"):
        assert doc in README and (ROOT / doc).is_file()


def test_readme_python_example_runs(mem: Memory, sandbox: Path) -> None:
    """The README's Python tour is real code: it runs as written in a fresh home and project."""
    import subprocess
    import sys

    [code] = re.findall(r"```python\n(.*?)```", README, re.S)[:1]
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=sandbox / "project",
    )
    assert done.returncode == 0, done.stderr
    assert "/memories/project/we-deploy-with-argo-cd.md" in done.stdout
