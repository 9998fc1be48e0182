"""The lifecycle policy, ``memory-policy.yaml``, with every default built in (SPEC H1, C6, C7, E3).

The file is optional and may set any subset of keys; what it does not say comes from the
defaults below. Its shape follows the sections of the spec::

    sessions:                      # C6 retention of session transcripts
      retention_days: 30           #   sessions idle longer than this expire
      on_expiry: archive           #   archive | delete — what happens after the distill hook
      delete_archived_after_days: null   # null = archived sessions are never deleted
    conversation:
      scope: session               # seed 004: the conversation layer lives for one session
      max_messages: 30             # C7 recent messages kept verbatim when older turns compact
      persist: false               # seed 004: the raw conversation is not a memory
    working_memory:                # seed 004/003: the daily log (``log/YYYY-MM-DD.md``)
      scope: session               #   written while a task runs …
      persist: false               #   … not loaded into the next session's guide as it is …
      distill: true                #   … but distilled at session end, promotion decides (H6)
    compaction:
      threshold_tokens: 100000     # C7 estimated tokens (20% margin included) that trigger it
    long_memory:                   # E3 size limits of the guide's parts (characters)
      project: {scope: project, max_chars: 3000}   #   project MEMORY.md
      user: {scope: global, max_chars: 4000}       #   user MEMORY.md (follows the person)
      recalled: 0                  # E4 memories recalled for the first user message and shown
                                   #   after the guide (0 = off)
    instructions:
      max_chars: 20000             # E3 the concatenated AGENT.md levels
      file_names: [AGENT.md, AGENTS.md, CLAUDE.md]   # D1 first one found per level is read
    forgetting:                    # H4 (memdir sleep)
      archive_after_days: 30       #   an unused memory is archived after this many idle days;
                                   #   each use and a higher importance stretch it
      archive_ttl_days: 365        #   archived this long → deleted (never the person's words)
      ageing:                      #   seed 002: idle days per memory type before archiving —
        project: 30                #   dated project facts go stale fastest …
        reference: 60
        feedback: 180              #   … corrections and preferences last
        user: 180
    archive:                       # seed 004's names for ``forgetting`` (either may be used)
      trigger: "not_hit_days > 30" #   = forgetting.archive_after_days (project memories)
      compress: true               #   old daily logs are compressed into ``archive/``
      ttl_days: 365                #   = forgetting.archive_ttl_days
    duplicates:                    # H2/H3 cosine above which two memories are compared at all,
      similarity: {hashing: 0.55, use: 0.6, e5: 0.88, other: 0.8}   # per embedder
    promotion:                     # H6 daily-log notes → long-term memories
      rule: "reused >= 2 OR user_explicit == true"   # seed 004's form of the two keys below
      min_reuse: 2                 #   promoted when reused this often …
      user_explicit: true          #   … or when the note asks for it ("remember", "!")
      rule_sessions: 3             #   the same correction in this many sessions → a feedback rule

**Unknown keys warn, bad values stop.** A key memdir does not know is reported once per
process (``memdir: … unknown key `sessions.retension_days` … did you mean retention_days?``)
and ignored: every command loads the policy, so a policy written for another tool, or a newer
memdir, must never stop ``context`` or ``sleep`` (issue 22). A *value* that is wrong for a key
memdir knows is a ``ConfigError`` naming the key and what is allowed — a wrong value silently
replaced by the default would change behaviour unseen.

**Extending.** Each section is a frozen dataclass; a field's ``metadata["check"]`` validates its
value and a field whose default is itself a dataclass is a nested section. A later feature adds a
field (or a section) here and nothing else: the loader, the error messages and ``to_dict`` follow.
"""

from __future__ import annotations

import dataclasses
import difflib
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .errors import ConfigError

__all__ = [
    "ArchivePolicy",
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
    "WorkingMemoryPolicy",
    "load_policy",
]

log = logging.getLogger("memdir.policy")
_WARNED: set[tuple[str, str]] = set()  # (file, dotted key): each unknown key is reported once

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


