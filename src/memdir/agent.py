"""The reference agent loop (SPEC I5): a person talks to a model, and memdir remembers them.

``Agent(memory, llm)`` wires every part of memdir into one synchronous loop. ``send(text)`` runs
one *turn* and yields ``AgentEvent``s for the frontend (``memdir chat`` prints them):

1. The person's message is appended to the session — **disk first**, before any model call, so a
   crash at any later point never loses what the person wrote.
2. Explicit requests in it ("remember that …", "记住…") are stored at once through
   ``Memory.capture_explicit`` (SPEC G3). The frontend is told (``remembered``), and so is the
   model: a ``note`` record after the message says what was stored, so the reply can mention it
   and the model does not store it a second time with the memory tool.
3. The request is ``Memory.context(session, format=llm.wire_format)`` — system message, the
   session's memory guide as the first user message, then the chain — so compaction (C7),
   chain repair and the "N days since" note all come from the facade; the loop adds nothing to
   what the model sees but the memory tool's definition.
4. The answer is streamed (``LLM.stream``): ``text`` events as it arrives, ``tool_call`` events as
   calls start. The whole assistant message is appended once the stream is complete, in the
   provider's own shape (``LLMResponse.raw``: OpenAI's ``choices[0].message``, Anthropic's content
   blocks with any thinking signatures), exactly as it came.
5. Each tool call runs through ``MemoryTool.handle`` (its writes logged as actor ``agent``) and
   its result is appended before the next call runs. A call to an unknown tool, or with
   arguments that did not decode, is answered with an error text the model can act on.
6. When the model answers without calling a tool the turn has ended: ``Memory.after_turn``
   queues the turn for extraction in the background, and ``turn_end`` carries the reply.

**The working layer** (seeds 003/004, issue 22). Between 2 and 3, ``Memory.offer_for`` may add
one ``[memdir]`` note after the message: skills for a task's first message, a question about a
tentative memory that became relevant, memories of another stack set aside. After 6,
``Memory.log_turn`` appends what the turn decided, did and learned to the daily log; ``close``
ends the session's working layer (``Memory.end_session``: the log distilled into one line,
promotion decided at once) before releasing the session.

**The wiki view** (issue 24, SPEC K4). Where the person keeps a projection of their memory in
the workspace (``memdir wiki`` made ``.memory/``), each turn first brings it up to date
(``portable.wiki.refresh``: the user store's stamp compared, nothing re-read or re-rendered
while it has not moved); a page edited there by hand is kept aside and reported as a
``notice``. Nowhere else is ``.memory/`` created.

**Invariants.** Every message reaches the session file before the next step starts, so killing
the process at any instant leaves a file that ``Memory.session(id)`` resumes with a valid chain
(a call left without its result gets the "interrupted" result from ``chain.repair``). The message
shape stored is the provider's (``wire_format``); a session is continued with the same kind of
provider. A turn is bounded: after ``max_tool_rounds`` rounds of tool calls every further call
is answered with "limit reached", and if the model still insists the turn stops with a ``notice``
(every call has a result, so the chain stays valid).

**Compaction summaries** are written by ``LLMSummarizer`` when the loop is given one (``memdir
chat`` always is): the same model, a versioned prompt (``SUMMARY_PROMPT_VERSION``, recorded in
the summary's ``by``), and — when that call fails or answers nothing — the deterministic
``RuleSummarizer``, recorded as such and reported as a ``notice``, so a compaction never blocks
the conversation and never claims a summary the model did not write.

**Sleep.** ``sleep(if_quiet=...)`` runs the lifecycle pass (``Memory.sleep``, SPEC H7). With
``if_quiet`` — what ``memdir chat`` does when a conversation ends — it runs only if the project
had been quiet for ``QUIET`` before this conversation began (measured when the loop started, so
the conversation that just ended does not count against itself): one consolidation after each
burst of activity, none in the middle of one. ``/sleep`` runs it at once.
"""

from __future__ import annotations

