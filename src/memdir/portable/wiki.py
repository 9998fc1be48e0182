"""The read-only wiki view of the person's memory (seed 001, SPEC K4, ``memdir wiki``).

User memory is projected into the workspace as plain Markdown an agent or a person can browse:

    .memory/hot.md                 the memories that matter most now (importance, then recency)
    .memory/index.md               every memory, by type, linking to its page
    .memory/log.md                 the latest changes, newest first (from the change log)
    .memory/wiki/concepts/         one page per preference, habit or rule (user, feedback)
    .memory/wiki/entities/         one page per tag: the memories about that person, tool, place
    .memory/wiki/references/       reference memories and imported knowledge (``kind: knowledge``)
    .memory/wiki/synthesis/        one page per type: all its statements in one place
    .memory/wiki/journal/          one page per day: what was learned or changed that day

It is a projection, never the truth: ``.memory/.projection.json`` records the user store's
content hash and the hash of every file written. ``is_current`` compares the hash only, and
``project`` regenerates when it changed.

**Before each turn** the agent loop calls ``refresh``, which must cost next to nothing when the
store did not change: it reads ``.memory/.projection.stamp`` — the store's *stamp*, what moves
whenever a memory is written, added, deleted or edited by hand (``Store.fingerprint``: names and
``stat`` of every file, no content read; and the last change's id, one small read at the log's
end) — and compares it with the stamp now. Equal: nothing is read, rendered or written. Moved:
``project`` compares the content hash (a touched file whose bytes did not change re-renders
nothing, it only records the new stamp) and regenerates if that changed. A workspace without a
projection has no ``.projection.json``: ``refresh`` does nothing there, so ``.memory/`` appears
only where the person ran ``memdir wiki``.

A file in ``.memory/`` that someone edited by hand is never lost: before regenerating, its
edited bytes are moved to ``.memory/hand-edits/<path>`` and reported, with the advice to
make the change in the memory itself (``memdir edit``), which is what the wiki shows.
"""

from __future__ import annotations

import builtins
import fcntl
import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..fs import atomic_write

if TYPE_CHECKING:
    from ..memory import Memory
    from ..records import MemoryRecord

__all__ = ["WikiReport", "is_current", "project", "refresh", "stamp", "store_hash", "workspace"]

FOLDER = ".memory"
STATE = ".projection.json"
LOCK = ".projection.lock"  # held while a projection is written (``_locked``)
STAMP = ".projection.stamp"  # the store's stamp when the projection was last checked
HOT = 20
LOG_LINES = 100
SECTIONS = ("concepts", "entities", "references", "synthesis", "journal")
_TITLES = {
    "user": "About the person",
    "feedback": "How to work",
    "project": "Projects",
    "reference": "Where things are",
}


@dataclass
class WikiReport:
    root: str
    regenerated: bool
    files: int = 0
    hand_edits: builtins.list[dict[str, str]] = field(default_factory=builtins.list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "regenerated": self.regenerated,
            "files": self.files,
            "hand_edits": self.hand_edits,
        }


def workspace(memory: Memory) -> Path:
    return (memory.project_root or Path.cwd()) / FOLDER


def store_hash(memory: Memory) -> str:
    """The user store's content hash: every memory's name and hash, and the last change."""
    store = memory.store("user")
    digest = hashlib.sha256()
    records, _ = store.scan()
    for r in sorted(records, key=lambda r: r.name):
        digest.update(f"{r.name}\0{r.content_hash}\n".encode())
    last = store.log.last()
    digest.update((last.id if last else "").encode())
    return "sha256:" + digest.hexdigest()


def stamp(memory: Memory) -> str:
    """What moves whenever the user store changes, read without opening a memory (see the
    module docstring): the store's fingerprint and the last change's id."""
    store = memory.store("user")
    last = store.log.last()
    return f"{store.fingerprint()} {last.id if last else '-'}"


