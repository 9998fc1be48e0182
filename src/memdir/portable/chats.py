"""The chat importers' common pipeline: conversations → candidates → guarded writes → report.

Each importer (``importers/*.py``) only reads its format: it yields ``Conversation``s (the
person's and the assistant's messages, in order, each with its id and time) and a ``Skipped``
for every part it could not read, with the reason. Everything after that is here, the same for
every format:

1. **Extract.** Each message of the person is read by the offline rules (``extract.rules``, the
   same ones a live session uses), with the assistant's previous reply as context for
   corrections. Only the person's words can become memories; assistant text, tool calls and
   tool results, system prompts and attachments are context at most.
2. **Write.** A conversation's candidates go through ``Memory.remember_many`` as one batch with
   ``source="imported"``, ``session="<format>:<conversation id>#<message id>"`` and a reason
   naming both — so the guard judges every one (secrets redacted or refused, permission grants
   refused, counted in the report), and the same statement again is reinforced, not doubled
   ("merged with existing").
3. **Checkpoint.** After a conversation's batch is written, one line ``{"key", "stored"}`` is
   appended (and fsynced) to the checkpoint file of this source. A killed import resumes after
   the last conversation it finished; one cut mid-batch is read again, and the writes it already
   made are recognised as the same statements. Running an import twice stores nothing new.

``dry_run`` writes nothing (no memory, no checkpoint) and keeps a sample of what would be stored.
"""

from __future__ import annotations

import builtins
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ExtractionError, MemdirError, ProviderError, RefusedError
from ..extract import rules
from ..fs import append_jsonl, crash_point
from ..guard import redact
from ..paths import Scope
from ..records import default_scope, shorten

if TYPE_CHECKING:
    from ..memory import Memory
    from ..providers.llm import LLM

__all__ = [
    "ChatReport",
    "Conversation",
    "Message",
    "Skipped",
    "checkpoint_path",
    "import_conversations",
]

# a message longer than this is pasted content (a log, a document): the rules would give
# nothing for it anyway (``rules.MAX_SENTENCE`` per sentence), and it bounds the work
MAX_MESSAGE_CHARS = 20_000
SAMPLE = 10


@dataclass(frozen=True)
class Message:
    """One message of a conversation, as the importer read it."""

    id: str
    role: str  # user | assistant | tool | system
    text: str
    time: str | None = None


@dataclass
class Conversation:
    """One conversation of an export, its messages in the order they were said."""

    format: str
    id: str
    title: str = ""
    messages: builtins.list[Message] = field(default_factory=builtins.list)

    def key(self) -> str:
        """What the checkpoint knows this conversation by: its id and its content, so a
        conversation that went on since the last import is read again."""
        digest = hashlib.sha256()
        for m in self.messages:
            digest.update(f"{m.id}\0{m.role}\0{m.text}\0".encode("utf-8", "replace"))
        return f"{self.format}:{self.id}:{digest.hexdigest()[:16]}"


@dataclass(frozen=True)
class Skipped:
    """A part of the input the importer could not read, and why (never a traceback)."""

    where: str
    reason: str


@dataclass
class ChatReport:
    """What one import did (or, with ``dry_run``, would do)."""

    source: str
    format: str
    dry_run: bool = False
    conversations: int = 0
    messages: int = 0
    resumed: int = 0  # conversations already done by an earlier run (checkpoint)
    memory_files: int = 0  # the agent's own memory files read too (CLAUDE.md, memory/ …)
    proposed: int = 0
    stored: int = 0
    merged: int = 0
    refused: int = 0
    redacted: int = 0
    refusals: builtins.list[dict[str, str]] = field(default_factory=builtins.list)
    skipped: builtins.list[Skipped] = field(default_factory=builtins.list)
    sample: builtins.list[dict[str, Any]] = field(default_factory=builtins.list)

    def add(self, other: ChatReport) -> None:
        """Count ``other`` (the agent's memory files read with its transcripts) in this one."""
        for key in ("proposed", "stored", "merged", "refused", "redacted"):
            setattr(self, key, getattr(self, key) + getattr(other, key))
        self.memory_files += other.conversations
        self.refusals += other.refusals
        self.skipped += other.skipped
        self.sample += other.sample[: max(0, SAMPLE - len(self.sample))]

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "format": self.format,
            "memory_files": self.memory_files,
            "dry_run": self.dry_run,
            "conversations": self.conversations,
            "messages": self.messages,
            "resumed": self.resumed,
            "proposed": self.proposed,
            "stored": self.stored,
            "merged": self.merged,
            "refused": self.refused,
            "redacted": self.redacted,
            "refusals": self.refusals,
            "skipped": [{"where": s.where, "reason": s.reason} for s in self.skipped],
            "sample": self.sample,
        }


