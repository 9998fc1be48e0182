"""The one exception tree of memdir.

Every failure the library reports is a ``MemdirError``; frontends (CLI, servers) catch it at
their edge and show its message, which always says what to do next::

    MemdirError
    ├── ConfigError            settings or layout are unusable (no project found, bad home)
    ├── ValidationError        a value given to memdir is not acceptable
    │   ├── UnsafeNameError    a memory name that could escape its scope or is not a valid file
    │   └── RefusedError       the guard refused to store it (a secret, a permission grant, …)
    ├── NotFoundError          no memory / change with that name or id
    ├── AmbiguousError         a name or id prefix matches more than one thing
    ├── ConflictError          the file changed underneath us; nothing was written
    ├── SessionBusyError       another process is writing that session (one writer per file)
    ├── BadFileError           a memory file on disk does not parse (see ``memdir doctor``)
    │   └── LinkError          a symbolic link leads out of the scope; not followed
    ├── LockTimeoutError       another process held the scope's write lock for too long
    ├── StorageUnavailableError the database behind the backend cannot be reached now
    ├── ProviderError          an LLM endpoint failed, timed out or is not configured
    └── ExtractionError        the extractor's model output stayed unusable after a retry
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "AmbiguousError",
    "BadFileError",
    "ConfigError",
    "ConflictError",
    "ExtractionError",
    "LinkError",
    "LockTimeoutError",
    "MemdirError",
    "NotFoundError",
    "ProviderError",
    "RefusedError",
    "SessionBusyError",
    "StorageUnavailableError",
    "UnsafeNameError",
    "ValidationError",
]


class MemdirError(Exception):
    """Base class of every error memdir raises on purpose."""


class ConfigError(MemdirError):
    """Settings or the directory layout cannot be used as they are."""


class UnsupportedError(ConfigError):
    """What was asked for is not offered by the storage backend in use (sleep, the daily log
    and the memory tool's tree work on the file backend only, for now). REST: 501."""


class ValidationError(MemdirError):
    """A value handed to memdir (a field, a type, a name) is not acceptable."""


class UnsafeNameError(ValidationError):
    """A memory name that is not a plain file name inside its scope directory."""


class NotFoundError(MemdirError):
    """No memory or change matches what was asked for."""


class AmbiguousError(MemdirError):
    """More than one memory or change matches; the message says how to pick one."""


class ConflictError(MemdirError):
    """The file changed between reading and writing it; nothing was written."""


class SessionBusyError(MemdirError):
    """Another process holds the session's write lock: a session file has one writer."""


class BadFileError(MemdirError):
    """A file in a scope directory that memdir cannot read as a memory."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


class LinkError(BadFileError):
    """A symbolic link under a scope leads out of it (issue 26): memdir neither reads nor writes
    through it — a cloned repository can ship such links in its ``.agent/``."""


class LockTimeoutError(MemdirError):
    """The scope's write lock stayed held past the timeout."""


class StorageUnavailableError(MemdirError):
    """The database a backend keeps the memories in cannot be reached (down, refusing, the
    connection lost mid-call): nothing was written; try again once it is back (REST: 503)."""


class RefusedError(ValidationError):
    """The guard would not store this: it holds a secret, grants a permission, or tries to turn
    external content into a rule. ``reasons`` lists why; the refusal is in the change log."""

    def __init__(self, message: str, reasons: tuple[str, ...] = ()) -> None:
        self.reasons = reasons
        super().__init__(message)


class ProviderError(MemdirError):
    """An LLM endpoint is not configured, cannot be reached, or answered with an error."""


class ExtractionError(MemdirError):
    """The model's extraction output could not be used, even after one retry. ``raw`` keeps
    what the model answered, for ``memdir doctor`` and for a person to look at."""

    def __init__(self, message: str, raw: str = "") -> None:
        self.raw = raw
        super().__init__(message)