_RULE_TERM = re.compile(
    r"^(?:(reused)\s*(>=|>)\s*(\d+)|(user_explicit)(?:\s*==\s*(true|false))?)$", re.IGNORECASE
)
_TRIGGER = re.compile(r"^\s*not_hit_days\s*(>=|>)\s*(\d+)\s*$", re.IGNORECASE)
_RULE_HELP = 'terms joined by OR, such as "reused >= 2 OR user_explicit == true"'


def parse_rule(key: str, value: Any) -> tuple[int | None, bool]:
    """``(min_reuse or None, user_explicit)`` of a seed-004 promotion rule."""
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{key} must be {_RULE_HELP} (got {value!r})")
    reuse: int | None = None
    explicit = False
    for term in re.split(r"\s+(?:OR|or|\|\|)\s+", value.strip()):
        found = _RULE_TERM.match(term.strip())
        if not found:
            raise ConfigError(f"{key}: cannot read {term!r}; write {_RULE_HELP}")
        if found.group(1):
            n = int(found.group(3)) + (1 if found.group(2) == ">" else 0)
            reuse = n if reuse is None else min(reuse, n)
        else:
            explicit = explicit or (found.group(5) or "true").lower() == "true"
    return reuse, explicit


def parse_trigger(key: str, value: Any) -> int:
    """The idle days of a seed-004 archive trigger (``not_hit_days > 30`` → 30)."""
    found = _TRIGGER.match(value) if isinstance(value, str) else None
    if not found:
        raise ConfigError(f'{key} must read "not_hit_days > N", such as "not_hit_days > 30"')
    return max(int(found.group(2)) - (1 if found.group(1) == ">=" else 0), 1)


def _text_check(parse: Callable[[str, Any], Any]) -> Check:
    def check(key: str, value: Any) -> str | None:
        if value is None:
            return None
        parse(key, value)
        return str(value).strip()

    return check


AGEING_TYPES = ("project", "reference", "feedback", "user", "dated")
DEFAULT_AGEING = {"project": 1.0, "reference": 2.0, "feedback": 4.0, "user": 4.0, "dated": 0.25}


def _ageing(key: str, value: Any) -> dict[str, float]:
    if not isinstance(value, dict):
        raise ConfigError(f"{key} must map memory types to multiples, such as {{user: 4}}")
    out = dict(DEFAULT_AGEING)
    for kind, factor in value.items():
        if kind not in AGEING_TYPES:
            raise ConfigError(f"{key}.{kind}: not a memory type; use {', '.join(AGEING_TYPES)}")
        ok = isinstance(factor, int | float) and not isinstance(factor, bool) and factor > 0
        if not ok:
            raise ConfigError(f"{key}.{kind} must be a number above 0 (got {factor!r})")
        out[str(kind)] = float(factor)
    return out


@dataclass(frozen=True)
class SessionsPolicy:
    retention_days: int = _checked(30, _count(1))
    on_expiry: str = _checked("archive", _choice("archive", "delete"))
    delete_archived_after_days: int | None = _checked(None, _optional(_count(1)))


@dataclass(frozen=True)
class ConversationPolicy:
    max_messages: int = _checked(30, _count(1))
    scope: str = _checked("session", _choice("session"))  # seed 004: lives for one session
    persist: bool = _checked(False, _flag)  # seed 004: the transcript is not a memory


@dataclass(frozen=True)
class WorkingMemoryPolicy:
    """Seed 004's working layer: the daily log the agent writes while a task runs."""

    scope: str = _checked("session", _choice("session", "task"))
    persist: bool = _checked(False, _flag)  # not injected into later sessions as it is
    distill: bool = _checked(True, _flag)  # session end distills it; promotion decides


@dataclass(frozen=True)
class CompactionPolicy:
    threshold_tokens: int = _checked(100_000, _count(1000))


@dataclass(frozen=True)
class IndexLimit:
    max_chars: int = _checked(3000, _count(200))
    scope: str = _checked("project", _choice("project", "global", "user"))


@dataclass(frozen=True)
class LongMemoryPolicy:
    project: IndexLimit = field(default_factory=lambda: IndexLimit(3000, "project"))
    user: IndexLimit = field(default_factory=lambda: IndexLimit(4000, "global"))
    recalled: int = _checked(0, _count(0))