import json
from collections.abc import Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from .chain import is_result, message_text
from .context import RuleSummarizer, Summarizer, SummaryRequest
from .errors import ProviderError, ValidationError
from .memory import Memory
from .portable import wiki
from .providers.llm import ARGUMENTS_ERROR, LLM, LLMResponse, ToolCall
from .records import MemoryRecord
from .sessions import Session
from .tools import TOOL_NAME, ToolResult

_WRITES = ("create", "str_replace", "insert", "delete", "rename")  # memory-tool commands that write

__all__ = [
    "QUIET",
    "SUMMARY_PROMPT_VERSION",
    "Agent",
    "AgentEvent",
    "LLMSummarizer",
    "assistant_message",
    "run_sleep",
    "tool_results",
]

QUIET = timedelta(minutes=30)  # the quiet period before a conversation that lets sleep run
EventKind = Literal[
    "text", "tool_call", "tool_result", "remembered", "compacted", "notice", "turn_end"
]


@dataclass(frozen=True)
class AgentEvent:
    """Something the frontend may show, in order.

    ``text``: the next fragment of the reply. ``tool_call`` / ``tool_result``: a memory-tool call
    (``call``) started / answered (``text`` is the result). ``remembered``: memories stored from
    the person's words (``records``). ``compacted`` / ``notice``: what memdir did (``text``).
    ``turn_end``: the turn is over; ``text`` is the model's whole final reply."""

    kind: EventKind
    text: str = ""
    call: ToolCall | None = None
    records: tuple[MemoryRecord, ...] = ()


def _wire_call(call: ToolCall) -> dict[str, Any]:
    arguments = json.dumps(dict(call.arguments), ensure_ascii=False)
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": arguments},
    }


def assistant_message(response: LLMResponse, wire_format: str) -> dict[str, Any]:
    """The message to store for ``response``: the provider's own message when ``raw`` holds one
    (kept exactly), else one built from the text and calls in ``wire_format``'s shape."""
    raw = response.raw
    if wire_format == "anthropic":
        if isinstance(raw.get("content"), list):
            return {"role": "assistant", "content": raw["content"]}
        blocks: list[dict[str, Any]] = []
        if response.text:
            blocks.append({"type": "text", "text": response.text})
        blocks += [
            {"type": "tool_use", "id": c.id, "name": c.name, "input": dict(c.arguments)}
            for c in response.tool_calls
        ]
        return {"role": "assistant", "content": blocks}
    choices = raw.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], Mapping):
        message = choices[0].get("message")
        if isinstance(message, Mapping) and message.get("role") == "assistant":
            return dict(message)
    out: dict[str, Any] = {"role": "assistant", "content": response.text}
    if response.tool_calls:
        out["tool_calls"] = [_wire_call(call) for call in response.tool_calls]
    return out


def _ok(text: str) -> bool:
    """Whether a tool result says the call did what it asked (``ToolResult.ok``; a text the
    loop itself answered, such as an unknown tool, is a ``ToolResult`` too)."""
    return text.ok if isinstance(text, ToolResult) else True


def tool_results(results: Sequence[tuple[ToolCall, str]], wire_format: str) -> list[dict[str, Any]]:
    """The messages that answer ``results`` (call, text): one ``role: tool`` message per call
    (OpenAI), or one user message of ``tool_result`` blocks (Anthropic)."""
    if wire_format == "anthropic":
        blocks: list[dict[str, Any]] = []
        for call, text in results:
            block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call.id, "content": text}
            if not _ok(text):
                block["is_error"] = True
            blocks.append(block)
        return [{"role": "user", "content": blocks}]
    return [{"role": "tool", "tool_call_id": call.id, "content": text} for call, text in results]


def _stored_note(records: Sequence[MemoryRecord]) -> str:
    lines = [f"- {r.name} ({r.type}, {r.scope} scope): {r.description}" for r in records]
    return (
        "[memdir] Stored from the person's message just now, as they asked — it is saved "
        "already, so do not save it again; tell them briefly what was stored:\n" + "\n".join(lines)
    )


