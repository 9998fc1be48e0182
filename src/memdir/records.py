"""Memory records: the typed view of one memory file, and the rules its fields follow (SPEC A2).

A ``MemoryRecord`` is immutable and always made from the bytes of a file (see ``markdown.py``),
so what the library hands out is exactly what is on disk. ``check_field`` is the single place
that says which values a frontmatter key accepts; the store uses it on the way in (strict, with
messages that say how to fix the value) and on the way out (a hand-edited file with a bad value
is a bad file, reported by ``memdir doctor``).

Names are slugs that double as file names (``<name>.md``), so ``check_name`` also guards the
file system: no separators, no dot-dot, no NUL, nothing reserved, nothing too long.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, cast

from .errors import UnsafeNameError, ValidationError
from .paths import Scope

__all__ = [
    "CONFIDENCES",
    "FIELD_ORDER",
    "IMPORTANCE",
    "SOURCES",
    "TYPES",
    "LogDay",
    "MemoryRecord",
    "MemoryType",
    "Source",
    "check_field",
    "check_name",
    "check_text",
    "default_scope",
    "escape_controls",
    "now_iso",
    "shorten",
    "slugify",
    "tentative_mark",
    "text_problem",
    "utc_iso",
]

MemoryType = Literal["user", "feedback", "project", "reference"]
Source = Literal["user", "inferred", "external", "imported"]
Confidence = Literal["confirmed", "tentative"]

TYPES: tuple[MemoryType, ...] = ("user", "feedback", "project", "reference")
SOURCES: tuple[Source, ...] = ("user", "inferred", "external", "imported")
CONFIDENCES: tuple[Confidence, ...] = ("confirmed", "tentative")

REQUIRED = ("name", "description", "type")
# The order memdir writes keys in a new file; keys already in a file keep their place.
KINDS = ("memory", "knowledge")  # the ``kind`` key (issue 24)
FIELD_ORDER = (
    "name",
    "description",
    "type",
    "source",
    "confidence",
    "importance",
    "created",
    "updated",
    "tags",
    "related_files",
    "quote",
    "session",
)
MAX_NAME_CHARS = 80
MAX_NAME_BYTES = 200
MAX_DESCRIPTION = 300
_RESERVED = {"memory", "con", "prn", "aux", "nul"} | {
    f"{dev}{i}" for dev in ("com", "lpt") for i in range(1, 10)
}
_NAME_RE = re.compile(r"[^\W_][\w.-]*")
_ISO_RE = re.compile(r"\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?")


def default_scope(memory_type: str) -> Scope:
    """Type decides the default scope: user/feedback follow the person, the rest the project."""
    return "user" if memory_type in ("user", "feedback") else "project"


def now_iso() -> str:
    """The current time as ISO 8601 UTC with a ``Z``, to the second."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def utc_iso(value: str | datetime | None) -> str | None:
    """``value`` as ``YYYY-MM-DDTHH:MM:SSZ`` in UTC (a date alone is its midnight, a time
    without offset is UTC); ``None`` if it is not an ISO 8601 time."""
    if value is None:
        return None
    if isinstance(value, datetime):
        stamp = value
    else:
        try:
            stamp = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=UTC)
    return stamp.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def check_name(name: str) -> str:
    """Return ``name`` (a trailing ``.md`` dropped) if it is a safe memory name, else raise."""
    if not isinstance(name, str) or not name:
        raise UnsafeNameError("a memory name cannot be empty")
    if "\x00" in name:
        raise UnsafeNameError("a memory name cannot contain a NUL byte")
    stem = name[:-3] if name.endswith(".md") else name
    shown = stem if len(stem) <= 60 else stem[:57] + "..."
    if "/" in stem or "\\" in stem or stem in (".", ".."):
        raise UnsafeNameError(
            f"{shown!r} is a path, not a memory name: use a plain name such as 'use-pnpm' "
            "(no '/', '\\' or '..')"
        )
    if len(stem) > MAX_NAME_CHARS or len(stem.encode()) > MAX_NAME_BYTES:
        raise UnsafeNameError(
            f"memory name {shown!r} is too long: at most {MAX_NAME_CHARS} characters"
        )
    if unicodedata.normalize("NFC", stem) != stem or not _NAME_RE.fullmatch(stem):
        raise UnsafeNameError(
            f"{shown!r} is not a valid memory name: use letters, digits, '-', '_' and '.', "
            "starting with a letter or digit"
        )
    if ".." in stem:
        raise UnsafeNameError(f"{shown!r} is not a valid memory name: '..' is not allowed")
    if stem.lower() in _RESERVED:
        raise UnsafeNameError(f"{shown!r} is a reserved name: choose another")
    _check_lookalike(stem, shown)
    return stem


