"""The root ``memdir`` group and what every command shares: the ``Memory`` and output helpers."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click

import memdir

from ..paths import Scope

if TYPE_CHECKING:  # the facade (and numpy with it) is imported by the commands that use it
    from ..memory import Memory

__all__ = ["ProgressBar", "as_scope", "cli", "emit_json", "json_option", "memory", "scope_option"]

F = TypeVar("F", bound=Callable[..., Any])

# The module of memdir.cli that defines each command: ``memdir remember`` imports memories.py
# alone, and ``memdir --version`` none of them (issue 18: a cold CLI answers in a blink). A
# command missing here is still found (every module is then imported); tests/test_cold_imports.py
# checks that this table matches what the modules define.
COMMANDS = {
    "chat": "chat",
    "config": "config",
    "confirm": "sleep",
    "consolidate": "sleep",
    "context": "sessions",
    "db": "db",
    "doctor": "memories",
    "edit": "memories",
    "export": "portable",
    "extract": "extract",
    "forget": "memories",
    "history": "memories",
    "import": "portable",
    "jobs": "jobs",
    "init": "memories",
    "keys": "serve",
    "list": "memories",
    "log": "sleep",
    "recall": "recall",
    "reindex": "recall",
    "remember": "memories",
    "rename": "edits",
    "restore": "sleep",
    "serve": "serve",
    "sessions": "sessions",
    "show": "memories",
    "sleep": "sleep",
    "stats": "observe",
    "sync": "portable",
    "trace": "observe",
    "ui": "ui",
    "undo": "memories",
    "update": "edits",
    "wiki": "portable",
    "worker": "jobs",
}
# Commands that read and write memory files without vectors: numpy (~0.1 s of CPU, a third of
# `memdir remember`) is imported only if one of them does reach it (memdir.lazy.defer).
WITHOUT_NUMPY = frozenset({"forget", "history", "list", "remember", "show"})
# Every module that registers commands, for --help, completion and a name not in COMMANDS.
MODULES = (
    "chat",
    "config",
    "db",
    "edits",
    "extract",
    "jobs",
    "memories",
    "observe",
    "portable",
    "recall",
    "serve",
    "sessions",
    "sleep",
    "ui",
)


class LazyGroup(click.Group):
    """The root group, importing a command's module when the command is asked for.

    Reading ``commands`` (the help, completion, a mistyped name, tests) imports every module
    first, so the group always looks whole; ``add_command`` (the modules' ``@cli.command()``)
    does not."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._registered: dict[str, click.Command] = {}
        self._adding = False
        self._whole = False
        super().__init__(*args, **kwargs)

    @property
    def commands(self) -> MutableMapping[str, click.Command]:
        if not self._adding and not self._whole:
            self._whole = True
            for module in MODULES:
                importlib.import_module(f"{__package__}.{module}")
        return self._registered

    @commands.setter
    def commands(self, value: MutableMapping[str, click.Command]) -> None:
        self._registered = dict(value)

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        self._adding = True
        try:
            super().add_command(cmd, name)
        finally:
            self._adding = False

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMANDS.get(cmd_name)
        if module is not None:
            importlib.import_module(f"{__package__}.{module}")
        found = self._registered.get(cmd_name)
        return found if found is not None else self.commands.get(cmd_name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name, command, rest = super().resolve_command(ctx, args)
        if name in WITHOUT_NUMPY:  # the command about to run (not one --help lists)
            from .. import lazy

            lazy.defer("numpy")
        return name, command, rest

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(self.commands)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
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
        root.obj["memory"] = made = Memory(project=root.obj["project"], actor="user")
        root.with_resource(made.lease())  # one database connection for the whole command
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