SUMMARY_PROMPT_VERSION = "summary-v1"
SUMMARY_PROMPT = """\
Summarise the earlier part of a conversation between a person and an assistant, so that the
assistant can go on without it. Keep: what the person asked for and decided, facts and names
they gave, the state of the work (what was done, what failed, what is still open), and anything
the assistant promised. Leave out small talk. Write in the conversation's language, at most 250
words, as plain sentences or short bullet points. Answer with the summary only.
"""
_SUMMARY_CHARS = 2000  # per message: a long tool output is cut, not sent whole


class LLMSummarizer:
    """Compaction summaries written by ``llm`` (see the module docstring); ``errors`` lists the
    calls that failed and fell back to the rule summary."""

    def __init__(self, llm: LLM, *, max_tokens: int = 600) -> None:
        self.llm = llm
        self.max_tokens = max_tokens
        self.name = self._own_name = f"llm:{llm.model_id}:{SUMMARY_PROMPT_VERSION}"
        self.fallback = RuleSummarizer()
        self.errors: list[str] = []

    def summarize(self, request: SummaryRequest) -> str:
        lines: list[str] = []
        if request.previous:
            lines.append(f"[summary of what came before]\n{request.previous}")
        for message in request.messages:
            who = "tool output" if is_result(message) else str(message.get("role", "?"))
            text = message_text(message).strip()
            if text:
                cut = text if len(text) <= _SUMMARY_CHARS else text[:_SUMMARY_CHARS] + " …[cut]"
                lines.append(f"[{who}] {cut}")
        prompt = f"{SUMMARY_PROMPT}\n<conversation>\n" + "\n".join(lines) + "\n</conversation>"
        try:
            answer = self.llm.complete(
                [{"role": "user", "content": prompt}], max_tokens=self.max_tokens
            )
        except ProviderError as exc:
            self.errors.append(str(exc))
        else:
            if answer.text.strip():
                self.name = self._own_name  # ``by`` in the summary record is read after this
                return answer.text.strip()
            self.errors.append(f"{self.llm.model_id} gave an empty summary")
        self.name = self.fallback.name
        return self.fallback.summarize(request)