def _ascii_word(word: str) -> str | None:
    """``word`` in ASCII letters if it is Latin (accents dropped: ``café`` → ``cafe``)."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))
    return folded if folded.isascii() else None


# Letters of other scripts that look like Latin ones (issue 26): ``МЕМORY`` with a Cyrillic
# М and Е reads as MEMORY.md to a person; a name mixing scripts, or one that reads as a
# reserved name, is refused.
_LOOKALIKE = str.maketrans(
    "АВЕКМНОРСТХУаеорсухіјѕԁɡΑΒΕΖΗΙΚΜΝΟΡΤΥΧοѵ",
    "ABEKMHOPCTXYaeopcyxijsdgABEZHIKMNOPTYXov",
)


def _script(ch: str) -> str | None:
    if not ch.isalpha():
        return None
    return unicodedata.name(ch, "").split(" ")[0] or None


def _check_lookalike(stem: str, shown: str) -> None:
    scripts = {script for ch in stem if (script := _script(ch)) is not None}
    confusable = scripts & {"CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE"}
    if "LATIN" in scripts and confusable:
        odd = next(ch for ch in stem if _script(ch) in confusable)
        raise UnsafeNameError(
            f"{shown!r} mixes Latin letters with {'/'.join(sorted(confusable)).title()} ones "
            f"({odd!r} is {unicodedata.name(odd)}), which look alike and could pass for "
            "another name: write it in one script"
        )
    if stem.translate(_LOOKALIKE).lower() in _RESERVED:
        raise UnsafeNameError(
            f"{shown!r} looks like the reserved name {stem.translate(_LOOKALIKE)!r}: choose another"
        )


# Control characters (issue 26): an escape sequence in a memory can hide text from the person
# reviewing it on a terminal. C0 and C1 controls, DEL and the bidirectional overrides are
# refused on write (newline, tab and the carriage return of CRLF files excepted) and shown
# escaped whenever memdir prints text for people.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def escape_controls(text: str) -> str:
    """``text`` with every control character shown as ``\x1b``-style escapes (``\u202e``)."""
    return _CONTROL.sub(lambda m: ascii(m.group())[1:-1], text)


MAX_MEMORY_BYTES = 1024 * 1024  # one memory's file: frontmatter and body


def check_size(size: int) -> None:
    """``ValidationError`` for a memory of ``size`` bytes over ``MAX_MEMORY_BYTES``, saying what
    to do instead. Checked before the guard (whose patterns are not linear in a paste of
    megabytes) and again by each store on the bytes it writes."""
    if size > MAX_MEMORY_BYTES:
        raise ValidationError(
            f"this memory would be {size / 1e6:.1f} MB; memories must be under "
            f"{MAX_MEMORY_BYTES // 1024} KiB — store a pointer to the document instead"
        )


def check_text(text: str, what: str = "this memory") -> None:
    """Raise ``ValidationError`` when ``text`` holds a control character (see above)."""
    found = _CONTROL.search(text)
    if found is None:
        return
    line = text.count("\n", 0, found.start()) + 1
    char = found.group()
    raise ValidationError(
        f"{what} holds the control character {ascii(char)[1:-1]} "
        f"({unicodedata.name(char, 'a terminal control code')}) on line {line} of its file; it "
        "can hide text on a terminal, so memdir does not store it — remove it (newlines and tabs "
        "are fine)"
    )


def slugify(text: str, *, max_chars: int = 48) -> str:
    """A short ASCII name from free text: ``"Use pnpm, not npm"`` → ``use-pnpm-not-npm``.

    Words of other scripts (Chinese, Cyrillic, …) are not typed easily at a shell, so they are
    replaced by a short, stable hash of the whole text after the Latin words it has:
    ``"发版前先跑 pnpm test"`` → ``pnpm-test-cb637c``, ``"以后都用中文"`` → ``note-860704``.
    The same text always gives the same name (names made before this rule keep working).
    """
    words = re.findall(r"[^\W_]+", unicodedata.normalize("NFKC", text).lower())
    latin = [w for w in map(_ascii_word, words) if w is not None]
    suffix = ""
    if len(latin) < len(words):
        key = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
        suffix = "-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:6]
    budget = max_chars - len(suffix)
    parts: list[str] = []
    length = 0
    for word in latin:
        word = word[:16]
        if parts and length + 1 + len(word) > budget:
            break
        parts.append(word)
        length += len(word) + (1 if len(parts) > 1 else 0)
        if len(parts) == (5 if suffix else 8):
            break
    slug = "-".join(parts)[:budget].strip("-") or "note"
    if slug.lower() in _RESERVED:
        slug += "-note"
    return slug + suffix


def shorten(text: str, limit: int = 150, *, at_word: bool = False) -> str:
    """``text`` on one line (runs of whitespace collapsed), cut to ``limit`` characters with a
    trailing ``…`` when longer; ``at_word`` cuts at the last space before the limit."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    if at_word and " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip() + "…"


