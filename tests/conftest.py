"""Every test gets its own home and project: no test ever touches a real ~/.agent."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from memdir import Memory


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The heavy tests (marked ``slow``; the real-model ones first) start the run, one at the
    head of each worker's share, instead of tailing it: ``--dist worksteal`` hands each worker
    a contiguous share of this order and steals from the back of it, so a test of minutes at
    the end kept one core busy after the other had finished (issue 26: the suite's time). The
    rest keep their order. Every worker computes the same order, as xdist requires."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    heavy = sorted(
        (item for item in items if item.get_closest_marker("slow") is not None),
        key=lambda item: item.get_closest_marker("local_model") is None,
    )
    if not heavy:
        return
    chosen = {id(item) for item in heavy}
    rest = iter([item for item in items if id(item) not in chosen])
    total, order = len(items), []
    for share in range(workers):
        size = (share + 1) * total // workers - share * total // workers
        head = heavy[share::workers]
        order += head + [item for _, item in zip(range(size - len(head)), rest, strict=False)]
    order += list(rest)
    items[:] = order


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Stop this process's PostgreSQL (``tests/pgserver.py``), if a test started one."""
    pgserver = sys.modules.get("tests.pgserver")
    if pgserver is not None:
        pgserver.stop()


@pytest.fixture(scope="session")
def derived_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache directory for the derived tables of the whole run (``derived.py``): never the
    developer's ~/.cache, and built once per run rather than once per test."""
    return tmp_path_factory.mktemp("derived-cache")


@pytest.fixture(autouse=True)
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, derived_cache: Path) -> Iterator[Path]:
    """``$MEMDIR_HOME`` → ``tmp/home``; cwd → ``tmp/project`` (a git checkout);
    ``$MEMDIR_CACHE_DIR`` → the run's own cache directory."""
    home = tmp_path / "home"
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    monkeypatch.setenv("MEMDIR_HOME", str(home))
    monkeypatch.setenv("MEMDIR_CACHE_DIR", str(derived_cache))
    monkeypatch.delenv("MEMDIR_DEBUG", raising=False)
    for key in [k for k in os.environ if k.startswith("MEMDIR_LLM_")]:
        monkeypatch.delenv(key)  # never reach a developer's real model endpoint from a test
    monkeypatch.chdir(project)
    yield tmp_path


@pytest.fixture
def mem(sandbox: Path) -> Memory:
    m = Memory()
    m.init()
    return m


def snapshot(root: Path) -> dict[str, bytes]:
    """Every regular file under ``root`` with its bytes (symlinks as their target). The write
    lock's queue (``.history/lock.queue/``: a ticket counter and the waiters' files) is lock
    state, not data: a refused write still took its turn, so it is left out."""
    out: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        if "lock.queue" in path.parts:
            continue
        if path.is_symlink():
            out[str(path.relative_to(root))] = str(path.readlink()).encode()
        elif path.is_file():
            out[str(path.relative_to(root))] = path.read_bytes()
    return out


@pytest.fixture(autouse=True)
def hashing_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests embed with the deterministic hashing embedder unless they ask for another."""
    monkeypatch.setenv("MEMDIR_EMBEDDER", "hashing")


class FileAccess:
    """The files and directories opened or listed while ``watch`` is on, recorded by a
    ``sys.addaudithook`` hook (the interpreter's own events: nothing of memdir is replaced)."""

    def __init__(self) -> None:
        self.on = False
        self.seen: list[tuple[str, str]] = []
        sys.addaudithook(self._hook)

    def _hook(self, event: str, args: tuple[object, ...]) -> None:
        if self.on and event in ("open", "os.scandir", "os.listdir") and args:
            path = args[0]
            if path is None:
                self.seen.append((event, "."))
            elif isinstance(path, str | bytes | os.PathLike):  # not a descriptor (fdopen)
                self.seen.append((event, os.fsdecode(path)))

    def watch(self) -> FileAccess:
        self.seen, self.on = [], True
        return self

    def __enter__(self) -> FileAccess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.on = False

    def touched(self, folder: Path) -> list[tuple[str, str]]:
        """``(event, name)`` for each file opened in ``folder`` itself (not below it), and
        ``(event, ".")`` for each listing of ``folder``."""
        root = folder.resolve()
        out = []
        for event, path in self.seen:
            where = Path(path).resolve()
            if event == "open" and where.parent == root:
                out.append((event, where.name))
            elif event != "open" and where == root:
                out.append((event, "."))
        return sorted(out)


# one hook for the whole run: audit hooks cannot be removed
ACCESS = FileAccess()
