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
import itertools
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

from ..errors import AmbiguousError, BadFileError, NotFoundError, UnsafeNameError
from ..files import FileStore
from ..ports import Store
from ..records import MemoryRecord

__all__ = [
    "SIMILAR_RATIO",
    "Listing",
    "described",
    "normalised",
    "prefixed",
    "same_statement",
    "similar",
]

# difflib ratio of two normalised descriptions at or above which they are pointed out as
# near-duplicates ("Use pnpm, not npm" / "use pnpm not npm!" ≈ 0.95; unrelated lines < 0.5)
SIMILAR_RATIO = 0.85
SIMILAR_CHECKED = 8  # lines compared in full, those whose letters match best
_LINE = re.compile(r"^- \[(?P<name>[^\]]+)\]\((?P=name)\.md\) — (?P<desc>.*)$")


def normalised(text: str) -> str:
    """``text`` as compared for sameness: NFKC, case-folded, whitespace runs collapsed."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _loose(text: str) -> str:
    """``normalised`` without punctuation: what "very similar" compares."""
    return " ".join(re.findall(r"[^\W_]+", normalised(text)))


def _index_text(store: Store) -> str:
    """The scope's MEMORY.md; for a store with none (a database), its lines made from a scan."""
    if not isinstance(store, FileStore):
        return "".join(f"- [{r.name}]({r.name}.md) — {r.description}\n" for r in store.scan()[0])
    return store.memory_md_text()


class Listing:
    """The scope's MEMORY.md read and case-folded once, for the look-ups of one write: a
    ``remember`` asks for the same statement and then for near-duplicates, both under the
    scope's lock, so one read serves both (at 10k memories a read and fold is most of a write)."""

    __slots__ = ("folded", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.folded = text.casefold()

    @classmethod
    def of(cls, store: Store) -> Listing:
        return cls(_index_text(store))

    def described(self, needle: str = "") -> list[tuple[str, str]]:
        """``(name, description)`` of the lines that contain ``needle`` (case-folded; empty:
        every line), found by ``str.find`` over the folded text."""
        text, folded = self.text, self.folded
        if not needle or len(folded) != len(text):  # (folding changed lengths: line by line)
            lines = [ln for ln in text.splitlines() if needle in ln.casefold()]
        else:
            lines, pos = [], folded.find(needle)
            while pos != -1:
                start = text.rfind("\n", 0, pos) + 1
                end = text.find("\n", pos)
                end = len(text) if end == -1 else end
                lines.append(text[start:end])
                pos = folded.find(needle, end)
        return [(m["name"], m["desc"]) for m in map(_LINE.match, lines) if m]


def described(store: Store, needle: str = "") -> list[tuple[str, str]]:
    """``(name, description)`` of the lines of the scope's MEMORY.md (none if it is absent)
    that contain ``needle`` (case-folded; empty: every line); a few milliseconds at 10k."""
    return Listing.of(store).described(needle)


def same_statement(
    store: Store,
    statement: str,
    bases: Iterable[str],
    description: str,
    listing: Listing | None = None,
) -> MemoryRecord | None:
    """The memory of ``store`` whose statement equals ``statement`` once normalised, looked for
    under the derived names ``bases`` (and their ``-N`` siblings) and the MEMORY.md lines with
    the same ``description``."""
    wanted = normalised(statement)
    # probe base, base-2, base-3 … until a name is free (how new names are numbered) instead of
    # listing the scope: a write stays O(1) in the number of memories; a sibling past a gap is
    # still found through its MEMORY.md line below
    candidates: list[str] = []
    for base in dict.fromkeys(b.lower() for b in bases):
        for n in itertools.count(1):
            name = base if n == 1 else f"{base}-{n}"
            if not _exists(store, name):
                break
            candidates.append(name)
    key = normalised(description)
    if not key:
        return _first_same(store, candidates, wanted)
    longest = max(key.split(), key=len, default="")  # the same line holds it too
    candidates += [
        n
        for n, d in (listing or Listing.of(store)).described(longest)
        if normalised(d) == key and _exists(store, n)
    ]
    return _first_same(store, candidates, wanted)


def _exists(store: Store, name: str) -> bool:
    try:
        if not isinstance(store, FileStore):
            return store.exists(name)
        return store.path_for(name).is_file()
    except UnsafeNameError:  # a hand-written MEMORY.md line: not a name memdir made
        return False


def _first_same(store: Store, candidates: list[str], wanted: str) -> MemoryRecord | None:
    for name in dict.fromkeys(candidates):
        try:
            record = store.read(name)
        except (BadFileError, NotFoundError):  # doctor's business, not a match
            continue
        if normalised(record.statement) == wanted:
            return record
    return None


_LETTERS: dict[str, tuple[str, Counter[str]]] = {}
_LETTERS_KEPT = 50_000  # descriptions remembered across writes (a server writes to the same lines)


def _letters(description: str) -> tuple[str, Counter[str]]:
    """``_loose(description)`` and its letter counts, kept for the next write's look-up."""
    known = _LETTERS.get(description)
    if known is None:
        if len(_LETTERS) >= _LETTERS_KEPT:
            _LETTERS.clear()
        loose = _loose(description)
        known = _LETTERS[description] = (loose, Counter(loose))
    return known


def _anchor(loose: str) -> str:
    """A piece a very similar line almost surely contains too: the start of its longest word
    (a heuristic that keeps the full comparison to a few lines; a miss only loses a hint)."""
    return max(loose.split(), key=len, default="")[:6]


def similar(
    store: Store, description: str, *, exclude: str | None = None, listing: Listing | None = None
) -> list[str]:
    """Names whose MEMORY.md description is very similar to ``description`` (best first)."""
    mine = _loose(description)
    if not mine:
        return []
    bounded = []
    matcher = difflib.SequenceMatcher(None)
    matcher.set_seq2(mine)  # the side SequenceMatcher indexes, once for every line
    letters = Counter(mine)
    for name, desc in (listing or Listing.of(store)).described(_anchor(mine)):
        if name == exclude:
            continue
        loose, theirs = _letters(desc)
        total = len(mine) + len(loose)
        if 2 * min(len(mine), len(loose)) < SIMILAR_RATIO * total:  # lengths alone rule it out
            continue
        # the letters they share bound the ratio (what difflib's quick_ratio counts)
        bound = 2 * sum(min(n, letters[c]) for c, n in theirs.items()) / total
        if bound >= SIMILAR_RATIO:
            bounded.append((-bound, name, loose))
    scored = []
    # the full ratio (~0.3 ms a line) for the likeliest lines only: a store of like-worded
    # memories passes dozens through the bounds above, and a hint need not be exhaustive
    for _, name, loose in sorted(bounded)[:SIMILAR_CHECKED]:
        matcher.set_seq1(loose)
        ratio = matcher.ratio()
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
