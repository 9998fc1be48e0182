"""Did memory work in this turn? The per-turn trace of a session (issue 25, seed 001 §观测).

"The catalog was injected" only proves a memory *could* be found. A trace answers, per turn, the
four questions that prove it *worked*: did the model **see** the catalog (the memory guide with
its indexes), did it **choose** a page (open a memory file with the tool), did the **read**
succeed, and did the answer or the action that followed **use** what was read.

**Everything is derived from what is on disk**, so a trace can be made of any session, a
crashed one included, by any later process:

* the session file: the ``guide`` meta record (the guide's exact text, read back with
  ``context.guide_facts``: tokens, indexes and how many memories each lists, cut or not), the
  ``recalled`` record (memories recalled into context for the first message), the messages
  (tool calls with their arguments, results, the answers), and the agent's ``trace`` record,
  written before each final answer: which calls were ``ok`` (``ToolResult.ok``, which the
  stored result text does not carry; without it, as after a crash mid-turn, a view counts as
  read when its result shows the file, and any other call when its result is not an error);
* what the turn wrote: the tool's successful writes, the explicit requests stored from the
  person's words (the agent's "Stored from the person's message" note names them), and the
  change-log entries whose reason says extraction made them from this session's turn
  (``session <id> turn <start>-<end>``, the extractor's own reason text) — each exact, none
  guessed from a time window.

**Used** is ``overlap.used`` between the statement the model read (taken from the tool's own
result text, so a memory changed since still shows what was read then) and what came after the
read in the same turn: the model's text and the arguments of its later calls (not the paths
they point at: a memory's file name is made of its words). Memories recalled
into context, and the one-line descriptions the guide's indexes list, are checked against the
answers the same way and reported apart (``used_from_context``; an index line is marked
``(index)``): they were never *chosen*, so they stay out of the funnel.

**MCP.** A server's log of calls (``toollog``: ``meta`` records of kind ``mcp``) is read the
same way: each recall starts a turn, and its hits are the context the client was given.

``trace_records`` is a pure function of its inputs; ``Memory.trace`` gathers them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..chain import message_text
from ..context import guide_facts, guide_index
from ..history import Change
from ..records import shorten
from ..sessions import MESSAGE_TYPES, Record
from .overlap import MEASURE_VERSION, used

__all__ = ["Opened", "SessionTrace", "TurnTrace", "trace_records"]

WRITES = ("create", "str_replace", "insert", "delete", "rename")
_MEMORY_PATH = re.compile(r"^/memories/(user|project)/([^/]+)\.md$")
_LINE = re.compile(r"^\s*\d+\t(.*)$")
_RECALLED = re.compile(r"^- (user|project)/(\S+) \([a-z]+\): (.*)$")
_STORED = re.compile(r"^- (\S+) \([a-z]+, (user|project) scope\)")
_EXTRACTED = re.compile(r"session (\S+) turn (\d+)-\d+")


@dataclass(frozen=True)
class Opened:
    """A memory the model opened with the tool: ``ok`` if the read succeeded, ``used`` if what
    followed repeats its statement (``share`` of its content words)."""

    memory: str  # scope/name
    ok: bool
    used: bool = False
    share: float = 0.0


@dataclass
class TurnTrace:
    """One turn: from a person's message to the model's answer without a tool call."""

    turn: int
    message: int  # the person's message's position among the session's messages
    started: str
    person: str
    guide: dict[str, Any] | None  # guide_facts of the guide the turn was sent with
    recalled: list[str]  # recalled into context (for the session's first message)
    searched: list[str] = field(default_factory=list)  # what the tool's search returned
    opened: list[Opened] = field(default_factory=list)
    written: list[str] = field(default_factory=list)  # "op scope/name (actor)"
    used_from_context: list[str] = field(default_factory=list)
    calls: int = 0
    failed_calls: int = 0
    answer: str = ""
    finished: bool = False

    @property
    def seen(self) -> bool:
        """The model was shown at least one memory: listed in the guide's indexes, or
        recalled into context (an empty catalog offers nothing to find)."""
        listed = sum((self.guide or {}).get("indexes", {}).values())
        return listed > 0 or bool(self.recalled)

    @property
    def chosen(self) -> bool:
        return bool(self.opened)

    @property
    def read(self) -> bool:
        return any(o.ok for o in self.opened)

    @property
    def used(self) -> bool:
        return any(o.used for o in self.opened)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["funnel"] = {
            "seen": self.seen,
            "chosen": self.chosen,
            "read": self.read,
            "used": self.used,
        }
        return data


@dataclass
class SessionTrace:
    """Every turn of one session, and the funnel over them."""

    session: str
    turns: list[TurnTrace]
    measure: str = MEASURE_VERSION

    def funnel(self) -> dict[str, int]:
        return funnel_of(self.turns)

    def to_dict(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "measure": self.measure,
            "funnel": self.funnel(),
            "turns": [t.to_dict() for t in self.turns],
        }


def funnel_of(turns: Sequence[TurnTrace]) -> dict[str, int]:
    """Turns that were shown a memory → chose one → read one → used what was read."""
    return {
        "turns": len(turns),
        "seen": sum(t.seen for t in turns),
        "chosen": sum(t.chosen for t in turns),
        "read": sum(t.read for t in turns),
        "used": sum(t.used for t in turns),
        "used_from_context": sum(bool(t.used_from_context) for t in turns),
    }


# -- reading the records -----------------------------------------------------------------
def _calls(message: Mapping[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """``(id, tool name, arguments)`` of each call an assistant message makes (both shapes)."""
    found: list[tuple[str, str, dict[str, Any]]] = []
    for call in message.get("tool_calls") or []:
        if not isinstance(call, Mapping) or not isinstance(call.get("function"), Mapping):
            continue
        function = call["function"]
        raw = function.get("arguments", "{}")
        try:
            arguments = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            arguments = {}
        args = arguments if isinstance(arguments, dict) else {}
        found.append((str(call.get("id")), str(function.get("name")), args))
    content = message.get("content")
    for block in content if isinstance(content, list) else []:
        if isinstance(block, Mapping) and block.get("type") == "tool_use":
            given = block.get("input")
            inputs: dict[str, Any] = given if isinstance(given, dict) else {}
            found.append((str(block.get("id")), str(block.get("name")), inputs))
    return found


def _results(message: Mapping[str, Any]) -> dict[str, tuple[str, bool | None]]:
    """``{call id: (result text, is_error flag or None)}`` of a result message."""
    if message.get("role") == "tool":
        return {str(message.get("tool_call_id")): (message_text(message), None)}
    out: dict[str, tuple[str, bool | None]] = {}
    content = message.get("content")
    for block in content if isinstance(content, list) else []:
        if isinstance(block, Mapping) and block.get("type") == "tool_result":
            text = message_text({"content": block.get("content")})
            flag = block.get("is_error")
            out[str(block.get("tool_use_id"))] = (text, bool(flag) if flag is not None else None)
    return out


def _ok_from_text(command: str, text: str, flag: bool | None) -> bool:
    """Whether a call succeeded, when the agent's ``trace`` record is missing (see above)."""
    if flag:
        return False
    if command == "view":
        return text.startswith(("Here's the content of", "Here're the files"))
    return not text.lstrip().lower().startswith(("error", "the path"))


