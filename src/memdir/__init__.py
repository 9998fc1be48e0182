"""memdir: long-term memory for LLM agents that people can read.

Memories are Markdown files with YAML frontmatter (the truth); everything else is derived from
them. Start with ``Memory``::

    from memdir import Memory
    m = Memory()
    rec = m.remember("Use pnpm, not npm, in JS projects", type="feedback")
"""

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