def refresh(memory: Memory) -> WikiReport | None:
    """The agent loop's check before each turn: ``None`` when there is no projection here or
    the store's stamp has not moved (nothing read but the stamp, nothing written); else what
    ``project`` did. Never creates ``.memory/``."""
    root = workspace(memory)
    if not (root / STATE).is_file():
        return None  # the person never ran `memdir wiki` here
    now = stamp(memory)
    try:
        if (root / STAMP).read_text(encoding="utf-8") == now:
            return None
    except (FileNotFoundError, UnicodeDecodeError):
        pass  # a projection from before the stamp, or a stamp someone mangled: check in full
    return project(memory, stamp_now=now)


def _state(root: Path) -> dict[str, Any]:
    try:
        data = json.loads((root / STATE).read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (FileNotFoundError, ValueError):
        return {}


def is_current(memory: Memory) -> bool:
    """Whether the wiki shows the user store as it is now (a hash compared, nothing written)."""
    return _state(workspace(memory)).get("store") == store_hash(memory)


def _slug(text: str) -> str:
    return re.sub(r"[^\w.-]+", "-", text.lower(), flags=re.UNICODE).strip("-")[:60] or "x"


def _line(r: MemoryRecord, link: str) -> str:
    mark = " *(tentative)*" if r.confidence == "tentative" else ""
    return f"- [{r.description}]({link}){mark}"


def _page(r: MemoryRecord) -> str:
    lines = [f"# {r.description}", "", r.statement.strip(), ""]
    if r.why:
        lines += [f"**Why:** {r.why}", ""]
    if r.how_to_apply:
        lines += [f"**How to apply:** {r.how_to_apply}", ""]
    facts = [f"type {r.type}", f"source {r.source}", f"confidence {r.confidence}"]
    if r.tags:
        facts.append("tags " + ", ".join(f"[{t}](../entities/{_slug(t)}.md)" for t in r.tags))
    lines += ["---", "", f"*{' · '.join(facts)} · learned {r.created or '?'} · memory `{r.name}`*"]
    return "\n".join(lines) + "\n"


def _section(r: MemoryRecord) -> str:
    if r.type == "reference" or r.extra.get("kind") == "knowledge":
        return "references"
    return "concepts" if r.type in ("user", "feedback") else "synthesis"


def render(memory: Memory) -> dict[str, str]:
    """Every file of the projection, path (under ``.memory/``) → text. Pure: reads only."""
    store = memory.store("user")
    records = sorted(store.scan()[0], key=lambda r: r.name)
    files: dict[str, str] = {}
    pages = {r.name: f"wiki/{_section(r)}/{r.name}.md" for r in records}
    note = (
        "*Generated by `memdir wiki` from the user's memory — read only; edit the memory itself.*"
    )
    for r in records:
        files[pages[r.name]] = _page(r)
    index = ["# Memory index", "", note]
    for type_, title in _TITLES.items():
        chosen = [r for r in records if r.type == type_]
        if chosen:
            index += ["", f"## {title}", ""] + [_line(r, pages[r.name]) for r in chosen]
    files["index.md"] = "\n".join(index) + "\n"
    hot = sorted(records, key=lambda r: (-(r.importance or 5), r.updated or "", r.name))
    hot = sorted(hot[:HOT], key=lambda r: (-(r.importance or 5), r.name))
    files["hot.md"] = (
        "\n".join(["# Hot memory", "", note, ""] + [_line(r, pages[r.name]) for r in hot]) + "\n"
    )
    changes = builtins.list(store.log.entries())
    log = ["# Memory log", "", note, ""]
    for c in reversed(changes[-LOG_LINES:]):
        log.append(
            f"- {c.time} {c.op} `{c.name}` by {c.actor}" + (f" — {c.reason}" if c.reason else "")
        )
    files["log.md"] = "\n".join(log) + "\n"
    tags: dict[str, list[MemoryRecord]] = defaultdict(list)
    for r in records:
        for t in r.tags:
            tags[t].append(r)
    for tag, chosen in sorted(tags.items()):
        body = [f"# {tag}", ""] + [_line(r, f"../../{pages[r.name]}") for r in chosen]
        files[f"wiki/entities/{_slug(tag)}.md"] = "\n".join(body) + "\n"
    for type_, title in _TITLES.items():
        chosen = [r for r in records if r.type == type_]
        if chosen:
            body = [f"# {title}", ""] + [f"- {' '.join(r.statement.split())}" for r in chosen]
            files[f"wiki/synthesis/{type_}.md"] = "\n".join(body) + "\n"
    days: dict[str, list[str]] = defaultdict(list)
    for c in changes:
        if c.op != "refuse":
            days[c.time[:10]].append(f"- {c.time[11:19]} {c.op} `{c.name}` by {c.actor}")
    for day, lines in sorted(days.items()):
        files[f"wiki/journal/{day}.md"] = "\n".join([f"# {day}", "", *lines]) + "\n"
    return files


def _digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def project(memory: Memory, *, force: bool = False, stamp_now: str | None = None) -> WikiReport:
    """Regenerate the projection if the user store changed (or ``force``); see the module doc.
    ``stamp_now``: the store's stamp the caller just took (else it is taken here, before the
    content hash, so a write landing in between leaves a stamp that moves again)."""
    root = workspace(memory)
    root.mkdir(parents=True, exist_ok=True)
    with _locked(root):
        return _project(memory, root, force=force, stamp_now=stamp_now)


@contextmanager
def _locked(root: Path) -> Iterator[None]:
    """One projection at a time per workspace (two agents, or an agent and ``memdir wiki``):
    the second waits, then finds the work done — a page another process is halfway through
    writing is never taken for a hand edit."""
    with open(root / LOCK, "ab") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield  # closing the file releases the lock


def _project(memory: Memory, root: Path, *, force: bool, stamp_now: str | None) -> WikiReport:
    state = _state(root)
    now = stamp_now if stamp_now is not None else stamp(memory)
    current = store_hash(memory)
    report = WikiReport(str(root), regenerated=False)
    written: dict[str, str] = state.get("files") or {}
    edited = _hand_edits(root, written)
    if not edited and not force and state.get("store") == current:
        report.files = len(written)
        _save_stamp(root, now)
        return report
    files = render(memory)
    # a file there that this projection never wrote (its record lost, or made by hand before
    # the first `memdir wiki`) is kept aside too: nothing it did not write is overwritten
    edited += [
        rel
        for rel, text in sorted(files.items())
        if rel not in written
        and (root / rel).is_file()
        and (root / rel).read_bytes() != text.encode("utf-8")
    ]
    for rel in edited:
        _keep_aside(root, rel, report)
    for section in SECTIONS:
        (root / "wiki" / section).mkdir(parents=True, exist_ok=True)
    for rel in set(written) - set(files):
        (root / rel).unlink(missing_ok=True)  # a memory that is gone: its page goes too
    hashes = {}
    for rel, text in sorted(files.items()):
        data = text.encode("utf-8")
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_bytes() != data:
            atomic_write(path, data, sync_dir=False)
        hashes[rel] = _digest(data)
    atomic_write(root / STATE, json.dumps({"store": current, "files": hashes}, indent=0).encode())
    _save_stamp(root, now)
    report.regenerated, report.files = True, len(files)
    return report


def _save_stamp(root: Path, now: str) -> None:
    path = root / STAMP
    try:
        if path.read_text(encoding="utf-8") == now:
            return
    except (FileNotFoundError, UnicodeDecodeError):
        pass
    if root.is_dir():  # a check never creates the folder (``project`` has made it by now)
        atomic_write(path, now.encode("utf-8"), sync_dir=False)


def _keep_aside(root: Path, rel: str, report: WikiReport) -> None:
    """Move the hand-edited ``rel`` to ``hand-edits/`` (an earlier edit kept there stays)."""
    data = (root / rel).read_bytes()
    aside = root / "hand-edits" / rel
    n = 1
    while aside.exists() and aside.read_bytes() != data:  # an earlier edit stays too
        n += 1
        aside = (root / "hand-edits" / rel).with_suffix(f".{n}.md")
    aside.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(aside, data)
    report.hand_edits.append({"file": str(root / rel), "kept_at": str(aside)})


def _hand_edits(root: Path, written: dict[str, str]) -> builtins.list[str]:
    """The generated files whose bytes are no longer what the projection wrote."""
    out = []
    for rel, digest in sorted(written.items()):
        path = root / rel
        try:
            now = _digest(path.read_bytes())
        except FileNotFoundError:
            continue  # deleted by hand: nothing to keep, it is regenerated
        if now != digest:
            out.append(rel)
    return out
