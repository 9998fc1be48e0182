"""API keys' format, shared by every key store (``http.keys.KeyRing``'s file, PostgreSQL's
``pg.keys.PgKeyRing``): a key is ``mdk_<id>_<secret>``, only ``sha256(salt + secret)`` is stored,
and a user name is what may become a directory name. The stores and how the server picks one
are in ``http/keys.py``."""

from __future__ import annotations

import builtins
import hashlib
import re
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from .errors import ValidationError

__all__ = ["PREFIX", "TOKEN", "USER", "KeyInfo", "Keys", "check_user", "digest", "now"]

PREFIX = "mdk_"
USER = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
TOKEN = re.compile(r"mdk_([0-9a-f]{8})_([A-Za-z0-9_-]{43})")


def check_user(user: str) -> str:
    """``user`` if it is a valid user name, else ``ValidationError`` saying what is allowed."""
    if not isinstance(user, str) or not USER.fullmatch(user):
        raise ValidationError(
            f"{user!r} is not a user name: use 1-64 lowercase letters, digits, '-' and '_', "
            "starting with a letter or digit"
        )
    return user


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def digest(salt: str, secret: str) -> str:
    return hashlib.sha256(bytes.fromhex(salt) + secret.encode("ascii")).hexdigest()


@dataclass(frozen=True)
class KeyInfo:
    """One stored key, without anything that could be used to authenticate."""

    id: str
    user: str
    created: str
    revoked: str | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Keys(Protocol):
    """What the server and ``memdir keys`` need of a key store (``KeyRing``, ``PgKeyRing``)."""

    def create(self, user: str) -> tuple[KeyInfo, str]: ...
    def revoke(self, what: str) -> builtins.list[KeyInfo]: ...
    def list(self) -> builtins.list[KeyInfo]: ...
    def user_for(self, key: str) -> str | None: ...
