"""A cold CLI stays cold (issue 18 §2): what each command imports, checked in a real process.

Speed itself is measured by bench/cli.py (whole processes beside ``python3 -c pass``); this is
its guard that does not depend on timing: a command that does not need numpy, YAML, the
facade, the guard's compiled patterns or a server's framework does not import them, so the
gains cannot come undone by one eager import."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memdir.cli import app

# Runs ``memdir ARGS`` in this process and prints, as JSON on the last line of stderr, which of
# the modules named on the command line were imported by the time the command was done.
PROBE = """
import json, sys
from memdir.cli import main
watched = sys.argv[1].split(",")
try:
    code = main(sys.argv[2:])
finally:
    print(json.dumps([m for m in watched if m in sys.modules]), file=sys.stderr)
sys.exit(code)
"""

HEAVY = ("numpy", "yaml", "sqlite3", "memdir.memory", "memdir.guard", "memdir.index")
SERVERS = ("fastapi", "uvicorn", "starlette", "mcp", "pydantic", "httpx", "memdir.http")


def loaded(*args: str, watched: tuple[str, ...], stdin: str = "") -> list[str]:
    result = subprocess.run(
        [sys.executable, "-c", PROBE, ",".join(watched), *args],
        capture_output=True, text=True, check=False, input=stdin,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    found: list[str] = json.loads(result.stderr.strip().splitlines()[-1])
    return found


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_import_no_library(flag: str) -> None:
    watched = (*HEAVY, *SERVERS, "memdir.providers", "memdir.files", "webbrowser")
    if flag == "--version":  # not even the commands' own modules
        watched += tuple(f"memdir.cli.{m}" for m in app.MODULES)
    assert loaded(flag, watched=watched) == []


def test_remember_needs_no_embedder_nor_server(sandbox: Path) -> None:
    watched = (*SERVERS, "memdir.providers.use_tables", "memdir.observe.stats", "memdir.cli.serve")
    watched += ("numpy._core",)  # numpy itself: only memdir.lazy's stand-in
    args = ("remember", "Use pnpm, not npm, in JS projects", "--type", "feedback")
    assert loaded(*args, watched=watched) == []
    assert list((sandbox / "home" / "memory").glob("use-pnpm*.md"))  # it did remember


def test_recall_compiles_no_guard_and_starts_no_server(sandbox: Path) -> None:
    remember = ("remember", "Use pnpm, not npm, in JS projects", "--type", "feedback")
    loaded(*remember, watched=())
    watched = (*SERVERS, "memdir.guard", "memdir.observe.stats", "memdir.cli.memories")
    assert loaded("recall", "which package manager?", watched=watched) == []


def test_mcp_over_stdio_answers_without_the_sdk(sandbox: Path) -> None:
    """``serve --mcp`` speaks stdio itself (``mcp.stdio``): the SDK (a second of CPU to import)
    and the web stack stay unloaded while it answers the handshake and a recall."""
    asked = [
        {"id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}},
        {
            "id": 2,
            "method": "tools/call",
            "params": {"name": "recall", "arguments": {"query": "x"}},
        },
    ]
    lines = "".join(json.dumps({"jsonrpc": "2.0", **m}) + "\n" for m in asked)
    watched = ("mcp", "mcp_types", "starlette", "uvicorn", "fastapi", "httpx", "memdir.http")
    assert loaded("serve", "--mcp", watched=watched, stdin=lines) == []


def test_the_lazy_table_names_each_command_where_it_is_defined() -> None:
    defined = {
        name: sys.modules[command.callback.__module__].__name__.rsplit(".", 1)[-1]
        for name, command in app.cli.commands.items()
        if command.callback is not None
    }
    assert defined == app.COMMANDS, "update memdir/cli/app.py COMMANDS to match"
    assert set(app.MODULES) == set(app.COMMANDS.values())


def test_a_command_missing_from_the_table_is_still_found() -> None:
    """A command added to a module without a line in COMMANDS is slower, never lost."""
    import click

    ctx = click.Context(app.cli)
    saved = app.COMMANDS.pop("rename")
    try:
        command = app.cli.get_command(ctx, "rename")
    finally:
        app.COMMANDS["rename"] = saved
    assert command is not None and command.name == "rename"


@pytest.mark.parametrize("command", [("list",), ("show", "use-pnpm"), ("history",)])
def test_reading_commands_load_no_numpy(sandbox: Path, command: tuple[str, ...]) -> None:
    loaded("remember", "Use pnpm, not npm, in JS projects", "--type", "feedback", watched=())
    assert loaded(*command, watched=("numpy._core", "memdir.providers.use_tables")) == []


DEFERRED = """
import sys
from memdir import lazy
lazy.defer("fractions")
import fractions
stand_in = sys.modules["fractions"]
before = type(stand_in).__name__
half = fractions.Fraction(1, 2)  # the first read imports the real module
after = sys.modules["fractions"]
import fractions as again
print(before, str(half + half), after is not stand_in, again is after, type(after).__name__)
"""


def test_a_deferred_module_loads_on_first_use_and_behaves_the_same() -> None:
    out = subprocess.run([sys.executable, "-c", DEFERRED], capture_output=True, text=True,
                         check=True).stdout.split()  # fmt: skip
    assert out == ["_Deferred", "1", "True", "True", "module"]
