"""``memdir chat``: talk to the configured model, with memdir remembering you (SPEC I5).

A thin frontend over ``memdir.agent.Agent``: it reads the person's lines, runs slash commands
itself (they call the ``Memory`` facade and never reach the model), and prints the agent's
events. **stdout carries what the person asked for** — the model's replies, streamed as they
arrive, and the output of slash commands — while memdir's own remarks (the header, tool calls,
what was remembered, errors) go to **stderr**, so ``printf 'hi\\n' | memdir chat > reply.txt``
keeps only the reply.

With a terminal on stdin it prompts; without one it reads one message per line (blank lines are
skipped) and ends at end of input. Ctrl-C during a reply stops that reply (the person's message
stays in the session; the partial reply is not stored) and returns to the prompt; Ctrl-C or
Ctrl-D at the prompt ends the chat. At the end memdir waits for the background extraction of the
last turn (Ctrl-C leaves it to the next start), ends the session's working layer and says what
that did (the distilled summary line, the notes promoted to long-term memory, the skills made,
the run that undoes them), then runs the sleep hook (``--no-sleep`` skips it), and says how to
continue.

A failing model call is reported on stderr and the chat goes on (the session keeps the message);
without a terminal the exit code is then 1, so a script notices.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import click

from ..errors import MemdirError, NotFoundError, ValidationError
from .app import cli, memory

if TYPE_CHECKING:  # imported when a chat starts, not for every command
    from ..agent import Agent, AgentEvent
    from ..memory import Memory

__all__ = ["COMMANDS", "chat"]

COMMANDS: dict[str, str] = {
    "/memory": "list every memory (the index the model's guide carries), both scopes",
    "/recall QUERY": "the memories that best answer QUERY, with scores",
    "/remember TEXT": "store TEXT as a memory now (its type read from its shape)",
    "/forget NAME": "forget the memory NAME (undo with memdir undo ID)",
    "/context": "exactly what the model is sent next: system, memory guide, conversation",
    "/sleep": "run the consolidation pass now",
    "/sessions": "the conversations kept in this project",
    "/help": "this list",
    "/exit": "end the chat (as do Ctrl-D and Ctrl-C at the prompt)",
}
PROMPT = "you> "


def _note(text: str) -> None:
    click.echo(f"[memdir] {text.removeprefix('[memdir] ')}", err=True)


@dataclass
class _Chat:
    """One run of ``memdir chat``: the agent, and whether a turn failed."""

    memory: Memory
    agent: Agent
    failed: bool = False

    # -- slash commands (never sent to the model) ------------------------------------------
    def command(self, line: str) -> bool:
        """Run the slash command ``line``; ``False`` when the chat should end."""
        name, _, argument = line.partition(" ")
        argument = argument.strip()
        handlers: dict[str, Callable[[str], None]] = {
            "/memory": self._memory,
            "/recall": self._recall,
            "/remember": self._remember,
            "/forget": self._forget,
            "/context": self._context,
            "/sleep": self._sleep,
            "/sessions": self._sessions,
            "/help": self._help,
        }
        if name in ("/exit", "/quit"):
            return False
        handler = handlers.get(name)
        if handler is None:
            click.echo(f"unknown command {name}: /help lists them", err=True)
            return True
        try:
            handler(argument)
        except MemdirError as exc:
            click.echo(f"error: {exc}", err=True)
        return True

    def _help(self, _: str) -> None:
        width = max(len(c) for c in COMMANDS)
        for usage, what in COMMANDS.items():
            click.echo(f"  {usage.ljust(width)}  {what}")
        click.echo("  Anything else is sent to the model; start a line with // to send a '/'.")

    def _memory(self, _: str) -> None:
        records = self.memory.list()
        if not records:
            click.echo("no memories yet")
        for scope in self.memory.scopes():
            mine = [r for r in records if r.scope == scope]
            if mine:
                click.echo(f"{scope} scope:")
            for r in sorted(mine, key=lambda r: (r.type, r.name)):
                click.echo(f"  {r.name} ({r.type}, source {r.source}) — {r.description}")

    def _recall(self, query: str) -> None:
        if not query:
            raise ValidationError("say what to look for: /recall QUERY")
        hits = self.memory.recall(query, top_k=5)
        if not hits:
            click.echo("nothing matches")
        for hit in hits:
            r = hit.record
            click.echo(f"  {hit.score:.3f}  {r.name} ({r.type}, {r.scope}) — {r.description}")

    def _remember(self, text: str) -> None:
        if not text:
            raise ValidationError("say what to remember: /remember TEXT")
        session = self.agent.session.id
        stored = self.memory.capture_explicit(f"Remember: {text}", session=session)
        if not stored:
            # not a shape the rules read (or already stored): keep it as the person wrote it
            kind = "project" if self.memory.project_root is not None else "user"
            stored = [
                self.memory.remember(text, type=kind, quote=text, session=session, source="user")
            ]
        for r in stored:
            click.echo(f"remembered {r.name} ({r.type}, {r.scope} scope) — {r.description}")

    def _forget(self, name: str) -> None:
        if not name:
            raise ValidationError("say which memory: /forget NAME (names: /memory)")
        change = self.memory.forget(name, reason="forgotten in memdir chat")
        click.echo(f"forgot {name} (undo with: memdir undo {change.id})")

    def _context(self, _: str) -> None:
        text = self.memory.context(self.agent.session, format="text")
        click.echo(str(text), nl=False)

    def _sleep(self, _: str) -> None:
        click.echo(self.agent.sleep(if_quiet=False))

    def _sessions(self, _: str) -> None:
        for info in self.memory.sessions():
            mark = "*" if info.id == self.agent.session.id else " "
            click.echo(f"{mark} {info.id}  {info.preview}")

    # -- one message to the model ----------------------------------------------------------
    def turn(self, text: str) -> None:
        events = self.agent.send(text)
        at_line_start = True
        try:
            with contextlib.closing(events):
                for event in events:
                    at_line_start = _show(event, at_line_start)
        except KeyboardInterrupt:
            click.echo("" if at_line_start else "\n", nl=False)
            _note("interrupted: the reply was not saved; your message is kept in the session")
        except MemdirError as exc:
            click.echo("" if at_line_start else "\n", nl=False)
            click.echo(f"error: {exc}", err=True)
            self.failed = True


def _show(event: AgentEvent, at_line_start: bool) -> bool:
    """Print one event; whether stdout is now at the start of a line."""
    if event.kind == "text":
        click.echo(event.text, nl=False)
        sys.stdout.flush()
        return event.text.endswith("\n")
    if event.kind == "turn_end":
        if not at_line_start:
            click.echo("")
        return True
    if event.kind == "tool_call":
        return at_line_start  # its result says what it did, on one line
    if not at_line_start:
        click.echo("")  # memdir's remarks start on their own line
    if event.kind == "tool_result" and event.call is not None:
        command = event.call.arguments.get("command", "?")
        path = event.call.arguments.get("path") or event.call.arguments.get("query") or ""
        first = event.text.splitlines()[0] if event.text else ""
        _note(f"{event.call.name} {command} {path}: {first[:100]}".replace("  ", " "))
    elif event.kind == "remembered":
        for r in event.records:
            _note(f"remembered {r.name} ({r.type}, {r.scope} scope) — {r.description}")
    else:
        _note(event.text)
    return True


def _no_signal_thieves() -> None:
    """One BLAS thread, set before numpy starts its pool: OpenBLAS's worker threads do not
    block SIGINT, and a Ctrl-C the kernel hands to one of them only sets Python's flag — the
    main thread, asleep in the model's socket, is not woken, so the reply would run on to its
    read timeout (issue 26). The extraction worker blocks SIGINT itself; embedding one message
    needs no second BLAS thread (``serve`` runs with one too). A person's own setting wins."""
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        os.environ.setdefault(var, "1")


