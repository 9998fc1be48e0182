"""PLACEHOLDER until the `rules` branch lands (replaced whole at merge)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GUARD_VERSION", "Verdict", "check", "redact"]

GUARD_VERSION = "guard-v0"


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    text: str
    reasons: tuple[str, ...]
    redactions: int = 0


def redact(text: str) -> tuple[str, int]:
    return text, 0


def check(text: str, *, type: str, source: str, quote: str | None = None) -> Verdict:
    if source == "external" and type in ("user", "feedback"):
        return Verdict(False, text, (f"external content cannot become a {type} memory",))
    if "without approval" in text:
        return Verdict(False, text, ("a grant of permission",))
    return Verdict(True, text, ())
