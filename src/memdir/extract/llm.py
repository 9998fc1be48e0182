"""LLM extraction: one model call per finished turn → memory operations (SPEC G1, G5).

**Input.** The versioned prompt in ``prompts/extract-v1.md``, with the turn's transcript (tool
output fenced and labelled external, see ``turns.py``) and the existing memories as
``id, name, type, description`` — short integer ids instead of file names, so the model cannot
invent or mangle a path, and an id it did not see is an error, not a guess.

**Output.** ``{"operations": [...]}`` with ``ADD`` / ``UPDATE(id)`` / ``DELETE(id)`` / ``NONE``.
It is requested through a JSON schema (providers send it as structured output where the endpoint
supports it) and parsed tolerantly anyway: code fences, prose around the object, a bare list,
lower-case op names. Output that still cannot be used is answered once with the reason and a
request to try again; a second failure is ``ExtractionError`` carrying the raw answer — it is
recorded as a failed extraction, never turned into "no memories" (STYLE habit 5).

**Provenance.** The model's ``source`` is checked against the turn: ``user`` needs a quote that
the person actually wrote in this turn; a quote found only in tool output makes it ``external``;
a quote found nowhere makes it ``inferred`` (and the quote is dropped). The guard then refuses
external content as a ``user``/``feedback`` rule. So a page that says "the user prefers X" cannot
become the person's preference by the model's say-so.
"""

from __future__ import annotations

import copy
import json
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from importlib import resources
from typing import Any, Literal

from ..errors import ExtractionError
from ..providers.llm import LLM
from ..records import CONFIDENCES, TYPES
from .turns import Turn

__all__ = [
    "PROMPT_VERSION",
    "SCHEMA",
    "Existing",
    "Operation",
    "Plan",
    "check_provenance",
    "parse_operations",
    "plan_turn",
    "render_prompt",
    "schema_for",
]