@dataclass(frozen=True)
class InstructionsPolicy:
    max_chars: int = _checked(20_000, _count(200))
    file_names: tuple[str, ...] = _checked(("AGENT.md", "AGENTS.md", "CLAUDE.md"), _file_names)


@dataclass(frozen=True)
class ForgettingPolicy:
    archive_after_days: int = _checked(30, _count(1))
    archive_ttl_days: int = _checked(365, _count(1))
    # seed 002: preferences keep long, dated project facts go stale fast — a multiple of
    # archive_after_days per memory type ("dated": a project fact naming a date)
    ageing: dict[str, float] = field(
        default_factory=lambda: dict(DEFAULT_AGEING), metadata={"check": _ageing}
    )

    def idle_days(self, kind: str, dated: bool = False) -> float:
        """Idle days after which an unused memory of ``kind`` is archived."""
        factor = self.ageing.get("dated" if dated and kind == "project" else kind, 1.0)
        return self.archive_after_days * factor


@dataclass(frozen=True)
class ArchivePolicy:
    """Seed 004's ``archive`` section: the same settings as ``forgetting``, in its words."""

    trigger: str | None = _checked(None, _text_check(parse_trigger))
    compress: bool = _checked(True, _flag)  # old daily logs compressed into archive/
    ttl_days: int | None = _checked(None, _optional(_count(1)))


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
    rule: str | None = _checked(None, _text_check(parse_rule))  # seed 004: wins when given

    def __post_init__(self) -> None:
        if self.rule is not None:
            reuse, explicit = parse_rule("promotion.rule", self.rule)
            # no "reused" term: only an explicit request promotes
            object.__setattr__(self, "min_reuse", reuse if reuse is not None else 10**9)
            object.__setattr__(self, "user_explicit", explicit)


@dataclass(frozen=True)
class Policy:
    """Everything ``memory-policy.yaml`` can set; ``Policy()`` is the built-in default."""

    sessions: SessionsPolicy = field(default_factory=SessionsPolicy)
    conversation: ConversationPolicy = field(default_factory=ConversationPolicy)
    working_memory: WorkingMemoryPolicy = field(default_factory=WorkingMemoryPolicy)
    compaction: CompactionPolicy = field(default_factory=CompactionPolicy)
    long_memory: LongMemoryPolicy = field(default_factory=LongMemoryPolicy)
    instructions: InstructionsPolicy = field(default_factory=InstructionsPolicy)
    forgetting: ForgettingPolicy = field(default_factory=ForgettingPolicy)
    archive: ArchivePolicy = field(default_factory=ArchivePolicy)
    duplicates: DuplicatesPolicy = field(default_factory=DuplicatesPolicy)
    promotion: PromotionPolicy = field(default_factory=PromotionPolicy)

    def __post_init__(self) -> None:
        # seed 004's archive section is the forgetting section in other words: apply it there
        changes: dict[str, Any] = {}
        if self.archive.trigger is not None:
            changes["archive_after_days"] = parse_trigger("archive.trigger", self.archive.trigger)
        if self.archive.ttl_days is not None:
            changes["archive_ttl_days"] = self.archive.ttl_days
        if changes:
            object.__setattr__(self, "forgetting", dataclasses.replace(self.forgetting, **changes))

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _default(f: dataclasses.Field[Any]) -> Any:
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return f.default


def _unknown(source: Path, dotted: str, key: str, where: str, allowed: list[str]) -> None:
    """Report an unknown key once per process; it is ignored (a policy written for another
    tool or a newer memdir must not stop a command)."""
    if (str(source), dotted) in _WARNED:
        return
    _WARNED.add((str(source), dotted))
    place = f"under `{where}`" if where else "at the top level"
    close = difflib.get_close_matches(key, allowed, n=1)
    hint = f" — did you mean {close[0]}?" if close else ""
    log.warning(
        "memdir: %s: unknown key `%s` ignored%s; the keys allowed %s are %s",
        source,
        dotted,
        hint,
        place,
        ", ".join(allowed),
    )


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
            _unknown(source, dotted, str(key), where, list(fields))
            continue
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
