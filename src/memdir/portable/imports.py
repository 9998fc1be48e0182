"""An archive → a store (``memdir import FILE.tar.gz``): plan, then apply.

``plan_import`` compares the checked archive (``archive.read_archive``) with what is here and
says, per file, what importing does — nothing is written by it (``--dry-run`` prints it):

- ``write``    the file is not here: it arrives byte for byte;
- ``same``     the file is here with the same bytes: nothing to do (importing twice is a no-op);
- ``rename``   a memory of that name is here with other content: the incoming one arrives under
  a free name (``<name>-imported``), its ``name`` key changed to match, logged as a ``create``
  whose reason names the collision — nothing here is overwritten;
- ``append``   a daily log of that date is here (live in ``log/``, or compressed by sleep into
  ``archive/log/``): the incoming lines it lacks are appended to the one that is here, which
  stays where it is (a day has one log; a second copy would be overwritten when sleep
  compresses the first) — gzip is opened and written again without a timestamp;
- ``kept``     an archived log here that does not decompress: the incoming one is not merged
  into it and the step is listed, for the person to fix the file and import again;
- ``policy``   a different policy is here: the incoming one is kept beside it as
  ``memory-policy.imported.yaml`` for the person to compare.

The change log: into a scope that has none, it is copied as it is (with the recall log and the
objects), so export → import → export is byte-identical. Into a populated scope, the lines whose
change id is not here are appended — except those about a memory that arrived renamed, whose
history stays with the archive — and the content objects are added (content-addressed: never
overwritten). ``apply_import`` writes under each scope's lock and checks first that no file it
plans to write appeared meanwhile (``ConflictError``: run it again).
"""

from __future__ import annotations

import builtins
import gzip
import json
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, ConflictError, MemdirError
from ..fs import atomic_write
from ..markdown import FormatError, content_hash, parse, set_fields
from ..paths import Scope, policy_file
from ..records import check_name
from .archive import Archive, ArchiveError
from .sync import fit_name
from .tree import ScopeTree, tree_of

if TYPE_CHECKING:
    from ..memory import Memory

__all__ = ["ImportPlan", "Step", "apply_import", "plan_import"]

ACTOR = "import"


@dataclass(frozen=True)
class Step:
    """What importing does with one file of the archive."""

    action: str  # write | same | rename | append | policy
    scope: str
    member: str  # the path in the archive
    target: str  # where it lands, relative to the scope's memory directory (or the policy's)
    reason: str = ""

    def to_dict(self) -> dict[str, str]:
        return {
            "action": self.action,
            "scope": self.scope,
            "member": self.member,
            "target": self.target,
            "reason": self.reason,
        }


@dataclass
class _ScopePlan:
    fresh: bool
    log: bytes = b""  # what the change log gains (the whole file when fresh)
    recalls: bytes = b""
    log_lines: int = 0
    journal: bytes = b""  # the lines ``history/logs.jsonl`` gains
    objects: dict[str, bytes] = field(default_factory=dict)


@dataclass
class ImportPlan:
    """Every step of one import, computed before anything is written."""

    source: str
    steps: builtins.list[Step] = field(default_factory=builtins.list)
    scopes: dict[str, _ScopePlan] = field(default_factory=dict)
    archive: Archive | None = None
    notes: builtins.list[str] = field(default_factory=builtins.list)  # what is not kept as is

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for step in self.steps:
            out[step.action] = out.get(step.action, 0) + 1
        return out

    def collisions(self) -> builtins.list[Step]:
        return [s for s in self.steps if s.action in ("rename", "policy", "kept")]

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "counts": self.counts(),
            "log_lines": {s: p.log_lines for s, p in self.scopes.items()},
            "fresh": {s: p.fresh for s, p in self.scopes.items()},
            "steps": [s.to_dict() for s in self.steps if s.action != "same"],
            "collisions": [s.to_dict() for s in self.collisions()],
            "notes": self.notes,
        }


def _free_name(tree: ScopeTree, folder: str, stem: str, taken: set[str]) -> str:
    for n in range(1, 10_000):
        candidate = fit_name(stem, "-imported" + (f"-{n}" if n > 1 else ""))
        rel = f"{folder}/{candidate}.md" if folder else f"{candidate}.md"
        if candidate.lower() not in taken and tree.read(rel) is None:
            taken.add(candidate.lower())
            return candidate
    raise ConflictError(f"no free name for {stem!r} in {folder or 'memory'}: rename some first")


