"""Chat-history and notes importers (issue 24, SPEC K2) on hand-written fixtures in each
format's real shape (tests/fixtures/imports/), through the library and the CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import snapshot
from memdir import Memory
from memdir.portable.chats import Skipped, checkpoint_path, import_conversations
from memdir.portable.importers import detect, reader
from memdir.portable.importers.markdown import import_notes

FIXTURES = Path(__file__).parent / "fixtures" / "imports"
CASES = {
    "chatgpt": FIXTURES / "chatgpt" / "conversations.json",
    "claude": FIXTURES / "claude" / "conversations.json",
    "claude-code": FIXTURES / "claude-code" / "projects",
    "codex": FIXTURES / "codex" / "sessions",
    "jsonl": FIXTURES / "jsonl" / "messages.jsonl",
}
# what each fixture teaches — and, as important, what it must not (other branches, tool output,
# attachments, sub-agents, injected context, thinking)
EXPECTED = {
    "chatgpt": {
        "I am a data engineer at a logistics company",
        "I prefer tabs over spaces in Python files",
        "Use pytest instead of unittest",
        "The staging server is staging-2.internal",
    },
    "claude": {
        "我是后端工程师，主要写 Go",
        "以后都用 pnpm",
        "I never use semicolons in JavaScript",
    },
    "claude-code": {"We use ruff for linting in this repo", "Use ruff instead of flake8"},
    "codex": {"We deploy with Fly.io", "I always write commit messages in English"},
    "jsonl": {
        "I'm a frontend developer and I prefer TypeScript over JavaScript",
        "Use Vitest instead of Jest",
        "The invoices bucket is s3://acme-invoices-prod",
    },
}


def _statements(mem: Memory) -> set[str]:
    return {r.statement for r in mem.list()}


def _run(mem: Memory, fmt: str, *, dry_run: bool = False):  # type: ignore[no-untyped-def]
    path = CASES[fmt]
    return import_conversations(mem, reader(fmt)(path), source=path, fmt=fmt, dry_run=dry_run)


@pytest.mark.parametrize("fmt", sorted(CASES))
def test_fixture_imports_what_the_person_said(mem: Memory, fmt: str) -> None:
    assert detect(CASES[fmt]) == fmt
    report = _run(mem, fmt)
    assert _statements(mem) == EXPECTED[fmt]
    assert report.stored == len(EXPECTED[fmt]) and report.merged == 0
    for record in mem.list():
        assert record.source == "imported"
        assert record.session and record.session.startswith(f"{fmt}:") and "#" in record.session
        created = [c for c in mem.history(record.name) if c.op == "create"]
        assert created[0].actor == "import" and "message" in (created[0].reason or "")


@pytest.mark.parametrize("fmt", sorted(CASES))
def test_running_twice_stores_nothing_new(mem: Memory, fmt: str, sandbox: Path) -> None:
    _run(mem, fmt)
    before = snapshot(sandbox / "home" / "memory") | snapshot(sandbox / "project" / ".agent")
    again = _run(mem, fmt)
    assert again.resumed == again.conversations and again.stored == 0
    # even without the checkpoint, the same statements are recognised, never doubled
    checkpoint_path(mem, fmt, CASES[fmt]).unlink()
    third = _run(mem, fmt)
    assert third.stored == 0 and third.merged == len(EXPECTED[fmt])
    after = snapshot(sandbox / "home" / "memory") | snapshot(sandbox / "project" / ".agent")
    assert sorted(k for k in after if k.endswith(".md")) == sorted(
        k for k in before if k.endswith(".md")
    )


def test_dry_run_writes_nothing_and_shows_a_redacted_sample(mem: Memory, sandbox: Path) -> None:
    before = snapshot(sandbox)
    report = _run(mem, "chatgpt", dry_run=True)
    assert snapshot(sandbox) == before
    assert report.proposed == 6 and report.sample
    shown = json.dumps(report.to_dict())
    assert "ghp_A1b2" not in shown and "[REDACTED:github-token]" in shown


def test_secrets_and_grants_are_refused_and_counted(mem: Memory, sandbox: Path) -> None:
    report = _run(mem, "chatgpt")
    assert report.refused == 2 and report.redacted == 1
    reasons = " ".join(r["reason"] for r in report.refusals)
    assert "secret" in reasons and "disables-safety" in reasons
    assert "ghp_A1b2" not in json.dumps(report.to_dict())
    for path in (sandbox / "home").rglob("*"):
        if path.is_file() and ".index" not in path.parts:
            data = path.read_bytes().lower()
            assert b"a1b2c3d4e5" not in data, path  # not in a file, a name or a log line


def test_malformed_inputs_are_counted_not_raised(mem: Memory, tmp_path: Path) -> None:
    cases = {
        "chatgpt": tmp_path / "garbage.json",
        "claude": tmp_path / "number.json",
        "jsonl": tmp_path / "huge.jsonl",
        "codex": tmp_path / "torn.jsonl",
    }
    cases["chatgpt"].write_bytes(b"\x00\x01not json{{{")
    cases["claude"].write_text("42", encoding="utf-8")
    cases["jsonl"].write_bytes(b'{"role": "user", "content": "' + b"x" * (9 << 20) + b'"}\n')
    cases["codex"].write_text('{"type": "session_meta", "payload": {"id": "s"}}\n{"ty', "utf-8")
    for fmt, path in cases.items():
        report = import_conversations(mem, reader(fmt)(path), source=path, fmt=fmt)
        assert report.skipped, fmt
        assert report.stored == 0
    reasons = {
        fmt: import_conversations(mem, reader(fmt)(p), source=p, fmt=fmt).skipped[0].reason
        for fmt, p in cases.items()
    }
    assert "not readable JSON" in reasons["chatgpt"]
    assert "not a list of conversations" in reasons["claude"]
    assert "over 8 MiB" in reasons["jsonl"] or "not messages" in reasons["jsonl"]
    assert "torn or corrupt" in reasons["codex"]


# one of each way a JSONL line goes wrong: torn by a crash, valid JSON but not an object, and
# a pasted dump far past what anyone typed
_BAD_LINES = [
    b'{"type": "user", "mess\n',
    b"[1, 2, 3]\n",
    b'{"pad": "' + b"x" * (9 << 20) + b'"}\n',
]


def _damaged(fmt: str, tmp: Path) -> Path:
    """The fixture of ``fmt`` with bad parts among the good ones."""
    src = CASES[fmt]
    dst = tmp / fmt / src.name
    if src.is_dir():
        shutil.copytree(src, dst)
    else:
        dst.parent.mkdir(parents=True)
        shutil.copy(src, dst)
    if fmt in ("chatgpt", "claude"):
        entries = json.loads(dst.read_text(encoding="utf-8"))
        dst.write_text(json.dumps([42, {"title": "half an entry"}, *entries, "junk"]), "utf-8")
    else:
        file = dst if dst.is_file() else sorted(dst.rglob("*.jsonl"))[0]
        lines = file.read_bytes().splitlines(keepends=True)
        file.write_bytes(b"".join([*lines[:2], *_BAD_LINES, *lines[2:]]))
    return dst


@pytest.mark.parametrize("fmt", sorted(CASES))
def test_bad_parts_are_counted_with_reasons_and_the_rest_imports(
    mem: Memory, fmt: str, tmp_path: Path
) -> None:
    # the fixtures hold awkward parts of their own: count only what the damage added
    clean = _run(mem, fmt, dry_run=True).skipped
    path = _damaged(fmt, tmp_path)
    report = import_conversations(mem, reader(fmt)(path), source=path, fmt=fmt)
    assert _statements(mem) == EXPECTED[fmt]  # every good conversation, whole
    if fmt in ("chatgpt", "claude"):
        assert len(report.skipped) - len(clean) == 3  # 42, an entry without messages, "junk"
        assert all("conversation (no" in s.reason for s in report.skipped)
    else:

        def lines(skipped: list[Skipped]) -> dict[str, int]:
            found = (s.reason.split(" line(s) skipped: ") for s in skipped)
            return {parts[1]: int(parts[0]) for parts in found if len(parts) == 2}

        before, after = lines(clean), lines(report.skipped)
        added = {r: n - before.get(r, 0) for r, n in after.items() if n != before.get(r, 0)}
        assert added == {
            "line over 8 MiB": 1,
            "not a JSON line (torn or corrupt)": 1,
            "not a JSON object": 1,
        }
    assert "x" * 100 not in json.dumps(report.to_dict())  # the report names, never dumps


@pytest.mark.parametrize("fmt", ["chatgpt", "claude"])
def test_an_export_over_the_size_limit_is_refused_unread(
    mem: Memory, fmt: str, tmp_path: Path
) -> None:
    from memdir.portable.importers.common import MAX_JSON_BYTES

    huge = tmp_path / "conversations.json"
    with open(huge, "wb") as handle:
        handle.truncate(MAX_JSON_BYTES + 1)  # sparse: a size on paper, no disk spent
    mem.remember("Already here before the import", type="user")
    before = snapshot(mem.home)
    report = import_conversations(mem, reader(fmt)(huge), source=huge, fmt=fmt)
    [skipped] = report.skipped
    assert "over the 1 GiB limit" in skipped.reason and report.stored == 0
    assert snapshot(mem.home) == before  # nothing half-written, not even a checkpoint


def test_notes_too_big_or_not_text_are_skipped_and_the_rest_imports(
    mem: Memory, tmp_path: Path
) -> None:
    vault = tmp_path / "notes"
    vault.mkdir()
    (vault / "Good.md").write_text("# A good note\n\nIt stays.\n", encoding="utf-8")
    (vault / "Dump.md").write_text("# A dump\n\n" + "y" * (1 << 20), encoding="utf-8")
    (vault / "Binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    report = import_notes(mem, vault)
    assert [r.name for r in mem.list()] == ["good"]
    skipped = {Path(s.where).name: s.reason for s in report.skipped}
    assert "over the 900 KiB a memory holds" in skipped["Dump.md"]
    assert skipped["Binary.md"] == "not UTF-8 text"


def test_markdown_vault(mem: Memory, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURES / "vault", vault)
    (vault / "Daily").mkdir()  # made here: a non-UTF-8 file in the repository trips the linters
    (vault / "Daily" / "2025-06-01.md").write_bytes(b"---\ntags: [journal]\n---\n\xff\xfe x\n")
    assert detect(vault) == "markdown"
    report = import_notes(mem, vault)
    names = {r.name for r in mem.list()}
    assert {"projects-alpha", "roadmap", "pnpm-rule"} <= names
    alpha = mem.get("projects-alpha")
    raw = alpha.path.read_text(encoding="utf-8")
    # the note's own frontmatter and its whole body survive; memdir's keys are added
    assert "tags: [project, alpha]" in raw and 'aliases: ["Project Alpha"]' in raw
    assert alpha.body == (vault / "Projects" / "Alpha.md").read_text().split("---\n", 2)[2]
    assert "[[People/Dana]]" in alpha.body and "![[alpha-diagram.png]]" in alpha.body
    assert alpha.extra.get("kind") == "knowledge" and alpha.type == "reference"
    assert alpha.description == "Alpha launch plan"
    # a note in memdir's format arrives as it was, with its provenance added
    rule = mem.get("pnpm-rule")
    assert rule.type == "feedback" and rule.source == "imported" and rule.why
    # an instruction file: one memory per top-level bullet, nothing from a code fence
    statements = {r.statement for r in mem.list()}
    assert {"Run `make test` before every commit.", "Keep functions under 60 lines."} <= statements
    assert not any("inside a fence" in s for s in statements)
    skipped = {Path(s.where).name: s.reason for s in report.skipped}
    assert skipped["2025-06-01.md"] == "not UTF-8 text"
    assert "frontmatter does not parse" in skipped["bad-frontmatter.md"]
    assert report.refused == 1 and "secret" in report.refusals[0]["reason"]
    assert "hunter2" not in json.dumps(report.to_dict())
    again = import_notes(mem, vault)
    assert again.stored == 0 and again.merged == report.stored


def _export(path: Path, conversations: int) -> None:
    """A ChatGPT export of ``conversations`` linear conversations, one preference each."""
    items = []
    for n in range(conversations):
        mapping = {"root": {"id": "root", "message": None, "parent": None, "children": ["u"]}}
        text = f"I prefer tool number {n} for task number {n}."
        message = {"id": f"m{n}", "author": {"role": "user"}, "create_time": 1748772000 + n}
        message["content"] = {"content_type": "text", "parts": [text]}
        mapping["u"] = {"id": "u", "message": message, "parent": "root", "children": []}
        items.append({"id": f"conv-{n}", "title": f"c{n}", "mapping": mapping, "current_node": "u"})
    path.write_text(json.dumps(items), encoding="utf-8")


def _cli(sandbox: Path, *args: str, crash: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "MEMDIR_TEST_CRASH"}
    if crash:
        env["MEMDIR_TEST_CRASH"] = crash
    return subprocess.run(
        [sys.executable, "-m", "memdir.cli", *args],
        cwd=sandbox / "project",
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize("point", ["import-checkpoint:3", "import-written:3"])
def test_killed_import_resumes_without_loss_or_doubles(sandbox: Path, point: str) -> None:
    export = sandbox / "conversations.json"
    _export(export, 6)
    killed = _cli(sandbox, "import", str(export), crash=point)
    assert killed.returncode == -9  # SIGKILL at the named step, no timing involved
    home = sandbox / "home"
    written = sorted(p.name for p in (home / "memory").glob("i-prefer-*.md"))
    assert len(written) == 3  # three conversations were written before the kill
    resumed = _cli(sandbox, "import", str(export), "--json")
    assert resumed.returncode == 0, resumed.stderr
    report = json.loads(resumed.stdout)
    after_checkpoint = point.startswith("import-checkpoint")
    assert report["resumed"] == (3 if after_checkpoint else 2)
    assert report["stored"] == 3 and report["merged"] == (0 if after_checkpoint else 1)
    assert len(list((home / "memory").glob("i-prefer-*.md"))) == 6
    statements = [m.statement for m in Memory(home=home).list(scope="user")]
    assert len(statements) == len(set(statements)) == 6


def test_cli_import_reports_and_never_tracebacks(sandbox: Path) -> None:
    done = _cli(sandbox, "import", str(CASES["chatgpt"]), "--dry-run")
    assert done.returncode == 0 and "Sample of what would be stored" in done.stdout
    assert "[REDACTED:github-token]" in done.stdout and "ghp_A1b2" not in done.stdout
    junk = sandbox / "junk.bin"
    junk.write_bytes(os.urandom(256))
    bad = _cli(sandbox, "import", str(junk))
    assert bad.returncode == 1 and "pass --format" in bad.stderr and "Traceback" not in bad.stderr
    forced = _cli(sandbox, "import", str(junk), "--format", "chatgpt", "--json")
    assert forced.returncode == 0 and json.loads(forced.stdout)["skipped"]
    missing = _cli(sandbox, "import", str(sandbox / "nope.json"))
    assert missing.returncode == 1 and "does not exist" in missing.stderr


def test_agent_memory_files_come_with_the_transcripts(sandbox: Path) -> None:
    done = _cli(sandbox, "import", str(CASES["claude-code"]), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["format"] == "claude-code" and report["memory_files"] == 2
    home = Memory(home=sandbox / "home", cwd=sandbox / "project")
    role = home.get("user_role")  # Claude Code's auto-memory file, as it was, provenance added
    assert role.type == "user" and role.source == "imported"
    assert (
        home.get("feedback_testing").why == "a mocked test passed while the prod migration failed."
    )
    codex = _cli(sandbox, "import", str(FIXTURES / "codex"), "--json")
    assert codex.returncode == 0, codex.stderr
    assert json.loads(codex.stdout)["memory_files"] == 1
    statements = {r.statement for r in home.list()}
    assert {
        "Prefer ripgrep over grep when searching code.",
        "Never commit directly to main.",
    } <= statements


def test_llm_extraction_keeps_only_the_persons_quoted_words(mem: Memory) -> None:
    from llm_fakes import ScriptedLLM, ops

    quoted = {
        "op": "ADD",
        "type": "feedback",
        "text": "Prefers tabs in Python files",
        "quote": "I prefer tabs over spaces in Python files",
        "source": "user",
        "why": "said so",
        "how_to_apply": "when writing Python",
    }
    inferred = {"op": "ADD", "type": "user", "text": "Works in logistics", "source": "inferred"}
    model = ScriptedLLM(ops(quoted, inferred), "not json at all", "still not json")
    path = CASES["chatgpt"]
    report = import_conversations(
        mem, reader("chatgpt")(path), source=path, fmt="chatgpt", llm=model
    )
    assert {r.statement for r in mem.list()} == {"Prefers tabs in Python files"}
    record = mem.list()[0]
    assert record.source == "imported" and record.session.endswith("#n-user-1")  # type: ignore[union-attr]
    # the second conversation's answer was unusable twice: reported, not checkpointed
    failed = [
        s for s in report.skipped if "conversation 6839a1c0-0000-4000-8000-000000000002" in s.where
    ]
    assert failed and "unusable" in failed[0].reason
    again = import_conversations(
        mem, reader("chatgpt")(path), source=path, fmt="chatgpt", llm=ScriptedLLM()
    )
    assert again.resumed == 1  # the first is done; the failed one was read again
