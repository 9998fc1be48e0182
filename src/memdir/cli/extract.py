"""``memdir extract``: run extraction over a stored session by hand (SPEC G1/G2).

It reads the session's finished turns that were not extracted yet (and those whose extraction
failed), asks the configured model — or the offline rules with ``--offline`` or when no model is
configured — and applies what comes back through the ``Memory`` facade. ``--dry-run`` prints the
proposals and writes nothing, not even the extraction state.
"""

from __future__ import annotations

import click

from .app import cli, emit_json, json_option, memory


@cli.command()
@click.argument("session_id")
@click.option("--dry-run", is_flag=True, help="Print what would change; write nothing.")
@click.option("--all", "everything", is_flag=True, help="Read every turn again, not only new ones.")
@click.option("--offline", is_flag=True, help="Use the offline rules even if a model is set up.")
@json_option
@click.pass_context
def extract(
    ctx: click.Context,
    session_id: str,
    dry_run: bool,
    everything: bool,
    offline: bool,
    as_json: bool,
) -> None:
    """Extract memories from a stored session (new turns and failed ones)."""
    report = memory(ctx).extract_session(
        session_id, dry_run=dry_run, everything=everything, offline=offline
    )
    if as_json:
        emit_json(report.to_dict())
        return
    verb = "would apply" if dry_run else "applied"
    click.echo(f"session {report.session}: {report.turns} turn(s) read with {report.method}")
    for o in report.outcomes:
        what = o.proposal.get("text") or o.proposal.get("description") or ""
        where = f"{o.scope}/{o.name}" if o.name else "-"
        line = f"  {o.status:9} {o.op:6} {where}"
        if what and o.status in ("planned", "stored", "updated", "refused"):
            line += f"  {what[:70]}"
        if o.reason:
            line += f"  ({o.reason})"
        click.echo(line)
    for f in report.failures:
        click.echo(f"  FAILED turn {f.turn}: {f.error}", err=True)
    if not report.outcomes and not report.failures:
        click.echo(f"  nothing to remember ({verb} 0 changes)")
    if report.failures:
        ctx.exit(1)