def _log_ids(data: bytes) -> set[str]:
    ids = set()
    for raw in data.splitlines():
        try:
            line = json.loads(raw)
        except ValueError:
            continue  # a torn line: doctor reports it; it holds no id to compare
        if isinstance(line, dict) and isinstance(line.get("id"), str):
            ids.add(line["id"])
    return ids


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _check_member_name(member: str) -> None:
    stem = member.rsplit("/", 1)[1]
    try:
        check_name(stem)
    except MemdirError as exc:
        raise ArchiveError(f"the archive holds {member!r}, not a memory file name: {exc}") from None


def _plan_scope(plan: ImportPlan, archive: Archive, scope: Scope, tree: ScopeTree) -> None:
    prefix = f"{scope}/memory/"
    mine = archive.under(prefix)
    here = tree.memory_names()
    sp = _ScopePlan(fresh=tree.fresh())
    taken = {n[:-3].lower() for n in here}
    renamed: set[str] = set()
    for rel, data in sorted(mine.items()):
        member = prefix + rel
        if rel.startswith(("log/", "archive/log/")):
            plan.steps.append(_plan_log(tree, scope, member, rel, data))
            continue
        _check_member_name(member)
        now = tree.read(rel)
        if now is None:
            plan.steps.append(Step("write", scope, member, rel))
        elif now == data:
            plan.steps.append(Step("same", scope, member, rel))
        else:
            folder, _, file = rel.rpartition("/")
            stem = file[:-3]
            new = _free_name(tree, folder, stem, taken)
            target = f"{folder}/{new}.md" if folder else f"{new}.md"
            renamed.add(stem)
            why = f"a different memory named {stem!r} is here; the incoming one is {new!r}"
            plan.steps.append(Step("rename", scope, member, target, why))
    log = archive.members.get(f"{scope}/history/changes.jsonl", b"")
    recalls = archive.members.get(f"{scope}/history/recalls.jsonl", b"")
    if sp.fresh:
        sp.log, sp.recalls = log, recalls
        sp.log_lines = log.count(b"\n")
    else:
        known = _log_ids(tree.log_bytes())
        kept = []
        for raw in log.splitlines(keepends=True):
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(line, dict) or line.get("id") in known:
                continue
            if line.get("name") in renamed:
                continue  # that memory arrived under another name: its history stays behind
            kept.append(raw if raw.endswith(b"\n") else raw + b"\n")
        sp.log, sp.log_lines = b"".join(kept), len(kept)
        seen = set(tree.recall_bytes().splitlines())
        sp.recalls = b"".join(r + b"\n" for r in recalls.splitlines() if r and r not in seen)
    journal = archive.members.get(f"{scope}/history/logs.jsonl", b"")
    have = set(tree.journal_bytes().splitlines())
    sp.journal = b"".join(r + b"\n" for r in journal.splitlines() if r and r not in have)
    objects = archive.under(f"{scope}/history/objects/")
    for rel, data in objects.items():
        if content_hash(data) != "sha256:" + rel.replace("/", ""):
            raise ArchiveError(f"the object {rel} in the archive does not hash to its name")
        if not tree.has_object(rel):
            sp.objects[rel] = data
    plan.scopes[scope] = sp


def _day_paths(rel: str) -> tuple[str, ...]:
    """Where this store may keep the log of ``rel``'s day: live first, then archived."""
    day = rel.rsplit("/", 1)[1].split(".", 1)[0]
    return (f"log/{day}.md", f"archive/log/{day}.md.gz", f"archive/log/{day}.md")


def _log_text(rel: str, data: bytes) -> bytes | None:
    """A daily log's text (decompressed when ``rel`` is gzip), ``None`` when it will not open."""
    if not rel.endswith(".gz"):
        return data
    try:
        return gzip.decompress(data)
    except (OSError, EOFError, zlib.error):
        return None


def _plan_log(tree: ScopeTree, scope: str, member: str, rel: str, data: bytes) -> Step:
    """A day's log, live or archived: one log per day here, lines added, never replaced."""
    if tree.read(rel) == data:
        return Step("same", scope, member, rel)
    here = next(((p, b) for p in _day_paths(rel) if (b := tree.read(p)) is not None), None)
    if here is None:
        return Step("write", scope, member, rel)
    target, now = here
    if _log_text(target, now) is None or _log_text(rel, data) is None:
        broken = target if _log_text(target, now) is None else member
        return Step(
            "kept",
            scope,
            member,
            target,
            f"{broken} does not decompress, so the incoming lines were not added to "
            f"{scope}/{target}; fix or move that file and import again",
        )
    incoming, mine = _log_text(rel, data) or b"", _log_text(target, now) or b""
    if _append_missing_lines(mine, incoming) == mine:
        return Step("same", scope, member, target, "every line of it is here already")
    where = "this day's log is here too" if target == rel else f"this day's log is {target} here"
    return Step("append", scope, member, target, where)


