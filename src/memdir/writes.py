"""The one guarded write door: text checks and the guard, before any Store write.

Every writer — the facade (``remember``, ``update``, ``rewrite``, the memory tool), extraction
through the facade, sleep's apply (merged and distilled texts its model wrote) and confirming a
tentative memory — asks ``admit`` first. It checks that each text can be written (``records.
text_problem``: no NUL, no lone surrogate), asks the guard (SPEC G4) and, when the guard refuses,
records a ``refuse`` change in the scope's log and raises ``RefusedError``; else it returns the
texts with secrets redacted. Lists of short texts (``tags``, ``related_files``) are judged and
redacted with the rest (``lists``): a tag can carry a token or an instruction as well as a body
can, and the agent reads it back in every recall. The field rules themselves are
``records.check_field`` (one source, from which the REST and MCP schemas take their bounds, e.g.
``records.IMPORTANCE``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from .errors import RefusedError, ValidationError
from .ports import Store
from .records import check_size, check_text, escape_controls, text_problem

__all__ = ["Admitted", "admit", "check_texts"]


@dataclass(frozen=True)
class Admitted:
    """The texts and lists as they may be written (secrets redacted) and how many secrets
    were cut."""

    parts: dict[str, str | None]
    redacted: int
    lists: dict[str, list[str]] = field(default_factory=dict)


def check_texts(parts: Mapping[str, str | None]) -> None:
    """``ValidationError`` naming the first text that cannot be written to a UTF-8 file, or
    that holds a terminal control code (issue 26 class 4: a description or a why is kept in
    the frontmatter, escaped, where the file check does not see it, and comes back whole to
    every terminal and model that reads it)."""
    for key, value in parts.items():
        problem = text_problem(value) if value else None
        if problem is not None:
            raise ValidationError(f"the {key} {problem}")
        # a whole file is checked by the store, line by line; a quote is evidence, kept with
        # its control codes shown escaped (``admit``) rather than losing the fact it supports
        if value and key not in ("file", "quote"):
            check_text(value, f"the {key}")


def admit(
    store: Store,
    name: str,
    *,
    actor: str,
    type: str,
    source: str,
    parts: Mapping[str, str | None],
    statement: str | None = None,
    quote: str | None = None,
    allow: Iterable[str] = (),
    refusal: str = "",
    lists: Mapping[str, Sequence[str]] | None = None,
) -> Admitted:
    """``parts`` (and the items of ``lists``) checked and guarded for a write of ``name`` into
    ``store``. A refusal is logged (``refusal`` prefixes its reason, e.g. ``sleep merge: ``) and
    raised as ``RefusedError``; nothing else is written here."""
    from . import guard  # its patterns compile on import: only writes need them

    items = {k: list(v) for k, v in (lists or {}).items()}
    check_texts(parts)
    for key, values in items.items():
        for value in values:
            check_texts({f"{key} item": value})
    texts = [v for v in parts.values() if v] + [v for vs in items.values() for v in vs if v]
    joined = "\n".join(texts)
    check_size(len(joined.encode("utf-8", "surrogatepass")))  # before the guard reads it all
    verdict = guard.check(
        joined, type=type, source=source, quote=quote, statement=statement, allow=allow
    )
    if not verdict.allowed:
        why = "; ".join(verdict.reasons) or "refused by the guard"
        store.log_refusal(
            name, actor=actor, source=source, reason=f"{guard.GUARD_VERSION}: {refusal}{why}"
        )
        raise RefusedError(
            f"not stored: {why}. Nothing was written; the refusal is in `memdir history`",
            verdict.reasons,
        )
    out = {k: guard.redact(v)[0] if v else v for k, v in parts.items()}
    if out.get("quote"):
        out["quote"] = escape_controls(out["quote"] or "")
    count = sum(guard.redact(v)[1] for v in texts)
    listed = {k: [guard.redact(v)[0] for v in vs] for k, vs in items.items()}
    return Admitted(out, count, listed)