class Agent:
    """One conversation between a person and ``llm``, remembered by ``memory``.

    ``session`` is an open, writable session (``memory.session()`` or ``memory.session(id)``);
    without one a new session is started. The agent owns it from then on: ``close()`` releases
    it. ``max_tokens`` bounds each model answer; ``summarizer`` is handed to compaction."""

    def __init__(
        self,
        memory: Memory,
        llm: LLM,
        *,
        session: Session | None = None,
        max_tool_rounds: int = 8,
        max_tokens: int = 2048,
        temperature: float = 0.0,
        summarizer: Summarizer | None = None,
    ) -> None:
        self.memory = memory
        self.llm = llm
        self.wire_format = llm.wire_format
        self.quiet_since = memory.last_activity()  # before this conversation adds to it
        self.session = session if session is not None else memory.session(summarizer=summarizer)
        if not self.session.writable:
            raise ValidationError(
                f"session {self.session.id} is read-only; open it with Memory.session(id)"
            )
        self.tool = memory.tool()
        self.max_tool_rounds = max_tool_rounds
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.summarizer = summarizer
        self._outcomes: dict[str, bool] = {}  # call id → ok, for this turn's trace record
        self._writes: list[str] = []
        # session end's summary of the daily log: the memory's configured model (None here:
        # ``Memory.end_session`` uses it, or the rules offline)
        self.distill_llm: LLM | None = None
        self.ended: object | None = None  # what Memory.end_session did, after close()

    # -- what the model sees -------------------------------------------------------------
    @property
    def tool_definition(self) -> dict[str, Any]:
        if self.wire_format == "anthropic":
            return self.tool.anthropic_definition()
        return self.tool.openai_definition()

    def request(self) -> tuple[str, list[dict[str, Any]]]:
        """``(system, messages)`` exactly as the next model call sends them (compacting the
        session first when it is over the threshold)."""
        built = self.memory.context(
            self.session, format=self.wire_format, summarizer=self.summarizer
        )
        if isinstance(built, dict):  # anthropic: {"system", "messages"}
            return str(built["system"]), list(built["messages"])
        assert isinstance(built, list)
        head, *messages = built
        return str(head["content"]), messages

    # -- one turn --------------------------------------------------------------------------
    def send(self, text: str) -> Generator[AgentEvent, None, None]:
        """Run one turn for the person's ``text``; yields events until ``turn_end`` (or a
        ``notice`` when the model would not stop calling tools). A ``ProviderError`` escapes
        as it happens; everything appended before it stays in the session."""
        if not text.strip():
            raise ValidationError("say something: an empty message is not sent to the model")
        self.session.append({"role": "user", "content": text})
        stored = self.memory.capture_explicit(text, session=self.session.id)
        if stored:
            self.session.write_record("meta", {"kind": "note", "text": _stored_note(stored)})
            yield AgentEvent("remembered", records=tuple(stored))
        yield from self._refresh_wiki()
        self.memory.offer_for(text, session=self.session)  # skills, a tentative question (issue 22)
        self._writes = []
        rounds, self._outcomes = 0, {}
        while True:
            response = yield from self._call_model()
            if not response.tool_calls:
                self._record_outcomes()
            self.session.append(assistant_message(response, self.wire_format))
            if not response.tool_calls:
                break
            rounds += 1
            yield from self._run_tools(response.tool_calls, over=rounds > self.max_tool_rounds)
            if rounds > self.max_tool_rounds + 1:
                self._record_outcomes()
                yield AgentEvent(
                    "notice",
                    text=f"the model kept calling tools after {self.max_tool_rounds} rounds; "
                    "the turn was stopped (send another message to go on)",
                )
                return
        later = self.memory.after_turn(self.session)
        if later:
            yield AgentEvent("remembered", records=tuple(later))
        self._note_turn(text, response.text, [*stored, *later])
        yield AgentEvent("turn_end", text=response.text)

    def _refresh_wiki(self) -> Iterator[AgentEvent]:
        """The wiki view, brought up to date before the model is called (module docstring)."""
        try:
            report = wiki.refresh(self.memory)
        except OSError as exc:  # a read-only or vanished .memory/: the turn goes on
            yield AgentEvent(
                "notice", text=f"the wiki view was not refreshed ({exc}); `memdir wiki` retries"
            )
            return
        for edit in report.hand_edits if report is not None else ():
            yield AgentEvent(
                "notice",
                text=f"{edit['file']} was edited by hand; the edit is kept at {edit['kept_at']} "
                "and the page shows the memory again (change the memory itself: `memdir edit`)",
            )

    def _note_turn(self, text: str, reply: str, stored: Sequence[MemoryRecord]) -> None:
        """The working layer (seed 004): what the turn decided, did and learned, appended to
        the daily log (``Memory.log_turn``); session end distills it (``close``)."""
        self.memory.log_turn(
            text, reply, stored=stored, writes=self._writes, session=self.session.id
        )

    def _call_model(self) -> Generator[AgentEvent, None, LLMResponse]:
        """Stream one answer; the generator's return value is the whole ``LLMResponse``."""
        before = self.session.summary
        failures = len(self.summarizer.errors) if isinstance(self.summarizer, LLMSummarizer) else 0
        system, messages = self.request()
        if self.session.summary is not before:
            yield AgentEvent(
                "compacted",
                text="the conversation was long: older turns are now a summary "
                "(the newest stay verbatim)",
            )
        if isinstance(self.summarizer, LLMSummarizer) and len(self.summarizer.errors) > failures:
            yield AgentEvent(
                "notice",
                text="the model could not write the summary "
                f"({self.summarizer.errors[-1]}); memdir's rule summary was used instead",
            )
        response: LLMResponse | None = None
        for event in self.llm.stream(
            messages,
            system=system,
            tools=[self.tool_definition],
            max_tokens=self.max_tokens,
            temperature=self.temperature,
        ):
            if event.kind == "text":
                yield AgentEvent("text", text=event.text)
            elif event.kind == "tool_call":
                yield AgentEvent("tool_call", call=event.tool_call)
            elif event.kind == "done":
                response = event.response
        if response is None:
            raise ProviderError(
                f"{self.llm.model_id}: the answer ended before it was complete; send the "
                "message again"
            )
        return response

    def _run_tools(self, calls: Sequence[ToolCall], *, over: bool) -> Iterator[AgentEvent]:
        results: list[tuple[ToolCall, str]] = []
        text: ToolResult
        for call in calls:
            if over:
                text = ToolResult(
                    f"Error: the tool-call limit for one turn ({self.max_tool_rounds} rounds) "
                    "is reached; answer the person now with what you have, without tools",
                    False,
                )
            else:
                text = self.run_tool(call)
                command = call.arguments.get("command")
                if text.ok and command in _WRITES:
                    self._writes.append(f"{command} {call.arguments.get('path', '')}".strip())
            results.append((call, text))
            self._outcomes[call.id] = _ok(text)
            if self.wire_format != "anthropic":  # one message per result: store each now
                self.session.append(tool_results([(call, text)], self.wire_format)[0])
            yield AgentEvent("tool_result", text=text, call=call)
        if self.wire_format == "anthropic":
            self.session.append(tool_results(results, self.wire_format)[0])

    def _record_outcomes(self) -> None:
        """Which of this turn's tool calls did what they asked (``ToolResult.ok``, which the
        stored result text does not carry): one ``trace`` meta record, before the final answer
        so the answer stays the session's last line; ``memdir trace`` reads it."""
        if self._outcomes:
            self.session.write_record("meta", {"kind": "trace", "calls": dict(self._outcomes)})

    def run_tool(self, call: ToolCall) -> ToolResult:
        """The result text of one call (the memory tool's, or an error the model can fix)."""
        if call.name != TOOL_NAME:
            return ToolResult(
                f"Error: there is no tool named {call.name!r}; the only tool is {TOOL_NAME!r} "
                "(commands view, create, str_replace, insert, delete, rename, search)",
                False,
            )
        if ARGUMENTS_ERROR in call.arguments:
            return ToolResult(
                f"Error: {call.arguments[ARGUMENTS_ERROR]}; call {TOOL_NAME} again with a JSON "
                'object such as {"command": "view", "path": "/memories"}',
                False,
            )
        return self.tool.handle(call.arguments)

    # -- the end of a conversation ---------------------------------------------------------
    def sleep(self, *, if_quiet: bool) -> str:
        """Run the consolidation pass; with ``if_quiet`` only after a quiet period (see the
        module docstring). Returns one line saying what happened."""
        return run_sleep(self.memory, quiet_since=self.quiet_since if if_quiet else None)

    def close(self) -> None:
        """End the session's working layer (``Memory.end_session``: the daily log distilled,
        promotion decided; the report is ``ended``), then release the session (its file stays;
        ``memdir chat --continue`` picks it up)."""
        try:
            if self.session.writable:
                self.ended = self.memory.end_session(self.session.id, llm=self.distill_llm)
        finally:
            self.session.close()


def run_sleep(
    memory: Memory, *, quiet_since: datetime | None = None, now: datetime | None = None
) -> str:
    """``memory.sleep()`` — unless ``quiet_since`` (the last activity before the conversation)
    is less than ``QUIET`` ago — summed up in one line."""
    now = now or datetime.now(UTC)
    if quiet_since is not None and now - quiet_since < QUIET:
        minutes = int((now - quiet_since).total_seconds() // 60)
        return (
            f"sleep skipped: the project was active {minutes} min before this conversation "
            f"(it runs after {int(QUIET.total_seconds() // 60)} quiet minutes; `memdir sleep` "
            "runs it now)"
        )
    report = memory.sleep(now=now)
    notes = f"; {len(report.notes)} session note(s)" if report.notes else ""
    if report.run:
        return (
            f"sleep {report.run}: {len(report.changes)} change(s){notes} — undo all of it with "
            f"`memdir undo {report.run}`"
        )
    return f"sleep: nothing to consolidate{notes}"