def checkpoint_path(memory: Memory, fmt: str, source: Path) -> Path:
    """Where the import of ``source`` keeps its checkpoint: under the home, one file per
    (format, absolute source path)."""
    key = hashlib.sha256(f"{fmt}\0{source.expanduser().absolute()}".encode()).hexdigest()[:16]
    return memory.home / "imports" / f"{fmt}-{key}.jsonl"


def _done(path: Path) -> set[str]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return set()
    keys = set()
    for line in lines:
        try:
            data = json.loads(line)
        except ValueError:
            continue  # a torn last line from a kill: that conversation is read again
        if isinstance(data, dict) and isinstance(data.get("key"), str):
            keys.add(data["key"])
    return keys


# exports of a chat app are not about the project in the current folder: what they teach is
# kept with the person (``--scope`` overrides); a coding agent's sessions follow the type
PERSONAL_FORMATS = ("chatgpt", "claude", "jsonl")


def _items(conv: Conversation, scope: Scope | None) -> Iterator[dict[str, Any]]:
    """The ``remember`` arguments the rules propose for ``conv``'s messages."""
    previous: str | None = None
    for msg in conv.messages:
        if msg.role != "user":
            if msg.role == "assistant":
                previous = msg.text
            continue
        text = msg.text if len(msg.text) <= MAX_MESSAGE_CHARS else ""
        for cand in rules.extract(text, previous_assistant=previous) if text else ():
            yield {
                "text": cand.text,
                # what remember() would derive after redacting, given up front: a refused
                # secret's change-log line is then named without any of the secret in it
                "description": shorten(redact(cand.text)[0], at_word=True),
                "type": cand.type,
                "source": "imported",
                "confidence": cand.confidence,
                "quote": cand.quote,
                "why": cand.why,
                "how_to_apply": cand.how_to_apply,
                "session": f"{conv.format}:{conv.id}#{msg.id}",
                "created": msg.time,
                "reason": f"imported from {conv.format} conversation {conv.id}, message {msg.id}",
                "scope": scope,
            }


# how many messages one model call reads: a conversation is extracted in batches of this size
LLM_BATCH = 24


def _llm_items(llm: LLM, conv: Conversation, scope: Scope | None) -> Iterator[dict[str, Any]]:
    """What the configured model proposes for ``conv``, one call per ``LLM_BATCH`` messages.
    Only ADD operations whose quote is the person's own words are kept (``check_provenance``
    says so): an import stores what the person said, not what a model concluded from it."""
    from ..extract.llm import plan_turn
    from ..extract.turns import Turn

    for start in range(0, len(conv.messages), LLM_BATCH):
        part = conv.messages[start : start + LLM_BATCH]
        said = [m for m in part if m.role == "user" and len(m.text) <= MAX_MESSAGE_CHARS]
        if not said:
            continue
        answers = tuple(m.text for m in part if m.role == "assistant")
        turn = Turn(start, start + len(part), tuple(m.text for m in said), answers, ())
        for op in plan_turn(llm, turn, []).operations:
            if op.op != "ADD" or not op.text or not op.type or op.source != "user":
                continue
            quote = op.quote or ""
            msg = next((m for m in said if quote and quote in m.text), said[0])
            yield {
                "text": op.text,
                "description": shorten(redact(op.description or op.text)[0], at_word=True),
                "type": op.type,
                "source": "imported",
                "confidence": op.confidence,
                "quote": op.quote,
                "why": op.why,
                "how_to_apply": op.how_to_apply,
                "session": f"{conv.format}:{conv.id}#{msg.id}",
                "created": msg.time,
                "reason": f"imported from {conv.format} conversation {conv.id}, message "
                f"{msg.id} ({llm.model_id})",
                "scope": scope,
            }


