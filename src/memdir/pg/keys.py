"""API keys in the PostgreSQL database (``memdir keys …`` and ``serve --http`` on that backend).

In PostgreSQL mode the database is the truth, keys included: every ``memdir serve --http``
process on one database authenticates from the same ``api_keys`` table, so a key created (or
revoked) by ``memdir keys`` anywhere works (or stops working) on every server process at its
next request — no file to copy, no restart, no cache to go stale.

**What is stored** is what ``keys.KeyRing`` keeps in ``keys.json``: the key's id, its user (the
row's ``owner``), a random salt and ``sha256(salt + secret)``, when it was issued and revoked.
The key itself (``mdk_<id>_<secret>``) is returned once by ``create`` and never written or
logged: not in a row, not in a statement's text (the hash travels as a bound parameter).

**Row-level security before an owner is known.** Authentication reads the table before it knows
who is asking, so it cannot set ``memdir.owner`` first as every other connection does. The table
is RLS-enabled and forced like the others, with three policies:

* ``api_keys_owner`` — a connection that set ``memdir.owner`` sees (only) that user's keys;
* ``api_keys_lookup`` — read only, one row: the key whose id is ``memdir.key_id``. That setting
  is set only inside ``memdir_key_lookup(id)``, a ``SECURITY DEFINER`` function with a fixed
  ``search_path`` that sets it for its own transaction, returns that one row's owner, salt, hash
  and revocation, and clears it. The server authenticates through this function only: it never
  lists the table, and a presented key reaches the database only as its id;
* ``api_keys_admin`` — ``memdir keys`` (an administrator's command) sets ``memdir.keys`` to
  ``admin`` on its own connection to list, issue and revoke keys for every user.

A connection that set none of these (a hand-written ``SELECT * FROM api_keys``) sees no rows.
As for every table here, the settings guard against a query that forgets whose rows it wants;
they are not a wall against someone who holds the role's password (who could set them too). A
deployment that wants the server unable to list keys at all can run it as a second role granted
only ``EXECUTE`` on ``memdir_key_lookup`` (the function runs as its owner).
"""

from __future__ import annotations

import builtins
import hmac
import re
import secrets
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..apikeys import PREFIX, TOKEN, USER, KeyInfo, check_user, digest
from ..errors import NotFoundError
from . import schema
from .backend import check_role
from .connect import Database

if TYPE_CHECKING:
    import psycopg

__all__ = ["MIGRATION", "PgKeyRing"]

KEYS_OWNER = ":keys"  # no user is named so (check_user): this connection owns no rows itself

MIGRATION = schema.API_KEYS


_HEX = re.compile(r"[0-9a-f]+")


def _entry_problem(entry: Mapping[str, Any]) -> tuple[str, str | None]:
    """``(id, why it cannot be copied)`` for one stored key (``None``: it can)."""
    key_id = entry.get("id")
    if not isinstance(key_id, str) or not re.fullmatch(r"[0-9a-f]{8}", key_id):
        return str(key_id), "not a key id (8 hex digits)"
    user = entry.get("user")
    if not isinstance(user, str) or not USER.fullmatch(user):
        return key_id, f"not a user name: {user!r}"
    for field in ("salt", "hash"):
        value = entry.get(field)
        if not isinstance(value, str) or not _HEX.fullmatch(value):
            return key_id, f"its {field} is not hex: the entry was edited by hand"
    for field in ("created", "revoked"):
        value = entry.get(field)
        if value is not None and not isinstance(value, str):
            return key_id, f"its {field} is not a timestamp"
        if isinstance(value, str) and value:
            try:
                datetime.fromisoformat(value.replace("Z", "+00:00"))
            except ValueError:
                return key_id, f"its {field} is not a timestamp: {value!r}"
    return key_id, None


