"""``memdir chat`` on a real pseudo-terminal (stdlib ``pty``): replies stream as they arrive,
Ctrl-C stops a reply without losing the session, and ``/help`` lists every command."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import pytest

from memdir import Memory
from memdir.cli.chat import COMMANDS
from scripted_model import Request, Say, serve
from waiting import HANG_GUARD_S

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX pseudo-terminals")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@dataclass
class Terminal:
    """The master side of a pty with a child on the other end; ``expect`` reads until a
    pattern shows up (or fails with what was seen)."""

    fd: int
    pid: int
    seen: str = ""
    mark: int = 0
    log: list[str] = field(default_factory=list)

    def read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return False
        try:
            data = os.read(self.fd, 4096)
        except OSError:  # the child closed the terminal
            return False
        self.seen += ANSI.sub("", data.decode("utf-8", errors="replace"))
        return bool(data)

    def expect(self, text: str, timeout: float = HANG_GUARD_S) -> str:
        """Wait for ``text`` after the last match (or the child's exit; ``timeout`` only guards
        against a hang); what came before it."""
        deadline = time.monotonic() + timeout
        while text not in self.seen[self.mark :]:
            left = deadline - time.monotonic()
            if left <= 0 or (not self.read(min(left, 0.5)) and self._exited()):
                pytest.fail(f"never saw {text!r}; the terminal shows:\n{self.seen[-2000:]}")
        at = self.seen.index(text, self.mark)
        before = self.seen[self.mark : at]
        self.mark = at + len(text)
        return before

    def _exited(self) -> bool:
        return os.waitpid(self.pid, os.WNOHANG)[0] != 0

    def send(self, data: str) -> None:
        os.write(self.fd, data.encode())


def _threads_taking_sigint(pid: int) -> list[int]:
    """The threads of ``pid`` that do not block SIGINT (Linux's /proc; elsewhere: unknown)."""
    tasks = f"/proc/{pid}/task"
    if not os.path.isdir(tasks):
        return [pid]
    takers = []
    for tid in sorted(int(t) for t in os.listdir(tasks)):
        try:
            with open(f"{tasks}/{tid}/status", encoding="ascii") as handle:
                status = handle.read()
        except FileNotFoundError:  # the thread ended meanwhile
            continue
        line = next(ln for ln in status.splitlines() if ln.startswith("SigBlk:"))
        if not int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)):
            takers.append(tid)
    return takers


@contextmanager
def chat_terminal(env: dict[str, str]) -> Iterator[Terminal]:
    pid, fd = pty.fork()
    if pid == 0:  # the child: memdir chat with the pty as its controlling terminal
        os.execve(sys.executable, [sys.executable, "-m", "memdir.cli", "chat", "--no-sleep"], env)
    terminal = Terminal(fd, pid)
    try:
        yield terminal
    finally:
        try:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(fd)


def test_streaming_ctrl_c_and_help_on_a_terminal(mem: Memory) -> None:
    first_word_seen = threading.Event()
    never = threading.Event()

    def brain(request: Request) -> Say:
        if request.person == "hello":
            return Say("Hello there, friend.", gate=first_word_seen)
        if request.person == "take your time":
            return Say("Working on a long answer", gate=never)
        return Say("Still here.")

    with serve(brain) as (model, url):
        # the stalled reply ends by the Ctrl-C alone: the read timeout (60 s by default) is
        # raised to the hang guard, or a loaded machine would let that clock end it first
        # (seen: "the stream broke after 2 event(s) (timed out)" instead of "interrupted")
        env = {
            **os.environ,
            "MEMDIR_LLM_BASE_URL": f"{url}/v1",
            "MEMDIR_LLM_MODEL": "m",
            "MEMDIR_LLM_TIMEOUT": str(HANG_GUARD_S),
        }
        with chat_terminal(env) as term:
            term.expect("Ctrl-D to end")
            term.expect("you> ")
            term.send("hello\r")
            term.expect("Hello ")
            # the first word is on the screen while the model has not sent the rest yet
            assert "there" not in term.seen[term.mark :]
            first_word_seen.set()
            term.expect("there, friend.")
            term.expect("you> ")

            term.send("take your time\r")
            term.expect("Working ")
            # only the main thread may take the Ctrl-C: another thread that does not block
            # SIGINT (numpy's BLAS pool did not) can be handed it by the kernel while the main
            # thread sleeps in the socket, and the reply then runs on to its read timeout
            assert _threads_taking_sigint(term.pid) == [term.pid]
            term.send("\x03")  # Ctrl-C while the reply is still coming
            term.expect("interrupted")
            term.expect("you> ")

            term.send("/help\r")
            listed = term.expect("you> ")
            for usage in COMMANDS:
                assert usage in listed

            term.send("are you there?\r")
            term.expect("Still here.")
            term.expect("you> ")
            term.send("\x04")  # Ctrl-D ends the chat
            term.expect("saved")
            _, status = os.waitpid(term.pid, 0)
            assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        never.set()
    # the session survived Ctrl-C: one session, every message the person typed, in order
    assert len(mem.sessions()) == 1
    last = model.requests[-1].body["messages"]
    said = [m["content"] for m in last if m["role"] == "user"][1:]
    assert said == ["hello", "take your time", "are you there?"]
    assert {"role": "assistant", "content": "Hello there, friend."} in last
