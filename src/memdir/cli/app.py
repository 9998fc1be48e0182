"""The root ``memdir`` group and what every command shares: the ``Memory`` and output helpers."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click

import memdir

from ..paths import Scope

if TYPE_CHECKING:  # the facade (and numpy with it) is imported by the commands that use it
    from ..memory import Memory

__all__ = ["ProgressBar", "as_scope", "cli", "emit_json", "json_option", "memory", "scope_option"]

F = TypeVar("F", bound=Callable[..., Any])


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--project",
    type=click.Path(file_okay=False, path_type=Path),
    help="Project root (default: nearest ancestor of the current directory with .agent/ or .git/).",
)
@click.version_option(version=memdir.__version__, prog_name="memdir")  # no importlib.metadata
@click.pass_context
def cli(ctx: click.Context, project: Path | None) -> None:
    """memdir: long-term memory for LLM agents, kept as Markdown files you can read.

    User-scope memories live in $MEMDIR_HOME/memory (default ~/.agent/memory); project-scope
    memories in <project>/.agent/memory. Every command that prints data takes --json.
    """
    ctx.obj = {"project": project}


def memory(ctx: click.Context) -> Memory:
    """The ``Memory`` for this invocation (made once, on first use)."""
    from ..memory import Memory

    root = ctx.find_root()
    if "memory" not in root.obj:
        root.obj["memory"] = Memory(project=root.obj["project"], actor="user")
    result: Memory = root.obj["memory"]
    return result


def json_option(func: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")(func)


def scope_option(func: F) -> F:
    return click.option(
        "--scope",
        type=click.Choice(["user", "project"]),
        help="Only this scope (default: both; a name is looked up in each).",
    )(func)


def as_scope(value: str | None) -> Scope | None:
    """A ``--scope`` value (already checked by click) as the library's type."""
    return cast(Scope | None, value)


class ProgressBar:
    """A one-line progress bar on stderr for long work; silent when stderr is not a terminal
    (or for small jobs), so pipes and ``--json`` stay clean."""

    def __init__(self, label: str, *, enabled: bool = True, minimum: int = 20) -> None:
        self.label = label
        self.enabled = enabled and sys.stderr.isatty()
        self.minimum = minimum
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total < self.minimum:
            return
        width = 30
        filled = width * done // max(total, 1)
        bar = "#" * filled + "-" * (width - filled)
        click.echo(f"\r{self.label} [{bar}] {done}/{total}", err=True, nl=False)
        self.shown = True

    def close(self) -> None:
        if self.shown:
            click.echo("", err=True)
            self.shown = False


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))