def plan_import(
    memory: Memory, archive: Archive, source: str, *, scopes: builtins.list[Scope] | None = None
) -> ImportPlan:
    """What importing ``archive`` into ``memory`` would do (nothing is written)."""
    plan = ImportPlan(source=source, archive=archive)
    wanted: builtins.list[Scope] = scopes or [
        s for s in ("project", "user") if s in archive.scopes()
    ]
    for scope in wanted:
        if scope not in memory.scopes():
            raise ConfigError(
                "the archive holds project memories but there is no project here: run the "
                "import inside the project (or `memdir --project DIR import`), or pass "
                "--scope user to import only the user's memories"
            )
    for scope in wanted:
        tree = tree_of(memory.store(scope))
        _plan_scope(plan, archive, scope, tree)
    incoming = archive.members.get("policy/memory-policy.yaml")
    if incoming is not None:
        path = policy_file(home=memory.home, project_root=memory.project_root)
        now = _read(path)
        if now is None:
            plan.steps.append(Step("write", "policy", "policy/memory-policy.yaml", str(path)))
        elif now == incoming:
            plan.steps.append(Step("same", "policy", "policy/memory-policy.yaml", str(path)))
        else:
            beside = str(path.with_name("memory-policy.imported.yaml"))
            why = "a different policy is here: the incoming one is kept beside it to compare"
            plan.steps.append(Step("policy", "policy", "policy/memory-policy.yaml", beside, why))
    return plan


def _renamed_bytes(data: bytes, new: str) -> bytes:
    try:
        doc = parse(data)
        if "name" in doc.meta:
            return set_fields(doc, {"name": new}).dump()
    except FormatError:
        pass  # a file the source store could not read either: it travels as it is
    return data


def _append_missing_lines(now: bytes, incoming: bytes) -> bytes:
    have = set(now.splitlines())
    extra = [line for line in incoming.splitlines() if line.strip() and line not in have]
    if not extra:
        return now
    joined = b"\n".join(extra) + b"\n"
    return now + (b"" if now.endswith(b"\n") or not now else b"\n") + joined


def _apply_scope(plan: ImportPlan, scope: str, tree: ScopeTree) -> None:
    assert plan.archive is not None
    sp = plan.scopes[scope]
    steps = [s for s in plan.steps if s.scope == scope]
    with tree.locked():
        for step in steps:
            if step.action in ("write", "rename") and tree.read(step.target) is not None:
                raise ConflictError(
                    f"{scope}/{step.target} appeared while importing; nothing more was written — "
                    "run the import again (what is already in is recognised as the same)"
                )
        tree.write_objects(sp.objects)
        tree.append_logs(sp.log, sp.recalls)
        tree.append_journal(sp.journal)
        for step in steps:
            data = plan.archive.members[step.member]
            if step.action == "write":
                tree.write(step.target, data)
            elif step.action == "append":
                tree.write(step.target, _appended(step, tree.read(step.target) or b"", data))
            elif step.action == "rename":
                _write_renamed(tree, step, data, plan.source)
        tree.done()


def _appended(step: Step, now: bytes, incoming: bytes) -> bytes:
    """The log at ``step.target`` with the lines of ``incoming`` it lacks (gzip kept gzip)."""
    rel = step.member.split("/memory/", 1)[1]
    merged = _append_missing_lines(
        _log_text(step.target, now) or b"", _log_text(rel, incoming) or b""
    )
    return gzip.compress(merged, mtime=0) if step.target.endswith(".gz") else merged


def _write_renamed(tree: ScopeTree, step: Step, data: bytes, source: str) -> None:
    """The incoming memory under its free name, logged as a create naming the collision."""
    stem = step.target.rsplit("/", 1)[-1][:-3]
    data = _renamed_bytes(data, stem)
    digest = content_hash(data)
    tree.log.keep(digest, data)
    tree.log.append(
        op="create",
        name=stem,
        actor=ACTOR,
        source="imported",
        before=None,
        after=digest,
        reason=f"imported from {source}: {step.reason}",
        path=step.target if "/" in step.target else None,
    )
    tree.write(step.target, data)


def apply_import(memory: Memory, plan: ImportPlan) -> ImportPlan:
    """Carry out ``plan`` (from ``plan_import``); returns it."""
    assert plan.archive is not None
    for scope in plan.scopes:
        _apply_scope(plan, scope, tree_of(memory.store(scope)))  # type: ignore[arg-type]
    for step in plan.steps:
        if step.scope == "policy" and step.action in ("write", "policy"):
            target = Path(step.target)
            if step.action == "write" and target.exists():
                raise ConflictError(f"{target} appeared while importing: run the import again")
            target.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(target, plan.archive.members[step.member])
    return plan
