"""The lifecycle policy, ``memory-policy.yaml``, with every default built in (SPEC H1, C6, C7, E3).

The file is optional and may set any subset of keys; what it does not say comes from the
defaults below. Its shape follows the sections of the spec::

    sessions:                      # C6 retention of session transcripts
      retention_days: 30           #   sessions idle longer than this expire
      on_expiry: archive           #   archive | delete — what happens after the distill hook
      delete_archived_after_days: null   # null = archived sessions are never deleted
    conversation:
      max_messages: 30             # C7 recent messages kept verbatim when older turns compact
    compaction:
      threshold_tokens: 100000     # C7 estimated tokens (20% margin included) that trigger it
    long_memory:                   # E3 size limits of the guide's parts (characters)
      project: {max_chars: 3000}   #   project MEMORY.md
      user: {max_chars: 4000}      #   user MEMORY.md
      recalled: 0                  # E4 memories recalled for the first user message and shown
                                   #   after the guide (0 = off)
    instructions:
      max_chars: 20000             # E3 the concatenated AGENT.md levels
      file_names: [AGENT.md, AGENTS.md, CLAUDE.md]   # D1 first one found per level is read
    forgetting:                    # H4 (memdir sleep)
      archive_after_days: 30       #   an unused memory is archived after this many idle days;
                                   #   each use and a higher importance stretch it
      archive_ttl_days: 365        #   archived this long → deleted (never the person's words)
    duplicates:                    # H2/H3 cosine above which two memories are compared at all,
      similarity: {hashing: 0.55, use: 0.6, e5: 0.88, other: 0.8}   # per embedder
    promotion:                     # H6 daily-log notes → long-term memories
      min_reuse: 2                 #   promoted when reused this often …
      user_explicit: true          #   … or when the note asks for it ("remember", "!")
      rule_sessions: 3             #   the same correction in this many sessions → a feedback rule

**Strict.** A key memdir does not know is an error, not silently ignored — a typo such as
``retension_days`` would otherwise quietly keep the default. The error names the key and the
keys (or values) that are allowed.

**Extending.** Each section is a frozen dataclass; a field's ``metadata["check"]`` validates its
value and a field whose default is itself a dataclass is a nested section. A later feature adds a
field (or a section) here and nothing else: the loader, the error messages and ``to_dict`` follow.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .errors import ConfigError

__all__ = [
    "CompactionPolicy",
    "ConversationPolicy",
    "DuplicatesPolicy",
    "ForgettingPolicy",
    "IndexLimit",
    "InstructionsPolicy",
    "LongMemoryPolicy",
    "Policy",
    "PromotionPolicy",
    "SessionsPolicy",
    "SimilarityThresholds",
    "load_policy",
]

Check = Callable[[str, Any], Any]


def _count(minimum: int) -> Check:
    def check(key: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise ConfigError(f"{key} must be a whole number ≥ {minimum} (got {value!r})")
        return value

    return check


def _choice(*allowed: str) -> Check:
    def check(key: str, value: Any) -> str:
        if value not in allowed:
            raise ConfigError(f"{key} must be one of {', '.join(allowed)} (got {value!r})")
        return str(value)

    return check


def _optional(inner: Check) -> Check:
    def check(key: str, value: Any) -> Any:
        return None if value is None else inner(key, value)

    return check


def _fraction(key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        raise ConfigError(f"{key} must be a number above 0 and at most 1 (got {value!r})")
    return float(value)


def _flag(key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{key} must be true or false (got {value!r})")
    return value


def _file_names(key: str, value: Any) -> tuple[str, ...]:
    ok = isinstance(value, list) and value and all(isinstance(v, str) for v in value)
    if not ok or any("/" in v or "\\" in v or not v.strip() for v in value):
        raise ConfigError(f"{key} must be a non-empty list of file names such as [AGENT.md]")
    return tuple(value)


def _checked(default: Any, check: Check) -> Any:
    return field(default=default, metadata={"check": check})


@dataclass(frozen=True)
class SessionsPolicy:
    retention_days: int = _checked(30, _count(1))
    on_expiry: str = _checked("archive", _choice("archive", "delete"))
    delete_archived_after_days: int | None = _checked(None, _optional(_count(1)))


@dataclass(frozen=True)
class ConversationPolicy:
    max_messages: int = _checked(30, _count(1))


@dataclass(frozen=True)
class CompactionPolicy:
    threshold_tokens: int = _checked(100_000, _count(1000))


@dataclass(frozen=True)
class IndexLimit:
    max_chars: int = _checked(3000, _count(200))


@dataclass(frozen=True)
class LongMemoryPolicy:
    project: IndexLimit = field(default_factory=lambda: IndexLimit(3000))
    user: IndexLimit = field(default_factory=lambda: IndexLimit(4000))
    recalled: int = _checked(0, _count(0))


@dataclass(frozen=True)
class InstructionsPolicy:
    max_chars: int = _checked(20_000, _count(200))
    file_names: tuple[str, ...] = _checked(("AGENT.md", "AGENTS.md", "CLAUDE.md"), _file_names)


@dataclass(frozen=True)
class ForgettingPolicy:
    archive_after_days: int = _checked(30, _count(1))
    archive_ttl_days: int = _checked(365, _count(1))


@dataclass(frozen=True)
class SimilarityThresholds:
    """Cosine thresholds per embedder family: each model spreads its similarities differently
    (the lexical ``hashing`` vectors give paraphrases ~0.6)."""

    hashing: float = _checked(0.55, _fraction)
    use: float = _checked(0.6, _fraction)
    e5: float = _checked(0.88, _fraction)
    other: float = _checked(0.8, _fraction)

    def for_model(self, model_id: str) -> float:
        for family in ("hashing", "use", "e5"):
            if model_id.startswith(family) or f"-{family}-" in model_id:
                return float(getattr(self, family))
        return self.other


@dataclass(frozen=True)
class DuplicatesPolicy:
    similarity: SimilarityThresholds = field(default_factory=SimilarityThresholds)


@dataclass(frozen=True)
class PromotionPolicy:
    min_reuse: int = _checked(2, _count(1))
    user_explicit: bool = _checked(True, _flag)
    rule_sessions: int = _checked(3, _count(2))


@dataclass(frozen=True)
class Policy:
    """Everything ``memory-policy.yaml`` can set; ``Policy()`` is the built-in default."""

    sessions: SessionsPolicy = field(default_factory=SessionsPolicy)
    conversation: ConversationPolicy = field(default_factory=ConversationPolicy)
    compaction: CompactionPolicy = field(default_factory=CompactionPolicy)
    long_memory: LongMemoryPolicy = field(default_factory=LongMemoryPolicy)
    instructions: InstructionsPolicy = field(default_factory=InstructionsPolicy)
    forgetting: ForgettingPolicy = field(default_factory=ForgettingPolicy)
    duplicates: DuplicatesPolicy = field(default_factory=DuplicatesPolicy)
    promotion: PromotionPolicy = field(default_factory=PromotionPolicy)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _default(f: dataclasses.Field[Any]) -> Any:
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return f.default


def _build(base: Any, data: Any, where: str, source: Path) -> Any:
    """``base`` (a section dataclass instance) with the keys of ``data`` applied and checked."""
    if not isinstance(data, dict):
        what = f"`{where}`" if where else "the file"
        raise ConfigError(f"{source}: {what} must be a mapping of keys (got {data!r})")
    fields = {f.name: f for f in dataclasses.fields(base)}
    changes: dict[str, Any] = {}
    for key, value in data.items():
        dotted = f"{where}.{key}" if where else str(key)
        if key not in fields:
            place = f"under `{where}`" if where else "at the top level"
            raise ConfigError(
                f"{source}: unknown key `{dotted}`; the keys allowed {place} are "
                f"{', '.join(fields)}"
            )
        current = _default(fields[key])
        if dataclasses.is_dataclass(current):
            changes[key] = _build(getattr(base, key), value, dotted, source)
        else:
            check: Check = fields[key].metadata["check"]
            try:
                changes[key] = check(dotted, value)
            except ConfigError as exc:
                raise ConfigError(f"{source}: {exc}") from None
    return dataclasses.replace(base, **changes)


def load_policy(path: Path) -> Policy:
    """The policy in ``path``; the built-in defaults when the file does not exist."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return Policy()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path} ({exc}): fix its permissions or encoding") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path} is not valid YAML ({exc}); fix it or delete it") from None
    if data is None:
        return Policy()
    result: Policy = _build(Policy(), data, "", path)
    return result
