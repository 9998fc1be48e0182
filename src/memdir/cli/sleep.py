"""Commands of the lifecycle: sleep (alias consolidate), confirm, restore, log."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import TYPE_CHECKING

import click

from ..errors import ValidationError
from .app import as_scope, cli, emit_json, json_option, memory, scope_option
from .names import name_argument, resolved

if TYPE_CHECKING:
    from ..lifecycle import SleepReport

_SPAN = re.compile(r"(\d+)\s*([smhdw])")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_ARROW = {"merge": "←", "conditional": "←", "supersede": "over"}


def parse_span(value: str) -> timedelta:
    """``30m``, ``2h``, ``1d``, ``1h30m`` as a duration."""
    text = value.strip().lower()
    parts = _SPAN.findall(text)
    if not parts or _SPAN.sub("", text).strip():
        raise ValidationError(f"cannot read the duration {value!r}: use 30m, 2h, 1d or 1h30m")
    return timedelta(seconds=sum(int(n) * _UNITS[u] for n, u in parts))


def _who(action: str, names: tuple[str, ...]) -> str:
    if action in _ARROW and len(names) > 1:
        return f"{names[0]} {_ARROW[action]} {', '.join(names[1:])}"
    shown = ", ".join(names[:4])
    return shown + (f" (+{len(names) - 4})" if len(names) > 4 else "")


def _print_report(report: SleepReport) -> None:
    if report.skipped:
        click.echo(f"Nothing done: {report.skipped}.")
        return
    plan = report.plan
    for note in report.notes:
        click.echo(note)
    if plan is None or not plan.steps:
        click.echo("Nothing to do: no duplicates, conflicts or faded memories.")
        return
    counts = ", ".join(f"{n} {action}" for action, n in sorted(plan.counts().items()))
    click.echo(f"Sleep plan ({plan.version}) as of {plan.to_dict()['now']}: {counts}")
    rows = [(s.action, s.scope, _who(s.action, s.names), s.reason) for s in plan.steps]
    width = min(max(len(r[2]) for r in rows), 60)
    click.echo(f"{'ACTION':<11} {'SCOPE':<8} {'MEMORIES':<{width}}  WHY")
    for action, scope, who, why in rows:
        click.echo(f"{action:<11} {scope:<8} {who:<{width}}  {why}")
    if report.dry_run:
        click.echo("Dry run: nothing was changed. Apply with: memdir sleep")
    elif report.run:
        click.echo(
            f"Applied as run {report.run} ({len(report.changes)} changes). "
            f"Undo all of it with: memdir undo {report.run}"
        )
    else:
        click.echo("Nothing to change: the steps above are for you to read.")


def _sleep(
    ctx: click.Context,
    dry_run: bool,
    if_quiet: str | None,
    scope: str | None,
    offline: bool,
    as_json: bool,
) -> None:
    report = memory(ctx).sleep(
        dry_run=dry_run,
        if_quiet=parse_span(if_quiet) if if_quiet else None,
        scope=as_scope(scope),
        offline=offline,
    )
    if as_json:
        emit_json(report.to_dict())
    else:
        _print_report(report)


_SLEEP_HELP = """Consolidate memories: merge duplicates, settle conflicts, archive what faded,
delete archived memories past their TTL — planned first, applied in one step, undone as one
with `memdir undo RUN_ID`."""


def _sleep_options(func: click.decorators.FC) -> click.decorators.FC:
    func = click.option("--dry-run", is_flag=True, help="Print the plan; change nothing.")(func)
    func = click.option(
        "--if-quiet",
        metavar="DURATION",
        help="Do nothing unless no session had activity for this long (30m, 2h, 1d).",
    )(func)
    func = scope_option(func)
    func = click.option(
        "--offline", is_flag=True, help="Use the offline rules even if an LLM is configured."
    )(func)
    return json_option(func)


@cli.command(help=_SLEEP_HELP)
@_sleep_options
@click.pass_context
def sleep(
    ctx: click.Context,
    dry_run: bool,
    if_quiet: str | None,
    scope: str | None,
    offline: bool,
    as_json: bool,
) -> None:
    _sleep(ctx, dry_run, if_quiet, scope, offline, as_json)


# the alias SPEC H7 names: the same callback and options under another name
cli.add_command(
    click.Command(
        "consolidate",
        callback=sleep.callback,
        params=sleep.params,
        help="Another name for `memdir sleep` (same options).",
    )
)


@cli.command()
@name_argument()
@click.option("--drop", is_flag=True, help="Drop it instead: delete it, keep its rivals.")
@scope_option
@json_option
@click.pass_context
def confirm(ctx: click.Context, name: str, drop: bool, scope: str | None, as_json: bool) -> None:
    """Settle a tentative memory: confirm NAME (the memories it conflicted with are archived),
    or --drop it. One undoable run. NAME may be a unique prefix."""
    name = resolved(ctx, name, scope)
    changes = memory(ctx).confirm(name, drop=drop, scope=as_scope(scope))
    if as_json:
        emit_json([c.to_dict() for c in changes])
        return
    run = changes[0].run if changes else None
    what = "Dropped" if drop else "Confirmed"
    others = sorted({c.name for c in changes if c.name != name})
    tail = f"; also changed {', '.join(others)}" if others else ""
    click.echo(f"{what} {name}{tail}. Undo with: memdir undo {run}")


@cli.command()
@name_argument()
@scope_option
@json_option
@click.pass_context
def restore(ctx: click.Context, name: str, scope: str | None, as_json: bool) -> None:
    """Bring an archived memory back (see `memdir list --archived`). NAME may be a unique
    prefix of an archived name."""
    name = resolved(ctx, name, scope, archived=True)
    change = memory(ctx).restore(name, scope=as_scope(scope))
    if as_json:
        emit_json(change.to_dict())
        return
    click.echo(f"Restored {change.name} ({change.scope} scope). Undo with: memdir undo {change.id}")


@cli.command(name="log")
@click.argument("text")
@click.option("--session", help="The session the note comes from (counts toward a rule).")
@click.option(
    "--scope",
    type=click.Choice(["user", "project"]),
    help="Whose log (default: the project's, else the user's).",
)
@json_option
@click.pass_context
def log_(
    ctx: click.Context, text: str, session: str | None, scope: str | None, as_json: bool
) -> None:
    """Add TEXT to today's daily log (append-only). Sleep promotes notes that are reused or
    start with "remember:" or "!"; one seen in three sessions becomes a feedback rule."""
    path = memory(ctx).log_note(text, scope=as_scope(scope), session=session)
    if as_json:
        emit_json({"path": str(path), "text": text, "session": session})
        return
    click.echo(f"Noted in {path}")
