"""A folder of Markdown notes (an Obsidian vault, Claude Code's auto-memory folder, a ``docs/``
tree) and instruction files (``CLAUDE.md``, ``AGENTS.md``) → memories and knowledge.

Three kinds of note, told apart by their content:

- **A memory already** — frontmatter with ``description`` and ``type`` (memdir's own format, which
  Claude Code's auto-memory files share): stored as it is, every byte of it, under its ``name``
  (or its file name), with ``source: imported`` added when it has no source.
- **An instruction file** — ``CLAUDE.md``, ``CLAUDE.local.md``, ``AGENTS.md``: each top-level
  bullet is one standing instruction, stored as its own memory (``feedback`` when the file is the
  person's own — under a ``.claude`` / ``.codex`` home folder — else ``project``).
- **Any other note** — taken as it is: its body untouched (``[[links]]``, tags, embeds and all),
  its own frontmatter kept, and the keys memdir needs added in front of it (``description`` from
  the first heading or line, ``type: reference``, ``source: imported``, ``kind: knowledge``). It
  is reference material: searched on request, kept out of the memory guide and of merging.

A note is matched to an earlier import by its name: the same body again is counted as already
there; a different one is reported and left alone (nothing is overwritten). Hidden folders
(``.obsidian``, ``.git``, ``.trash``) and each folder's ``MEMORY.md`` index are skipped, and so is
a note that is not UTF-8, too large for a memory, or whose frontmatter does not parse — each with
its reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import ConflictError, MemdirError, RefusedError
from ...guard import redact
from ...markdown import FormatError, parse
from ...paths import Scope
from ...records import check_name, default_scope, shorten, slugify
from ..chats import ChatReport, Skipped

if TYPE_CHECKING:
    from ...memory import Memory

__all__ = ["INSTRUCTION_FILES", "agent_memory_files", "import_notes", "notes"]

FORMAT = "markdown"
INSTRUCTION_FILES = ("CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "AGENT.md")
MAX_NOTE_BYTES = 900 * 1024  # under a memory file's limit, with room for the added keys
_BULLET = re.compile(r"^[-*+] +(?:\[[ xX]\] +)?(.+)$")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")


def notes(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    found = []
    for file in sorted(path.rglob("*.md")):
        rel = file.relative_to(path).parts
        if any(p.startswith(".") for p in rel[:-1]) or file.name == "MEMORY.md":
            continue
        if file.is_file() and not file.is_symlink():
            found.append(file)
    return found


def _name_for(root: Path, file: Path) -> str:
    rel = file.relative_to(root) if file != root and root.is_dir() else Path(file.name)
    return slugify(str(rel.with_suffix("")).replace("/", " "), max_chars=80) or "note"


def _description(body: str, fallback: str) -> str:
    for line in body.splitlines():
        line = line.strip()
        if not line:
            continue
        heading = _HEADING.match(line)
        return shorten(heading.group(1) if heading else line, 150, at_word=True)
    return fallback


def _instruction_items(text: str) -> Iterator[str]:
    in_fence = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        m = _BULLET.match(line)  # top level only: an indented bullet belongs to the one above
        if m and not in_fence and len(m.group(1).strip()) > 3:
            yield m.group(1).strip()


class _Notes:
    """One import of a notes folder: the report, and the writes through the facade."""

    def __init__(self, memory: Memory, root: Path, scope: Scope | None, dry_run: bool) -> None:
        self.memory, self.root, self.scope, self.dry_run = memory, root, scope, dry_run
        self.report = ChatReport(source=str(root), format=FORMAT, dry_run=dry_run)

    def skip(self, file: Path, reason: str) -> None:
        self.report.skipped.append(Skipped(str(file), reason))

    def propose(self, item: dict[str, Any]) -> bool:
        """Count a proposal; in a dry run keep it as a sample. True when it is to be written."""
        self.report.proposed += 1
        if self.dry_run:
            if len(self.report.sample) < 10:
                self.report.sample.append(item)
            return False
        return True

    def refused(self, text: str, error: MemdirError) -> None:
        self.report.refused += 1
        reasons = error.reasons if isinstance(error, RefusedError) else ()
        shown = redact(text)[0]  # the report never shows a secret
        self.report.refusals.append(
            {"text": shown[:120], "reason": "; ".join(reasons) or str(error)}
        )

    def existing(self, scope: Scope, name: str, body: str) -> bool | None:
        """None: no memory ``name``; True: it holds ``body``; False: it holds something else."""
        store = self.memory.store(scope)
        if not store.exists(name):
            return None
        return store.read(name).body.strip() == body.strip()

    def file(
        self, file: Path, data: bytes, name: str, defaults: dict[str, Any], scope: Scope
    ) -> None:
        body = parse(data).body
        same = self.existing(scope, name, body)
        if same is True:
            self.report.merged += 1
            return
        if same is False:
            self.skip(file, f"a different memory {name!r} is here already: not overwritten")
            return
        if not self.propose(
            {"name": name, "scope": scope, "type": defaults.get("type"), "file": str(file)}
        ):
            return
        try:
            self.memory.create_file(
                name, data, scope=scope, defaults=defaults, reason=f"imported from {file}"
            )
            self.report.stored += 1
        except ConflictError:
            self.report.merged += 1
        except MemdirError as exc:
            self.refused(f"{file}", exc)

    def instructions(self, file: Path, text: str) -> None:
        own = any(p in (".claude", ".codex") for p in file.parts)
        type_ = "feedback" if own else "project"
        scope = self.scope or default_scope(type_)
        items = [
            {
                "text": item,
                "type": type_,
                "scope": scope,
                "source": "imported",
                "quote": item,
                "reason": f"imported from {file}",
            }
            for item in _instruction_items(text)
        ]
        wanted = [i for i in items if self.propose(i)]
        if not wanted:
            return
        for record in self.memory.remember_many(
            wanted, on_error=lambda _p, i, e: self.refused(i["text"], e)
        ):
            if record.is_new:
                self.report.stored += 1
            else:
                self.report.merged += 1


def agent_memory_files(root: Path) -> list[Path]:
    """A coding agent's own memory under ``root`` (``~/.claude``, ``~/.codex`` or a folder of
    them): its instruction files and the files of its memory folders (Claude Code's
    ``projects/<p>/memory/``, a ``memories/`` folder), indexes left out."""
    if not root.is_dir():
        return []
    found = [p for name in INSTRUCTION_FILES for p in root.rglob(name)]
    for folder in ("memory", "memories"):
        found += [p for p in root.rglob(f"{folder}/*.md") if p.name != "MEMORY.md"]
    return sorted({p for p in found if p.is_file() and not p.is_symlink()})


def import_notes(
    memory: Memory,
    root: Path,
    *,
    scope: Scope | None = None,
    dry_run: bool = False,
    progress: Callable[[int, int], None] | None = None,
    files: list[Path] | None = None,
) -> ChatReport:
    """Import the notes under ``root`` (a folder or one file), or only ``files`` of it; see
    the module doc."""
    job = _Notes(memory.as_actor("import"), root, scope, dry_run)
    files = notes(root) if files is None else files
    for position, file in enumerate(files, 1):
        job.report.conversations += 1
        _one(job, file)
        if progress is not None:
            progress(position, len(files))
    return job.report


def _one(job: _Notes, file: Path) -> None:
    try:
        data = file.read_bytes()
    except OSError as exc:
        job.skip(file, f"cannot be read ({exc.strerror or exc})")
        return
    if len(data) > MAX_NOTE_BYTES:
        job.skip(
            file, f"{len(data) >> 10} KiB is over the {MAX_NOTE_BYTES >> 10} KiB a memory holds"
        )
        return
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        job.skip(file, "not UTF-8 text")
        return
    if file.name in INSTRUCTION_FILES:
        job.instructions(file, text)
        return
    if not text.lstrip("\ufeff").startswith("---"):
        data = b"---\n---\n" + data  # no frontmatter: the note's bytes follow an empty one
    try:
        doc = parse(data)
    except FormatError as exc:
        job.skip(file, f"its frontmatter does not parse ({exc})")
        return
    meta = doc.meta
    if doc.body.strip() == "":
        job.skip(file, "empty note")
        return
    name = _name_for(job.root, file)
    if isinstance(meta.get("name"), str):
        try:
            name = check_name(meta["name"])
        except MemdirError:
            job.skip(file, f"its name {meta['name']!r} is not a usable memory name")
            return
    if "description" in meta and "type" in meta:  # a memory already (memdir, Claude Code)
        scope = job.scope or default_scope(str(meta["type"]))
        job.file(file, data, name, {"source": "imported"}, scope)
        return
    defaults = {
        "description": _description(doc.body, name),
        "type": "reference",
        "source": "imported",
        "kind": "knowledge",
    }
    scope = job.scope or ("project" if job.memory.project_root is not None else "user")
    job.file(file, data, name, defaults, scope)
