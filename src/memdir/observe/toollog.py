"""What an MCP client did with memory: one session file of tool calls per server process.

An MCP server never sees the client's conversation — only the calls it makes. So the server
records each call (``ToolLog.record``: the tool, its arguments, ``ok``, the result text cut to
``RESULT_CHARS``) as a ``meta`` record of kind ``mcp`` in a session file of its own,
``<sessions>/mcp/<id>.jsonl`` — the same crash-safe JSONL as every session (one ``write`` and
an ``fsync`` per record, one writer holding the lock). ``memdir trace <id>`` reads it like any
session (``observe.trace``: each recall starts a turn; views are the memories opened; writes
are the turn's; *used* is the overlap with the arguments of the calls that follow).

The file is made on the first call, and only where the sessions folder's parent already exists
(``.agent/`` in a project, the memdir home outside one): a server that only reads a project
with no ``.agent/`` leaves nothing behind (issue 18). These files sit beside the sessions, not
among them: ``memdir sessions list`` does not show them. Retention does apply to them, by the
sessions' own rule (``sessions.retention_days``, ``on_expiry``, ``delete_archived_after_days``):
``memdir sessions prune`` and the sleep pass archive an idle log into ``mcp/archive/`` (or
delete it), with nothing to distill, and ``memdir trace`` still reads an archived one.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..sessions import Session

__all__ = ["RESULT_CHARS", "ToolLog"]

RESULT_CHARS = 4000


class ToolLog:
    """The calls of one server process, in ``folder`` (``<sessions>/mcp``)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.session: Session | None = None

    def record(
        self,
        tool: str,
        args: Mapping[str, Any],
        ok: bool,
        text: str,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        """Add one call (``extra``: more keys, such as a recall's ``hits``)."""
        if self.session is None:
            if not self.folder.parent.parent.is_dir():
                return  # nothing written here yet: a reading server creates nothing
            self.session = Session.create(self.folder)
        cut = text if len(text) <= RESULT_CHARS else text[:RESULT_CHARS] + " …[cut]"
        content = {"kind": "mcp", "tool": tool, "args": dict(args), "ok": ok, "result": cut}
        content.update(extra or {})
        self.session.write_record("meta", content)

    def close(self) -> None:
        if self.session is not None:
            self.session.close()