PROMPT_VERSION = "extract-v1"
OPS = ("ADD", "UPDATE", "DELETE", "NONE")
LLM_SOURCES = ("user", "inferred", "external")
# Bounds keep a small model's grammar-constrained answer finite (llama.cpp turns the schema into
# a grammar; without them a 135M model repeats operations until max_tokens cuts the JSON).
MAX_OPS = 8
_FIELD = {"type": ["string", "null"], "maxLength": 600}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "operations": {
            "type": "array",
            "maxItems": MAX_OPS,
            "items": {
                "type": "object",
                "properties": {
                    "op": {"type": "string", "enum": list(OPS)},
                    "id": {"type": ["integer", "null"]},
                    "type": {"type": ["string", "null"], "enum": [*TYPES, None]},
                    "text": _FIELD,
                    "description": _FIELD,
                    "why": _FIELD,
                    "how_to_apply": _FIELD,
                    "source": {"type": ["string", "null"], "enum": [*LLM_SOURCES, None]},
                    "quote": _FIELD,
                    "confidence": {"type": ["string", "null"], "enum": [*CONFIDENCES, None]},
                },
                # strict structured output (OpenAI) wants every key listed and no others; the
                # ones an op does not use are null
                "required": [
                    "op",
                    "id",
                    "type",
                    "text",
                    "description",
                    "why",
                    "how_to_apply",
                    "source",
                    "quote",
                    "confidence",
                ],
                "additionalProperties": False,
            },
        }
    },
    "required": ["operations"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class Existing:
    """A memory as the extractor sees it: a short id instead of its file name."""

    id: int
    name: str
    scope: str
    type: str
    description: str


@dataclass(frozen=True)
class Operation:
    """One proposed change. ``target`` is the existing memory an UPDATE/DELETE is about."""

    op: Literal["ADD", "UPDATE", "DELETE"]
    target: Existing | None = None
    type: str | None = None
    text: str | None = None
    description: str | None = None
    why: str | None = None
    how_to_apply: str | None = None
    source: str = "inferred"
    quote: str | None = None
    confidence: str = "confirmed"
    importance: int | None = None  # set by an offline confirmation (it strengthens a memory)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"op": self.op}
        if self.target is not None:
            out["target"] = {"name": self.target.name, "scope": self.target.scope}
        for key in ("type", "text", "description", "why", "how_to_apply", "quote"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        out["source"] = self.source
        out["confidence"] = self.confidence
        if self.importance is not None:
            out["importance"] = self.importance
        return out


class _Malformed(ValueError):
    """The model's answer cannot be used; the message is what the model is told on retry."""


def _prompt_text() -> str:
    return resources.files(__package__).joinpath(f"prompts/{PROMPT_VERSION}.md").read_text("utf-8")


def render_prompt(turn: Turn, existing: Sequence[Existing]) -> str:
    """The prompt for ``turn``, with ``existing`` listed one per line."""
    listed = (
        "\n".join(f"{e.id}. {e.name} ({e.type}) — {e.description}" for e in existing)
        or "(none yet)"
    )
    return _prompt_text().replace("{existing}", listed).replace("{turn}", turn.transcript())


def _load_json(text: str) -> Any:
    text = text.strip()
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.S)
    candidates = [text]
    if fenced:
        candidates.insert(0, fenced.group(1).strip())
    for opener, closer in (("{", "}"), ("[", "]")):
        start, end = text.find(opener), text.rfind(closer)
        if start != -1 and end > start:
            candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    raise _Malformed("the answer is not valid JSON")


def _text(item: Mapping[str, Any], key: str) -> str | None:
    value = item.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise _Malformed(f"`{key}` must be a string or null (got {value!r})")
    return " ".join(value.split()) if key != "text" else value.strip() or None


def _choice(item: Mapping[str, Any], key: str, allowed: Sequence[str], default: str) -> str:
    value = item.get(key)
    if value is None:
        return default
    if not isinstance(value, str) or value.strip().lower() not in allowed:
        raise _Malformed(f"`{key}` must be one of {', '.join(allowed)} (got {value!r})")
    return value.strip().lower()


def _operation(item: Any, by_id: Mapping[int, Existing]) -> Operation | None:
    if not isinstance(item, dict):
        raise _Malformed(f"each operation must be an object (got {item!r})")
    op = str(item.get("op", "")).strip().upper()
    if op not in OPS:
        raise _Malformed(f"`op` must be one of {', '.join(OPS)} (got {item.get('op')!r})")
    if op == "NONE":
        return None
    target = None
    if op in ("UPDATE", "DELETE"):
        raw_id = item.get("id")
        if isinstance(raw_id, str) and raw_id.strip().isdigit():
            raw_id = int(raw_id)
        if not isinstance(raw_id, int) or isinstance(raw_id, bool) or raw_id not in by_id:
            raise _Malformed(f"{op} needs the `id` of an existing memory (got {raw_id!r})")
        target = by_id[raw_id]
    kind = item.get("type")
    if op == "ADD":
        kind = _choice(item, "type", TYPES, "")
        if not kind or not _text(item, "text"):
            raise _Malformed("ADD needs `type` and `text`")
    elif kind is not None:
        kind = _choice(item, "type", TYPES, "")
    return Operation(
        op=op,  # type: ignore[arg-type]  # checked against OPS above
        target=target,
        type=kind,
        text=_text(item, "text"),
        description=_text(item, "description"),
        why=_text(item, "why"),
        how_to_apply=_text(item, "how_to_apply"),
        source=_choice(item, "source", LLM_SOURCES, "inferred"),
        quote=_text(item, "quote"),
        confidence=_choice(item, "confidence", CONFIDENCES, "confirmed"),
    )


@dataclass(frozen=True)
class Plan:
    """What the model proposed for one turn: usable operations (provenance-checked) and why
    any others were left out — reported to the caller, never dropped silently."""

    operations: list[Operation]
    invalid: list[str]


def parse_operations(text: str, existing: Sequence[Existing]) -> Plan:
    """The operations in a model answer. ``ValueError`` when the answer as a whole is unusable
    (not JSON, not a list of operations, or nothing but invalid operations); an answer with
    some valid operations keeps them and lists the invalid ones in ``Plan.invalid``."""
    data = _load_json(text)
    if isinstance(data, dict):
        for key in ("operations", "ops", "memories"):
            if key in data:
                data = data[key]
                break
        else:
            data = [data] if "op" in data else None
    if not isinstance(data, list):
        raise _Malformed('the answer must be {"operations": [...]}')
    by_id = {e.id: e for e in existing}
    ops: list[Operation] = []
    invalid: list[str] = []
    for n, item in enumerate(data, 1):
        try:
            op = _operation(item, by_id)
        except _Malformed as exc:
            invalid.append(f"operation {n}: {exc}")
            continue
        if op is not None:
            ops.append(op)
    if invalid and not ops:
        raise _Malformed("; ".join(invalid[:3]))
    return Plan(ops, invalid)


def schema_for(existing: Sequence[Existing]) -> dict[str, Any]:
    """``SCHEMA`` narrowed to this prompt: ``id`` can only be one of the listed memories (and
    with none listed, only ADD or NONE), so a constrained decoder cannot invent an id."""
    schema = copy.deepcopy(SCHEMA)
    item = schema["properties"]["operations"]["items"]["properties"]
    if existing:
        item["id"] = {"type": ["integer", "null"], "enum": [*(e.id for e in existing), None]}
    else:
        item["id"] = {"type": "null"}
        item["op"] = {"type": "string", "enum": ["ADD", "NONE"]}
    return schema


def _norm(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(re.sub(r"[\"'“”‘’「」『』]", "", folded).split())


def _found(needle: str | None, haystack: Sequence[str]) -> bool:
    if not needle or len(_norm(needle)) < 2:
        return False
    return _norm(needle) in _norm("\n".join(haystack))


def check_provenance(op: Operation, turn: Turn) -> Operation:
    """``op`` with a ``source`` the turn supports (see the module docstring)."""
    if _found(op.quote, turn.user):
        return op if op.source == "user" else replace(op, source="user")
    in_external = _found(op.quote, turn.external) or (
        _found(op.text, turn.external) and not _found(op.text, turn.user)
    )
    if in_external:
        return replace(op, source="external")
    if op.source == "user" or op.quote:
        return replace(op, source="inferred", quote=None)
    return op if op.source != "external" else replace(op, source="inferred")


def plan_turn(llm: LLM, turn: Turn, existing: Sequence[Existing]) -> Plan:
    """Ask ``llm`` what ``turn`` changes; retry once on unusable output, then
    ``ExtractionError``. Operations come back provenance-checked."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": render_prompt(turn, existing)}]
    schema = schema_for(existing)
    answers: list[str] = []
    reason = ""
    for _attempt in range(2):
        response = llm.complete(
            messages, json_schema=schema, schema_name="memory_operations", max_tokens=1000
        )
        answers.append(response.text)
        try:
            plan = parse_operations(response.text, existing)
        except ValueError as exc:
            messages += [
                {"role": "assistant", "content": response.text},
                {
                    "role": "user",
                    "content": f"That answer could not be used: {exc}. Answer again with only "
                    'the JSON object {"operations": [...]} described above.',
                },
            ]
            reason = str(exc)
            continue
        return Plan([check_provenance(op, turn) for op in plan.operations], plan.invalid)
    raise ExtractionError(
        f"{llm.model_id} gave unusable extraction output twice ({reason}); the turn was not "
        "extracted — see `memdir doctor`, then retry with `memdir extract SESSION_ID`",
        raw="\n---\n".join(answers),
    )
