"""Commands over conversations: ``sessions list|show|resume|prune`` and ``context``.

``show`` and ``context --session`` only read (no lock, nothing written); ``resume`` opens the
session for writing, so it is refused while another process writes it. ``prune`` shows its plan
and asks before anything moves — and never waits for an answer that cannot come: without a
terminal it needs ``--yes`` (or ``--dry-run``).
"""

from __future__ import annotations

import re
import sys
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import click

from ..errors import ValidationError
from ..records import escape_controls
from .app import cli, emit_json, json_option, memory

if TYPE_CHECKING:
    from ..sessions import PruneReport, Record, Session, SessionInfo

FORMATS = ("text", "openai", "anthropic")
_AGE = re.compile(r"(\d+)\s*([hdw]?)")


def _when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M") if moment else "-"


def _size(n: int) -> str:
    if n < 1024:
        return f"{n}B"
    return f"{n / 1024:.1f}K" if n < 1024 * 1024 else f"{n / 1024 / 1024:.1f}M"


def _age(value: str | None) -> timedelta | None:
    if value is None:
        return None
    match = _AGE.fullmatch(value.strip().lower())
    if not match or int(match.group(1)) == 0:
        raise click.BadParameter(
            f"{value!r} is not an age: use e.g. 30d (days), 12h (hours) or 2w (weeks)",
            param_hint="--older-than",
        )
    number, unit = int(match.group(1)), match.group(2) or "d"
    try:
        return timedelta(**{{"h": "hours", "d": "days"}.get(unit, "weeks"): number})
    except OverflowError:
        raise click.BadParameter(
            f"{value!r} is longer than any age: use at most 999999d", param_hint="--older-than"
        ) from None


def _warn(session: Session) -> None:
    for problem in session.problems:
        click.echo(f"warning: {problem.path.name}: {problem.reason}", err=True)


@cli.group()
def sessions() -> None:
    """Conversation transcripts (one JSONL file each, in <project>/.agent/sessions)."""


@sessions.command(name="list")
@click.option("--archived", is_flag=True, help="List the archived sessions instead.")
@json_option
@click.pass_context
def list_(ctx: click.Context, archived: bool, as_json: bool) -> None:
    """List sessions, oldest first: start time, last activity, size, last message."""
    infos: list[SessionInfo] = memory(ctx).sessions(archived=archived)
    if as_json:
        emit_json([info.to_dict() for info in infos])
        return
    if not infos:
        where = "archived sessions" if archived else "sessions"
        click.echo(f"No {where} yet. Start one from Python: Memory().session()")
        return
    click.echo(f"{'ID':<20}  {'started':<16}  {'last active':<16}  {'size':>6}  last message")
    for info in infos:
        last = f"{info.last_type}: {info.preview}" if info.last_type else ""
        click.echo(
            f"{info.id:<20}  {_when(info.started):<16}  {_when(info.last_active):<16}  "
            f"{_size(info.size):>6}  {last}"
        )


def _record_text(record: Record) -> str:
    content = record.content
    if record.type == "meta" and content.get("kind") == "guide":
        return f"(memory guide recorded: {len(str(content.get('text', '')))} characters)"
    if record.type in ("meta", "summary"):
        return str(content.get("text", content))
    from ..chain import message_text, tool_names

    lines = [message_text(content), *(f"→ calls {n}" for n in tool_names(content).values())]
    return "\n".join(line for line in lines if line)


@sessions.command()
@click.argument("session_id", metavar="ID")
@json_option
@click.pass_context
def show(ctx: click.Context, session_id: str, as_json: bool) -> None:
    """Show a session's records as stored (read-only: nothing is changed)."""
    session = memory(ctx).read_session(session_id)
    if as_json:
        emit_json(
            {
                "id": session.id,
                "path": str(session.path),
                "records": [r.to_dict() for r in session.records],
                "problems": [p.to_dict() for p in session.problems],
            }
        )
        return
    click.echo(f"{session.id} · {len(session.messages)} messages · {session.path}")
    for record in session.records:
        label = record.type
        if record.type == "meta":
            label = f"meta:{record.content.get('kind')}"
        click.echo(escape_controls(f"\n[{record.ts[:19].replace('T', ' ')}] {label}"))
        click.echo(escape_controls(_record_text(record)))  # issue 26: no raw escape codes
    _warn(session)