def _lines(interactive: bool) -> Iterator[str]:
    """The person's messages: prompted on a terminal, else one per line of stdin."""
    if not interactive:
        for line in sys.stdin:
            if line.strip():
                yield line.rstrip("\n")
        return
    while True:
        try:
            line = input(PROMPT)
        except EOFError:
            click.echo("")
            return
        if line.strip():
            yield line


def _session_id(m: Memory, resume: str | None, latest: bool) -> str | None:
    """The session to resume: ``--resume ID``, ``--continue`` (the one active last — a resumed
    old session counts from its new messages), or None (a new one)."""
    if resume is not None and latest:
        raise click.UsageError("use --continue or --resume ID, not both")
    if latest:
        found = m.sessions()
        if not found:
            raise NotFoundError("there is no session to continue yet: start one with memdir chat")
        resume = max(found, key=lambda info: (info.idle_since, info.id)).id
    return resume


@cli.command()
@click.option("--continue", "-c", "latest", is_flag=True, help="Resume the most recent session.")
@click.option(
    "--resume", "resume", metavar="ID", help="Resume the session ID (a unique prefix is enough)."
)
@click.option(
    "--max-tokens",
    "max_tokens",
    type=click.IntRange(16, 100_000),
    default=2048,
    show_default=True,
    help="The most tokens one answer of the model may have.",
)
@click.option(
    "--no-sleep",
    "no_sleep",
    is_flag=True,
    help="Do not run the sleep (consolidation) hook when the chat ends.",
)
@click.pass_context
def chat(
    ctx: click.Context, latest: bool, resume: str | None, max_tokens: int, no_sleep: bool
) -> None:
    """Talk to the configured model; memdir remembers you across sessions.

    The model gets the memory guide (instructions and both memory indexes) as its first
    message and the memory tool to read and write memories. Every message is saved to the
    session file as it happens; explicit requests ("remember that ...") are stored at once and
    the rest of each turn is extracted in the background. Type /help for the slash commands.
    Without a terminal, each line of standard input is one message.
    """
    _no_signal_thieves()
    from ..agent import Agent, LLMSummarizer
    from ..providers.factory import get_llm

    m = memory(ctx)
    llm = get_llm(home=m.home)  # ProviderError says how to configure one (with Ollama)
    summarizer = LLMSummarizer(llm)  # compaction on resume and during the chat
    session = m.session(_session_id(m, resume, latest), summarizer=summarizer)
    agent = Agent(m, llm, session=session, max_tokens=max_tokens, summarizer=summarizer)
    interactive = sys.stdin.isatty()
    run = _Chat(m, agent)
    try:
        m.resume_extraction()  # turns a killed chat left unextracted
        _note(f"session {session.id} with {llm.model_id}; /help for commands, Ctrl-D to end")
        for notice in session.notices:
            _note(notice)
        _converse(run, interactive)
        _flush(run)  # the last turn's memories are known before session end decides promotion
    finally:
        agent.close()
    _finish(run, no_sleep)
    if run.failed and not interactive:
        ctx.exit(1)


