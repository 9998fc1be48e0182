"""Real writer processes for the crash tests, without paying Python's start for each one.

The SIGKILL tests start a writer, let it finish a few writes, kill it inside the next one, and
check what it left — 50 or 60 times each. A fresh ``python -c`` per writer spent most of the
test starting Python and importing memdir (~0.4 s of CPU each, measured). A ``ForkServer`` is
one Python that imports memdir once and forks a child per writer: each child is a real process
with its own memory and descriptors, killed by a real ``SIGKILL`` in the middle of real writes
— what the tests are about — and only the start-up is shared.

Protocol (one child at a time): the test writes the child's code and arguments as one JSON line;
the server forks; the child prints ``pid <n>`` and then whatever its code prints, on the
server's stdout; when the child is gone the server prints ``exit <signal or -status>``. A
child killed inside a ``print`` can leave half a line (``16`` without its newline: the text and
the newline may be two writes), so the server's ``exit`` can follow it on the same line: ``kill``
reads the status from the end of the line (seen under load: ``16exit 9``).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from waiting import HANG_GUARD_S

SERVER = """
import json, os, sys
import memdir, memdir.cli  # paid once, inherited by every child
for line in sys.stdin:
    code, argv = json.loads(line)
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        sys.stdin.close()
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        sys.argv = ["-c", *argv]
        print("pid", os.getpid(), flush=True)
        try:
            exec(compile(code, "<writer>", "exec"), {"__name__": "__main__"})
            sys.stdout.flush()
            os._exit(0)
        except BaseException:
            import traceback
            traceback.print_exc()
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
    print("exit", sig if sig else -os.WEXITSTATUS(status), flush=True)
"""

# the server's last line for a child, maybe after half a line the child was killed inside
_EXIT = re.compile(r"exit (-?\d+)\n\Z")


class ForkServer:
    """``start`` a child running ``code``; ``readline`` what it prints; ``kill`` it."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", SERVER],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.pid: int | None = None

    def start(self, code: str, *argv: str) -> None:
        assert self.proc.stdin is not None and self.pid is None
        self.proc.stdin.write(json.dumps([code, list(argv)]) + "\n")
        self.proc.stdin.flush()
        first = self.readline()
        assert first.startswith("pid "), f"the fork server said {first!r}"
        self.pid = int(first.split()[1])

    def readline(self) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError(f"the fork server exited ({self.proc.wait(HANG_GUARD_S)})")
        return line

    def kill(self) -> int:
        """SIGKILL the child; the signal that ended it (``-status`` if it exited by itself)."""
        assert self.pid is not None
        with contextlib.suppress(ProcessLookupError):  # it exited and was reaped already
            os.kill(self.pid, signal.SIGKILL)
        self.pid = None
        while not (end := _EXIT.search(self.readline())):
            pass  # what the child printed after the lines the test read, before it died
        return int(end.group(1))

    def close(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()
        self.proc.wait(HANG_GUARD_S)

    def __enter__(self) -> ForkServer:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
        self.close()


def src_env() -> dict[str, str]:
    """The environment with this checkout's ``src`` first on the path."""
    return {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}
