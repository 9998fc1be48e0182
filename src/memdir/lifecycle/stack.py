"""Which stack a project uses, which stack a memory describes, and when they part (seed 003).

Seed 003's trap: after many Python projects the store is full of Python habits, the person
moves to a Java project, and the warm-up keeps loading the Python ones. Its fix is "scene
switch detection": when the current project's language differs from what most memories
describe, the old memories are *down-weighted*, not injected.

* ``project_stack(root)`` — the languages the project's own manifest files name (top level:
  ``pyproject.toml`` → python, ``package.json`` → javascript, ``pom.xml`` / ``build.gradle`` →
  java, ``go.mod`` → go, ``Cargo.toml`` → rust, ``Gemfile`` → ruby, ``composer.json`` → php,
  ``*.csproj`` / ``*.sln`` → dotnet). Nothing found: the stack is unknown and nothing is
  down-weighted.
* ``memory_stack(text)`` — the languages a statement names, by their tools and frameworks as
  well ("pytest", "FastAPI", "pnpm", "Spring", "cargo", "gofmt"; "Python 项目").
* ``drift(current, records)`` — the majority language of the memories that name one; when it is
  not in the current stack, every memory naming only other languages has ``weight`` 0.25
  (``FOREIGN_WEIGHT``) instead of 1: the agent does not offer it at the start of a task and
  says it set it aside (``offer.py``). A memory naming no language, or one the project uses,
  keeps 1.
* ``weigh(hits, drift, k)`` — the same rule where the first user message's recalled memories
  are injected (E4): a hit with ``weight`` below 1 is set aside — named in the block, not
  injected — and the next hits of the project's stack (or of none) take its place.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar

from ..records import MemoryRecord


class _Hit(Protocol):
    """What ``weigh`` reads of a recall hit (``recall.Hit``, a layer above lifecycle)."""

    @property
    def record(self) -> MemoryRecord: ...


H = TypeVar("H", bound=_Hit)

__all__ = [
    "FOREIGN_WEIGHT",
    "STACKS",
    "Drift",
    "drift",
    "memory_stack",
    "project_stack",
    "weigh",
]

FOREIGN_WEIGHT = 0.25

# language -> (manifest file names or globs at the project root, words naming it in text)
STACKS: dict[str, tuple[tuple[str, ...], str]] = {
    "python": (
        ("pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "Pipfile"),
        r"python|pytest|pip|pydantic|django|flask|fastapi|poetry|mypy|ruff|pandas|numpy",
    ),
    "javascript": (
        ("package.json",),
        r"javascript|typescript|node\.?js|npm|pnpm|yarn|react(?:\.?js| components?| hooks?)|"
        r"vue(?:\.?js)?|next\.js|webpack|vite|jest|eslint|deno",
    ),
    "java": (
        ("pom.xml", "build.gradle", "build.gradle.kts"),
        r"java|maven|gradle|spring ?boot|spring framework|junit|lombok|kotlin",
    ),
    "go": (("go.mod",), r"golang|go\.mod|go test|go build|gofmt|goroutines?"),
    "rust": (("Cargo.toml",), r"rust|cargo|crates?\.io|tokio|clippy"),
    "ruby": (("Gemfile",), r"ruby|rails|rspec|bundler|rubocop"),
    "php": (("composer.json",), r"php|laravel|composer|symfony"),
    "dotnet": (("*.csproj", "*.sln"), r"c#|\.net|dotnet|nuget|asp\.net"),
}
_WORDS = {
    lang: re.compile(rf"(?<![\w.#])(?:{words})(?![\w#])", re.IGNORECASE)
    for lang, (_, words) in STACKS.items()
}


def project_stack(root: Path | None) -> tuple[frozenset[str], tuple[str, ...]]:
    """``(languages, manifest files found)`` of the project at ``root``."""
    if root is None:
        return frozenset(), ()
    found: list[str] = []
    langs: set[str] = set()
    for lang, (manifests, _) in STACKS.items():
        for pattern in manifests:
            hits = sorted(p.name for p in root.glob(pattern) if p.is_file())
            if hits:
                langs.add(lang)
                found += hits
    return frozenset(langs), tuple(found)


def memory_stack(text: str) -> frozenset[str]:
    """The languages ``text`` names (through their tools and frameworks too)."""
    return frozenset(lang for lang, words in _WORDS.items() if words.search(text))


def _text(rec: MemoryRecord) -> str:
    return " ".join([rec.statement, rec.description, *rec.tags, *rec.related_files])


@dataclass(frozen=True)
class Drift:
    """The project's stack against the memories'."""

    current: frozenset[str]
    manifests: tuple[str, ...]
    majority: str | None  # the language most memories that name one describe
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def switched(self) -> bool:
        """The project uses a stack, and it is not the one most memories describe."""
        return (
            bool(self.current) and self.majority is not None and self.majority not in self.current
        )

    def weight(self, rec: MemoryRecord) -> float:
        """1, or ``FOREIGN_WEIGHT`` for a memory naming only other languages after a switch."""
        if not self.switched:
            return 1.0
        langs = memory_stack(_text(rec))
        return FOREIGN_WEIGHT if langs and not langs & self.current else 1.0


def drift(
    current: tuple[frozenset[str], tuple[str, ...]], records: Iterable[MemoryRecord]
) -> Drift:
    """Compare the project's stack (``project_stack``) with what ``records`` describe."""
    counts: Counter[str] = Counter()
    for rec in records:
        counts.update(memory_stack(_text(rec)))
    majority = _majority(counts, current[0])
    return Drift(current[0], current[1], majority, dict(counts))


def _majority(counts: Counter[str], current: frozenset[str]) -> str | None:
    """The most named language (a tie goes to one the project uses, then by name)."""
    if not counts:
        return None
    ranked: Sequence[tuple[str, int]] = sorted(
        counts.items(), key=lambda kv: (-kv[1], kv[0] not in current, kv[0])
    )
    return ranked[0][0]


def weigh(hits: Sequence[H], drift: Drift, k: int) -> tuple[list[H], list[H]]:
    """``(kept, set aside)`` by the rule the guide's offer follows (``offer.py``): after a
    switch, a hit whose memory names only other stacks (``weight`` below 1) is set aside,
    however well it matched; the best ``k`` others are kept in recall's order."""
    kept = [h for h in hits if drift.weight(h.record) >= 1.0][:k]
    aside = [h for h in hits if drift.weight(h.record) < 1.0]
    return kept, aside