def _converse(run: _Chat, interactive: bool) -> None:
    lines = _lines(interactive)
    while True:
        try:
            line = next(lines)
        except StopIteration:
            return
        except KeyboardInterrupt:  # Ctrl-C at the prompt ends the chat
            click.echo("")
            return
        stripped = line.strip()
        if stripped.startswith("/") and not stripped.startswith("//"):
            if not run.command(stripped):
                return
            continue
        run.turn(stripped[1:] if stripped.startswith("//") else line)


def _flush(run: _Chat) -> None:
    try:
        if not run.memory.flush_extraction(timeout=0.5):
            _note("extracting memories from the last turn… (Ctrl-C leaves it for next time)")
            run.memory.flush_extraction()
    except KeyboardInterrupt:
        # the turns are in the session file: the next start's resume_extraction finds them
        _note("extraction left for the next memdir chat")


def _finish(run: _Chat, no_sleep: bool) -> None:
    from ..lifecycle.working import SessionEnd

    ended = run.agent.ended
    for line in ended.lines() if isinstance(ended, SessionEnd) else []:
        _note(line)  # what Memory.end_session did: the summary, promotions, skills
    if not no_sleep:
        _note(run.agent.sleep(if_quiet=True))
    sid = run.agent.session.id
    _note(f"session {sid} saved: memdir chat --continue (or --resume {sid}) picks it up")
