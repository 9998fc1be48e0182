"""``memdir trace SESSION`` and ``memdir stats``: does memory work? (issue 25)

Both only read (no lock, nothing written) and go through the facade (``Memory.trace``,
``Memory.stats``); ``--json`` prints the same data as the library's ``to_dict``. What each
field means is in docs/observability.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from ..records import escape_controls
from .app import ProgressBar, cli, emit_json, json_option, memory

if TYPE_CHECKING:
    from ..observe import ScopeStats, Stats, TurnTrace


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _guide_line(turn: TurnTrace) -> str:
    guide = turn.guide
    if guide is None:
        return "guide: none recorded (the session was not started by memdir's context builder)"
    indexes = ", ".join(f"{k} ({n} listed)" for k, n in guide.get("indexes", {}).items())
    cut = "cut at its limit" if guide.get("truncated") else "whole"
    return f"guide: {guide.get('tokens', 0)} tokens, indexes {indexes or 'none'}, {cut}"


def _print_turn(turn: TurnTrace) -> None:
    state = "" if turn.finished else "  (not finished: no final answer)"
    click.echo(escape_controls(f"turn {turn.turn}  {turn.started}  {turn.person}{state}"))
    click.echo(f"  {_guide_line(turn)}")
    recalled = ", ".join(turn.recalled) or "none"
    click.echo(escape_controls(f"  recalled into context: {recalled}"))
    if turn.searched:
        click.echo(escape_controls(f"  searched: {', '.join(turn.searched)}"))
    for o in turn.opened:
        read = "read" if o.ok else "read FAILED"
        use = f"used ({o.share:.0%} of its words)" if o.used else f"not used ({o.share:.0%})"
        click.echo(escape_controls(f"  opened {o.memory}: {read}, {use if o.ok else '-'}"))
    if not turn.opened:
        click.echo("  opened: none")
    if turn.used_from_context:
        click.echo(escape_controls(f"  used from context: {', '.join(turn.used_from_context)}"))
    for line in turn.written:
        click.echo(escape_controls(f"  wrote: {line}"))
    if turn.failed_calls:
        click.echo(f"  tool calls: {turn.calls}, {turn.failed_calls} failed")
    f = turn.to_dict()["funnel"]
    click.echo(
        f"  seen {_yes(f['seen'])} → chosen {_yes(f['chosen'])} → read {_yes(f['read'])} → "
        f"used {_yes(f['used'])}"
    )


def _funnel_line(funnel: dict[str, int]) -> str:
    return (
        f"{funnel['turns']} turn(s): seen {funnel['seen']} → chosen {funnel['chosen']} → "
        f"read {funnel['read']} → used {funnel['used']} "
        f"(answered from context: {funnel['used_from_context']})"
    )


@cli.command()
@click.argument("session_id", metavar="SESSION")
@click.option("--turn", "turn_no", type=int, help="Only this turn (1 is the first).")
@json_option
@click.pass_context
def trace(ctx: click.Context, session_id: str, turn_no: int | None, as_json: bool) -> None:
    """What memory did in each turn of SESSION: guide seen, memories recalled, opened and read,
    whether the answer used them, what the turn wrote (docs/observability.md)."""
    found = memory(ctx).trace(session_id)
    turns = found.turns
    if turn_no is not None:
        turns = [t for t in turns if t.turn == turn_no]
        if not turns:
            raise click.BadParameter(
                f"session {found.session} has {len(found.turns)} turn(s): give --turn 1 to "
                f"{max(len(found.turns), 1)}",
                param_hint="--turn",
            )
    if as_json:
        data = found.to_dict()
        data["turns"] = [t.to_dict() for t in turns]
        emit_json(data)
        return
    click.echo(f"session {found.session}  (used = {found.measure}, docs/observability.md)")
    if not turns:
        click.echo("No turns yet: nobody has written in this session.")
    for turn in turns:
        _print_turn(turn)
    if turn_no is None and turns:
        click.echo(_funnel_line(found.funnel()))


def _size(n: int) -> str:
    return f"{n / 1024:.1f} KiB" if n < 1024 * 1024 else f"{n / 1024 / 1024:.1f} MiB"


def _counts(items: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in items.items()) or "none"


def _print_scope(s: ScopeStats, idle_days: int) -> None:
    click.echo(f"{s.scope} scope")
    for type_, states in s.memories.items():
        click.echo(f"  {type_:<10} {_counts({k: v for k, v in states.items() if v})}")
    if not s.memories:
        click.echo("  no memories")
    click.echo(f"  writes by source: {_counts(s.writes)}")
    click.echo(f"  guard refusals: {_counts(s.refusals)}")
    rate = f"{s.hit_rate:.0%}" if s.hit_rate is not None else "-"
    click.echo(f"  recalls: {s.recalls}, with hits {s.recalls_with_hits} ({rate})")
    names = ", ".join(s.never_recalled_names)
    more = " …" if s.never_recalled > len(s.never_recalled_names) else ""
    shown = f": {names}{more}" if names else ""
    click.echo(escape_controls(f"  never recalled in {idle_days} days: {s.never_recalled}{shown}"))
    click.echo(f"  files {_size(s.files_bytes)}, index {_size(s.index_bytes)}")


def _print_stats(found: Stats) -> None:
    window = f"since {found.since}" if found.since else "all time"
    click.echo(f"memdir stats ({window}; memory counts and sizes are now)")
    for s in found.scopes:
        _print_scope(s, found.idle_days)
    click.echo(f"sessions: {found.sessions} active, {_size(found.sessions_bytes)} on disk")
    click.echo(f"funnel: {_funnel_line(found.funnel)}")
    click.echo(f"extraction failures: {found.extraction_failures}")


@cli.command()
@click.option("--since", help="Only what happened since: 7d, 12h, 2w or a date (default: all).")
@click.option(
    "--idle-days",
    type=int,
    default=30,
    show_default=True,
    help="'Never recalled' means no recall returned it in this many days.",
)
@json_option
@click.pass_context
def stats(ctx: click.Context, since: str | None, idle_days: int, as_json: bool) -> None:
    """Is memory working? Per scope: memories by type and state, writes by source, recalls and
    hit rate, memories never recalled, guard refusals, sizes; the seen → chosen → read → used
    funnel over the sessions, and extraction failures."""
    bar = ProgressBar("tracing sessions", enabled=not as_json)
    try:
        found = memory(ctx).stats(since=since, idle_days=idle_days, progress=bar)
    finally:
        bar.close()
    if as_json:
        data: dict[str, Any] = found.to_dict()
        emit_json(data)
        return
    _print_stats(found)
