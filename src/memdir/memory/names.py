"""Finding memories by what people type and say: the same statement again, a near-duplicate, a
unique prefix of a name.

Every lookup here is cheap by design — none parses every file of a scope:

* *the same statement* is looked for under the names ``remember`` would derive for it (a name is
  a slug of the text, so the directory listing is the hash table) and among the memories whose
  MEMORY.md line carries the same description (which survives a rename); only those few files
  are read and their statements compared after normalising whitespace and case;
* *a near-duplicate* is a MEMORY.md line whose description is very similar (one file read);
* *a prefix* is matched against the directory listing, an exact name always winning.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable

from ..errors import AmbiguousError, BadFileError, NotFoundError
from ..files import FileStore
from ..records import MemoryRecord

__all__ = ["SIMILAR_RATIO", "described", "normalised", "prefixed", "same_statement", "similar"]

# difflib ratio of two normalised descriptions at or above which they are pointed out as
# near-duplicates ("Use pnpm, not npm" / "use pnpm not npm!" ≈ 0.95; unrelated lines < 0.5)
SIMILAR_RATIO = 0.85
_LINE = re.compile(r"^- \[(?P<name>[^\]]+)\]\((?P=name)\.md\) — (?P<desc>.*)$")


def normalised(text: str) -> str:
    """``text`` as compared for sameness: NFKC, case-folded, whitespace runs collapsed."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _loose(text: str) -> str:
    """``normalised`` without punctuation: what "very similar" compares."""
    return " ".join(re.findall(r"[^\W_]+", normalised(text)))


def described(store: FileStore) -> list[tuple[str, str]]:
    """``(name, description)`` of every line of the scope's MEMORY.md (none if it is absent)."""
    try:
        text = store.dirs.index_file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    return [(m["name"], m["desc"]) for m in map(_LINE.match, text.splitlines()) if m]


def same_statement(
    store: FileStore, statement: str, bases: Iterable[str], description: str
) -> MemoryRecord | None:
    """The memory of ``store`` whose statement equals ``statement`` once normalised, looked for
    under the derived names ``bases`` (and their ``-N`` siblings) and the MEMORY.md lines with
    the same ``description``."""
    wanted = normalised(statement)
    stems = {n[:-3] for n in store.memory_names()}
    lowered = {b.lower() for b in bases}
    sibling = re.compile(r"^(?P<base>.+?)(-\d+)?$")
    candidates = [
        s
        for s in sorted(stems)
        if s.lower() in lowered or (sibling.match(s) or {"base": ""})["base"].lower() in lowered
    ]
    key = normalised(description)
    candidates += [n for n, d in described(store) if normalised(d) == key and n in stems]
    for name in dict.fromkeys(candidates):
        try:
            record = store.read(name)
        except (BadFileError, NotFoundError):  # doctor's business, not a match
            continue
        if normalised(record.statement) == wanted:
            return record
    return None


def similar(store: FileStore, description: str, *, exclude: str | None = None) -> list[str]:
    """Names whose MEMORY.md description is very similar to ``description`` (best first)."""
    mine = _loose(description)
    if not mine:
        return []
    scored = []
    for name, desc in described(store):
        if name == exclude:
            continue
        ratio = difflib.SequenceMatcher(None, mine, _loose(desc)).ratio()
        if ratio >= SIMILAR_RATIO:
            scored.append((-ratio, name))
    return [name for _, name in sorted(scored)[:3]]


def prefixed(typed: str, names: Iterable[str]) -> str | None:
    """The one name of ``names`` that ``typed`` begins (case-insensitively); ``None`` when none
    does; ``AmbiguousError`` listing them when several do. The caller checked exact names."""
    folded = typed.casefold()
    matches = sorted({n for n in names if n.casefold().startswith(folded)})
    if not matches:
        return None
    if len(matches) > 1:
        shown = ", ".join(matches[:10]) + (
            f" and {len(matches) - 10} more" if len(matches) > 10 else ""
        )
        raise AmbiguousError(
            f"{typed!r} is the start of {len(matches)} memories ({shown}): type more of the name"
        )
    return matches[0]