def statement_of(view_text: str) -> str:
    """The statement in a view result: the numbered lines, without frontmatter, up to the
    **Why:** line."""
    lines = [m.group(1) for line in view_text.splitlines() if (m := _LINE.match(line))]
    if lines and lines[0].strip() == "---":
        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), None)
        lines = lines[end + 1 :] if end is not None else lines
    body: list[str] = []
    for line in lines:
        if line.strip().startswith(("**Why:**", "**How to apply:**")):
            break
        body.append(line)
    return "\n".join(body).strip()


def _recalled_statements(records: Sequence[Record]) -> dict[str, str]:
    found: dict[str, str] = {}
    for record in records:
        if record.type == "meta" and record.content.get("kind") == "recalled":
            for line in str(record.content.get("text", "")).splitlines():
                if m := _RECALLED.match(line):
                    found[f"{m.group(1)}/{m.group(2)}"] = m.group(3)
    return found


_WHERE = ("command", "path", "old_path", "new_path", "view_range", "insert_line", "top_k")


def _said(args: Mapping[str, Any]) -> str:
    """What a call's arguments say, without where it points: a memory's path is made from its
    words, so counting it would make every view "use" the memory it opened."""
    return json.dumps({k: v for k, v in args.items() if k not in _WHERE}, ensure_ascii=False)


