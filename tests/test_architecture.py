"""Code shape: the public API is what ``__all__`` says, and imports point one way."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import memdir

SRC = Path(memdir.__file__).parent

# The layers, top to bottom (docs/architecture.md draws the same table). A module may import
# from any layer below its own and from its own package, never from its own layer's other
# members or from above — so there is no circle, by construction. A layer is a top-level
# module or package of memdir.
LAYERS: list[tuple[str, set[str]]] = [
    ("the command line: starts every frontend", {"cli"}),
    ("the web page, mounted on REST (renders with its serializers)", {"web"}),
    (
        "adapters on the facade, the public API, the job worker",
        {"__init__", "agent", "http", "mcp", "worker"},
    ),
    (
        "moving memory: archives, importers, sync, the wiki view (which the agent refreshes)",
        {"portable"},
    ),
    ("the facade", {"memory"}),
    (
        "what the facade delegates: extraction, sleep, traces, the memory tool",
        {"extract", "lifecycle", "tools"},
    ),
    ("what extraction and sleep report to: traces, stats, OpenTelemetry", {"observe"}),
    ("what the model is given: recall, context assembly", {"context", "recall"}),
    ("opening a scope: the backend registry", {"backends"}),
    ("the PostgreSQL backend (shares the file backend's format and index code)", {"pg"}),
    (
        "the file backend's index, transcripts, instructions, the write door",
        {"index", "instructions", "sessions", "writes"},
    ),
    (
        "the file store, the ports (Store, ChangeLog, RecallLog, Index, Backend), providers",
        {"files", "ports", "providers"},
    ),
    ("the change log, the guard, user settings", {"guard", "history", "settings"}),
    ("regular expressions compiled once per machine (a derived table)", {"regex"}),
    (
        "file-system primitives, records and field rules, policy, the registry, derived tables",
        {"apikeys", "derived", "fs", "policy", "records", "registry"},
    ),
    ("no memdir imports", {"chain", "errors", "jobs", "lazy", "markdown", "paths", "tokens"}),
]
TIER = {layer: depth for depth, (_, members) in enumerate(LAYERS) for layer in members}


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


def test_imports_point_down() -> None:
    modules = sorted(SRC.rglob("*.py"))
    assert modules
    assert len(TIER) == sum(len(members) for _, members in LAYERS), "a layer is listed twice"
    for path in modules:
        layer = _layer(path)
        assert layer in TIER, f"new module {path}: put its layer in LAYERS in this test"
        up = sorted(n for n in _internal_imports(path) - {layer} if TIER[n] <= TIER[layer])
        assert not up, (
            f"{path.relative_to(SRC)} imports {up}: not below {layer!r} "
            f"({LAYERS[TIER[layer]][0]}); imports point down only"
        )


def _module(path: Path) -> str:
    rel = path.relative_to(SRC).with_suffix("")
    return ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)


def _run_time_siblings(path: Path, modules: set[str]) -> set[str]:
    """The modules of ``path``'s own package that ``path`` imports at run time (at the top or
    inside a function; an ``if TYPE_CHECKING:`` block only names types and is left out)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(n)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for n in ast.walk(block)
    }
    here = _module(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or id(node) in typing_only or not node.level:
            continue
        base = package[: len(package) - node.level + 1]
        stem = base + (node.module.split(".") if node.module else [])
        for name in [".".join(stem)] + [".".join([*stem, a.name]) for a in node.names]:
            if name in modules and name != _module(path) and name.split(".")[0] == here[0]:
                found.add(name)
    return found


def test_no_circle_inside_a_package() -> None:
    """Inside a package (files/, index/, memory/, …) the modules' run-time imports form no
    circle either; a type-only import may name a sibling's class in an annotation."""
    paths = {_module(p): p for p in SRC.rglob("*.py") if len(p.relative_to(SRC).parts) > 1}
    graph = {m: _run_time_siblings(p, set(paths)) - {m.rsplit(".", 1)[0]} for m, p in paths.items()}
    done: set[str] = set()

    def visit(module: str, trail: list[str]) -> None:
        if module in trail:
            circle = [*trail[trail.index(module) :], module]
            raise AssertionError(f"import circle: {' -> '.join(circle)}")
        if module in done:
            return
        for target in sorted(graph[module]):
            visit(target, [*trail, module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])


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


# Only the file backend opens a scope's files or knows its directory layout — the registry
# (backends.py) and the modules it is built from; everything above gets its Store, Index and
# logs from a Backend and asks a FileStore by meaning (folder, memory_md(), daily_log(), …).
FILE_BACKEND = {"backends", "files", "fs", "history", "index", "paths"}
_OPENERS = ("FileStore", "SqliteIndex", "ChangeLog", "FileRecallLog", "scope_dirs")
# What still reads a scope's directory layout (``store.dirs``) outside the file backend, each
# a feature only the file backend has today (docs/architecture.md, "what does not fit"):
FILE_ONLY = {
    # (sleep's daily logs and its journal of moves went behind ``Store.daily_log()``, the
    # ``DailyLog`` port: lifecycle/{apply,logs,plan}.py read no directory any more)
    # sync exchanges a file scope's change log and memory files with other devices
    "portable/sync.py",
}


def _outside_the_file_backend() -> list[Path]:
    return [p for p in sorted(SRC.rglob("*.py")) if _layer(p) not in FILE_BACKEND]


def test_only_the_file_backend_opens_scopes() -> None:
    for path in _outside_the_file_backend():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                func = node.func
                called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                assert called not in _OPENERS, (
                    f"{path.relative_to(SRC)}:{node.lineno} calls {called}(): open scopes "
                    "through Memory.backend (memdir.backends), not the file backend's classes"
                )


def test_only_the_file_backend_touches_scope_directories() -> None:
    """The facade, the servers, the tool and the CLI never name a scope's folders: no
    ``store.dirs`` outside the file backend, except the file-only features in FILE_ONLY."""
    seen: set[str] = set()
    for path in _outside_the_file_backend():
        rel = path.relative_to(SRC).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == "dirs":
                assert rel in FILE_ONLY, (
                    f"{rel}:{node.lineno} reads a scope's directories (.dirs): ask the store by "
                    "meaning (a FileStore method), or the backend"
                )
                seen.add(rel)
    assert seen == FILE_ONLY, f"no longer file-only, take them off FILE_ONLY: {FILE_ONLY - seen}"


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


def test_the_layer_table_in_the_docs_is_this_one() -> None:
    """docs/architecture.md draws LAYERS: each row's number and each layer's module in it."""
    doc = (SRC.parents[1] / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = {
        int(cells[1]): cells[3]
        for line in doc.splitlines()
        if (cells := [c.strip() for c in line.split("|")])[1:2] and cells[1].isdigit()
    }
    assert sorted(rows) == list(range(len(LAYERS)))
    for depth, (_, members) in enumerate(LAYERS):
        row = rows[len(LAYERS) - 1 - depth]
        for member in members:
            shown = "memdir/__init__.py" if member == "__init__" else member
            assert f"`{shown}" in row, (
                f"docs/architecture.md: row {len(LAYERS) - 1 - depth} lacks {shown}"
            )
