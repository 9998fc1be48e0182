"""``memdir db``: the PostgreSQL backend's schema, looked at and migrated on purpose.

Opening the backend migrates an older schema by itself (``schema.check``); these are the same
steps for a person or a deploy script to run first and see — which steps this database records,
which this memdir knows and has not applied, and what one run applied.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..settings import configured_user
from . import schema
from .backend import check_role
from .connect import Database

__all__ = ["migrate", "status"]


def _open(dsn: str) -> Database:
    db = Database(dsn, configured_user())
    with db.lend() as conn:
        check_role(conn, db.where)
    return db


def status(dsn: str) -> dict[str, Any]:
    """The steps applied and pending (``ConfigError`` for a schema newer than this code)."""
    db = _open(dsn)
    try:
        with db.cursor() as cur:
            applied = schema.applied(cur)
            pending = [m.name for m in schema.pending(cur)]
    finally:
        db.close()
    return {"database": db.where, "applied": applied, "pending": pending}


def migrate(dsn: str, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Apply every pending step (each in its own transaction); what was applied."""
    db = _open(dsn)
    try:
        with db.lend() as conn:
            done = schema.migrate(conn, progress=(lambda m: progress(m.name)) if progress else None)
        with db.cursor() as cur:
            applied = schema.applied(cur)
    finally:
        db.close()
    return {"database": db.where, "applied_now": done, "applied": applied}
