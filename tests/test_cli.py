"""The ``memdir`` command line end to end, through real subprocesses (SPEC A, I2).

Each test gets a throwaway ``home/`` (``MEMDIR_HOME``) and a ``project/`` with a ``.git/``; every
command runs with ``cwd=project`` unless the test says otherwise.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

import memdir.cli  # registers the commands on the group
from memdir import Memory
from memdir.cli import main
from memdir.paths import find_project_root
from waiting import HANG_GUARD_S

# ``python -m memdir.cli`` does not work (see test_python_dash_m_runs_the_cli), so the other
# tests run the same entry point, ``memdir.cli:main``, through ``-c``.
ENTRY = ["-c", "import sys; from memdir.cli import main; sys.exit(main())"]
COMMANDS = sorted(memdir.cli.cli.commands)
BAD_YAML = "---\nname: broken\ndescription: [unclosed\ntype: project\n---\nbody\n"

Result = subprocess.CompletedProcess[str]


@dataclass
class Sandbox:
    tmp: Path
    home: Path
    project: Path
    env: dict[str, str]

    @property
    def user_dir(self) -> Path:
        return self.home / "memory"

    @property
    def project_dir(self) -> Path:
        return self.project / ".agent" / "memory"

    def run(
        self,
        *args: str,
        rc: int | None = 0,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        argv0: list[str] | None = None,
    ) -> Result:
        """Run ``memdir ARGS``; check the exit code is ``rc`` unless it is ``None``."""
        result = subprocess.run(
            [*(argv0 or [sys.executable, *ENTRY]), *args],
            cwd=cwd or self.project,
            env={**self.env, **(env or {})},
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=HANG_GUARD_S,
            check=False,
        )
        if rc is not None:
            assert result.returncode == rc, (
                f"memdir {' '.join(args)}: exit {result.returncode}, wanted {rc}\n"
                f"stdout: {result.stdout}\nstderr: {result.stderr}"
            )
        return result

    def json(self, *args: str, rc: int = 0) -> Any:
        return json.loads(self.run(*args, "--json", rc=rc).stdout)

    def remember(self, text: str, *args: str) -> dict[str, Any]:
        data: dict[str, Any] = self.json("remember", text, *args)
        return data


@pytest.fixture
def sb(tmp_path: Path) -> Sandbox:
    base = tmp_path / "cli"  # a subdirectory: conftest.py may use tmp_path/home and /project
    home, project = base / "home", base / "project"
    home.mkdir(parents=True)
    (project / ".git").mkdir(parents=True)
    (base / "tmpdir").mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("MEMDIR_DEBUG", "VISUAL", "EDITOR")}
    env.update(MEMDIR_HOME=str(home), TMPDIR=str(base / "tmpdir"), PYTHONIOENCODING="utf-8")
    return Sandbox(base, home, project, env)


def assert_one_error_line(result: Result) -> str:
    """The CLI's error contract: exit 1, one ``error:`` line on stderr, no traceback."""
    assert result.returncode == 1, result
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def tree(root: Path, *skip: Path) -> set[Path]:
    return {p for p in root.rglob("*") if not any(p.is_relative_to(s) for s in skip)}


