"""The background extraction worker: ``after_turn`` returns at once, the model call happens here.

One daemon thread per ``Memory`` drains a queue of jobs in order (a job is "extract what is
pending in session X", so submitting the same session twice is harmless: the second finds
nothing left). ``flush`` waits for the queue to drain; it is registered with ``atexit`` so a
normal exit does not drop queued turns. A crash (SIGKILL, power loss) still loses nothing: the
turns are in the session file, and ``Memory.resume_extraction`` queues them on the next start.

Jobs report their own failures (they record them in the session's extraction state); an error
that escapes a job is a bug — it is printed by ``threading.excepthook`` and the thread is
restarted by the next ``submit``, so one bad job never wedges the queue.

The thread blocks SIGINT: the kernel may deliver a Ctrl-C to any thread that does not, and
CPython only runs its handler in the main thread, so a Ctrl-C that landed here would wait until
the main thread next ran Python code (in ``memdir chat``: until the model sent more words).
"""

from __future__ import annotations

import atexit
import queue
import signal
import threading
import time
from collections.abc import Callable

__all__ = ["Worker"]

Job = Callable[[], None]


class Worker:
    """A single background thread running submitted jobs in order."""

    def __init__(self, name: str = "memdir-extract") -> None:
        self.name = name
        self._queue: queue.Queue[Job] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        atexit.register(self.flush)

    def submit(self, job: Job) -> None:
        """Queue ``job``; starts (or restarts) the thread if needed."""
        self._queue.put(job)
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()

    def _run(self) -> None:
        if hasattr(signal, "pthread_sigmask"):  # POSIX: Ctrl-C goes to the main thread
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        while True:
            job = self._queue.get()
            try:
                job()
            finally:
                self._queue.task_done()

    def pending(self) -> int:
        return self._queue.unfinished_tasks

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every queued job has run; ``False`` if ``timeout`` passed first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while self._queue.unfinished_tasks:
            thread = self._thread
            if thread is None or not thread.is_alive():
                return False  # nothing is running the queue (a bug killed it): do not hang
            if deadline is not None and time.monotonic() >= deadline:
                return False
            time.sleep(0.01)
        return True
