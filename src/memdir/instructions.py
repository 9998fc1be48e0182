"""Instruction files: the AGENT.md levels and their ``@include`` lines (SPEC D1–D2).

**Three levels, all kept.** In this order, each separated by a ``---`` line::

    <root>/AGENT.md           team instructions, committed with the project
    <root>/.agent/AGENT.md    personal instructions for this project (gitignored)
    <home>/AGENT.md           the person's own, for every project ($MEMDIR_HOME, ~/.agent)

Levels are concatenated, never overridden: they hold different things (team rules, personal
preferences), and dropping one would lose information. Where ``AGENT.md`` is absent the other
names of the policy's ``instructions.file_names`` are tried in order (``AGENTS.md``,
``CLAUDE.md``); the first one found is the level's file, so a ``CLAUDE.md`` kept as a copy of
``AGENTS.md`` is not read twice.

**Includes.** A line ``@include path`` — or ``@path`` alone on its line, when ``path`` looks
like a file (has a ``/`` or an extension) — is replaced by that file, read relative to the file
that names it. Guards, each reported as a ``Problem`` while the rest is still read:

* depth: the top file's includes are level 1; an include at level 6 is refused;
* cycles: a file already being expanded is not followed again;
* roots: a path that resolves (``..``, absolute, or through a symlink) outside its level's root
  — the project root for the first two levels, the home for the third — is refused, so
  ``@include ../../etc/passwd`` never reaches a model;
* a missing or unreadable file is reported and its line left as written;
* nothing inside a fenced code block (````` or ``~~~``) is expanded: examples stay examples.

The top file of a level may itself be a symlink (a ``CLAUDE.md`` pointing at ``AGENTS.md`` is
common). At the home level it is the person's choice and is read as found; at the two project
levels it must resolve inside the project root (as must ``.agent/`` itself), since a cloned
repository can ship a link to any file of the person's — one that leads out is refused as a
``Problem`` naming the link (issue 26), and the other levels are still read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .files import Problem

__all__ = ["MAX_DEPTH", "InstructionFile", "Instructions", "load_instructions"]

MAX_DEPTH = 5
MAX_FILE_BYTES = 256 * 1024
SEPARATOR = "\n\n---\n\n"
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_INCLUDE = re.compile(r"@include\s+(\S.*)")
_BARE = re.compile(r"@([^\s@]+)")


@dataclass(frozen=True)
class InstructionFile:
    """One level's file, with its includes expanded."""

    level: str  # "project" | "personal" | "user"
    path: Path
    root: Path
    text: str


@dataclass(frozen=True)
class Instructions:
    """The instruction files found, in order, and every problem met while reading them."""

    files: tuple[InstructionFile, ...]
    problems: tuple[Problem, ...]

    @property
    def text(self) -> str:
        """The levels concatenated in order, separated by ``---``."""
        return SEPARATOR.join(f.text.strip("\n") for f in self.files if f.text.strip())


def _target(line: str) -> str | None:
    """The path an include line names, or ``None`` for an ordinary line."""
    stripped = line.strip()
    match = _INCLUDE.fullmatch(stripped)
    if match:
        return match.group(1).strip().strip("\"'")
    match = _BARE.fullmatch(stripped)
    if match:
        path = match.group(1)
        if "/" in path or re.search(r"\.[A-Za-z0-9]+$", path):
            return path
    return None


def _read(path: Path, problems: list[Problem], named_by: Path) -> str | None:
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            problems.append(
                Problem(
                    named_by,
                    f"{path} is {size // 1024} KiB; instruction files must be under "
                    f"{MAX_FILE_BYTES // 1024} KiB — split it",
                    "warning",
                )
            )
            return None
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        problems.append(
            Problem(named_by, f"include {path} not found; line left as written", "warning")
        )
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(Problem(named_by, f"cannot read {path} ({exc}); skipped", "warning"))
    return None


class _Expander:
    """Expands the includes of one level's file, collecting problems."""

    def __init__(self, root: Path, problems: list[Problem]) -> None:
        self.root = root.resolve()
        self.problems = problems

    def expand(self, path: Path, text: str, stack: tuple[Path, ...]) -> str:
        out: list[str] = []
        fence: tuple[str, int] | None = None
        for line in text.splitlines(keepends=True):
            match = _FENCE.fullmatch(line.rstrip("\r\n"))
            if fence is not None:
                closing = match and not match.group(2).strip()
                if closing and match and match.group(1)[0] == fence[0]:
                    fence = None if len(match.group(1)) >= fence[1] else fence
                out.append(line)
            elif match:
                fence = (match.group(1)[0], len(match.group(1)))
                out.append(line)
            elif (target := _target(line)) is not None:
                out.append(self._include(path, target, stack, line))
            else:
                out.append(line)
        return "".join(out)

    def _include(self, path: Path, target: str, stack: tuple[Path, ...], line: str) -> str:
        def refuse(reason: str) -> str:
            self.problems.append(Problem(path, f"{line.strip()!r}: {reason}", "warning"))
            return line

        if len(stack) > MAX_DEPTH:
            return refuse(f"includes nest deeper than {MAX_DEPTH} levels; not followed")
        resolved = (path.parent / target).resolve()
        if not resolved.is_relative_to(self.root):
            return refuse(f"resolves to {resolved}, outside {self.root}; refused")
        if resolved in stack:
            chain = " → ".join(p.name for p in (*stack, resolved))
            return refuse(f"include cycle ({chain}); not followed")
        if not resolved.is_file() and resolved.exists():
            return refuse(f"{resolved} is not a file")
        text = _read(resolved, self.problems, path)
        if text is None:
            return line
        expanded = self.expand(resolved, text, (*stack, resolved))
        return expanded if expanded.endswith("\n") or not expanded else expanded + "\n"


def _level_file(directory: Path, names: Sequence[str]) -> Path | None:
    for name in names:
        candidate = directory / name
        if candidate.is_file():
            return candidate
    return None


def _links_out(path: Path, root: Path, problems: list[Problem]) -> bool:
    """Whether a project level's file (or the ``.agent/`` it is in) resolves out of the project
    ``root``; if so the problem names it and says how to fix it."""
    real = path.resolve()
    if real.is_relative_to(root.resolve()):
        return False
    reason = (
        f"resolves to {real}, outside the project {root}: a symbolic link out of the project "
        "is not followed — replace the link with the real file, or remove it"
    )
    problems.append(Problem(path, reason, "warning"))
    return True


def load_instructions(
    *,
    home: Path,
    project_root: Path | None,
    file_names: Sequence[str] = ("AGENT.md", "AGENTS.md", "CLAUDE.md"),
) -> Instructions:
    """Read the instruction levels that exist, in order, with includes expanded."""
    levels: list[tuple[str, Path, Path]] = []
    if project_root is not None:
        levels += [
            ("project", project_root, project_root),
            ("personal", project_root / ".agent", project_root),
        ]
    levels.append(("user", home, home))
    files: list[InstructionFile] = []
    problems: list[Problem] = []
    for level, directory, root in levels:
        path = _level_file(directory, file_names)
        if path is None or (level != "user" and _links_out(path, root, problems)):
            continue
        text = _read(path, problems, path)
        if text is None:
            continue
        expanded = _Expander(root, problems).expand(path, text, (path.resolve(),))
        files.append(InstructionFile(level, path, root, expanded))
    return Instructions(tuple(files), tuple(problems))