def _one_line(key: str, value: Any, limit: int | None = None) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{key} must be a non-empty line of text")
    line = str(value).strip()
    if "\n" in line or "\r" in line:
        raise ValidationError(f"{key} must be one line: put longer text in the body")
    if limit is not None and len(line) > limit:
        raise ValidationError(f"{key} is {len(line)} characters long; keep it under {limit}")
    return line


def _choice(key: str, value: Any, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise ValidationError(f"{key} must be one of {', '.join(allowed)} (got {value!r})")
    return cast(str, value)


def _string_list(key: str, value: Any) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValidationError(f"{key} must be a list of non-empty strings")
    return [v.strip() for v in value]


def _timestamp(key: str, value: Any) -> str:
    if isinstance(value, datetime):
        value = value.isoformat()
    if not isinstance(value, str) or not _ISO_RE.fullmatch(value.strip()):
        raise ValidationError(f"{key} must be an ISO 8601 time such as 2026-01-31T09:00:00Z")
    return value.strip()


# the field rules every door derives from (the file format, the CLI, REST and MCP schemas)
IMPORTANCE = (1, 10)  # 1 trivia … 10 critical


def _importance(value: Any) -> int:
    low, high = IMPORTANCE
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValidationError(f"importance must be a whole number from {low} to {high}")
    try:
        number = int(value)
    except ValueError:
        raise ValidationError(f"importance must be a whole number from {low} to {high}") from None
    if not low <= number <= high:
        raise ValidationError(f"importance must be from {low} to {high} (got {number})")
    return number


def text_problem(value: str) -> str | None:
    """Why ``value`` cannot be written to a UTF-8 Markdown file, or ``None``: a NUL, or a lone
    surrogate (JSON can carry both as escapes; a store would write a file it cannot read back).
    The one check every door uses (the facade, REST and MCP schemas)."""
    if "\x00" in value:
        return "contains a NUL (\\u0000) character: remove it and try again"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "contains invalid Unicode (a lone surrogate, \\ud800-\\udfff): send proper UTF-8"
    return None


def check_field(key: str, value: Any) -> Any:
    """The normalised value of frontmatter ``key``, or ``ValidationError`` saying how to fix it.

    Keys memdir does not know are passed through untouched: they belong to the person.
    """
    if key == "name":
        return check_name(value) if isinstance(value, str) else check_name("")
    if key == "description":
        return _one_line(key, value, MAX_DESCRIPTION)
    if key == "type":
        return _choice(key, value, TYPES)
    if key == "source":
        return _choice(key, value, SOURCES)
    if key == "confidence":
        return _choice(key, value, CONFIDENCES)
    if key == "importance":
        return _importance(value)
    if key in ("created", "updated"):
        return _timestamp(key, value)
    if key in ("tags", "related_files"):
        return _string_list(key, value)
    if key in ("quote", "session"):
        if not isinstance(value, str):
            raise ValidationError(f"{key} must be text")
        return value
    if key == "kind":  # issue 24: reference material kept apart from the person's memories
        return _choice(key, value, KINDS)
    return value


@dataclass(frozen=True)
class LogDay:
    """One daily log as ``DailyLog.days`` finds it: ``path`` inside the scope
    (``log/YYYY-MM-DD.md``, ``archive/log/YYYY-MM-DD.md[.gz]``), its bytes, and whether it is a
    symbolic link (the file backend: read for its notes, never moved by sleep)."""

    path: str
    data: bytes
    link: bool = False


@dataclass(frozen=True)
class MemoryRecord:
    """One memory as it is on disk. ``name`` is the file's stem; ``scope`` its directory."""

    name: str
    scope: Scope
    type: MemoryType
    description: str
    statement: str
    why: str | None
    how_to_apply: str | None
    source: Source
    confidence: Confidence
    created: str | None
    updated: str | None
    importance: int | None
    tags: tuple[str, ...]
    related_files: tuple[str, ...]
    quote: str | None
    session: str | None
    body: str
    path: Path
    content_hash: str
    extra: Mapping[str, Any] = field(default_factory=dict)
    # what ``Memory.remember`` did, on the record it returns (not part of the file): True for a
    # new memory, False when the same statement was there already (then reinforced); and the
    # names of very similar memories it found, pointed out without blocking
    is_new: bool | None = field(default=None, compare=False)
    similar_to: tuple[str, ...] = field(default=(), compare=False)

    @property
    def kind(self) -> str:
        """``knowledge`` for imported reference material (kept out of the guide and of sleep's
        merging, searched on request), else ``memory``: the frontmatter key, default memory."""
        return "knowledge" if self.extra.get("kind") == "knowledge" else "memory"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (what ``--json`` prints)."""
        return {
            "name": self.name,
            "scope": self.scope,
            "type": self.type,
            "description": self.description,
            "statement": self.statement,
            "why": self.why,
            "how_to_apply": self.how_to_apply,
            "source": self.source,
            "confidence": self.confidence,
            "importance": self.importance,
            "created": self.created,
            "updated": self.updated,
            "tags": list(self.tags),
            "related_files": list(self.related_files),
            "quote": self.quote,
            "session": self.session,
            "extra": dict(self.extra),
            "body": self.body,
            "path": str(self.path),
            "content_hash": self.content_hash,
        }


def tentative_mark(rec: MemoryRecord) -> str:
    """`` (tentative: …)`` for a memory sleep could not settle, else ``""``."""
    if rec.confidence != "tentative":
        return ""
    rivals = rec.extra.get("conflicts_with")
    names = [r for r in rivals if isinstance(r, str)] if isinstance(rivals, list) else []
    review = rec.extra.get("review")
    against = f"may conflict with {', '.join(names)}" if names else "not confirmed"
    if isinstance(review, str) and not names:
        return f" (tentative: {review})"
    return f" (tentative: {against}; ask the person which holds before relying on it)"
