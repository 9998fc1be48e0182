"""``memdir worker`` and ``memdir jobs``: background jobs on the PostgreSQL backend (SPEC J2,
docs/postgres.md "Workers and jobs").

``memdir jobs`` lists the configured owner's jobs (progress, attempts, the last error) and
``jobs add|show|retry|cancel`` act on them — through ``Memory.jobs()``, so row-level security
shows each owner only their own. ``memdir worker`` runs N workers that claim jobs of every
owner from the queue. On the file backend both say that they need PostgreSQL and how to
configure it (exit code 1, like every configuration error).
"""

from __future__ import annotations

from typing import Any

import click

from .app import as_scope, cli, emit_json, json_option, memory

_STATES = ("queued", "running", "done", "failed", "cancelled")
_KINDS = ("reembed", "extract", "sleep")


def _progress(progress: dict[str, Any]) -> str:
    if "turns" in progress:
        return f"{progress.get('turns_done', 0)}/{progress['turns']} turns"
    if "total" in progress:
        return f"{progress.get('done', 0)}/{progress['total']}"
    return "-"


def _line(job: Any) -> str:
    error = f"  error: {job.last_error}" if job.last_error else ""
    return (
        f"{job.id:>6}  {job.kind:8} {job.state:9} {job.attempts}/{job.max_attempts}  "
        f"{_progress(job.progress):12} {job.scope}{error}"
    )


@cli.group(invoke_without_command=True)
@click.option("--state", type=click.Choice(_STATES), help="Only jobs in this state.")
@click.option("--kind", type=click.Choice(_KINDS), help="Only jobs of this kind.")
@click.option("--limit", type=click.IntRange(1, 10_000), default=100, show_default=True)
@json_option
@click.pass_context
def jobs(
    ctx: click.Context, state: str | None, kind: str | None, limit: int, as_json: bool
) -> None:
    """List your background jobs, newest first: kind, state, attempts, progress, last error.

    Jobs live in the PostgreSQL backend's queue and are run by `memdir worker`; see
    docs/postgres.md "Workers and jobs".
    """
    if ctx.invoked_subcommand is not None:
        return
    found = memory(ctx).jobs().list(state=state, kind=kind, limit=limit)
    if as_json:
        emit_json([j.to_dict() for j in found])
        return
    if not found:
        click.echo("no jobs" + (f" {state}" if state else ""))
        return
    click.echo(f"{'id':>6}  {'kind':8} {'state':9} try  {'progress':12} scope")
    for job in found:
        click.echo(_line(job))


@jobs.command("add")
@click.argument("kind", type=click.Choice(_KINDS))
@click.option("--scope", type=click.Choice(["user", "project"]), help="Default: the project.")
@click.option("--session", "session", help="The session to extract (extract jobs).")
@click.option("--rebuild", is_flag=True, help="reembed: drop the index first.")
@click.option("--embedder", help="reembed: the embedder (default: the worker's).")
@click.option("--max-attempts", type=click.IntRange(1, 100), default=3, show_default=True)
@json_option
@click.pass_context
def add(
    ctx: click.Context,
    kind: str,
    scope: str | None,
    session: str | None,
    rebuild: bool,
    embedder: str | None,
    max_attempts: int,
    as_json: bool,
) -> None:
    """Queue a job: reembed a scope, extract a session's turns, or sleep a scope."""
    job, created = memory(ctx).enqueue(
        kind,
        scope=as_scope(scope),
        session=session,
        rebuild=rebuild,
        embedder=embedder,
        max_attempts=max_attempts,
    )
    if as_json:
        emit_json({**job.to_dict(), "created": created})
        return
    click.echo(f"{'queued' if created else 'already queued'}: job {job.id} ({kind}, {job.scope})")


def _job_id(value: str) -> int:
    from ..errors import ValidationError

    try:
        return int(value)
    except ValueError:
        raise ValidationError(
            f"a job id is a number (got {value!r}): memdir jobs lists them"
        ) from None


@jobs.command("show")
@click.argument("job_id")
@json_option
@click.pass_context
def show(ctx: click.Context, job_id: str, as_json: bool) -> None:
    """Show one job: its progress, attempts and last error."""
    job = memory(ctx).jobs().get(_job_id(job_id))
    if as_json:
        emit_json(job.to_dict())
        return
    click.echo(_line(job))
    for key in ("created_at", "started_at", "heartbeat_at", "finished_at", "worker"):
        click.echo(f"  {key}: {getattr(job, key) or '-'}")
    click.echo(f"  progress: {job.progress}")


@jobs.command("retry")
@click.argument("job_id")
@json_option
@click.pass_context
def retry(ctx: click.Context, job_id: str, as_json: bool) -> None:
    """Queue a failed or cancelled job again (its attempts start over)."""
    job = memory(ctx).jobs().retry(_job_id(job_id))
    if as_json:
        emit_json(job.to_dict())
        return
    click.echo(f"job {job.id} queued again")


@jobs.command("cancel")
@click.argument("job_id")
@json_option
@click.pass_context
def cancel(ctx: click.Context, job_id: str, as_json: bool) -> None:
    """Cancel a queued or running job (a running one stops at its next progress)."""
    job = memory(ctx).jobs().cancel(_job_id(job_id))
    if as_json:
        emit_json(job.to_dict())
        return
    click.echo(f"job {job.id} cancelled")


@cli.command()
@click.option("--concurrency", type=click.IntRange(1, 64), default=1, show_default=True)
@click.option("--once", is_flag=True, help="Stop when the queue has nothing left to run.")
@click.option(
    "--retry-delay",
    type=click.FloatRange(0),
    default=10.0,
    show_default=True,
    help="Seconds before a job that failed for a passing reason is tried again.",
)
@json_option
def worker(concurrency: int, once: bool, retry_delay: float, as_json: bool) -> None:
    """Run background jobs (extraction, re-embedding, sleep) from the PostgreSQL queue.

    Each of --concurrency workers claims one job at a time (FOR UPDATE SKIP LOCKED) and runs it
    as the job's owner; a job whose worker was killed is taken over by the next. Runs until
    stopped (Ctrl-C), or with --once until no job is left. See docs/postgres.md.
    """
    from ..worker import run_workers, worker_dsn

    dsn = worker_dsn()

    def said(job: Any, state: str) -> None:
        if not as_json:
            click.echo(f"job {job.id} ({job.kind}, {job.owner}/{job.scope}): {state}", err=True)

    def trouble(message: str) -> None:
        click.echo(f"warning: {message}", err=True)

    summary = run_workers(
        dsn,
        concurrency=concurrency,
        once=once,
        retry_delay_s=retry_delay,
        on_job=said,
        on_error=trouble,
    )
    if as_json:
        emit_json(summary.to_dict())
    else:
        click.echo(
            f"{len(summary.done)} done, {len(summary.failed)} failed, "
            f"{len(summary.retried)} queued again"
        )