def _clean(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if v is not None}


def import_conversations(
    memory: Memory,
    conversations: Iterable[Conversation | Skipped],
    *,
    source: Path,
    fmt: str,
    dry_run: bool = False,
    scope: Scope | None = None,
    progress: Callable[[int, int], None] | None = None,
    total: int = 0,
    llm: LLM | None = None,
) -> ChatReport:
    """Import ``conversations`` (an importer's output) into ``memory``; see the module doc.
    ``progress(done, total)`` is called per conversation. The crash tests kill the import at
    ``crash_point("import-written")`` (a conversation's memories written, its checkpoint not
    yet) and ``crash_point("import-checkpoint")`` (its checkpoint on disk). With ``llm`` the
    model proposes the memories (``_llm_items``) instead of the offline rules; a conversation
    whose extraction failed is reported in ``skipped`` and not checkpointed (the next run
    tries it again)."""
    report = ChatReport(source=str(source), format=fmt, dry_run=dry_run)
    checkpoint = checkpoint_path(memory, fmt, source)
    done = _done(checkpoint)
    writer = memory.as_actor("import")
    if scope is None and (fmt in PERSONAL_FORMATS or memory.project_root is None):
        scope = "user"
    for entry in conversations:
        if isinstance(entry, Skipped):
            report.skipped.append(entry)
            continue
        report.conversations += 1
        report.messages += len(entry.messages)
        key = entry.key()
        if key in done:
            report.resumed += 1
        else:
            try:
                _import_one(writer, entry, report, dry_run=dry_run, scope=scope, llm=llm)
            except (ExtractionError, ProviderError) as exc:
                report.skipped.append(Skipped(f"{fmt} conversation {entry.id}", str(exc)))
                continue
            if not dry_run:
                crash_point("import-written")
                append_jsonl(checkpoint, {"key": key, "title": entry.title[:80]})
                done.add(key)
                crash_point("import-checkpoint")
        if progress is not None:
            progress(report.conversations, max(total, report.conversations))
    return report


def _import_one(
    writer: Memory,
    conv: Conversation,
    report: ChatReport,
    *,
    dry_run: bool,
    scope: Scope | None,
    llm: LLM | None = None,
) -> None:
    found = _llm_items(llm, conv, scope) if llm is not None else _items(conv, scope)
    items = [_clean(i) for i in found]
    report.proposed += len(items)
    report.redacted += sum(redact(i["text"])[1] for i in items)
    if dry_run:
        for item in items[: max(0, SAMPLE - len(report.sample))]:
            shown = {k: redact(item[k])[0] if k in item else None for k in ("text", "quote")}
            shown |= {
                "type": item["type"],
                "scope": item.get("scope") or default_scope(item["type"]),
            }
            report.sample.append(shown | {"reason": item["reason"]})
        return

    def refused(position: int, item: Any, error: MemdirError) -> None:
        report.refused += 1
        reasons = error.reasons if isinstance(error, RefusedError) else ()
        why = "; ".join(reasons) or str(error)
        text = redact(str(item.get("text", "")))[0]  # the report never shows a secret
        report.refusals.append({"text": text[:120], "reason": why})

    for record in writer.remember_many(items, on_error=refused):
        if record.is_new:
            report.stored += 1
        else:
            report.merged += 1