def _memory_of(args: Mapping[str, Any]) -> str | None:
    path = args.get("path") or args.get("new_path")
    m = _MEMORY_PATH.match(path) if isinstance(path, str) else None
    return f"{m.group(1)}/{m.group(2)}" if m and m.group(2) != "MEMORY" else None


class _Builder:
    """Walks a session's records once, turn by turn."""

    def __init__(self, records: Sequence[Record]) -> None:
        self.guide: dict[str, Any] | None = None
        self.recalled: list[str] = []
        self.recalled_text = _recalled_statements(records)
        self.listed: dict[str, str] = {}  # the guide's index lines: memory → description
        self.turns: list[TurnTrace] = []
        self.pending: dict[str, tuple[str, dict[str, Any]]] = {}  # call id → (command, args)
        self.statements: dict[str, str] = {}  # opened memory → statement read
        self.later: list[str] = []  # texts after a read, for the overlap
        self.reads: list[tuple[int, str]] = []  # (len(later) when read, memory)
        # the agent's verdicts are recorded after the results they judge: read them all first
        self.outcomes: dict[str, bool] = {
            str(k): bool(v)
            for r in records
            if r.type == "meta" and r.content.get("kind") == "trace"
            for k, v in (r.content.get("calls") or {}).items()
        }

    def meta(self, content: Mapping[str, Any], stamp: str = "") -> None:
        kind = content.get("kind")
        if kind == "guide":
            text = str(content.get("text", ""))
            self.guide = guide_facts(text)
            self.guide["version"] = content.get("version")
            self.listed = {
                f"{scope}/{name}": description
                for scope, names in guide_index(text).items()
                for name, description in names.items()
            }
        elif kind == "recalled":  # recorded at the first request, after the first message
            self.recalled = [str(n) for n in content.get("names", [])]
            if self.turns and not self.turns[-1].recalled:
                self.turns[-1].recalled = list(self.recalled)
        elif kind == "note" and self.turns:
            text = str(content.get("text", ""))
            if text.startswith("[memdir] Stored from the person's message"):
                for line in text.splitlines()[1:]:
                    if m := _STORED.match(line):
                        self.turns[-1].written.append(f"create {m.group(2)}/{m.group(1)} (person)")
        elif kind == "mcp":
            self.mcp(content, stamp)

    def person(self, record: Record, message: int) -> None:
        self.close()
        text = message_text(record.content)
        self.turns.append(
            TurnTrace(
                len(self.turns) + 1,
                message,
                record.ts,
                shorten(text.strip(), 200),
                dict(self.guide) if self.guide is not None else None,
                list(self.recalled),
            )
        )

    def assistant(self, message: Mapping[str, Any]) -> None:
        turn = self.turns[-1]
        text = message_text(message).strip()
        calls = _calls(message)
        if text:
            self.later.append(text)
        for call_id, name, args in calls:
            turn.calls += 1
            self.later.append(_said(args))
            self.pending[call_id] = (str(args.get("command", name)), args)
        if not calls:
            turn.answer = shorten(text, 300)
            turn.finished = True

    def result(self, message: Mapping[str, Any]) -> None:
        turn = self.turns[-1]
        for call_id, (text, flag) in _results(message).items():
            command, args = self.pending.pop(call_id, ("?", {}))
            ok = self.outcomes.get(call_id)
            ok = _ok_from_text(command, text, flag) if ok is None else ok
            turn.failed_calls += not ok
            memory = _memory_of(args)
            if command == "view" and memory is not None:
                turn.opened.append(Opened(memory, ok))
                if ok:
                    self.statements[memory] = statement_of(text)
                    self.reads.append((len(self.later), memory))
            elif command == "search" and ok:
                turn.searched += re.findall(r"/memories/((?:user|project)/[^/\s]+)\.md", text)
            elif command in WRITES and ok and memory is not None:
                turn.written.append(f"{command} {memory} (agent)")

    def mcp(self, content: Mapping[str, Any], stamp: str) -> None:
        """One call an MCP client made (``toollog``): a recall starts a turn (its hits are what
        the client was given, as recalled context); the rest run as in an agent's turn."""
        tool, ok = str(content.get("tool", "?")), bool(content.get("ok"))
        given = content.get("args")
        args: dict[str, Any] = dict(given) if isinstance(given, Mapping) else {}
        if tool == "recall" or not self.turns:
            query = str(args.get("query", "")) if tool == "recall" else ""
            self.person(Record("user", stamp, {}, 0), len(self.turns))
            self.turns[-1].person = f"recall: {shorten(query, 200)}" if query else "(MCP calls)"
            self.turns[-1].finished = True  # a client's turn has no answer memdir sees
        turn = self.turns[-1]
        if tool == "recall":
            hits = content.get("hits")
            found = dict(hits) if isinstance(hits, Mapping) else {}
            turn.recalled = [str(n) for n in found]
            self.recalled_text.update({str(k): str(v) for k, v in found.items()})
            return
        turn.calls += 1
        self.later.append(_said(args))
        self.pending["mcp"], self.outcomes["mcp"] = (tool, args), ok  # the server's verdict
        self.result({"role": "tool", "tool_call_id": "mcp", "content": str(content.get("result"))})
        if tool in ("remember", "forget") and ok:
            turn.written.append(f"{tool} {args.get('name') or '?'} (mcp)")

    def close(self) -> None:
        """Settle the open turn: which reads the later texts used."""
        if not self.turns:
            return
        turn = self.turns[-1]
        opened: list[Opened] = []
        for o in turn.opened:
            starts = [start for start, name in self.reads if name == o.memory]
            if o.ok and starts:
                overlap = used(self.statements.get(o.memory, ""), self.later[min(starts) :])
                o = Opened(o.memory, True, overlap.used, round(overlap.share, 3))
            opened.append(o)
        turn.opened = opened
        for name in turn.recalled:
            statement = self.recalled_text.get(name)
            if statement and used(statement, self.later).used:
                turn.used_from_context.append(name)
        read = {o.memory for o in turn.opened if o.ok}
        for name, description in self.listed.items():
            fresh = name not in read and name not in turn.used_from_context
            if fresh and used(description, self.later).used:
                turn.used_from_context.append(f"{name} (index)")
        self.later, self.reads = [], []


def trace_records(
    session_id: str, records: Sequence[Record], changes: Sequence[Change] = ()
) -> SessionTrace:
    """The trace of the session whose valid lines are ``records``; ``changes`` are the scopes'
    change-log entries (extraction's writes are placed in the turn whose window they fall in)."""
    builder = _Builder(records)
    messages = 0
    for record in records:
        if record.type == "meta":
            builder.meta(record.content, record.ts)
            continue
        if record.type not in MESSAGE_TYPES:
            continue
        messages += 1
        if record.type == "user":
            builder.person(record, messages - 1)
        elif not builder.turns:
            continue  # messages before any person's message (an imported chain): no turn
        elif record.type == "assistant":
            builder.assistant(record.content)
        else:
            builder.result(record.content)
    builder.close()
    by_start = {turn.message: turn for turn in builder.turns}
    for c in sorted(changes, key=lambda c: c.time):
        m = _EXTRACTED.search(c.reason or "") if c.actor == "extractor" else None
        if m and m.group(1) == session_id and c.op != "refuse" and int(m.group(2)) in by_start:
            by_start[int(m.group(2))].written.append(f"{c.op} {c.scope}/{c.name} (extractor)")
    return SessionTrace(session_id, builder.turns)
