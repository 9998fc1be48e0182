"""Code shape: the public API is what ``__all__`` says, and imports point one way."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import memdir

SRC = Path(memdir.__file__).parent

# Each layer may import only from layers listed for it. Frontends (cli, later mcp/http) sit on
# the facade; the facade on the store; the store on records and the file format.
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "paths": set(),
    "markdown": set(),
    "records": {"errors", "paths"},
    "history": {"errors", "markdown", "paths", "records"},
    "files": {"errors", "history", "markdown", "paths", "records"},
    "providers": {"errors"},
    "index": {"errors", "files", "history", "paths", "providers", "records"},
    "recall": {"errors", "history", "index", "paths", "providers", "records"},
    "memory": {"errors", "files", "history", "index", "paths", "providers", "recall", "records"},
    "cli": {"errors", "history", "memory", "paths", "recall", "records", "cli"},
    "__init__": {"errors", "files", "history", "memory", "records"},
}
# Sessions, instruction files and context assembly (issue 3): below the facade, beside the store.
ALLOWED.update(
    {
        "config": {"errors"},
        "tokens": set(),
        "chain": set(),
        "instructions": {"files"},
        "sessions": {"chain", "config", "errors", "files", "history"},
        "context": {"chain", "config", "errors", "instructions", "sessions", "tokens"},
    }
)
ALLOWED["memory"] |= {"config", "context", "instructions", "sessions"}
ALLOWED["context"] |= {"records"}  # records.shorten, the one "cut a line with …" helper
ALLOWED["cli"] |= {"chain", "sessions"}  # display helpers and result types; calls go via Memory
ALLOWED["__init__"] |= {"config", "sessions"}
# Issue 4: user settings (LLM endpoint), the guard, extraction (below the facade: it returns
# operations, the facade applies them) and the memory tool (above the facade, like the CLI).
ALLOWED.update(
    {
        "settings": {"errors", "paths"},
        "guard": {"errors", "records"},
        "extract": {"chain", "config", "errors", "guard", "providers", "records", "sessions"},
        "tools": {"errors", "history", "memory", "paths", "recall", "records"},
    }
)
ALLOWED["providers"] |= {"settings"}
# extract/runner.py applies proposals through the facade it is handed (a type-only import; at run
# time the facade imports the runner, never the other way round)
ALLOWED["extract"] |= {"memory"}
ALLOWED["memory"] |= {"extract", "guard", "settings", "tools"}
ALLOWED["cli"] |= {"providers", "settings"}
ALLOWED["__init__"] |= {"tools"}  # MemoryTool is public (what Memory.tool() returns)
# Issue 5: sleep plans from the store, the index (use counts, vectors) and the policy, asks the
# judge (an LLM provider), and applies through the store; the facade wires it.
ALLOWED["lifecycle"] = {
    "config",
    "errors",
    "files",
    "history",
    "index",
    "markdown",
    "paths",
    "providers",
    "records",
}
ALLOWED["memory"] |= {"lifecycle"}
# Issue 26: sleep's merged and distilled texts pass the same guard check; the CLI names its kinds
# for `remember --allow`
ALLOWED["lifecycle"] |= {"guard"}
ALLOWED["cli"] |= {"guard"}
ALLOWED["cli"] |= {"lifecycle"}  # the report type sleep prints
# a package's public names imported on first use (PEP 562): one helper for both packages
ALLOWED["lazy"] = set()
ALLOWED["__init__"] |= {"lazy"}
ALLOWED["providers"] |= {"lazy"}
# named factories (backends, embedders, LLM providers) chosen through one registry
ALLOWED["registry"] = {"errors"}
ALLOWED["providers"] |= {"registry"}
# Issue 7: the servers sit on the facade like the CLI; keys.py (API keys) needs only errors
# and paths (where the server keeps its data).
# Neither server imports the other, nor the CLI (test_servers_are_separate_adapters below).
_SERVED = {"errors", "history", "memory", "recall", "records", "sessions"}
ALLOWED.update(
    {
        "keys": {"errors", "paths"},
        "http": _SERVED | {"keys"},
        "mcp": _SERVED | {"tools"},
    }
)
ALLOWED["cli"] |= {"http", "keys", "mcp"}  # `memdir serve` and `memdir keys` start them

# Issue 6: the reference agent loop, a frontend on the facade beside the memory tool; the chat
# command drives it.
ALLOWED["agent"] = {
    "chain",
    "context",
    "errors",
    "memory",
    "providers",
    "records",
    "sessions",
    "tools",
}
ALLOWED["cli"] |= {"agent"}
# Issue 18: derived tables (translation, the use embedder's tokenizer and weights) are built once
# into a file under the user's cache directory (paths.cache_dir) and mapped by later processes.
ALLOWED["derived"] = {"paths"}
ALLOWED["index"] |= {"derived"}
ALLOWED["providers"] |= {"derived"}
ALLOWED["cli"] |= {"index"}  # `memdir serve` warms the translation tables at start
# Issue 23: the web page, an adapter on the facade beside REST: it renders with REST's serializers
# (http.models), logs in with its keys, masks secrets in transcripts with the guard's patterns.
ALLOWED["web"] = _SERVED | {"guard", "http", "keys", "lifecycle", "paths"}
ALLOWED["cli"] |= {"web"}  # `memdir ui` and `memdir serve --http` mount it

# Issue 19: the ports (typing.Protocol interfaces, types only) sit just above the format; the
# backend registry opens a scope's Store, Index, ChangeLog and RecallLog (the file backend's
# modules are its implementors); recall asks the Index ports, the facade opens scopes through
# a backend.
ALLOWED["ports"] = {"history", "index", "records"}  # names in annotations only (TYPE_CHECKING)
ALLOWED["index"] |= {"ports"}
ALLOWED["backends"] = {"errors", "files", "history", "index", "paths", "ports", "settings"}
ALLOWED["recall"] |= {"backends", "ports"}
ALLOWED["memory"] |= {"backends", "ports"}
# the one guarded write door (writes.py): text checks + the guard before any Store write, for
# the facade and sleep alike
ALLOWED["writes"] = {"errors", "guard", "ports", "records"}
ALLOWED["memory"] |= {"writes"}
ALLOWED["lifecycle"] |= {"writes"}
# the one atomic write (history.atomic_write) for settings, API keys and extraction state
ALLOWED["settings"] |= {"history"}
ALLOWED["keys"] |= {"history"}
ALLOWED["extract"] |= {"history"}
# Issue 24: moving memory (export/import archives, chat importers, sync, the wiki view) sits on
# the facade like the CLI; it reads and writes a scope's truth files under the scope's lock, and
# reads chats with the offline rules and the guard.
ALLOWED["portable"] = {
    "errors",
    "extract",
    "files",
    "guard",
    "history",
    "markdown",
    "memory",
    "paths",
    "providers",
    "records",
}
ALLOWED["cli"] |= {"portable"}
# Issue 20: the PostgreSQL backend implements the ports in rows (the same records and markdown
# code as the files, so bytes move between them); the registry opens it for a DSN, and `memdir
# db` / `memdir config set backend` reach it through the registry.
ALLOWED["pg"] = {
    "errors",
    "files",
    "history",
    "index",
    "markdown",
    "paths",
    "ports",
    "providers",
    "records",
    "settings",
}
ALLOWED["backends"] |= {"pg"}
ALLOWED["cli"] |= {"backends", "pg"}  # `memdir db` migrates the database backend's schema
ALLOWED["portable"] |= {"ports"}  # a scope as an archive's tree, whatever backend keeps it
# the REST server's keys live in the database on PostgreSQL (pg/keys.py, the same KeyInfo and
# hashes as keys.json); keys.open_keys picks the store from the configured backend
ALLOWED["pg"] |= {"keys"}
ALLOWED["keys"] |= {"pg", "settings"}

# Issue 25: observability — traces and stats computed from what the facade reads (below it, like
# lifecycle), and the optional OpenTelemetry wrappers the facade, REST and the page put on.
ALLOWED["observe"] = {"chain", "context", "errors", "guard", "history", "records", "sessions"}
ALLOWED["memory"] |= {"observe"}
ALLOWED["cli"] |= {"observe"}  # result types for printing; calls go via Memory
ALLOWED["http"] |= {"observe"}
# each API key's user opens its own backend (a database opens as that user: row-level security)
ALLOWED["http"] |= {"backends", "ports"}
ALLOWED["web"] |= {"observe"}


def _internal_imports(path: Path) -> set[str]:
    """Top-level memdir modules imported by ``path`` (relative or absolute imports)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = path.relative_to(SRC).parts[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(package[: len(package) - node.level + 1])
                parts = base + (node.module.split(".") if node.module else [])
                if not parts:
                    found.update(alias.name for alias in node.names)
                else:
                    found.add(parts[0])
            elif node.module and node.module.split(".")[0] == "memdir":
                found.add(node.module.split(".")[1] if "." in node.module else "__init__")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("memdir."):
                    found.add(alias.name.split(".")[1])
    return found


def _layer(path: Path) -> str:
    rel = path.relative_to(SRC)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def test_imports_point_one_way() -> None:
    modules = sorted(SRC.rglob("*.py"))
    assert modules
    for path in modules:
        layer = _layer(path)
        assert layer in ALLOWED, f"new module {path}: add its layer to ALLOWED in this test"
        bad = _internal_imports(path) - ALLOWED[layer] - {layer}
        assert not bad, f"{path.relative_to(SRC)} imports {sorted(bad)}: not allowed for {layer}"


def test_frontends_do_not_touch_the_store_directly() -> None:
    for path in (SRC / "cli").rglob("*.py"):
        assert not _internal_imports(path) & {"files", "markdown"}, path


def test_servers_are_separate_adapters() -> None:
    """MCP and REST are thin adapters over ``Memory``: neither calls the other or the CLI, and
    neither touches the store or the file format directly."""
    for name in ("mcp", "http"):
        files = (
            [SRC / f"{name}.py"] if (SRC / f"{name}.py").exists() else (SRC / name).rglob("*.py")
        )
        imports = set().union(*(_internal_imports(f) for f in files)) - {name}
        assert "memory" in imports, f"{name}.py must go through the Memory facade"
        assert not imports & {"cli", "mcp", "http", "files", "markdown", "index"}, (
            f"{name}.py imports {sorted(imports)}"
        )


def test_all_matches_public_names() -> None:
    for name in memdir.__all__:
        getattr(memdir, name)  # names are imported on first use (PEP 562): load them all
    public = {name for name in vars(memdir) if not name.startswith("_")}
    submodules = {m.name for m in pkgutil.iter_modules(memdir.__path__)}
    assert sorted(memdir.__all__) == memdir.__all__, "keep __all__ sorted"
    assert set(memdir.__all__) == public - submodules
    for name in memdir.__all__:
        assert getattr(memdir, name).__module__.startswith("memdir.")


def test_every_module_all_names_exist() -> None:
    for info in pkgutil.walk_packages(memdir.__path__, "memdir."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", []):
            assert hasattr(module, name), f"{info.name}.__all__ lists missing {name}"


def test_one_exception_tree() -> None:
    errors = [getattr(memdir, n) for n in memdir.__all__ if n.endswith("Error")]
    assert all(issubclass(e, memdir.MemdirError) for e in errors)
    for path in SRC.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "except Exception" not in text, f"{path}: broad except (STYLE habit 5)"


# Issue 19: only the file backend opens a scope's files — the registry (backends.py) and the
# modules it is built from; everything above gets its Store, Index and logs from a Backend.
FILE_BACKEND = {"backends", "files", "history", "index", "paths"}
_OPENERS = ("FileStore", "SqliteIndex", "ChangeLog", "FileRecallLog", "scope_dirs")


def test_only_the_file_backend_opens_scopes() -> None:
    for path in sorted(SRC.rglob("*.py")):
        if _layer(path) in FILE_BACKEND:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                func = node.func
                called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                assert called not in _OPENERS, (
                    f"{path.relative_to(SRC)}:{node.lineno} calls {called}(): open scopes "
                    "through Memory.backend (memdir.backends), not the file backend's classes"
                )


def test_the_file_backend_implements_the_ports(tmp_path: Path) -> None:
    from memdir import ports
    from memdir.backends import FileBackend
    from memdir.providers.embeddings import get_embedder

    backend = FileBackend()
    assert isinstance(backend, ports.Backend)
    store = backend.store("user", home=tmp_path, project_root=None)
    assert store is not None and isinstance(store, ports.Store)
    assert isinstance(backend.changes(store), ports.ChangeLog)
    assert isinstance(backend.recalls(store), ports.RecallLog)
    assert isinstance(backend.index(store, get_embedder("hashing")), ports.Index)
    assert backend.store("project", home=tmp_path, project_root=None) is None  # no project
