"""The memory tool (SPEC F1, F3): definitions, every command's results and errors, and that
every write goes through the facade (logged as the agent, undoable)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memdir import ConflictError, Memory, MemoryTool
from memdir import tools as tools_module
from memdir.tools import COMMANDS, DESCRIPTION, INPUT_SCHEMA, RULES


@pytest.fixture
def tool(mem: Memory) -> MemoryTool:
    return mem.tool()


def _user_file(mem: Memory, name: str) -> Path:
    return mem.store("user").dirs.memory / f"{name}.md"


def _create(tool: MemoryTool, path: str, text: str) -> str:
    return tool.handle({"command": "create", "path": path, "file_text": text})


PNPM = (
    "Use pnpm, not npm, in JS projects.\n\n"
    "**Why:** npm lockfiles broke CI twice.\n"
    "**How to apply:** when suggesting install commands.\n"
)
FULL = (
    "---\n"
    "description: Orders run on PostgreSQL 15\n"
    "type: reference\n"
    "tags: [db]\n"
    "# a comment the person wrote\n"
    "---\n"
    "The orders service uses PostgreSQL 15.\n\n"
    "**Why:** ops standardised on it.\n"
    "**How to apply:** when writing migrations.\n"
)


# -- definitions (F1, F3) ------------------------------------------------------------------
def test_definitions_have_the_provider_shapes(tool: MemoryTool) -> None:
    assert tool.anthropic_definition(native=True) == {"type": "memory_20250818", "name": "memory"}
    custom = tool.anthropic_definition()
    assert set(custom) == {"name", "description", "input_schema"} and custom["name"] == "memory"
    openai = tool.openai_definition()
    assert openai["type"] == "function"
    assert set(openai["function"]) == {"name", "description", "parameters"}
    assert openai["function"]["parameters"] == custom["input_schema"] == INPUT_SCHEMA
    json.dumps(custom), json.dumps(openai)  # plain JSON, ready to send


def test_schema_covers_every_command_and_argument() -> None:
    props = INPUT_SCHEMA["properties"]
    assert props["command"]["enum"] == list(COMMANDS)
    assert set(COMMANDS) == {
        "view",
        "create",
        "str_replace",
        "insert",
        "delete",
        "rename",
        "search",
    }
    wanted = {"path", "view_range", "file_text", "old_str", "new_str", "insert_line"}
    wanted |= {"insert_text", "old_path", "new_path", "query", "top_k", "scope"}
    assert wanted <= set(props)
    assert INPUT_SCHEMA["required"] == ["command"]


@pytest.mark.parametrize(
    "phrase",
    [
        "View before writing",
        "rather than create a near-duplicate",
        "wrong or outdated",
        "the code, the docs or the git history",
        "why it holds and how to apply it",
        "Never store credentials",
        "permissions",
    ],
)
def test_every_writing_rule_is_in_both_definitions(tool: MemoryTool, phrase: str) -> None:
    assert any(phrase in rule for rule in RULES)
    assert phrase in tool.anthropic_definition()["description"]
    assert phrase in tool.openai_definition()["function"]["description"]
    for rule in RULES:
        assert rule in DESCRIPTION


# -- view ----------------------------------------------------------------------------------
def test_view_root_lists_both_scopes(tool: MemoryTool) -> None:
    _create(tool, "/memories/user/use-pnpm.md", PNPM)
    _create(tool, "/memories/project/orders-db.md", FULL)
    out = tool.handle({"command": "view", "path": "/memories"})
    lines = out.splitlines()
    assert lines[0] == (
        "Here're the files and directories up to 2 levels deep in /memories, "
        "excluding hidden items and node_modules:"
    )
    paths = [line.split("\t")[1] for line in lines[1:]]
    assert paths == [
        "/memories",
        "/memories/user",
        "/memories/user/MEMORY.md",
        "/memories/user/use-pnpm.md",
        "/memories/project",
        "/memories/project/MEMORY.md",
        "/memories/project/orders-db.md",
    ]
    assert not any(".history" in p or ".index" in p for p in paths)
    assert tool.handle({"command": "view", "path": "/memories/"}) == out


def test_view_scope_lists_two_levels_with_sizes(tool: MemoryTool, mem: Memory) -> None:
    _create(tool, "/memories/user/use-pnpm.md", PNPM)
    archive = mem.store("user").dirs.archive
    (archive / "old").mkdir(parents=True)
    (archive / "gone.md").write_text("x" * 2048, encoding="utf-8")
    (archive / "old" / "deep.md").write_text("y", encoding="utf-8")
    out = tool.handle({"command": "view", "path": "/memories/user"})
    rows = dict(reversed(line.split("\t")) for line in out.splitlines()[1:])
    assert rows["/memories/user/archive/gone.md"] == "2.0K"
    assert "/memories/user/archive/old" in rows
    assert "/memories/user/archive/old/deep.md" not in rows  # three levels down
    size = _user_file(mem, "use-pnpm").stat().st_size
    assert rows["/memories/user/use-pnpm.md"] == f"{size}B"


def test_view_file_with_line_numbers_and_range(tool: MemoryTool) -> None:
    _create(tool, "/memories/project/orders-db.md", FULL)
    out = tool.handle({"command": "view", "path": "/memories/project/orders-db.md"})
    head, *lines = out.splitlines()
    assert head == "Here's the content of /memories/project/orders-db.md with line numbers:"
    assert lines[0] == "     1\t---"
    assert any(line.endswith("\tThe orders service uses PostgreSQL 15.") for line in lines)
    part = tool.handle(
        {"command": "view", "path": "/memories/project/orders-db.md", "view_range": [2, 3]}
    )
    assert [line.split("\t")[0].strip() for line in part.splitlines()[1:]] == ["2", "3"]
    tail = tool.handle(
        {"command": "view", "path": "/memories/project/orders-db.md", "view_range": [5, -1]}
    )
    assert tail.splitlines()[1].startswith("     5\t")
    assert tail.splitlines()[-1] == lines[-1]


@pytest.mark.parametrize("bad", [[0, 2], [3, 1], [1, 999], [1], "1-2", [True, 2]])
def test_view_range_errors(tool: MemoryTool, bad: Any) -> None:
    _create(tool, "/memories/user/use-pnpm.md", PNPM)
    out = tool.handle({"command": "view", "path": "/memories/user/use-pnpm.md", "view_range": bad})
    assert out.startswith("Error") and "view_range" in out


def test_view_missing_and_directory_range(tool: MemoryTool) -> None:
    out = tool.handle({"command": "view", "path": "/memories/user/nope.md"})
    assert out == "The path /memories/user/nope.md does not exist. Please provide a valid path."
    out = tool.handle({"command": "view", "path": "/memories/user", "view_range": [1, 2]})
    assert out == (
        "Error: The `view_range` parameter is not allowed when `path` points to a directory."
    )
    out = tool.handle({"command": "view", "path": "/memories/team/x.md"})
    assert out.startswith("Error") and "/memories/user and /memories/project" in out


def test_view_memory_md_is_fresh(tool: MemoryTool, mem: Memory) -> None:
    _user_file(mem, "hand").write_text(
        "---\nname: hand\ndescription: Written by hand\ntype: user\n---\nHi\n", encoding="utf-8"
    )
    out = tool.handle({"command": "view", "path": "/memories/user/MEMORY.md"})
    assert "Written by hand" in out  # regenerated on read: hand edits win


# -- create --------------------------------------------------------------------------------
def test_create_plain_text_builds_the_frontmatter(tool: MemoryTool, mem: Memory) -> None:
    out = _create(tool, "/memories/user/use-pnpm.md", PNPM)
    assert out.splitlines()[0] == "File created successfully at: /memories/user/use-pnpm.md"
    rec = mem.get("use-pnpm", scope="user")
    assert (rec.type, rec.source, rec.scope) == ("user", "inferred", "user")
    assert rec.description == "Use pnpm, not npm, in JS projects."
    assert rec.why == "npm lockfiles broke CI twice."
    assert rec.how_to_apply == "when suggesting install commands."
    (change,) = mem.history("use-pnpm")
    assert (change.op, change.actor) == ("create", "agent")
    project = _create(tool, "/memories/project/layout.md", "# Layout\nsrc/ holds the code")
    assert "Add the missing **Why:**" in project
    layout = mem.get("layout", scope="project")
    assert (layout.type, layout.description) == ("project", "Layout")


def test_create_full_frontmatter_keeps_every_byte(tool: MemoryTool, mem: Memory) -> None:
    out = _create(tool, "/memories/project/orders-db.md", FULL)
    assert out == "File created successfully at: /memories/project/orders-db.md"
    data = (mem.store("project").dirs.memory / "orders-db.md").read_text(encoding="utf-8")
    rec = mem.get("orders-db")
    assert (rec.type, rec.tags, rec.source) == ("reference", ("db",), "inferred")
    assert data.startswith("---\nname: orders-db\n")
    assert FULL.split("---\n", 1)[1] in data  # the given frontmatter and body, unchanged
    assert "# a comment the person wrote" in data


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("---\ndescription: x\ntype: opinion\n---\nBody\n", "type must be one of"),
        ("---\ntype: user\n---\nBody\n", "missing required key(s) description"),
        ("---\ndescription: x\ntype: user\nname: other\n---\nB\n", "the name key is 'other'"),
        ("---\ndescription: [unclosed\ntype: user\n---\nB\n", "invalid YAML"),
        ("---\ndescription: x\ntype: user\n", "frontmatter is not closed"),
        ("---\ndescription: x\ntype: user\nimportance: 99\n---\nB\n", "importance must be"),
    ],
)
def test_create_bad_frontmatter_is_refused(
    tool: MemoryTool, mem: Memory, text: str, reason: str
) -> None:
    out = _create(tool, "/memories/user/bad.md", text)
    assert out.startswith("Error") and reason in out, out
    assert not _user_file(mem, "bad").exists()
    assert str(mem.home) not in out  # real paths are shown as /memories paths


def test_create_refusals(tool: MemoryTool, mem: Memory) -> None:
    _create(tool, "/memories/user/use-pnpm.md", PNPM)
    assert _create(tool, "/memories/user/use-pnpm.md", "again") == (
        "Error: File /memories/user/use-pnpm.md already exists"
    )
    assert "is generated" in _create(tool, "/memories/user/MEMORY.md", "x")
    assert "read-only" in _create(tool, "/memories/user/archive/x.md", "x")
    assert "read-only" in _create(tool, "/memories/project/log/x.md", "x")
    assert "memories are <name>.md" in _create(tool, "/memories/user/notes.txt", "x")
    assert "folder memdir manages" in _create(tool, "/memories/user", "x")
    assert "/memories/user and /memories/project" in _create(tool, "/memories/x.md", "x")
    assert "reserved name" in _create(tool, "/memories/user/con.md", "x")
    assert "empty" in _create(tool, "/memories/user/blank.md", "  \n ")
    out = tool.handle({"command": "create", "path": "/memories/user/y.md"})
    assert out == "Error: Parameter `file_text` is required for command: create"
    assert [r.name for r in mem.list()] == ["use-pnpm"]


def test_outside_a_project_only_the_user_scope_exists(sandbox: Path) -> None:
    nowhere = sandbox / "nowhere"
    nowhere.mkdir()
    m = Memory(cwd=nowhere)
    assert m.scopes() == ["user"]
    tool = m.tool()
    out = _create(tool, "/memories/project/x.md", "A fact")
    assert out.startswith("Error") and "there is no project here" in out
    listing = tool.handle({"command": "view", "path": "/memories"})
    assert "/memories/project" not in listing and "no project here" in listing
    assert "no project" in tool.handle({"command": "search", "query": "x", "scope": "project"})
    assert _create(tool, "/memories/user/x.md", "A fact").startswith("File created")


# -- str_replace / insert ------------------------------------------------------------------
def test_str_replace_exactly_once(tool: MemoryTool, mem: Memory) -> None:
    _create(tool, "/memories/user/use-pnpm.md", PNPM)
    path = "/memories/user/use-pnpm.md"
    edit = {"command": "str_replace", "path": path}
    out = tool.handle({**edit, "old_str": "twice", "new_str": "three times"})
    assert out.startswith("The memory file has been edited.\n")
    assert "\tnpm lockfiles broke CI three times." in out.replace("**Why:** ", "")
    assert mem.get("use-pnpm").why == "npm lockfiles broke CI three times."
    assert [(c.op, c.actor) for c in mem.history("use-pnpm")][-1] == ("update", "agent")
    out = tool.handle({**edit, "old_str": "yarn", "new_str": "x"})
    assert out == (
        f"No replacement was performed, old_str `yarn` did not appear verbatim in {path}."
    )
    out = tool.handle({**edit, "old_str": "npm", "new_str": "x"})
    assert out.startswith("No replacement was performed. Multiple occurrences of old_str `npm`")
    assert out.endswith("Please ensure it is unique")
    assert "in lines: 2, 3, 10, 12." in out  # name (use-pnpm), description, statement, why
    assert tool.handle({**edit, "new_str": "x"}) == (
        "Error: Parameter `old_str` is required for command: str_replace"
    )


def test_str_replace_that_breaks_the_file_writes_nothing(tool: MemoryTool, mem: Memory) -> None:
    _create(tool, "/memories/user/use-pnpm.md", PNPM)
    before = _user_file(mem, "use-pnpm").read_bytes()
    edit = {"command": "str_replace", "path": "/memories/user/use-pnpm.md"}
    out = tool.handle({**edit, "old_str": "type: user", "new_str": "type: whim"})
    assert out.startswith("Error: nothing was written") and "type must be one of" in out
    out = tool.handle({**edit, "old_str": "name: use-pnpm", "new_str": "name: other"})
    assert out.startswith("Error") and "name key must stay" in out
    assert _user_file(mem, "use-pnpm").read_bytes() == before


def test_insert(tool: MemoryTool, mem: Memory) -> None:
    _create(tool, "/memories/project/layout.md", "src/ holds the code")
    path = "/memories/project/layout.md"
    n = len((mem.store("project").dirs.memory / "layout.md").read_text().splitlines())
    out = tool.handle(
        {"command": "insert", "path": path, "insert_line": n, "insert_text": "**Why:** asked"}
    )
    assert out == f"The file {path} has been edited."
    assert mem.get("layout").why == "asked"
    out = tool.handle({"command": "insert", "path": path, "insert_line": 99, "insert_text": "x"})
    assert out == (
        "Error: Invalid `insert_line` parameter: 99. It should be within the range of lines of "
        f"the file: [0, {n + 1}]"
    )
    out = tool.handle({"command": "insert", "path": path, "insert_line": 0, "insert_text": "x"})
    assert out.startswith("Error: nothing was written") and "frontmatter" in out
    out = tool.handle({"command": "insert", "path": path, "insert_line": "1", "insert_text": "x"})
    assert out == "Error: Parameter `insert_line` must be a whole number for command: insert"


def test_edits_keep_crlf_files_crlf(tool: MemoryTool, mem: Memory) -> None:
    path = _user_file(mem, "crlf")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"---\r\nname: crlf\r\ndescription: d\r\ntype: user\r\n---\r\nOne\r\nTwo\r\n")
    vpath = "/memories/user/crlf.md"
    out = tool.handle(
        {"command": "str_replace", "path": vpath, "old_str": "One\nTwo", "new_str": "1\n2"}
    )
    assert out.startswith("The memory file has been edited."), out
    tool.handle({"command": "insert", "path": vpath, "insert_line": 7, "insert_text": "Three"})
    assert path.read_bytes().endswith(b"---\r\n1\r\n2\r\nThree\r\n")


# -- delete / rename -----------------------------------------------------------------------
def test_delete_is_logged_and_undoable(tool: MemoryTool, mem: Memory) -> None:
    _create(tool, "/memories/user/use-pnpm.md", PNPM)
    before = _user_file(mem, "use-pnpm").read_bytes()
    out = tool.handle({"command": "delete", "path": "/memories/user/use-pnpm.md"})
    assert out == "Successfully deleted /memories/user/use-pnpm.md"
    assert not _user_file(mem, "use-pnpm").exists()
    change = mem.history("use-pnpm")[-1]
    assert (change.op, change.actor) == ("delete", "agent")
    mem.undo(change.id)
    assert _user_file(mem, "use-pnpm").read_bytes() == before
    missing = tool.handle({"command": "delete", "path": "/memories/user/nope.md"})
    assert missing == "Error: The path /memories/user/nope.md does not exist"
    for folder in ("/memories", "/memories/user", "/memories/user/MEMORY.md"):
        assert tool.handle({"command": "delete", "path": folder}).startswith("Error")
    assert mem.store("user").dirs.index_file.exists()


def test_rename_and_one_undo_restores_both_names(tool: MemoryTool, mem: Memory) -> None:
    _create(tool, "/memories/user/pnpm.md", PNPM)
    old = _user_file(mem, "pnpm")
    before = old.read_bytes()
    out = tool.handle(
        {
            "command": "rename",
            "old_path": "/memories/user/pnpm.md",
            "new_path": "/memories/user/js-pm.md",
        }
    )
    assert out == "Successfully renamed /memories/user/pnpm.md to /memories/user/js-pm.md"
    new = _user_file(mem, "js-pm")
    assert not old.exists()
    assert new.read_bytes() == before.replace(b"name: pnpm\n", b"name: js-pm\n")
    assert mem.get("js-pm").description == "Use pnpm, not npm, in JS projects."
    assert "(js-pm.md)" in mem.store("user").dirs.index_file.read_text()
    change = mem.history("js-pm")[-1]
    assert (change.op, change.actor, change.renamed_from) == ("rename", "agent", "pnpm")
    assert [h.record.name for h in mem.recall("pnpm lockfiles CI")] == ["js-pm"]

    undo = mem.undo(change.id)
    assert old.read_bytes() == before and not new.exists()
    assert (undo.op, undo.name, undo.renamed_from) == ("undo", "pnpm", "js-pm")
    assert [h.record.name for h in mem.recall("pnpm lockfiles CI")] == ["pnpm"]
    mem.undo(undo.id)  # undoing the undo renames forward again
    assert not old.exists() and new.read_bytes() == before.replace(b"pnpm\n", b"js-pm\n", 1)


def test_undo_of_a_rename_refuses_when_things_moved_on(tool: MemoryTool, mem: Memory) -> None:
    _create(tool, "/memories/user/a.md", "Alpha")
    mem.rename("a", "b")
    change = mem.history("b")[-1]
    edit = {"command": "str_replace", "path": "/memories/user/b.md", "old_str": "\nAlpha"}
    assert tool.handle({**edit, "new_str": "\nAleph"}).startswith("The memory file has been")
    with pytest.raises(ConflictError, match="has changed since change"):
        mem.undo(change.id)
    assert _user_file(mem, "b").exists() and not _user_file(mem, "a").exists()
    mem.undo(mem.history("b")[-1].id)  # undo the edit first, then the rename undoes cleanly
    _create(tool, "/memories/user/a.md", "Alpha again")
    with pytest.raises(ConflictError, match="exists again"):
        mem.undo(change.id)


def test_rename_refusals(tool: MemoryTool, mem: Memory) -> None:
    _create(tool, "/memories/user/a.md", "Alpha")
    _create(tool, "/memories/user/b.md", "Beta")

    def rename(old: str, new: str) -> str:
        return tool.handle({"command": "rename", "old_path": old, "new_path": new})

    assert rename("/memories/user/a.md", "/memories/user/b.md") == (
        "Error: The destination /memories/user/b.md already exists"
    )
    assert rename("/memories/user/zz.md", "/memories/user/c.md") == (
        "Error: The path /memories/user/zz.md does not exist"
    )
    assert "different scopes" in rename("/memories/user/a.md", "/memories/project/a.md")
    assert "read-only" in rename("/memories/user/a.md", "/memories/user/archive/a.md")
    assert "is generated" in rename("/memories/user/a.md", "/memories/user/MEMORY.md")
    assert sorted(r.name for r in mem.list()) == ["a", "b"]


# -- search --------------------------------------------------------------------------------
def test_search_returns_paths_descriptions_and_scores(tool: MemoryTool) -> None:
    _create(tool, "/memories/user/use-pnpm.md", PNPM)
    _create(tool, "/memories/project/orders-db.md", FULL)
    out = tool.handle({"command": "search", "query": "PostgreSQL orders", "top_k": 1})
    head, row = out.splitlines()
    assert head.startswith('1 memory for "PostgreSQL orders"')
    score, path, description = row.split("\t")
    assert float(score) > 0
    assert (path, description) == ("/memories/project/orders-db.md", "Orders run on PostgreSQL 15")
    only_user = tool.handle({"command": "search", "query": "PostgreSQL orders", "scope": "user"})
    assert "orders-db" not in only_user
    none = tool.handle({"command": "search", "query": "zebra", "scope": "project", "top_k": 5})
    assert "orders-db" in none or none.startswith("No memories match")


@pytest.mark.parametrize(
    ("extra", "reason"),
    [
        ({}, "Parameter `query` is required"),
        ({"query": "  "}, "is empty"),
        ({"query": "x", "top_k": 0}, "`top_k` must be"),
        ({"query": "x", "top_k": True}, "`top_k` must be"),
        ({"query": "x", "scope": "team"}, "`scope` must be one of"),
    ],
)
def test_search_errors(tool: MemoryTool, extra: dict[str, Any], reason: str) -> None:
    out = tool.handle({"command": "search", **extra})
    assert out.startswith("Error") and reason in out


# -- dispatch ------------------------------------------------------------------------------
def test_unknown_command_and_bad_input(tool: MemoryTool) -> None:
    assert tool.handle({"command": "format"}).startswith("Error: Unknown command 'format'")
    assert "view, create, str_replace" in tool.handle({})
    assert tool.handle([]).startswith("Error: the tool input must be an object")  # type: ignore[arg-type]


def test_actor_is_configurable_and_the_facade_keeps_its_own(mem: Memory) -> None:
    bot = mem.tool(actor="bot-7")
    _create(bot, "/memories/user/x.md", "A fact")
    mem.remember("Another", type="user", name="y")
    assert {c.name: c.actor for c in mem.history()} == {"x": "bot-7", "y": "user"}


def test_memdir_undo_on_the_command_line_reverts_a_tool_rename(
    tool: MemoryTool, mem: Memory
) -> None:
    _create(tool, "/memories/user/pnpm.md", PNPM)
    before = _user_file(mem, "pnpm").read_bytes()
    tool.handle(
        {
            "command": "rename",
            "old_path": "/memories/user/pnpm.md",
            "new_path": "/memories/user/pm.md",
        }
    )
    change = mem.history("pm")[-1]

    def memdir(*args: str) -> str:
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; from memdir.cli import main; sys.exit(main())",
                *args,
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        return done.stdout

    logged = json.loads(memdir("history", "pm", "--json"))[-1]
    assert (logged["op"], logged["renamed_from"], logged["actor"]) == ("rename", "pnpm", "agent")
    memdir("undo", change.id)
    assert _user_file(mem, "pnpm").read_bytes() == before
    assert not _user_file(mem, "pm").exists()


def test_the_tool_never_writes_a_file_itself() -> None:
    """Every write goes through the facade (where the guard and the change log are)."""
    source = Path(tools_module.__file__).read_text(encoding="utf-8")
    for call in ("write_text(", "write_bytes(", ".unlink(", "open(", "os.replace(", "rmtree"):
        assert call not in source, call
    assert "FileStore" not in source.split('"""', 2)[2]  # only the docstring may name it


