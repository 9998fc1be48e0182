"""The ``Memory`` facade: the one door every frontend (CLI, servers, agent loop) goes through.

A ``Memory`` knows two scopes — ``user`` under ``$MEMDIR_HOME/memory`` and ``project`` under
``<root>/.agent/memory`` — each a ``ports.Store`` its backend opens (the file backend's
``FileStore`` has its own lock, change log and MEMORY.md).
It turns friendly arguments into validated frontmatter, picks the scope (the memory type decides
the default; a name is looked up in both), and returns typed records. It holds no state of its
own beyond the paths: every call reads the files, so hand edits are always seen.

One class in three modules, each named by what it holds: ``memories.py`` (scopes, writes
through the guard, reads, recall), ``sessions.py`` (sessions, context, the memory tool,
extraction) and ``lifecycle.py`` (sleep, the archive, working memory, traces; the ``Memory``
class itself). ``names.py`` holds name lookup and similarity. The facade hands the memory tool
and extraction itself through their ports (``tools.ToolMemory``, ``extract.runner.Writer``),
so neither imports the facade back.
"""

from .lifecycle import Memory

__all__ = ["Memory"]
