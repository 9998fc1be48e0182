"""memdir: long-term memory for LLM agents that people can read.

Memories are Markdown files with YAML frontmatter (the truth); everything else is derived from
them. Start with ``Memory``::

    from memdir import Memory
    m = Memory()
    rec = m.remember("Use pnpm, not npm, in JS projects", type="feedback")
"""

import importlib as _importlib
import typing as _typing

if _typing.TYPE_CHECKING:
    from .config import Policy
    from .errors import (
        AmbiguousError,
        BadFileError,
        ConfigError,
        ConflictError,
        ExtractionError,
        LockTimeoutError,
        MemdirError,
        NotFoundError,
        ProviderError,
        RefusedError,
        SessionBusyError,
        UnsafeNameError,
        ValidationError,
    )
    from .files import Problem
    from .history import Change
    from .memory import Memory
    from .records import MemoryRecord
    from .sessions import Session, SessionInfo
    from .tools import MemoryTool

# Where each public name lives. They are imported on first use (PEP 562), so that
# ``import memdir.errors`` — what `memdir --version` needs — does not load the whole library.
_HOME = {
    "Policy": "config",
    "Problem": "files",
    "Change": "history",
    "Memory": "memory",
    "MemoryRecord": "records",
    "Session": "sessions",
    "SessionInfo": "sessions",
    "MemoryTool": "tools",
}


def __getattr__(name: str) -> _typing.Any:
    if name in __all__:
        module = _importlib.import_module(f".{_HOME.get(name, 'errors')}", __name__)
        value = getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AmbiguousError",
    "BadFileError",
    "Change",
    "ConfigError",
    "ConflictError",
    "ExtractionError",
    "LockTimeoutError",
    "MemdirError",
    "Memory",
    "MemoryRecord",
    "MemoryTool",
    "NotFoundError",
    "Policy",
    "Problem",
    "ProviderError",
    "RefusedError",
    "Session",
    "SessionBusyError",
    "SessionInfo",
    "UnsafeNameError",
    "ValidationError",
]
__version__ = "0.1.0"