def test_create_with_bom_and_crlf_adds_keys_in_the_same_style(
    tool: MemoryTool, mem: Memory
) -> None:
    text = "\ufeff---\r\ndescription: Tabs, not spaces\r\ntype: feedback\r\n---\r\nUse tabs.\r\n"
    assert _create(tool, "/memories/user/tabs.md", text).startswith("File created")
    data = _user_file(mem, "tabs").read_bytes()
    assert data.startswith("\ufeff---\r\nname: tabs\r\ncreated: ".encode())
    assert data.endswith(b"description: Tabs, not spaces\r\ntype: feedback\r\n---\r\nUse tabs.\r\n")
    assert b"\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")
    assert mem.get("tabs").type == "feedback"
    shown = tool.handle({"command": "view", "path": "/memories/user/tabs.md"})
    assert shown.splitlines()[1] == "     1\t---"
    edit = {"command": "str_replace", "path": "/memories/user/tabs.md", "old_str": "Use tabs."}
    assert tool.handle({**edit, "new_str": "Tabs."}).startswith("The memory file has been edited")
    assert _user_file(mem, "tabs").read_bytes().startswith("\ufeff---\r\n".encode())


def test_view_refuses_what_is_not_small_text(tool: MemoryTool, mem: Memory) -> None:
    folder = mem.store("user").dirs.memory
    (folder / "blob.md").write_bytes(b"\xff\xfe not utf-8")
    (folder / "huge.md").write_bytes(b"x" * (1024 * 1024 + 1))
    out = tool.handle({"command": "view", "path": "/memories/user/blob.md"})
    assert out == "Error: /memories/user/blob.md is not UTF-8 text"
    out = tool.handle({"command": "view", "path": "/memories/user/huge.md"})
    assert out.startswith("Error: /memories/user/huge.md is over 1 MiB")
    edit = {"command": "str_replace", "path": "/memories/user/blob.md", "old_str": "x"}
    out = tool.handle({**edit, "new_str": "y"})
    assert out.startswith("Error: nothing was written: not UTF-8 text"), out
    assert str(folder) not in out


