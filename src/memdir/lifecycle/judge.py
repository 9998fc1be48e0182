"""The LLM's say in sleep (SPEC H2, H3): confirm a duplicate, settle a conflict, or write the
one conditional memory two statements make together.

``Judge`` is the seam: the plan asks ``relate(a, b)`` for each candidate pair the offline rules
cannot settle by identical text, and ``condense(records)`` for a group to make denser when an
index is over its limit (H5); a judge that also has ``crosses(record)`` decides which project
memories would hold in any project (seed 001's second filter, ``propose.py``; prompt
``SCOPE_PROMPT``). ``LLMJudge`` asks a configured model once per pair with a
versioned prompt (``JUDGE_PROMPT``) and reads its JSON answer tolerantly; an answer it cannot
read is a ``ProviderError`` naming the model — never silently "unrelated". The person-first rule
(an inference never overrides the person's words) is applied by the plan after the judge, so a
model cannot talk its way past it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, Protocol

from ..errors import ProviderError
from ..providers.llm import LLM
from ..records import MemoryRecord

__all__ = ["JUDGE_PROMPT", "SCOPE_PROMPT", "Judge", "LLMJudge"]

JUDGE_PROMPT = "sleep-judge-v1"
SCOPE_PROMPT = "sleep-scope-v1"
RELATIONS = ("duplicate", "conflict", "conditional", "unrelated")
_SYSTEM = (
    "You maintain a person's long-term memory. You compare two stored memories and answer "
    "with JSON only."
)
_ASK = """Memory A ({a_source}, {a_when}): {a}
Memory B ({b_source}, {b_when}): {b}

How do they relate? Answer one JSON object:
{{"relation": "duplicate" | "conflict" | "conditional" | "unrelated",
  "statement": "only for conditional: one memory stating both with their conditions"}}
- duplicate: they say the same thing.
- conflict: they cannot both be true (one replaced the other).
- conditional: both hold, under different conditions (e.g. personal vs work projects).
- unrelated: different subjects."""


_CONDENSE = """These memories belong to one group of a person's long-term memory, whose index is
over its size limit. Merge related ones into fewer, denser memories; keep every fact, condition
and name; leave unrelated ones out. Answer one JSON object:
{{"memories": [{{"statement": "the merged memory", "from": [ids it replaces]}}]}}

{listing}"""


_CROSSES = """A memory stored for one project of a person ({project}):
{statement}

Would it still hold in the person's other projects — a preference, habit or way of working of
the person — rather than a fact about this project (its code, stack, people, decisions)?
Answer one JSON object: {{"holds_elsewhere": true | false}}"""


class Judge(Protocol):
    def relate(self, a: MemoryRecord, b: MemoryRecord) -> tuple[str, str | None]:
        """``(relation, conditional statement or None)``; relation is one of ``RELATIONS``."""
        ...

    def condense(self, records: Sequence[MemoryRecord]) -> list[tuple[str, list[int]]]:
        """``(statement, indexes into records it replaces)`` for each merged memory (H5)."""
        ...


class LLMJudge:
    """A ``Judge`` backed by a chat model."""

    def __init__(self, llm: LLM) -> None:
        self.llm = llm

    def _json(self, prompt: str, what: str) -> dict[str, Any]:
        answer = self.llm.complete([{"role": "user", "content": prompt}], system=_SYSTEM)
        found = re.search(r"\{.*\}", answer.text, re.S)
        try:
            data = json.loads(found.group(0)) if found else None
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise ProviderError(
                f"{self.llm.model_id} answered the sleep judge ({JUDGE_PROMPT}, {what}) with "
                f"something that is not JSON: {answer.text[:200]!r}; run `memdir sleep "
                "--offline` to use the offline rules"
            )
        return data

    def condense(self, records: Sequence[MemoryRecord]) -> list[tuple[str, list[int]]]:
        listing = "\n".join(f"{i}. {r.statement}" for i, r in enumerate(records))
        data = self._json(_CONDENSE.format(listing=listing), "condense")
        out: list[tuple[str, list[int]]] = []
        for item in data.get("memories") or []:
            if not isinstance(item, dict):
                continue
            statement, ids = item.get("statement"), item.get("from")
            if isinstance(statement, str) and statement.strip() and isinstance(ids, list):
                out.append((statement.strip(), [i for i in ids if isinstance(i, int)]))
        return out

    def crosses(self, rec: MemoryRecord, project: str) -> bool:
        """Whether the project memory ``rec`` would hold in the person's other projects."""
        data = self._json(
            _CROSSES.format(project=project, statement=rec.statement), f"{SCOPE_PROMPT} crosses"
        )
        answer = data.get("holds_elsewhere")
        if not isinstance(answer, bool):
            raise ProviderError(
                f"{self.llm.model_id} answered the sleep judge ({SCOPE_PROMPT}) without a "
                f"true/false holds_elsewhere: {data!r}; run `memdir sleep --offline` to use "
                "the offline rules"
            )
        return answer

    def relate(self, a: MemoryRecord, b: MemoryRecord) -> tuple[str, str | None]:
        prompt = _ASK.format(
            a=a.statement,
            a_source=a.source,
            a_when=a.updated or a.created or "?",
            b=b.statement,
            b_source=b.source,
            b_when=b.updated or b.created or "?",
        )
        data = self._json(prompt, "relate")
        relation = data.get("relation")
        if relation not in RELATIONS:
            raise ProviderError(
                f"{self.llm.model_id} answered the sleep judge ({JUDGE_PROMPT}) with a relation "
                f"that is not one of {', '.join(RELATIONS)}: {relation!r}; run "
                "`memdir sleep --offline` to use the offline rules"
            )
        statement = data.get("statement")
        text = statement.strip() if isinstance(statement, str) and statement.strip() else None
        return str(relation), text if relation == "conditional" else None
