"""Commands over memories: init, remember, list, show, edit, forget, history, undo, doctor."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..errors import ConfigError, MemdirError, NotFoundError
from ..records import SOURCES, TYPES, escape_controls
from .app import as_scope, cli, emit_json, json_option, memory, scope_option
from .names import name_argument, resolved

if TYPE_CHECKING:
    from ..history import Change
    from ..records import MemoryRecord

# run ids: sleep-20260601-093000-ab12, confirm-…, undo-sleep-…
_RUN_ID = re.compile(r"^(undo-)*(sleep|confirm)-\d{8}-\d{6}-[0-9a-f]{4}$")


def _describe_change(change: Change) -> str:
    return f"{change.op} of {change.name!r} in the {change.scope} scope (change {change.id})"


@cli.command()
@json_option
@click.pass_context
def init(ctx: click.Context, as_json: bool) -> None:
    """Create the user and project memory directories (safe to run again)."""
    created = memory(ctx).init()
    if as_json:
        emit_json({scope: str(path) for scope, path in created.items()})
        return
    for scope, path in created.items():
        click.echo(f"{scope:<8} {path}")
    click.echo('Ready. Try: memdir remember "Use pnpm, not npm" --type feedback')


def _guard_kinds(kinds: tuple[str, ...]) -> tuple[str, ...]:
    # checked against the guard's own list, imported only when --allow is given: the guard
    # compiles its patterns at import, which `memdir --help` should not pay for
    if kinds:
        from ..guard import KINDS

        for kind in kinds:
            if kind not in KINDS:
                known = ", ".join(KINDS)
                raise click.BadParameter(f"{kind!r} is not a guard kind: use one of {known}")
    return kinds


@cli.command()
@click.argument("text")
@click.option(
    "--type",
    "type_",
    required=True,
    type=click.Choice(TYPES),
    help="user/feedback default to the user scope, project/reference to the project.",
)
@click.option(
    "--scope",
    type=click.Choice(["user", "project"]),
    help="Scope to store it in (default: from the type).",
)
@click.option("--why", help="Why this holds (one line).")
@click.option("--how", "how", help="How to apply it (one line).")
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable).")
@click.option("--related-file", "related_files", multiple=True, help="A related path (repeatable).")
@click.option("--name", help="File name to use (default: derived from the text).")
@click.option("--description", help="One-line summary for the index (default: the text).")
@click.option("--importance", type=click.IntRange(1, 10), help="1 (trivia) to 10 (critical).")
@click.option(
    "--source",
    type=click.Choice(SOURCES),
    default="user",
    show_default=True,
    help="Where it came from.",
)
@click.option(
    "--allow",
    "allow",
    multiple=True,
    metavar="KIND",
    callback=lambda _ctx, _param, kinds: _guard_kinds(kinds),
    help="Store it although the guard judged it this kind (you insist; repeatable): the kind "
    "its refusal named — permission, disables-safety, remote-code, exfiltration, destructive, "
    "role-switch or override.",
)
@json_option
@click.pass_context
def remember(
    ctx: click.Context,
    text: str,
    type_: str,
    scope: str | None,
    why: str | None,
    how: str | None,
    tags: tuple[str, ...],
    related_files: tuple[str, ...],
    name: str | None,
    description: str | None,
    importance: int | None,
    source: str,
    allow: tuple[str, ...],
    as_json: bool,
) -> None:
    """Store TEXT as a new memory. The same statement again (whitespace and case aside) in
    the same scope is not stored twice: the existing memory is reinforced and named."""
    rec = memory(ctx).remember(
        text,
        type=type_,
        scope=as_scope(scope),
        why=why,
        how_to_apply=how,
        tags=tags,
        related_files=related_files,
        name=name,
        description=description,
        importance=importance,
        source=source,
        allow=allow,
    )
    if as_json:
        data = rec.to_dict()
        emit_json({**data, "created": bool(rec.is_new), "created_at": data["created"],
                   "similar_to": list(rec.similar_to)})  # fmt: skip
        return
    if rec.is_new is False:
        click.echo(f"Already remembered as {rec.name} ({rec.scope} scope): reinforced → {rec.path}")
    else:
        click.echo(f"Remembered {rec.name} ({rec.type}, {rec.scope} scope) → {rec.path}")
    for other in rec.similar_to:
        click.echo(f"note: similar to {other} (see `memdir show {other}`; nothing was merged)")


def _warn_skipped(ctx: click.Context) -> None:
    bad = memory(ctx).unreadable()
    if bad:
        click.echo(f"warning: skipped {len(bad)} unreadable file(s): run `memdir doctor`", err=True)


@cli.command(name="list")
@scope_option
@click.option("--type", "type_", type=click.Choice(TYPES), help="Only this type.")
@click.option("--tag", "tags", multiple=True, help="Only memories with this tag (repeatable).")
@click.option(
    "--tentative", is_flag=True, help="Only tentative memories, waiting for `memdir confirm`."
)
@click.option("--archived", is_flag=True, help="The archived memories instead (see sleep).")
@click.option("--kind", type=click.Choice(["memory", "knowledge"]), help="Only this kind.")
@json_option
@click.pass_context
def list_(
    ctx: click.Context,
    scope: str | None,
    type_: str | None,
    tags: tuple[str, ...],
    tentative: bool,
    archived: bool,
    as_json: bool,
    kind: str | None = None,
) -> None:
    """List memories (files that do not parse are skipped; see doctor)."""
    m = memory(ctx)
    try:
        if archived:
            records = m.archived(scope=as_scope(scope))
            records = [r for r in records if (not type_ or r.type == type_)]
            records = [r for r in records if set(tags).issubset(r.tags)]
        else:
            records = m.list(scope=as_scope(scope), type=type_, tags=tags)
        if tentative:
            records = [r for r in records if r.confidence == "tentative"]
        if kind:
            records = [r for r in records if r.kind == kind]
    except ConfigError:
        if scope != "project":
            raise
        records = []
    if as_json:
        emit_json([r.to_dict() for r in records])
    elif not records and (tentative or archived):
        click.echo(f"No {'tentative' if tentative else 'archived'} memories.")
    elif not records:
        click.echo("No memories yet. Add one with: memdir remember TEXT --type TYPE")
    else:
        width = max(len(r.name) for r in records)
        for r in records:
            line = f"{r.scope:<8} {r.type:<10} {r.name:<{width}}  {r.description}"
            rivals = r.extra.get("conflicts_with")
            if tentative and isinstance(rivals, list) and rivals:
                line += f"  (conflicts with {', '.join(map(str, rivals))})"
            click.echo(escape_controls(line))
        if tentative:
            click.echo("Settle each with: memdir confirm NAME  (or: memdir confirm NAME --drop)")
    _warn_skipped(ctx)


def _show_text(rec: MemoryRecord, data: bytes) -> str:
    head = f"{rec.name} · {rec.type} · {rec.scope} scope · {rec.path}"
    return f"{head}\n{'─' * min(len(head), 80)}\n{data.decode('utf-8-sig')}"


@cli.command()
@name_argument()
@scope_option
@json_option
@click.pass_context
def show(ctx: click.Context, name: str, scope: str | None, as_json: bool) -> None:
    """Show one memory: its file, as it is on disk. NAME may be a unique prefix."""
    m = memory(ctx)
    rec = m.get(resolved(ctx, name, scope), scope=as_scope(scope))
    if as_json:
        emit_json(rec.to_dict())
    else:
        click.echo(escape_controls(_show_text(rec, m.file_bytes(rec))), nl=False)


@cli.command()
@name_argument()
@scope_option
@click.pass_context
def edit(ctx: click.Context, name: str, scope: str | None) -> None:
    """Open a memory in $EDITOR; the result is checked before it is kept. NAME may be a
    unique prefix."""
    import shlex  # here, not at import: every other command (and --help) would pay for them
    import subprocess
    import tempfile

    m = memory(ctx)
    rec = m.get(resolved(ctx, name, scope), scope=as_scope(scope))
    original = m.file_bytes(rec)
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    fd, tmp_name = tempfile.mkstemp(prefix=f"memdir-{rec.name[:40]}-", suffix=".md")
    tmp = Path(tmp_name)
    with os.fdopen(fd, "wb") as handle:
        handle.write(original)
    try:
        result = subprocess.run([*shlex.split(editor), str(tmp)], check=False)
    except FileNotFoundError:
        tmp.unlink()
        raise ConfigError(f"editor {editor!r} not found: set $EDITOR to one that exists") from None
    if result.returncode != 0:
        tmp.unlink()
        raise ConfigError(f"{editor} exited with status {result.returncode}; nothing was changed")
    edited = tmp.read_bytes()
    if edited == original:
        tmp.unlink()
        click.echo("No changes.")
        return
    try:
        new = m.rewrite(
            rec.name,
            edited,
            expected_hash=rec.content_hash,
            scope=rec.scope,
            reason="edited by hand",
        )
    except MemdirError:
        click.echo(
            f"Your edit is kept in {tmp}: fix it, then copy it back or edit again.", err=True
        )
        raise
    tmp.unlink()
    click.echo(f"Saved {new.name} ({new.scope} scope).")


@cli.command()
@name_argument()
@scope_option
@click.option("--reason", help="Why it is forgotten (kept in the history).")
@click.option("--archived", is_flag=True, help="Delete an archived memory (see sleep).")
@json_option
@click.pass_context
def forget(
    ctx: click.Context,
    name: str,
    scope: str | None,
    reason: str | None,
    archived: bool,
    as_json: bool,
) -> None:
    """Delete a memory (undo brings it back). NAME may be a unique prefix."""
    name = resolved(ctx, name, scope, archived=archived)
    if archived:
        change = memory(ctx).forget_archived(name, scope=as_scope(scope), reason=reason)
    else:
        change = memory(ctx).forget(name, scope=as_scope(scope), reason=reason)
    if as_json:
        emit_json(change.to_dict())
        return
    click.echo(f"Forgot {change.name} ({change.scope} scope). Undo with: memdir undo {change.id}")


@cli.command()
@name_argument(required=False)
@scope_option
@click.option("--limit", type=click.IntRange(1), help="Only the last N changes.")
@json_option
@click.pass_context
def history(
    ctx: click.Context, name: str | None, scope: str | None, limit: int | None, as_json: bool
) -> None:
    """Show the change log, of one memory or of everything. NAME may be a unique prefix of a
    memory's name (a name in the log, such as a forgotten memory's, is taken as it is)."""
    changes = memory(ctx).history(name, scope=as_scope(scope))
    if name and not changes:
        full = resolved(ctx, name, scope)
        changes = memory(ctx).history(full, scope=as_scope(scope)) if full != name else changes
    if limit:
        changes = changes[-limit:]
    if as_json:
        emit_json([c.to_dict() for c in changes])
        return
    if not changes:
        if name:
            raise NotFoundError(f"no history for {name!r}: see `memdir list` for names")
        click.echo("No changes yet.")
        return
    for c in changes:
        extra = f"  ({c.reason})" if c.reason else ""
        extra += f"  [run {c.run}]" if c.run else ""
        click.echo(
            escape_controls(
                f"{c.id}  {c.time[:19].replace('T', ' ')}  {c.op:<7} {c.scope:<8} "
                f"{c.name}  by {c.actor}{extra}"
            )
        )
    chain = memory(ctx).supersession(name) if name else []
    if len(chain) > 1:  # a fact that changed (issue 22): what held when, oldest first
        click.echo("Chain (oldest first):")
        for rec in chain:
            since = rec.extra.get("valid_from") or rec.created or "?"
            until = rec.extra.get("valid_to") or "now"
            click.echo(escape_controls(f"  {rec.name}  {since} → {until}  {rec.statement}"))


@cli.command()
@click.argument("change_id")
@json_option
@click.pass_context
def undo(ctx: click.Context, change_id: str, as_json: bool) -> None:
    """Revert one change (see history for ids), or a whole sleep run (its run id):
    restores the files' previous bytes."""
    if _RUN_ID.match(change_id.strip()):
        changes = memory(ctx).undo_run(change_id)
        if as_json:
            emit_json([c.to_dict() for c in changes])
            return
        run = changes[0].run if changes else change_id
        click.echo(
            f"Undid run {change_id.strip()}: {len(changes)} change(s) reverted, every file back "
            f"as it was. Redo with: memdir undo {run}"
        )
        return
    change = memory(ctx).undo(change_id)
    if as_json:
        emit_json(change.to_dict())
        return
    click.echo(
        f"Undid {change.reason.removeprefix('undo ') if change.reason else change_id}: "
        f"{change.name} ({change.scope} scope) is back as it was. "
        f"Redo with: memdir undo {change.id}"
    )


@cli.command()
@click.option(
    "--fix",
    is_flag=True,
    help="Complete a write a crash cut short, add changes made outside memdir to the history "
    "(undoable), remove temp files a crash left.",
)
@json_option
@click.pass_context
def doctor(ctx: click.Context, fix: bool, as_json: bool) -> None:
    """Check the memory files; report each problem (nothing is changed without --fix).
    Exit 1 on errors."""
    problems = memory(ctx).doctor(fix=fix)
    if as_json:
        emit_json([p.to_dict() for p in problems])
    elif not problems:
        click.echo("All memory files are readable.")
    else:
        for p in problems:
            click.echo(f"{p.severity}: {p.path}: {p.reason}")
    if any(p.severity == "error" for p in problems):
        ctx.exit(1)
