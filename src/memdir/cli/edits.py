"""Changing a memory from the shell: ``update`` (fields, through ``Memory.update``: the same
checks and guard as every other door) and ``rename`` (through ``Memory.rename``). Both are
undoable, both take a unique prefix for NAME, both print JSON with ``--json``."""

from __future__ import annotations

from typing import Any

import click

from ..records import TYPES, MemoryRecord
from .app import as_scope, cli, emit_json, json_option, memory, scope_option
from .names import name_argument, resolved

_FIELDS = "--statement, --description, --type, --tag, --no-tags, --importance, --why or --how"


def _undo_hint(ctx: click.Context, rec: MemoryRecord) -> str:
    """``memdir undo <id>`` for the change just made to ``rec`` (the last one in its log).
    The log's last line, when it is this memory's (reading the whole log for it cost 0.3 s
    on a 10k store); else its history (another writer came in between)."""
    last = memory(ctx).store(rec.scope).log.last()
    if last is not None and last.name == rec.name:
        return f"memdir undo {last.id}"
    changes = memory(ctx).history(rec.name, scope=rec.scope)
    return f"memdir undo {changes[-1].id}" if changes else f"see memdir history {rec.name}"


@cli.command()
@name_argument()
@click.option("--statement", help="The new statement (the memory's main text).")
@click.option("--description", help="The new one-line summary for the index.")
@click.option("--type", "type_", type=click.Choice(TYPES), help="The new type.")
@click.option("--tag", "tags", multiple=True, help="Replace the tags with these (repeatable).")
@click.option("--no-tags", is_flag=True, help="Remove every tag.")
@click.option("--importance", type=click.IntRange(1, 10), help="1 (trivia) to 10 (critical).")
@click.option("--why", help="Why this holds (one line; '' removes it).")
@click.option("--how", "how", help="How to apply it (one line; '' removes it).")
@click.option("--reason", help="Why it changed (kept in the history).")
@scope_option
@json_option
@click.pass_context
def update(
    ctx: click.Context,
    name: str,
    statement: str | None,
    description: str | None,
    type_: str | None,
    tags: tuple[str, ...],
    no_tags: bool,
    importance: int | None,
    why: str | None,
    how: str | None,
    reason: str | None,
    scope: str | None,
    as_json: bool,
) -> None:
    """Change fields of memory NAME (a unique prefix is enough); the rest of the file keeps
    its bytes. Undo with `memdir undo` (ids in `memdir history NAME`)."""
    if tags and no_tags:
        raise click.UsageError("--tag and --no-tags contradict each other: give one of them")
    fields: dict[str, Any] = {
        "statement": statement,
        "description": description,
        "type": type_,
        "importance": importance,
        "why": why,
        "how_to_apply": how,
    }
    fields = {k: v for k, v in fields.items() if v is not None}
    if tags or no_tags:
        fields["tags"] = list(tags) if tags else None
    if not fields:
        raise click.UsageError(f"nothing to change: give at least one of {_FIELDS}")
    m = memory(ctx)
    full = resolved(ctx, name, scope)
    before = m.get(full, scope=as_scope(scope))
    rec = m.update(full, scope=before.scope, reason=reason, **fields)
    if as_json:
        emit_json({**rec.to_dict(), "changed": rec.content_hash != before.content_hash})
        return
    if rec.content_hash == before.content_hash:
        click.echo(f"No changes: {rec.name} already says that.")
        return
    click.echo(f"Updated {rec.name} ({rec.scope} scope). Undo with: {_undo_hint(ctx, rec)}")


@cli.command()
@name_argument("old")
@click.argument("new")
@click.option("--reason", help="Why it is renamed (kept in the history).")
@scope_option
@json_option
@click.pass_context
def rename(
    ctx: click.Context, old: str, new: str, reason: str | None, scope: str | None, as_json: bool
) -> None:
    """Give memory OLD (a unique prefix is enough) the name NEW: its file name and `name` key
    change, no other byte. One change in the history, so one `memdir undo` reverts it."""
    m = memory(ctx)
    full = resolved(ctx, old, scope)
    rec = m.rename(full, new, scope=as_scope(scope), reason=reason)
    if as_json:
        emit_json({**rec.to_dict(), "renamed_from": full})
        return
    click.echo(
        f"Renamed {full} → {rec.name} ({rec.scope} scope). Undo with: {_undo_hint(ctx, rec)}"
    )
