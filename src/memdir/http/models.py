"""The REST API's request and response models (the OpenAPI document is made from them), and
the functions that build the responses from the facade's records.

Requests forbid unknown keys and bound every string and list, so a client's mistake is a 422
that names the field. Every text field refuses NUL and lone surrogates (``_plain``): JSON can
carry both as escapes, and the store would write a file it cannot read back, or fail. Responses
never carry a server path (a record's ``path``, a session file's location).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from ..history import Change
from ..recall import Hit
from ..records import IMPORTANCE, MemoryRecord, text_problem
from ..sessions import Record, SessionInfo

__all__ = [
    "AppendOut",
    "ChangeOut",
    "ContextOut",
    "ErrorBody",
    "ErrorOut",
    "HitOut",
    "MemoryOut",
    "MemoryPage",
    "MessagesIn",
    "RecallIn",
    "RecallOut",
    "RecordOut",
    "RememberIn",
    "RememberOut",
    "SessionInfoOut",
    "SessionOut",
    "SleepIn",
    "SleepOut",
    "UpdateIn",
]

MAX_TEXT = 100_000  # characters in one text field (the body limit holds first for most)

ScopeName = Literal["user", "project"]
TypeName = Literal["user", "feedback", "project", "reference"]
SourceName = Literal["user", "inferred", "external", "imported"]
ConfidenceName = Literal["confirmed", "tentative"]


def _plain(value: str) -> str:
    """Text that can be written to a UTF-8 Markdown file (``records.text_problem``: the one
    rule, for every door)."""
    problem = text_problem(value)
    if problem is not None:
        raise ValueError(f"text {problem}")
    return value


Plain = Annotated[str, AfterValidator(_plain)]
Text = Annotated[Plain, Field(max_length=MAX_TEXT)]
Short = Annotated[Plain, Field(max_length=1000)]
Tags = Annotated[list[Annotated[Plain, Field(max_length=200)]], Field(max_length=100)]


# -- request and response models ---------------------------------------------------------
class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RememberIn(_Model):
    text: Text
    type: TypeName
    scope: ScopeName | None = None
    name: Short | None = None
    description: Short | None = None
    why: Text | None = None
    how_to_apply: Text | None = None
    tags: Tags = []
    related_files: Tags = []
    importance: int | None = Field(default=None, ge=IMPORTANCE[0], le=IMPORTANCE[1])
    source: SourceName = "user"
    confidence: ConfidenceName = "confirmed"
    quote: Text | None = None
    session: Short | None = None
    created: Short | None = Field(
        default=None, description="when it was learned (ISO 8601), for imports; default now"
    )
    reason: Short | None = None


class UpdateIn(_Model):
    """Only the keys present are changed; ``null`` removes an optional key."""

    statement: Text | None = None
    why: Text | None = None
    how_to_apply: Text | None = None
    body: Text | None = None
    description: Short | None = None
    type: TypeName | None = None
    tags: Tags | None = None
    related_files: Tags | None = None
    importance: int | None = Field(default=None, ge=IMPORTANCE[0], le=IMPORTANCE[1])
    source: SourceName | None = None
    confidence: ConfidenceName | None = None
    quote: Text | None = None
    session: Short | None = None
    reason: Short | None = None


class RecallIn(_Model):
    query: Text
    top_k: int = Field(default=5, ge=1, le=100)
    scopes: list[ScopeName] | None = None
    types: list[TypeName] = []
    tags: Tags = []
    since: Short | None = None
    until: Short | None = None
    explain: bool = False
    min_score: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="calibrated relevance below which nothing is returned (default: the "
        "formula's floor; 0 returns every candidate); with explain, what it cut follows",
    )


class MessagesIn(_Model):
    """Provider messages (OpenAI or Anthropic shape), stored exactly as given."""

    messages: Annotated[list[dict[str, Any]], Field(max_length=1000)] = []


class SleepIn(_Model):
    scope: ScopeName | None = None
    sessions: bool = Field(
        default=True,
        description="also expire sessions past retention (distilled by the offline rules first)",
    )


class MemoryOut(BaseModel):
    name: str
    scope: ScopeName
    type: TypeName
    description: str
    statement: str
    why: str | None
    how_to_apply: str | None
    source: SourceName
    confidence: ConfidenceName
    importance: int | None
    created: str | None
    updated: str | None
    tags: list[str]
    related_files: list[str]
    quote: str | None
    session: str | None
    extra: dict[str, Any]
    body: str
    content_hash: str


class RememberOut(MemoryOut):
    """``POST /v1/memories``' reply, as ``memdir remember --json`` gives it: ``created`` is false
    when the same statement was there already (it was reinforced, 200 instead of 201),
    ``created_at`` says when it was learned, ``similar_to`` names near-duplicates (not blocking)."""

    created: bool  # type: ignore[assignment]  # MemoryOut's is when; here: whether
    created_at: str | None
    similar_to: list[str]


class MemoryPage(BaseModel):
    items: list[MemoryOut]
    total: int
    offset: int
    limit: int
    next_offset: int | None


class ChangeOut(BaseModel):
    id: str
    time: str
    op: str
    name: str
    scope: str
    actor: str
    source: str | None
    before: str | None
    after: str | None
    reason: str | None
    undoes: str | None
    renamed_from: str | None
    run: str | None = None  # the sleep (or other multi-file) run it belongs to
    path: str | None = None  # where the file is when not <name>.md in its scope: archive/...


class HitOut(BaseModel):
    score: float
    memory: MemoryOut
    explain: dict[str, float] | None = None


class RecallOut(BaseModel):
    hits: list[HitOut]


class SessionInfoOut(BaseModel):
    id: str
    started: str
    last_active: str | None
    last_type: str | None
    preview: str
    size: int
    archived: bool


class RecordOut(BaseModel):
    type: str
    ts: str
    line: int
    content: Any


class SessionOut(BaseModel):
    info: SessionInfoOut
    records: list[RecordOut]
    problems: list[str]


class AppendOut(BaseModel):
    id: str
    appended: int
    records: int
    notices: list[str]


class ContextOut(BaseModel):
    format: str
    context: Any


class SleepOut(BaseModel):
    """What sleep planned (``plan``: its steps with actions, names, reasons and operations)
    and, when applied, the run id that undoes all of it."""

    run: str | None
    dry_run: bool
    skipped: str | None
    changes: int
    notes: list[str]
    plan: dict[str, Any] | None


class ErrorBody(BaseModel):
    code: str
    status: int
    message: str


class ErrorOut(BaseModel):
    error: ErrorBody


def memory_out(record: MemoryRecord) -> MemoryOut:
    data = record.to_dict()
    data.pop("path")  # a path on the server: none of the client's business
    return MemoryOut(**data)


def remember_out(record: MemoryRecord) -> RememberOut:
    data = record.to_dict()
    data.pop("path")
    data |= {"created": bool(record.is_new), "created_at": data["created"]}
    return RememberOut(**data, similar_to=list(record.similar_to))


def change_out(change: Change) -> ChangeOut:
    return ChangeOut(**change.to_dict())


def hit_out(hit: Hit, explain: bool) -> HitOut:
    detail = {k: float(v) for k, v in hit.explain.items()} if explain else None
    return HitOut(score=round(hit.score, 6), memory=memory_out(hit.record), explain=detail)


def info_out(info: SessionInfo) -> SessionInfoOut:
    data = info.to_dict()
    data.pop("path")
    return SessionInfoOut(**data)


def record_out(record: Record) -> RecordOut:
    return RecordOut(type=record.type, ts=record.ts, line=record.line, content=record.content)