def test_results_say_ok_whatever_their_wording(tool: MemoryTool, mem: Memory) -> None:
    """Issue 19: adapters read ``ok``; a failure need not start with "Error" (Anthropic's
    wording: "No replacement was performed …"), and nothing is written when it is false."""
    done = _create(tool, "/memories/user/use-pnpm.md", PNPM)
    assert done.ok and done.text == str(done)
    before = mem.get("use-pnpm").content_hash
    edit = {"command": "str_replace", "path": "/memories/user/use-pnpm.md"}
    missed = tool.handle({**edit, "old_str": "yarn", "new_str": "x"})
    assert not missed.ok and missed.startswith("No replacement was performed")
    assert not tool.handle({"command": "nope"}).ok
    assert not tool.handle({"command": "view", "path": "/memories/user/absent.md"}).ok
    assert tool.handle({"command": "view", "path": "/memories"}).ok
    assert mem.get("use-pnpm").content_hash == before


def test_the_tool_writes_through_a_view_sharing_the_scopes(mem: Memory) -> None:
    """Issue 19: ``tool()`` no longer clones the facade; ``acting_as`` is a view that shares
    the scopes and records its own actor."""
    tool = mem.tool()
    assert tool.memory.store("user") is mem.store("user")  # one store, not a second one
    assert mem.acting_as(mem.actor) is mem
    _create(tool, "/memories/user/use-pnpm.md", PNPM)
    mem.remember("Tabs, not spaces, in Go files", type="user")
    actors = [(c.name, c.actor) for c in mem.history()]
    assert ("use-pnpm", "agent") in actors and mem.actor == "user"
    assert actors[-1][1] == "user"