def _stamp(value: datetime | None) -> str | None:
    return None if value is None else value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class PgKeyRing:
    """``keys.KeyRing``'s interface over the ``api_keys`` table of the database ``dsn`` names.

    **Connections from the process's pool** (pg/pool.py), as the stores take theirs: a lookup
    borrows one for its one short transaction and gives it back, so lookups of many requests
    run side by side and the keys hold no connection between them."""

    def __init__(self, dsn: str) -> None:
        self.db = Database(dsn, KEYS_OWNER)
        self.where = self.db.where
        with self.db.lend() as conn:
            check_role(conn, self.db.where)
            schema.check(conn)

    @contextmanager
    def _transaction(self) -> Iterator[psycopg.Cursor[Any]]:
        """A cursor in a transaction on a pooled connection; a lost connection is
        ``StorageUnavailableError`` naming the database, never its password."""
        with self.db.transaction() as cur:
            yield cur

    def _admin(self, cur: psycopg.Cursor[Any]) -> None:
        cur.execute("SELECT set_config('memdir.keys', 'admin', true)")  # this transaction only

    # -- writing -------------------------------------------------------------------------
    def create(self, user: str) -> tuple[KeyInfo, str]:
        """A new key for ``user``: its info and the key itself (shown once, never stored)."""
        check_user(user)
        secret = secrets.token_urlsafe(32)
        salt = secrets.token_hex(16)
        with self._transaction() as cur:
            self._admin(cur)
            while True:
                key_id = secrets.token_hex(4)
                cur.execute(
                    "INSERT INTO api_keys (id, owner, salt, hash) VALUES (%s, %s, %s, %s) "
                    "ON CONFLICT (id) DO NOTHING RETURNING created",
                    (key_id, user, salt, digest(salt, secret)),
                )
                row = cur.fetchone()
                if row is not None:
                    break
        info = KeyInfo(id=key_id, user=user, created=_stamp(row[0]) or "", revoked=None)
        return info, f"{PREFIX}{key_id}_{secret}"

    def revoke(self, what: str) -> builtins.list[KeyInfo]:
        """Revoke the key with id ``what``, or every key of the user ``what``; returns the keys
        revoked now. ``NotFoundError`` when nothing matches."""
        with self._transaction() as cur:
            self._admin(cur)
            cur.execute("SELECT 1 FROM api_keys WHERE id = %s OR owner = %s LIMIT 1", (what, what))
            if cur.fetchone() is None:
                raise NotFoundError(
                    f"no key or user {what!r}: see `memdir keys list` for key ids and users"
                )
            cur.execute(
                "UPDATE api_keys SET revoked = now() WHERE (id = %s OR owner = %s) "
                "AND revoked IS NULL RETURNING id, owner, created, revoked",
                (what, what),
            )
            rows = sorted(cur.fetchall(), key=lambda r: (r[2], r[0]))
        return [KeyInfo(r[0], r[1], _stamp(r[2]) or "", _stamp(r[3])) for r in rows]

    def adopt(
        self, entries: Iterable[Mapping[str, Any]]
    ) -> tuple[builtins.list[KeyInfo], builtins.list[tuple[str, str]]]:
        """Copy keys issued elsewhere (``keys.json``'s entries: id, user, salt, hash, created,
        revoked) into the table, so the keys people hold keep working: ``(added, skipped)``,
        each skip with its reason. Idempotent: a key already here is skipped; one transaction,
        so a failure adds none of them."""
        added: builtins.list[KeyInfo] = []
        skipped: builtins.list[tuple[str, str]] = []
        with self._transaction() as cur:
            self._admin(cur)
            for entry in entries:
                key_id, problem = _entry_problem(entry)
                if problem:
                    skipped.append((key_id, problem))
                    continue
                cur.execute(
                    "INSERT INTO api_keys (id, owner, salt, hash, created, revoked) "
                    "VALUES (%s, %s, %s, %s, COALESCE(%s::timestamptz, now()), %s::timestamptz) "
                    "ON CONFLICT (id) DO NOTHING RETURNING created, revoked",
                    (
                        key_id,
                        entry["user"],
                        entry["salt"],
                        entry["hash"],
                        entry.get("created") or None,
                        entry.get("revoked") or None,
                    ),
                )
                row = cur.fetchone()
                if row is not None:
                    added.append(
                        KeyInfo(key_id, entry["user"], _stamp(row[0]) or "", _stamp(row[1]))
                    )
                    continue
                cur.execute("SELECT hash FROM api_keys WHERE id = %s", (key_id,))
                same = cur.fetchone() == (entry["hash"],)
                skipped.append(
                    (key_id, "already here" if same else "another key here has this id: kept")
                )
        return added, skipped

    # -- reading -------------------------------------------------------------------------
    def list(self) -> builtins.list[KeyInfo]:
        """Every key, revoked ones included, in the order they were issued."""
        with self._transaction() as cur:
            self._admin(cur)
            cur.execute("SELECT id, owner, created, revoked FROM api_keys ORDER BY created, id")
            rows = cur.fetchall()
        return [KeyInfo(r[0], r[1], _stamp(r[2]) or "", _stamp(r[3])) for r in rows]

    def user_for(self, key: str) -> str | None:
        """The user a presented key belongs to, or ``None`` if it is malformed, unknown or
        revoked. Only the key's id reaches the database (``memdir_key_lookup``); the secret is
        hashed and compared here, in constant time. A database that cannot be reached raises
        ``StorageUnavailableError`` (the server's 503), never a silent 401."""
        match = TOKEN.fullmatch(key) if isinstance(key, str) else None
        if not match:
            return None
        key_id, secret = match.groups()
        with self._transaction() as cur:
            cur.execute("SELECT owner, salt, hash, revoked FROM memdir_key_lookup(%s)", (key_id,))
            row = cur.fetchone()
        if row is None or row[3]:
            return None
        owner, salt, stored = row[0], row[1], row[2]
        try:
            presented = digest(salt, secret)
        except ValueError:  # a salt that is not hex: written by hand
            return None
        if hmac.compare_digest(presented, stored) and USER.fullmatch(owner):
            return str(owner)
        return None

    def close(self) -> None:
        self.db.close()
