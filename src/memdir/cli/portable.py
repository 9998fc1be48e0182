"""Commands that move memory: export, import (archives and chat histories)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .app import ProgressBar, as_scope, cli, emit_json, json_option, memory, scope_option

if TYPE_CHECKING:
    from ..memory import Memory
    from ..portable.chats import ChatReport
    from ..portable.imports import ImportPlan


@cli.command("export")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@scope_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["archive", "card"]),
    default="archive",
    show_default=True,
    help="archive: a lossless tar.gz for `memdir import`; card: plain text to paste elsewhere.",
)
@json_option
@click.pass_context
def export_command(
    ctx: click.Context, file: Path, scope: str | None, fmt: str, as_json: bool
) -> None:
    """Write the memories to FILE: a lossless archive (Markdown files, change log with its
    objects, policy and a manifest of hashes), or with --format card a plain-text memory
    card (FILE '-' prints it)."""
    from ..portable.archive import write_archive
    from ..portable.export import collect, memory_card

    m = memory(ctx)
    scopes = [as_scope(scope)] if scope else None
    if fmt == "card":
        card = memory_card(m, scopes)  # type: ignore[arg-type]
        if str(file) == "-":
            click.echo(card, nl=False)
            return
        file.write_text(card, encoding="utf-8")
        if as_json:
            emit_json({"path": str(file), "format": "card", "chars": len(card)})
        else:
            click.echo(f"Wrote a memory card of {len(card)} characters to {file}.")
        return
    archive = collect(m, scopes)  # type: ignore[arg-type]
    digest = write_archive(file, archive)
    counts = _counts(archive.members)
    if as_json:
        emit_json({"path": str(file), "format": "archive", "sha256": digest, "counts": counts})
        return
    per_scope = ", ".join(f"{s}: {n}" for s, n in counts["memories"].items()) or "none"
    click.echo(
        f"Exported memories ({per_scope}), {counts['logs']} daily logs "
        f"({counts['archived_logs']} of them archived), {counts['changes']} changes and "
        f"{counts['objects']} stored versions to {file}\n{digest}"
    )


def _counts(members: dict[str, bytes]) -> dict[str, Any]:
    memories: dict[str, int] = {}
    for path in members:
        parts = path.split("/")
        if len(parts) == 3 and parts[1] == "memory":
            memories[parts[0]] = memories.get(parts[0], 0) + 1
    changes = sum(d.count(b"\n") for p, d in members.items() if p.endswith("changes.jsonl"))
    objects = sum(1 for p in members if "/history/objects/" in p)
    live = sum(1 for p in members if "/memory/log/" in p)
    archived = sum(1 for p in members if "/memory/archive/log/" in p)
    return {
        "memories": memories,
        "logs": live + archived,
        "archived_logs": archived,
        "changes": changes,
        "objects": objects,
    }


IMPORT_FORMATS = (
    "auto",
    "archive",
    "chatgpt",
    "claude",
    "claude-code",
    "codex",
    "markdown",
    "jsonl",
)


@cli.command("import")
@click.argument("path", type=click.Path(path_type=Path))
@scope_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(IMPORT_FORMATS),
    default="auto",
    show_default=True,
    help="What PATH is (auto: found from its content).",
)
@click.option(
    "--dry-run", is_flag=True, help="Say what would be imported, with a sample; write nothing."
)
@click.option(
    "--llm", "use_llm", is_flag=True, help="Extract with the configured LLM instead of the rules."
)
@json_option
@click.pass_context
def import_command(
    ctx: click.Context,
    path: Path,
    scope: str | None,
    fmt: str,
    dry_run: bool,
    as_json: bool,
    use_llm: bool = False,
) -> None:
    """Bring memories in from PATH: a memdir archive (from `memdir export`), checked whole
    before anything is written, or a chat history (ChatGPT or Claude export, Claude Code or
    Codex sessions, generic JSONL) or a folder of Markdown notes. Nothing is overwritten;
    importing the same thing twice stores nothing new."""
    from ..errors import ValidationError
    from ..portable.importers import detect

    if not path.exists():
        raise ValidationError(f"{path} does not exist: give the export file or folder to import")
    m = memory(ctx)
    llm = m.llm if use_llm else None
    if use_llm and llm is None:
        from ..errors import ConfigError

        raise ConfigError(
            "--llm needs a configured model: `memdir config set llm.base_url …` (see "
            "`memdir config`), or import without --llm (offline rules)"
        )
    fmt = detect(path) if fmt == "auto" else fmt
    if fmt == "archive":
        _import_archive(m, path, scope, dry_run, as_json)
        return
    bar = ProgressBar(f"importing {fmt}", enabled=not as_json, minimum=5)
    try:
        if fmt == "markdown":
            from ..portable.importers.markdown import import_notes

            report = import_notes(m, path, scope=as_scope(scope), dry_run=dry_run, progress=bar)
        else:
            from ..portable.chats import import_conversations
            from ..portable.importers import reader

            report = import_conversations(
                m,
                reader(fmt)(path),
                source=path,
                fmt=fmt,
                dry_run=dry_run,
                scope=as_scope(scope),
                progress=bar,
                llm=llm,
            )
            if fmt in ("claude-code", "codex"):  # the agent's own memory travels with it
                from ..portable.importers.markdown import agent_memory_files, import_notes

                files = agent_memory_files(path)
                if files:
                    report.add(
                        import_notes(m, path, scope=as_scope(scope), dry_run=dry_run, files=files)
                    )
    finally:
        bar.close()
    if as_json:
        emit_json(report.to_dict())
        return
    _print_report(report)


def _import_archive(m: Memory, path: Path, scope: str | None, dry_run: bool, as_json: bool) -> None:
    from ..portable.archive import read_archive
    from ..portable.imports import apply_import, plan_import

    archive = read_archive(path)
    scopes = [as_scope(scope)] if scope else None
    plan = plan_import(m, archive, str(path), scopes=scopes)  # type: ignore[arg-type]
    if not dry_run:
        apply_import(m, plan)
    if as_json:
        emit_json(plan.to_dict() | {"dry_run": dry_run})
        return
    _print_plan(plan, dry_run)


def _print_report(report: ChatReport) -> None:
    click.echo(
        f"Read {report.conversations} conversations ({report.messages} messages) from "
        f"{report.source} [{report.format}]"
        + (f", {report.resumed} already imported" if report.resumed else "")
        + (f", and {report.memory_files} of its memory files" if report.memory_files else "")
        + "."
    )
    if report.dry_run:
        click.echo(f"Proposed {report.proposed} memories ({report.redacted} secrets to redact).")
    else:
        click.echo(
            f"Proposed {report.proposed} memories: stored {report.stored}, merged with existing "
            f"{report.merged}, refused by the guard {report.refused}; "
            f"secrets redacted {report.redacted}."
        )
    for refusal in report.refusals[:10]:
        click.echo(f"  refused: {refusal['text']!r} — {refusal['reason']}")
    if report.skipped:
        click.echo(f"Skipped {len(report.skipped)}:")
        for skip in report.skipped[:20]:
            click.echo(f"  {skip.where}: {skip.reason}")
    if report.dry_run:
        if report.sample:
            click.echo("Sample of what would be stored:")
        for item in report.sample:
            what = item.get("text") or item.get("file") or item.get("name")
            click.echo(f"  [{item.get('type')}, {item.get('scope') or '-'}] {what}")
        click.echo("Dry run: nothing was written. Import with the same command without --dry-run.")


def _print_plan(plan: ImportPlan, dry_run: bool) -> None:
    counts = plan.counts()
    verb = "Would import" if dry_run else "Imported"
    new = counts.get("write", 0)
    click.echo(
        f"{verb} {plan.source}: {new} new files, {counts.get('same', 0)} already here, "
        f"{counts.get('rename', 0)} renamed for a name collision, "
        f"{counts.get('append', 0)} daily logs extended; "
        + ", ".join(f"{s}: +{p.log_lines} history lines" for s, p in plan.scopes.items())
    )
    for step in plan.collisions():
        click.echo(f"  {step.scope}: {step.member} → {step.target} ({step.reason})")
    for note in plan.notes:
        click.echo(f"  note: {note}")
    if dry_run:
        click.echo("Dry run: nothing was written. Import with the same command without --dry-run.")
    sys.stdout.flush()


@cli.command("sync")
@click.argument("folder", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--git", "git_url", metavar="URL", help="Sync through this git remote instead.")
@scope_option
@click.option("--dry-run", is_flag=True, help="Say what would change here; write nothing.")
@json_option
@click.pass_context
def sync_command(
    ctx: click.Context,
    folder: Path | None,
    git_url: str | None,
    scope: str | None,
    dry_run: bool,
    as_json: bool,
) -> None:
    """Exchange memory changes with your other devices through FOLDER (one that Syncthing, a
    cloud drive or any tool keeps in step) or a git remote (--git URL). Changes made on one
    side arrive on the other; when both changed the same memory, both versions are kept,
    marked tentative, and listed."""
    from ..errors import ValidationError
    from ..portable.sync import sync_folder, sync_git

    if (folder is None) == (git_url is None):
        raise ValidationError(
            "give a shared FOLDER or --git URL (one of them): memdir sync ~/Sync/memdir"
        )
    m = memory(ctx)
    scopes = [as_scope(scope)] if scope else None
    if git_url is not None:
        report = sync_git(m, git_url, scopes=scopes, dry_run=dry_run)  # type: ignore[arg-type]
    else:
        assert folder is not None
        report = sync_folder(m, folder, scopes=scopes, dry_run=dry_run)  # type: ignore[arg-type]
    if as_json:
        emit_json(report.to_dict())
        return
    verb = "Would take" if dry_run else "Took"
    peers = ", ".join(report.peers) or "none yet"
    click.echo(f"Device {report.device} ⇄ {report.folder} (other devices: {peers}).")
    if report.resumed:
        click.echo("Finished the sync an earlier run left half done.")
    click.echo(f"{verb} {len(report.taken)} changes from other devices.")
    if report.merged:
        days = ", ".join(sorted({m["name"] for m in report.merged}))
        click.echo(
            f"Merged the lines of {len(report.merged)} daily log(s) both sides wrote: {days}"
        )
    for c in report.conflicts:
        copy = f" and {c['copy']}" if c["copy"] else ""
        click.echo(
            f"  conflict: {c['scope']}/{c['name']} changed here and on {c['with']} — kept "
            f"{c['name']}{copy}, both tentative: keep one with `memdir confirm NAME`"
        )
    for w in report.waiting:
        where = f"{w['scope']}/{w['name']} from {w['from']}"
        click.echo(f"  waiting: {where} (its content has not arrived in the folder yet)")
    if dry_run:
        click.echo("Dry run: nothing was written.")


@cli.command("wiki")
@click.option("--force", is_flag=True, help="Regenerate even if the user's memory did not change.")
@click.option("--check", is_flag=True, help="Only say whether the view is current (exit 1 if not).")
@json_option
@click.pass_context
def wiki_command(ctx: click.Context, force: bool, check: bool, as_json: bool) -> None:
    """Project the user's memory into the workspace as a read-only wiki under .memory/
    (hot.md, index.md, log.md, wiki/{concepts,entities,references,synthesis,journal}/),
    regenerated when the user's memory changed. Hand edits there are kept aside and reported."""
    from ..portable.wiki import is_current, project, workspace

    m = memory(ctx)
    if check:
        current = is_current(m)
        if as_json:
            emit_json({"root": str(workspace(m)), "current": current})
        else:
            state = "current" if current else "out of date: run `memdir wiki`"
            click.echo(f"{workspace(m)} is {state}.")
        ctx.exit(0 if current else 1)
    report = project(m, force=force)
    if as_json:
        emit_json(report.to_dict())
        return
    for edit in report.hand_edits:
        click.echo(
            f"hand edit in {edit['file']} kept at {edit['kept_at']}: the wiki is generated — "
            "change the memory itself (`memdir edit NAME`) to change what it shows"
        )
    if report.regenerated:
        click.echo(f"Wrote {report.files} files under {report.root}.")
    else:
        click.echo(f"{report.root} is current ({report.files} files); nothing to do.")
