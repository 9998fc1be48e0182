"""memdir: long-term memory for LLM agents that people can read.

Memories are Markdown files with YAML frontmatter (the truth); everything else is derived from
them. Start with ``Memory``::

    from memdir import Memory
    m = Memory()
    rec = m.remember("Use pnpm, not npm, in JS projects", type="feedback")
"""

import typing as _typing

from .lazy import exports as _exports

if _typing.TYPE_CHECKING:
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
        UnsupportedError,
        ValidationError,
    )
    from .files import Problem
    from .history import Change
    from .memory import Memory
    from .policy import Policy
    from .records import MemoryRecord
    from .sessions import Session, SessionInfo
    from .tools import MemoryTool

# Where each public name lives. They are imported on first use (PEP 562), so that
# ``import memdir.errors`` — what `memdir --version` needs — does not load the whole library.
_HOME = {
    "Policy": "policy",
    "Problem": "files",
    "Change": "history",
    "Memory": "memory",
    "MemoryRecord": "records",
    "Session": "sessions",
    "SessionInfo": "sessions",
    "MemoryTool": "tools",
}


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
    "UnsupportedError",
    "ValidationError",
]

__getattr__ = _exports(__name__, __all__, _HOME, "errors")
__version__ = "0.1.0"
