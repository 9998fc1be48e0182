"""API keys for the REST server: who a request is, from the key it carries (SPEC I4).

**Storage.** ``<data dir>/keys.json`` (mode 0600) holds one entry per key::

    {"id": "3f9c2a1b", "user": "alice", "salt": "<32 hex>", "hash": "<sha256 hex>",
     "created": "2026-05-01T10:00:00Z", "revoked": null}

A key is ``mdk_<id>_<secret>``: ``id`` (8 hex digits) finds the entry, ``secret`` (32 random
bytes, url-safe base64) proves it. Only ``sha256(salt + secret)`` is stored, so the file leaks no
usable key; the key itself is shown once, by ``memdir keys create``. The secret has 256 bits of
entropy, so a plain salted hash (no slow KDF) is enough: there is nothing to brute-force. The
comparison is constant-time.

**Writers.** ``create`` and ``revoke`` take an ``flock`` on ``keys.json.lock``, re-read the file,
and replace it atomically (temp file, fsync, rename), so two ``memdir keys`` commands never lose
each other's entries. **Readers** (the server) re-read the file whenever its stat changes, so a
revoked key stops working on the next request without a restart.

**Where.** ``open_keys(data_dir, backend)`` picks the store: this file for the file backend;
for a PostgreSQL DSN, the database's ``api_keys`` table (``pg.keys.PgKeyRing``: the same
interface, the same salted hashes, shared by every server process on that database at once).

**Users.** A user name is lowercase letters, digits, ``-`` and ``_`` (at most 64, starting with
a letter or digit): it becomes a directory name (``<data dir>/users/<user>/``), so nothing that
could be a path is accepted.
"""

from __future__ import annotations

import builtins
import fcntl
import hmac
import json
import os
import secrets
import threading
from pathlib import Path
from typing import Any

from ..apikeys import PREFIX, TOKEN, USER, KeyInfo, Keys, check_user, digest
from ..apikeys import now as _now
from ..errors import ConfigError, NotFoundError
from ..fs import atomic_write
from ..paths import home_dir

__all__ = ["KeyInfo", "KeyRing", "Keys", "check_user", "default_data_dir", "open_keys"]


def default_data_dir() -> Path:
    """Where ``memdir serve`` keeps keys and users: ``$MEMDIR_SERVER_DIR``, else
    ``<memdir home>/server``."""
    override = os.environ.get("MEMDIR_SERVER_DIR")
    if override:
        return Path(override).expanduser().absolute()
    return home_dir() / "server"


def open_keys(data_dir: Path, backend: str | None = None) -> Keys:
    """The keys of the server whose data directory is ``data_dir`` and whose users live in
    ``backend`` (a name or a DSN; ``None``: the configured backend): the database's table for
    ``postgresql://…``, else ``<data dir>/keys.json``."""
    from ..settings import configured_backend

    spec = (backend or configured_backend()).strip()
    if spec.split(":", 1)[0] == "postgresql" and "://" in spec:
        from ..pg.keys import PgKeyRing

        return PgKeyRing(spec)
    return KeyRing(data_dir)


class KeyRing:
    """The keys in ``<data dir>/keys.json``: issue, list, revoke, and check a presented key."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.path = data_dir / "keys.json"
        self._cache: tuple[tuple[int, int, int], builtins.list[dict[str, Any]]] | None = None
        self._cache_lock = threading.Lock()

    # -- file ----------------------------------------------------------------------------
    def _read(self) -> list[dict[str, Any]]:
        try:
            data = json.loads(self.path.read_bytes())
        except FileNotFoundError:
            return []
        except (ValueError, UnicodeDecodeError):
            raise ConfigError(
                f"{self.path} is not valid JSON: restore it from a backup, or delete it and "
                "issue new keys with `memdir keys create USER`"
            ) from None
        entries = data.get("keys") if isinstance(data, dict) else None
        if not isinstance(entries, list):
            raise ConfigError(f'{self.path} has no "keys" list: delete it and issue new keys')
        return [e for e in entries if isinstance(e, dict)]

    def _write(self, entries: list[dict[str, Any]]) -> None:
        data = json.dumps({"keys": entries}, indent=1).encode("utf-8") + b"\n"
        atomic_write(self.path, data, mode=0o600)

    def _locked(self) -> int:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.data_dir / "keys.json.lock", os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        return fd

    # -- writing -------------------------------------------------------------------------
    def create(self, user: str) -> tuple[KeyInfo, str]:
        """A new key for ``user``: its info and the key itself (shown once, never stored)."""
        check_user(user)
        secret = secrets.token_urlsafe(32)
        salt = secrets.token_hex(16)
        fd = self._locked()
        try:
            entries = self._read()
            taken = {e.get("id") for e in entries}
            key_id = secrets.token_hex(4)
            while key_id in taken:
                key_id = secrets.token_hex(4)
            entry = {
                "id": key_id,
                "user": user,
                "salt": salt,
                "hash": digest(salt, secret),
                "created": _now(),
                "revoked": None,
            }
            self._write([*entries, entry])
        finally:
            os.close(fd)
        return self._info(entry), f"{PREFIX}{key_id}_{secret}"

    def revoke(self, what: str) -> list[KeyInfo]:
        """Revoke the key with id ``what``, or every key of the user ``what``; returns the keys
        revoked now. ``NotFoundError`` when nothing matches."""
        fd = self._locked()
        try:
            entries = self._read()
            hits = [e for e in entries if what in (e.get("id"), e.get("user"))]
            if not hits:
                raise NotFoundError(
                    f"no key or user {what!r}: see `memdir keys list` for key ids and users"
                )
            fresh = [e for e in hits if not e.get("revoked")]
            for entry in fresh:
                entry["revoked"] = _now()
            if fresh:
                self._write(entries)
        finally:
            os.close(fd)
        return [self._info(e) for e in fresh]

    # -- reading -------------------------------------------------------------------------
    @staticmethod
    def _info(entry: dict[str, Any]) -> KeyInfo:
        return KeyInfo(
            id=str(entry.get("id")),
            user=str(entry.get("user")),
            created=str(entry.get("created")),
            revoked=entry.get("revoked") or None,
        )

    def list(self) -> builtins.list[KeyInfo]:
        """Every key, revoked ones included, in the order they were issued."""
        return [self._info(e) for e in self._read()]

    def stored(self) -> builtins.list[dict[str, Any]]:
        """The stored entries as they are (id, user, salt, hash, created, revoked): what a move
        to another key store copies, so every key issued keeps working there."""
        return [dict(e) for e in self._read()]

    def _entries(self) -> builtins.list[dict[str, Any]]:
        """The entries, re-read only when the file's stat changed since the last read."""
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return []
        stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
        with self._cache_lock:
            if self._cache is None or self._cache[0] != stamp:
                self._cache = (stamp, self._read())
            return self._cache[1]

    def user_for(self, key: str) -> str | None:
        """The user a presented key belongs to, or ``None`` if it is malformed, unknown or
        revoked. Never raises for a bad key: any string may arrive in a header."""
        match = TOKEN.fullmatch(key)
        if not match:
            return None
        key_id, secret = match.groups()
        for entry in self._entries():
            if entry.get("id") != key_id or entry.get("revoked"):
                continue
            salt, stored = entry.get("salt"), entry.get("hash")
            if not isinstance(salt, str) or not isinstance(stored, str):
                return None
            try:
                presented = digest(salt, secret)
            except ValueError:  # a hand-edited salt that is not hex
                return None
            if hmac.compare_digest(presented, stored):
                user = entry.get("user")
                return user if isinstance(user, str) and USER.fullmatch(user) else None
        return None
