"""Checking a model's proposals before anything is stored (SPEC G2, G4; issue 21).

A small local model copies what it was shown: the prompt's own placeholders ("one line, under
150 characters"), lines of the prompt or of the memory guide, empty or template text, or a
statement that the turn never supports. ``vet`` says why such an operation is dropped (the
runner reports it as ``skipped`` and writes it to the extraction log); ``None`` means it may go
on to the guard and the store. ``with_evidence`` gives an UPDATE or DELETE that carries no quote
the person's sentence that caused it, when one of this turn's sentences names the memory.

Pure functions: the prompt text is read once, nothing else is touched.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace
from functools import cache
from importlib import resources

from .llm import PROMPT_VERSION, Operation
from .revise import keys, revisions
from .rules import _sentences, extract
from .turns import Turn

__all__ = ["vet", "with_evidence"]

_TEMPLATE = re.compile(
    r"^(?:n/?a|none|null|nil|todo|tbd|string|text|statement|the statement|example|\.\.\.|…|"
    r"description|why|how_to_apply|quote|user\|feedback\|project\|reference)$",
    re.IGNORECASE,
)
_BRACES = re.compile(r"\{[a-z_]+\}|<[a-z _-]+>|\[[A-Z_ ]+\]")


def _norm(text: str | None) -> str:
    return " ".join(
        re.sub(r"[\W_]+", " ", unicodedata.normalize("NFKC", text or "")).split()
    ).lower()


@cache
def _prompt() -> tuple[frozenset[str], tuple[str, ...]]:
    """The prompt's placeholder strings and its lines, normalised."""
    text = resources.files(__package__).joinpath(f"prompts/{PROMPT_VERSION}.md").read_text("utf-8")
    placeholders = frozenset(_norm(q) for q in re.findall(r'"([^"]{3,})"', text)) - {""}
    lines = tuple(n for line in text.splitlines() if len(n := _norm(line)) >= 20)
    return placeholders, lines


def _echoes(text: str, lines: tuple[str, ...]) -> bool:
    """``text`` is a line of ``lines``, holds one, or is made of one line's words (≥ 80 %)."""
    said = _norm(text)
    if len(said) < 12:
        return False
    if any(said in line or (len(line) >= 30 and line in said) for line in lines):
        return True
    words = keys(text)
    return len(words) >= 3 and any(len(words & keys(line)) * 5 >= len(words) * 4 for line in lines)


def vet(op: Operation, turn: Turn, *, guide: str = "") -> str | None:
    """Why ``op`` must not be stored, or ``None``."""
    if op.op == "DELETE":
        return None
    placeholders, lines = _prompt()
    guide_lines = tuple(n for line in guide.splitlines() if len(n := _norm(line)) >= 20)
    said = keys("\n".join((*turn.user, *turn.assistant, *turn.external)))
    for field, value in (("text", op.text), ("description", op.description)):
        if value is None:
            continue
        norm = _norm(value)
        if not norm or _TEMPLATE.match(value.strip()) or _BRACES.search(value):
            return f"the {field} is empty or template text: {value!r}"
        if norm in placeholders or "under 150 characters" in norm:
            return f"the {field} is the prompt's placeholder: {value!r}"
        if keys(value) <= said:
            continue  # every word of it was said in the turn: not an echo, whatever it resembles
        if _echoes(value, lines):
            return f"the {field} repeats the extraction prompt: {value!r}"
        if guide_lines and _echoes(value, guide_lines):
            return f"the {field} repeats the memory guide: {value!r}"
    if op.text is not None and not keys(op.text) & said:
        return f"nothing in the turn supports it (no word of {op.text!r} was said)"
    return None


# a sentence that can take a memory away says so: it retracts, contradicts or replaces
_UNSAYS = re.compile(
    r"\b(?:forget|disregard|no longer|any ?more|not true|wrong|outdated|obsolete|moved|switched|"
    r"replaced|dropped|removed|retract|scratch|not \w+ now)\b|忘|删|不再|不对|错了|换成|改成|迁到|"
    r"去掉|不用了|过时",
    re.IGNORECASE,
)


def with_evidence(op: Operation, turn: Turn, about: str) -> Operation:
    """``op`` (an UPDATE or DELETE of the memory described by ``about``) with the person's
    sentence of this turn that names that memory as its quote, so it carries the source of the
    turn that caused it; unchanged when it has a quote already or no sentence names it. For a
    DELETE the sentence must also unsay something ("forget …", "we moved off …", "不再…"):
    mentioning a memory is no reason to drop it."""
    if op.op not in ("UPDATE", "DELETE") or op.quote:
        return op
    want = keys(f"{about}\n{op.text or ''}")
    best: tuple[int, str] | None = None
    for text in turn.user:
        for start, end in _sentences(text):
            sentence = text[start:end].strip()
            shared = len(keys(sentence) & want)
            # the person must say something of their own there: unsay it (any op), or state
            # a change or a rule (an UPDATE) — "the linter seems to like spaces" is neither
            states = op.op == "UPDATE" and bool(revisions(sentence) or extract(sentence))
            if not (_UNSAYS.search(sentence) or states):
                continue
            if shared and (best is None or shared > best[0]):
                best = (shared, sentence)
    return op if best is None else replace(op, quote=best[1], source="user")