def write_editor(sb: Sandbox, code: str) -> dict[str, str]:
    """An $EDITOR: a Python script run with the file to edit as its argument."""
    script = sb.tmp / f"editor{len(list(sb.tmp.glob('editor*')))}.py"
    script.write_text("import sys\nfrom pathlib import Path\np = Path(sys.argv[1])\n" + code)
    return {"EDITOR": f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"}


# -- 1. init ------------------------------------------------------------------------------
def test_init_creates_both_scopes(sb: Sandbox) -> None:
    out = sb.run("init").stdout
    assert (sb.user_dir / "MEMORY.md").is_file()
    assert (sb.project_dir / "MEMORY.md").is_file()
    assert str(sb.user_dir) in out and str(sb.project_dir) in out
    sb.run("init")  # safe to run again


def test_init_json(sb: Sandbox) -> None:
    data = sb.json("init")
    assert data == {"user": str(sb.user_dir), "project": str(sb.project_dir)}


# -- 2. remember ----------------------------------------------------------------------------
def test_remember_feedback_goes_to_user_scope(sb: Sandbox) -> None:
    rec = sb.remember("Use pnpm, not npm", "--type", "feedback", "--why", "W", "--how", "H")
    assert {"name", "scope", "type", "path"} <= rec.keys()
    assert (rec["scope"], rec["type"], rec["tags"]) == ("user", "feedback", [])
    path = Path(rec["path"])
    assert path.parent == sb.user_dir and path.is_file() and path.stem == rec["name"]
    text = path.read_text(encoding="utf-8")
    assert "**Why:** W" in text and "**How to apply:** H" in text
    assert f"]({path.name})" in (sb.user_dir / "MEMORY.md").read_text(encoding="utf-8")
    tagged = sb.run("remember", "Tabs are evil", "--type", "feedback", "--tag", "t").stdout
    assert tagged.startswith("Remembered ") and "user scope" in tagged
    assert "tags: [t]" in (sb.user_dir / "tabs-are-evil.md").read_text(encoding="utf-8")


def test_remember_project_type_goes_to_project_scope(sb: Sandbox) -> None:
    rec = sb.remember("We use PostgreSQL 15", "--type", "project")
    assert rec["scope"] == "project"
    assert Path(rec["path"]).parent == sb.project_dir and Path(rec["path"]).is_file()
    assert not list(sb.user_dir.glob("*postgres*"))


def test_remember_scope_overrides_type_default(sb: Sandbox) -> None:
    a = sb.remember("Feedback kept here", "--type", "feedback", "--scope", "project")
    b = sb.remember("Project fact kept in home", "--type", "project", "--scope", "user")
    assert a["scope"] == "project" and Path(a["path"]).parent == sb.project_dir
    assert b["scope"] == "user" and Path(b["path"]).parent == sb.user_dir


def test_remember_chinese_text_twice_is_one_memory_with_an_ascii_name(sb: Sandbox) -> None:
    text = "我是后端工程师，主要写 Go"
    first = sb.remember(text, "--type", "user")
    second = sb.remember(" 我是后端工程师，主要写  go ", "--type", "user")
    assert first["created"] is True and second["created"] is False
    assert first["name"] == second["name"] and re.fullmatch(r"go-[0-9a-f]{6}", first["name"])
    assert [p.name for p in sb.user_dir.glob("*.md") if p.name != "MEMORY.md"] == [
        f"{first['name']}.md"
    ]
    assert sb.json("show", first["name"])["statement"] == text


# -- 3. list --------------------------------------------------------------------------------
@pytest.fixture
def seeded(sb: Sandbox) -> dict[str, str]:
    return {
        "feedback": sb.remember("Use pnpm", "--type", "feedback", "--tag", "t")["name"],
        "user": sb.remember("I write Go", "--type", "user")["name"],
        "project": sb.remember("Orders use Postgres", "--type", "project", "--tag", "db")["name"],
    }


def names(sb: Sandbox, *args: str) -> set[str]:
    return {r["name"] for r in sb.json("list", *args)}


def test_list_and_filters(sb: Sandbox, seeded: dict[str, str]) -> None:
    assert names(sb) == set(seeded.values())
    assert names(sb, "--scope", "user") == {seeded["feedback"], seeded["user"]}
    assert names(sb, "--scope", "project") == {seeded["project"]}
    assert names(sb, "--type", "project") == {seeded["project"]}
    assert names(sb, "--tag", "t") == {seeded["feedback"]}
    assert names(sb, "--tag", "t", "--tag", "db") == set()
    out = sb.run("list").stdout
    assert all(name in out for name in seeded.values())
    assert seeded["project"] not in sb.run("list", "--scope", "user").stdout


# -- 4. show --------------------------------------------------------------------------------
def test_show_prints_file_and_json(sb: Sandbox) -> None:
    rec = sb.remember("Use pnpm", "--type", "feedback", "--why", "CI broke", "--how", "installs")
    out = sb.run("show", rec["name"]).stdout
    assert out.endswith(Path(rec["path"]).read_text(encoding="utf-8"))
    data = sb.json("show", rec["name"])
    assert (data["why"], data["how_to_apply"]) == ("CI broke", "installs")


# -- 5. edit --------------------------------------------------------------------------------
def test_edit_saves_change_and_records_update(sb: Sandbox) -> None:
    rec = sb.remember("Use pnpm", "--type", "feedback")
    editor = write_editor(
        sb,
        "lines = p.read_text(encoding='utf-8').splitlines(keepends=True)\n"
        "p.write_text(''.join('description: Edited by hand\\n' if l.startswith('description:')"
        " else l for l in lines), encoding='utf-8')\n",
    )
    out = sb.run("edit", rec["name"], env=editor).stdout
    assert "Saved" in out
    assert "description: Edited by hand\n" in Path(rec["path"]).read_text(encoding="utf-8")
    assert sb.json("show", rec["name"])["description"] == "Edited by hand"
    assert [c["op"] for c in sb.json("history", rec["name"])] == ["create", "update"]
    assert not list((sb.tmp / "tmpdir").iterdir())  # the temp copy is cleaned up


def test_edit_to_invalid_yaml_is_refused_and_kept(sb: Sandbox) -> None:
    rec = sb.remember("Use pnpm", "--type", "feedback")
    path = Path(rec["path"])
    before = path.read_bytes()
    editor = write_editor(sb, f"p.write_text({BAD_YAML!r}, encoding='utf-8')\n")
    result = sb.run("edit", rec["name"], env=editor, rc=1)
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1
    assert path.read_bytes() == before
    kept = list((sb.tmp / "tmpdir").iterdir())
    assert len(kept) == 1 and str(kept[0]) in result.stderr
    assert kept[0].read_text(encoding="utf-8") == BAD_YAML
    assert [c["op"] for c in sb.json("history", rec["name"])] == ["create"]


def test_edit_without_changes(sb: Sandbox) -> None:
    rec = sb.remember("Use pnpm", "--type", "feedback")
    before = Path(rec["path"]).read_bytes()
    out = sb.run("edit", rec["name"], env=write_editor(sb, "pass\n")).stdout
    assert out.strip() == "No changes."
    assert Path(rec["path"]).read_bytes() == before
    assert [c["op"] for c in sb.json("history", rec["name"])] == ["create"]


# -- 6. forget, history, undo ---------------------------------------------------------------
def test_forget_history_undo_roundtrip(sb: Sandbox) -> None:
    rec = sb.remember("Use pnpm", "--type", "feedback", "--why", "CI")
    path = Path(rec["path"])
    before = path.read_bytes()
    out = sb.run("forget", rec["name"], "--reason", "testing").stdout
    assert not path.exists() and "memdir undo" in out
    create, delete = sb.json("history", rec["name"])
    assert (create["op"], delete["op"]) == ("create", "delete")
    assert create["before"] is None and create["after"] == rec["content_hash"]
    assert delete["before"] == rec["content_hash"] and delete["after"] is None
    assert delete["reason"] == "testing"
    for change in (create, delete):
        assert change["actor"] == "user" and change["scope"] == "user"
        datetime.fromisoformat(change["time"])
    sb.run("undo", delete["id"])
    assert path.read_bytes() == before
    assert [c["op"] for c in sb.json("history", rec["name"])] == ["create", "delete", "undo"]


def test_undo_unknown_id(sb: Sandbox) -> None:
    sb.run("init")
    assert "deadbeef" in assert_one_error_line(sb.run("undo", "deadbeef", rc=None))


# -- 7. errors ------------------------------------------------------------------------------
def test_unknown_memory_is_one_error_line(sb: Sandbox) -> None:
    result = sb.run("show", "no-such-memory", rc=None)
    assert "no-such-memory" in assert_one_error_line(result)
    assert result.stdout == ""


def test_debug_shows_traceback(sb: Sandbox) -> None:
    result = sb.run("show", "no-such-memory", rc=None, env={"MEMDIR_DEBUG": "1"})
    assert result.returncode != 0
    assert "Traceback" in result.stderr and "NotFoundError" in result.stderr


@pytest.mark.parametrize(
    ("command", "name"),
    [
        ("show", "../x"),
        ("show", "/etc/passwd"),
        ("show", "ABSOLUTE"),
        ("forget", "../x"),
        ("forget", "ABSOLUTE"),  # not /etc/passwd: tests may run as root
    ],
)
def test_unsafe_names_are_refused(sb: Sandbox, command: str, name: str) -> None:
    sb.remember("Use pnpm", "--type", "feedback")
    sb.remember("Orders use Postgres", "--type", "project")
    victims = [sb.tmp / "victim.md", sb.project / ".agent" / "x.md", sb.home / "x.md"]
    for victim in victims:
        victim.write_text("---\nname: x\ndescription: d\ntype: user\n---\nkeep me\n")
    if name == "ABSOLUTE":
        name = str(sb.tmp / "victim.md")
    snapshot = tree(sb.tmp, sb.user_dir, sb.project_dir)
    message = assert_one_error_line(sb.run(command, name, rc=None))
    assert "not a memory name" in message
    assert tree(sb.tmp, sb.user_dir, sb.project_dir) == snapshot
    assert all(v.is_file() for v in victims)


def test_remember_without_type_is_usage_error(sb: Sandbox) -> None:
    result = sb.run("remember", "no type given", rc=2)
    assert "--type" in result.stderr
    assert "Traceback" not in result.stderr
    assert not sb.user_dir.exists() or not list(sb.user_dir.glob("no-type*"))


# -- 8. doctor ------------------------------------------------------------------------------
def test_doctor_clean_then_bad_file(sb: Sandbox) -> None:
    good = sb.remember("Orders use Postgres", "--type", "project")["name"]
    assert "readable" in sb.run("doctor").stdout
    assert sb.json("doctor") == []
    bad = sb.project_dir / "broken.md"
    bad.write_text(BAD_YAML, encoding="utf-8")
    assert "broken.md" in sb.run("doctor", rc=None).stdout
    problems = json.loads(sb.run("doctor", "--json", rc=None).stdout)
    assert isinstance(problems, list) and problems
    assert all({"path", "reason", "severity"} <= p.keys() for p in problems)
    assert [p["path"] for p in problems if p["severity"] == "error"] == [str(bad)]
    listed = sb.run("list")
    assert good in listed.stdout and "broken" not in listed.stdout
    assert "warning" in listed.stderr and "doctor" in listed.stderr
    assert bad.read_text(encoding="utf-8") == BAD_YAML  # never rewritten


@pytest.mark.parametrize("as_json", [False, True])
def test_doctor_exits_1_on_a_bad_file(sb: Sandbox, as_json: bool) -> None:
    sb.run("init")
    (sb.project_dir / "broken.md").write_text(BAD_YAML, encoding="utf-8")
    sb.run("doctor", *(["--json"] if as_json else []), rc=1)


# -- 9. help --------------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_help(sb: Sandbox, command: str) -> None:
    out = sb.run(*([command] if command else []), "--help").stdout
    assert out.startswith("Usage: memdir")
    assert not (sb.project / ".agent").exists() and not sb.user_dir.exists()


def test_every_spec_command_so_far_is_registered() -> None:
    basics = {"init", "remember", "list", "show", "edit", "forget", "history", "undo", "doctor"}
    assert basics <= set(COMMANDS)


# -- 10. outside a project, --project ------------------------------------------------------
def test_outside_a_project(sb: Sandbox) -> None:
    elsewhere, other = sb.tmp / "elsewhere", sb.tmp / "other"
    elsewhere.mkdir()
    other.mkdir()
    if find_project_root(elsewhere, sb.home) is not None:
        pytest.skip("the temp directory is inside a project")
    message = assert_one_error_line(
        sb.run("remember", "Orders use Postgres", "--type", "project", cwd=elsewhere, rc=None)
    )
    assert "memdir init" in message and "--project" in message
    assert not (elsewhere / ".agent").exists()
    assert sb.run("remember", "I write Go", "--type", "user", cwd=elsewhere).returncode == 0
    out = sb.run(
        "--project",
        str(other),
        "remember",
        "Orders use Postgres",
        "--type",
        "project",
        "--json",
        cwd=elsewhere,
    ).stdout
    path = Path(json.loads(out)["path"])
    assert path.parent == other / ".agent" / "memory" and path.is_file()
    listed = sb.run("--project", str(other), "list", "--scope", "project", "--json", cwd=elsewhere)
    assert [r["name"] for r in json.loads(listed.stdout)] == [path.stem]


# -- entry points -------------------------------------------------------------------------
def test_console_script(sb: Sandbox) -> None:
    script = Path(sys.executable).parent / "memdir"
    assert script.is_file(), f"no console script at {script}"
    assert "version" in sb.run("--version", argv0=[str(script)]).stdout
    sb.run("remember", "Use pnpm", "--type", "feedback", argv0=[str(script)])
    listed = json.loads(sb.run("list", "--json", argv0=[str(script)]).stdout)
    assert [r["name"] for r in listed] == ["use-pnpm"]


def test_python_dash_m_runs_the_cli(sb: Sandbox) -> None:
    out = sb.run("--help", argv0=[sys.executable, "-m", "memdir.cli"]).stdout
    assert out.startswith("Usage: memdir")


def test_recall_explain_line_adds_up(mem: Memory, capsys: pytest.CaptureFixture[str]) -> None:
    """The printed relevance is the sum of the printed parts (every signal of the formula is
    shown: a new signal in recall.py must be added to the CLI's list too)."""
    import re

    mem.remember("We use PostgreSQL 15 for the orders service", type="project", session="s1")
    mem.remember("Orders are paid through Stripe", type="project", session="s1")
    assert main(["recall", "which database do orders use?", "--explain"]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.strip().startswith("relevance ")]
    assert lines
    assert main(["recall", "which database do orders use?", "--explain", "--json"]) == 0
    explain = json.loads(capsys.readouterr().out)[0]["explain"]
    priors = {"recency", "importance", "strength", "source", "confidence"}
    signals = {k.removesuffix("_part") for k in explain if k.endswith("_part")} - priors
    shown = set(re.findall(r"([a-z_]+) -?[\d.]+", lines[0].split("=", 1)[1]))
    assert shown == signals
    for line in lines:
        total = float(re.search(r"relevance (-?[\d.]+) =", line).group(1))  # type: ignore[union-attr]
        parts = [float(x) for x in re.findall(r"[a-z_]+ (-?[\d.]+)", line.split("=", 1)[1])]
        assert abs(total - sum(parts)) < 0.002 * len(parts) + 1e-9, line


def test_recall_explain_says_in_words_what_kind_of_answer_a_memory_lacks(
    mem: Memory, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``type_missing`` in words: the question asks for a number, the memory holds none (the
    calibrated score is fitted for the default embedder)."""
    monkeypatch.setenv("MEMDIR_EMBEDDER", "use")
    mem.remember("Jonas handles all CSS questions", type="user")
    mem.remember("The release train leaves every second Tuesday", type="project")
    assert main(["recall", "how many engineers are on the team?", "--explain"]) == 0
    out = capsys.readouterr().out
    assert out.count("the question asks for a number or amount; this memory states none") == 2
    assert main(["recall", "when does the release train leave?", "--explain"]) == 0
    out = capsys.readouterr().out  # the Tuesday memory holds a time: nothing said against it
    [block] = [b for b in re.split(r"\n(?=\d\. )", out) if "release train" in b]
    assert "asks for" not in block


def test_recall_explain_shows_the_translated_keyword_evidence(
    mem: Memory, capsys: pytest.CaptureFixture[str]
) -> None:
    texts = [
        "我们什么时候发版由产品经理决定",
        "我们每周一上午十点开例会，大家轮流主持",
        "数据库每天凌晨备份一次",
        "The staging database is reset every Sunday",
    ]
    for text in texts:
        mem.remember(text, type="project")
    assert main(["recall", "who decides when we release?", "--explain", "--top-k", "2"]) == 0
    out = capsys.readouterr().out
    # the hit about 发版 (found by translation; its rank against a tie depends on the name)
    [block] = [b for b in re.split(r"\n(?=\d\. )", out) if "发版" in b]
    assert re.search(r"keyword bm25 0 \+ translated bm25 [\d.]+ \(norm 1\.00\)", block), out


def test_recall_explain_says_when_cosines_are_language_centred(
    mem: Memory, capsys: pytest.CaptureFixture[str]
) -> None:
    mem.remember("Deploys need a review from the on-call engineer", type="project")
    assert main(["recall", "who reviews deploys?", "--explain", "--top-k", "1"]) == 0
    assert "language-centred" not in capsys.readouterr().out  # one language: plain cosines
    mem.remember_many(
        [{"text": f"第{i}条：发版前要跑完回归测试", "type": "project"} for i in range(10)]
        + [{"text": f"Rule {i}: run the regression suite before a release", "type": "project"}
           for i in range(10)]
    )  # fmt: skip
    assert main(["recall", "who reviews deploys?", "--explain", "--top-k", "1"]) == 0
    assert re.search(
        r"vector cos -?[\d.]+ \(language-centred, norm [\d.]+\)", capsys.readouterr().out
    )


def test_recall_explain_says_when_a_cosine_includes_the_session_context(
    mem: Memory, capsys: pytest.CaptureFixture[str]
) -> None:
    mem.remember("Deploys need a review from the on-call engineer", type="project")
    assert main(["recall", "who reviews deploys?", "--explain", "--top-k", "1"]) == 0
    assert "session context" not in capsys.readouterr().out  # no session: its own cosine
    mem.remember("Deploys go out on Tuesdays", type="project", session="ops-chat")
    mem.remember("Reviews come from whoever is on call", type="project", session="ops-chat")
    assert main(["recall", "who reviews deploys?", "--explain", "--top-k", "1"]) == 0
    assert re.search(
        r"vector cos -?[\d.]+ \(70% in its session context, norm [\d.]+\)",
        capsys.readouterr().out,
    )


# -- issue 18: the CLI edits like a tool people know ----------------------------------------
def test_remember_twice_says_it_already_existed(sb: Sandbox) -> None:
    first = sb.remember("Use pnpm, not npm", "--type", "project")
    second = sb.remember("use pnpm,   NOT npm", "--type", "project")
    assert first["created"] is True and second["created"] is False
    assert second["name"] == first["name"] and second["created_at"] == first["created_at"]
    text = sb.run("remember", "Use pnpm, not npm", "--type", "project").stdout
    assert text.startswith(f"Already remembered as {first['name']} ")
    near = sb.run("remember", "Use pnpm, not npm!", "--type", "project", "--name", "pnpm-2").stdout
    assert "Remembered pnpm-2" in near and f"similar to {first['name']}" in near
    assert sorted(p.stem for p in sb.project_dir.glob("*.md")) == [
        "MEMORY",
        "pnpm-2",
        "use-pnpm-not-npm",
    ]


def test_update_changes_fields_through_the_facade_and_is_undoable(sb: Sandbox) -> None:
    rec = sb.remember("Use pnpm, not npm", "--type", "project", "--tag", "old")
    out = sb.json(
        "update", "use-p", "--statement", "Use pnpm 9, not npm", "--tag", "js", "--tag", "node",
        "--importance", "7", "--why", "lockfiles broke CI", "--type", "reference",
    )  # fmt: skip
    assert out["name"] == rec["name"] and out["changed"] is True
    assert out["statement"] == "Use pnpm 9, not npm" and out["tags"] == ["js", "node"]
    assert out["importance"] == 7 and out["why"] == "lockfiles broke CI"
    assert out["type"] == "reference" and out["created"] == rec["created_at"]
    text = sb.run("update", rec["name"], "--no-tags").stdout
    change = re.search(r"memdir undo (\w+)", text)
    assert change and sb.json("show", rec["name"])["tags"] == []
    sb.run("undo", change.group(1))
    assert sb.json("show", rec["name"])["tags"] == ["js", "node"]
    same = sb.json("update", rec["name"], "--importance", "7")
    assert same["changed"] is False


def test_a_new_statement_moves_a_default_description_and_keeps_a_chosen_one(sb: Sandbox) -> None:
    rec = sb.remember("Use pnpm, not npm", "--type", "project")
    sb.run("update", rec["name"], "--statement", "Use pnpm 9, not npm or yarn")
    assert sb.json("show", rec["name"])["description"] == "Use pnpm 9, not npm or yarn"
    assert "Use pnpm 9, not npm or yarn" in sb.run("list").stdout
    assert "— Use pnpm 9, not npm or yarn" in (sb.project_dir / "MEMORY.md").read_text()
    chosen = sb.remember("Deploys go through Argo CD", "--type", "project", "--description", "CD")
    sb.run("update", chosen["name"], "--statement", "Deploys go through Argo CD 2.9")
    assert sb.json("show", chosen["name"])["description"] == "CD"


def test_update_bad_input_is_refused_and_nothing_is_lost(sb: Sandbox) -> None:
    rec = sb.remember("Use pnpm, not npm", "--type", "project")
    before = Path(rec["path"]).read_bytes()
    nothing = sb.run("update", rec["name"], rc=2)
    assert "nothing to change: give at least one of --statement" in nothing.stderr
    assert "contradict" in sb.run("update", rec["name"], "--tag", "a", "--no-tags", rc=2).stderr
    empty = assert_one_error_line(sb.run("update", rec["name"], "--statement", "  ", rc=None))
    assert "statement must be non-empty" in empty
    two_lines = assert_one_error_line(sb.run("update", rec["name"], "--why", "a\nb", rc=None))
    assert "one line" in two_lines
    assert Path(rec["path"]).read_bytes() == before
    missing = assert_one_error_line(sb.run("update", "no-such", "--importance", "3", rc=None))
    assert "no memory named 'no-such'" in missing


def test_rename_is_one_undoable_change(sb: Sandbox) -> None:
    rec = sb.remember("We use PostgreSQL 15 for the orders service", "--type", "project")
    out = sb.json("rename", "we-use-postgres", "orders-db")
    assert out["name"] == "orders-db" and out["renamed_from"] == rec["name"]
    assert (sb.project_dir / "orders-db.md").is_file() and not Path(rec["path"]).exists()
    assert sb.json("show", "orders")["statement"] == rec["statement"]
    taken = sb.remember("Another memory", "--type", "project")
    clash = assert_one_error_line(sb.run("rename", "orders-db", taken["name"], rc=None))
    assert "already exists" in clash
    bad = assert_one_error_line(sb.run("rename", "orders-db", "../escape", rc=None))
    assert "is a path" in bad and (sb.project_dir / "orders-db.md").is_file()
    last = sb.json("history", "orders-db")[-1]
    assert last["op"] == "rename"
    sb.run("undo", last["id"])
    assert Path(rec["path"]).read_bytes().decode().count(f"name: {rec['name']}") == 1


def test_every_name_argument_takes_a_unique_prefix(sb: Sandbox) -> None:
    sb.remember("Use pnpm, not npm", "--type", "project")
    sb.remember("Use ruff for lint", "--type", "project")
    sb.remember("发版前先跑 pnpm test", "--type", "project")
    assert sb.json("show", "use-p")["name"] == "use-pnpm-not-npm"
    assert sb.json("show", "pnpm-t")["statement"] == "发版前先跑 pnpm test"
    assert sb.json("history", "use-r")[0]["name"] == "use-ruff-for-lint"
    ambiguous = assert_one_error_line(sb.run("show", "use", rc=None))
    assert "use-pnpm-not-npm, use-ruff-for-lint" in ambiguous and "type more" in ambiguous
    assert_one_error_line(sb.run("forget", "use", rc=None))
    assert (sb.project_dir / "use-ruff-for-lint.md").is_file()  # nothing done on ambiguity
    gone = sb.json("forget", "use-r")
    assert gone["name"] == "use-ruff-for-lint" and not (sb.project_dir / gone["name"]).exists()
    # a forgotten memory's history is found by its exact name, not by another's prefix
    assert [c["op"] for c in sb.json("history", "use-ruff-for-lint")] == ["create", "delete"]


def _complete(sb: Sandbox, words: str) -> list[str]:
    cword = len(words.split()) - (0 if words.endswith(" ") else 1)
    env = {"_MEMDIR_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": str(cword)}
    out = sb.run(env=env).stdout
    return [line.split(",", 1)[1] for line in out.splitlines() if line]


def test_shell_completion_of_commands_and_names(sb: Sandbox) -> None:
    script = sb.run(env={"_MEMDIR_COMPLETE": "bash_source"}).stdout
    assert "_memdir_completion" in script and "complete " in script
    assert "update" in _complete(sb, "memdir upd") and "rename" in _complete(sb, "memdir ren")
    sb.remember("Use pnpm, not npm", "--type", "project")
    sb.remember("Use ruff for lint", "--type", "feedback")
    before = sorted(p for p in sb.tmp.rglob("*"))
    assert _complete(sb, "memdir show use-") == ["use-pnpm-not-npm", "use-ruff-for-lint"]
    assert _complete(sb, "memdir show --scope user use-") == ["use-ruff-for-lint"]
    assert _complete(sb, "memdir rename use-r") == ["use-ruff-for-lint"]
    assert _complete(sb, "memdir forget zzz") == []
    assert sorted(p for p in sb.tmp.rglob("*")) == before  # completing wrote nothing
