"""The ``Memory`` facade: the one door every frontend (CLI, servers, agent loop) goes through.

A ``Memory`` knows two scopes — ``user`` under ``$MEMDIR_HOME/memory`` and ``project`` under
``<root>/.agent/memory`` — each a ``FileStore`` with its own lock, change log and MEMORY.md.
It turns friendly arguments into validated frontmatter, picks the scope (the memory type decides
the default; a name is looked up in both), and returns typed records. It holds no state of its
own beyond the paths: every call reads the files, so hand edits are always seen.

One class in three modules, split by concern: ``base.py`` (scopes, writes through the guard,
reads, recall), ``conversation.py`` (sessions, context, the memory tool, extraction) and
``facade.py`` (sleep and the archive; the ``Memory`` class itself).
"""

from .lifecycle import Memory

__all__ = ["Memory"]
