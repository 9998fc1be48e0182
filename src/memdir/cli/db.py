"""``memdir db status|migrate``: the schema of a database backend (docs/postgres.md).

The file backend keeps no schema: both commands say so and change nothing. For PostgreSQL they
name the database as ``user@host:port/db`` — never the DSN's password.
"""

from __future__ import annotations

from typing import Any

import click

from .app import cli, emit_json, json_option


def _dsn() -> str | None:
    """The configured backend's DSN, or ``None`` for the file backend."""
    from ..errors import ConfigError
    from ..settings import configured_backend

    spec = configured_backend()
    if "://" not in spec:
        return None
    if not spec.startswith("postgresql://"):
        raise ConfigError(f"memdir db knows the postgresql backend only (got {spec.split(':')[0]})")
    return spec


def _no_schema(as_json: bool) -> None:
    if as_json:
        emit_json({"backend": "file", "applied": [], "pending": [], "applied_now": []})
    else:
        click.echo("the file backend keeps no schema: nothing to migrate")


@cli.group()
def db() -> None:
    """The database backend's schema: which steps are applied, and applying the rest.

    Steps are named, each runs in its own transaction with the row that records it; a step
    that fails leaves the schema as the previous one left it. memdir refuses a database whose
    schema is newer than it knows. See docs/postgres.md.
    """


@db.command()
@json_option
def status(as_json: bool) -> None:
    """List the migration steps the database has applied and those still pending."""
    dsn = _dsn()
    if dsn is None:
        _no_schema(as_json)
        return
    from ..pg.admin import status as read_status

    found: dict[str, Any] = read_status(dsn)
    if as_json:
        emit_json({"backend": "postgresql", **found})
        return
    click.echo(f"database {found['database']}")
    for name in found["applied"]:
        click.echo(f"  applied  {name}")
    for name in found["pending"]:
        click.echo(f"  pending  {name}")


@db.command()
@json_option
def migrate(as_json: bool) -> None:
    """Apply every pending migration step, each in its own transaction."""
    dsn = _dsn()
    if dsn is None:
        _no_schema(as_json)
        return
    from ..pg.admin import migrate as run

    said = (lambda name: None) if as_json else (lambda name: click.echo(f"applied {name}"))
    found: dict[str, Any] = run(dsn, progress=said)
    if as_json:
        emit_json({"backend": "postgresql", **found})
        return
    if not found["applied_now"]:
        click.echo(f"{found['database']}: the schema is up to date ({len(found['applied'])} steps)")
    else:
        click.echo(f"{found['database']}: the schema is up to date")
