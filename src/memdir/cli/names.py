"""How commands take a memory name: a unique prefix is enough, and the shell completes it.

``name_argument()`` declares the NAME argument with its completion (``_MEMDIR_COMPLETE``, see
docs/cli.md); ``resolved()`` turns what was typed into the full name through
``Memory.resolve`` (an exact name always wins; an ambiguous prefix is an error listing the
candidates), so every command that takes a name behaves alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click
from click.shell_completion import CompletionItem

from ..errors import MemdirError
from .app import as_scope, memory

__all__ = ["complete_names", "name_argument", "resolved"]


def complete_names(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """The memory names starting with ``incomplete``, for the shell. Reads one directory
    listing per scope and writes nothing; any problem completes to nothing."""
    from ..memory import Memory  # only when completing

    project = ctx.find_root().params.get("project")
    scope = ctx.params.get("scope")
    try:
        m = Memory(project=project)
        names = m.names(scope=as_scope(scope), archived=bool(ctx.params.get("archived")))
    except (MemdirError, OSError):
        return []
    folded = incomplete.casefold()
    return [CompletionItem(n) for n in names if n.casefold().startswith(folded)]


def name_argument(
    name: str = "name", *, required: bool = True
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The NAME argument of a command, completed from the memory names."""
    return click.argument(name, required=required, shell_complete=complete_names)


def resolved(
    ctx: click.Context, name: str, scope: str | None = None, *, archived: bool = False
) -> str:
    """The full memory name ``name`` stands for (a unique prefix, or the name itself)."""
    return memory(ctx).resolve(name, scope=as_scope(scope), archived=archived)
