"""Memory that moves with its person (issue 24, SPEC K1–K4).

``archive``   the portable archive format: a deterministic ``tar.gz`` with a manifest that
              hashes every member, read and checked whole before anything is written
``export``    a store → an archive (``memdir export``), or a plain-text memory card
``imports``   an archive → a store (``memdir import``): a plan first (what is new, what is
              already there, which names collide), then applied under each scope's lock
``chats``     the chat-history importers' common pipeline (conversations → offline rules →
              guarded ``remember_many``), with a checkpoint per conversation
``importers`` one module per export format (ChatGPT, Claude, Claude Code, Codex, Markdown, JSONL)
``sync``      change exchange between devices through a shared folder or a git remote
``wiki``      the read-only projection of user memory into the workspace (``.memory/``)

Everything here sits above the ``Memory`` facade: memories are written through it (the guard,
the change log), and the archive reads and writes each scope's files under its write lock.
"""

from __future__ import annotations

__all__: list[str] = []