@sessions.command()
@click.argument("session_id", metavar="ID")
@json_option
@click.pass_context
def resume(ctx: click.Context, session_id: str, as_json: bool) -> None:
    """Resume a session: skip torn lines, repair the tool-call chain, add the "N days since"
    note when due, compact if over the threshold — then report what was done."""
    with memory(ctx).session(session_id) as session:
        data: dict[str, Any] = {
            "id": session.id,
            "path": str(session.path),
            "messages": len(session.messages),
            "problems": [p.to_dict() for p in session.problems],
            "notices": list(session.notices),
        }
    if as_json:
        emit_json(data)
        return
    click.echo(f"Resumed {session.id}: {data['messages']} messages ({session.path})")
    for problem in session.problems:
        click.echo(f"  - {problem.reason}")
    for notice in session.notices:
        click.echo(f"  - {notice}")
    if not session.problems and not session.notices:
        click.echo("  - nothing to repair")
    click.echo(
        f"See what the model gets next: memdir context --session {session.id}\n"
        f"Continue it from Python: Memory().session({session.id!r})"
    )


def _print_plan(report: PruneReport) -> None:
    for action in report.plan:
        verb = "archive" if action.action == "archive" else "DELETE "
        click.echo(f"  {verb} {action.session.id}  ({action.reason})")


@sessions.command()
@click.option(
    "--older-than",
    metavar="AGE",
    help="Expire sessions idle longer than AGE: 30d, 12h, 2w (default: the policy's "
    "sessions.retention_days, 30 days).",
)
@click.option("--dry-run", is_flag=True, help="Only show what would happen.")
@click.option("--yes", "-y", is_flag=True, help="Do it without asking (needed without a terminal).")
@json_option
@click.pass_context
def prune(
    ctx: click.Context, older_than: str | None, dry_run: bool, yes: bool, as_json: bool
) -> None:
    """Archive (or, if the policy says so, delete) sessions idle too long; asks first."""
    m = memory(ctx)
    age = _age(older_than)
    plan = m.prune_sessions(age, dry_run=True)
    archive = sum(a.action == "archive" for a in plan.plan)
    delete = len(plan.plan) - archive
    if not plan.plan or dry_run:
        if as_json:
            emit_json(plan.to_dict())
        elif not plan.plan:
            click.echo("Nothing to prune.")
        else:
            click.echo(f"Would archive {archive} and delete {delete} session(s) (dry run):")
            _print_plan(plan)
        return
    if not yes:
        if not sys.stdin.isatty():
            raise ValidationError(
                f"prune would archive {archive} and delete {delete} session(s); pass --yes to "
                "do it, or --dry-run to only look"
            )
        click.echo(
            f"This will archive {archive} session(s) (moved to sessions/archive/, still "
            f"readable) and delete {delete} (gone for good):",
            err=True,
        )
        _print_plan(plan)
        click.confirm("Go ahead?", abort=True, err=True)
    report = m.prune_sessions(age)  # extracts each expiring session first (issue 22)
    if as_json:
        emit_json(report.to_dict())
        return
    for action in report.done:
        click.echo(f"{action.action}d {action.session.id}")
    for action, why in report.skipped:
        click.echo(f"skipped {action.session.id}: {why}", err=True)


@cli.command()
@click.option("--session", "session_id", metavar="ID", help="A session (default: a new one).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="text for people; openai (message list) or anthropic (system + messages) as JSON.",
)
@json_option
@click.pass_context
def context(ctx: click.Context, session_id: str | None, fmt: str, as_json: bool) -> None:
    """Print exactly what the model would be sent next (read-only)."""
    m = memory(ctx)
    session = m.read_session(session_id) if session_id else None
    result = m.context(session, fmt)
    for problem in m.instructions().problems:
        click.echo(f"warning: {problem.path}: {problem.reason}", err=True)
    if session is not None:
        _warn(session)
    if isinstance(result, str):
        if as_json:
            emit_json({"format": "text", "text": result})
        else:
            click.echo(result, nl=False)
        return
    emit_json(result)
