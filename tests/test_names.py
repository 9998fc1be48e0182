"""Names: derived from the text, unique in a scope, stable, safe as file names."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from conftest import snapshot
from memdir import AmbiguousError, ConflictError, Memory, UnsafeNameError
from memdir.records import check_name, slugify


def test_slug_from_english_text() -> None:
    assert slugify("Use pnpm, not npm, in JS projects!") == "use-pnpm-not-npm-in-js-projects"


def test_slug_from_chinese_text_is_short_ascii_and_stable() -> None:
    name = slugify("以后都用 PostgreSQL 15，不要用 MySQL")
    assert name == check_name(name)
    assert name.isascii() and name.startswith("postgresql-15-mysql-")
    # the same text (case, spacing aside) gives the same name; another text another one
    assert slugify("以后都用  postgresql 15，不要用 MySQL") == name
    assert slugify("以后都用 PostgreSQL 16，不要用 MySQL") != name
    only_han = slugify("以后都用中文写提交说明")
    assert re.fullmatch(r"note-[0-9a-f]{6}", only_han)
    assert re.fullmatch(r"note-[0-9a-f]{6}", slugify("Привет, мир"))
    assert slugify("Café au lait, s'il vous plaît") == "cafe-au-lait-s-il-vous-plait"


def test_slug_of_text_without_letters_still_works() -> None:
    assert check_name(slugify("!!! ??? ...")) == "note"
    assert check_name(slugify("MEMORY")) == "memory-note"


def test_slug_is_short() -> None:
    assert len(slugify("word " * 100)) <= 48
    assert len(slugify("汉" * 200)) <= 48


def test_same_text_gets_unique_names(mem: Memory) -> None:
    # one description, three different statements: one derived name, made unique
    names = [
        mem.remember(
            f"周五不发布（第 {i} 条）", description="记住：周五不发布", type="feedback"
        ).name
        for i in range(3)
    ]
    assert len(set(names)) == 3
    assert all((mem.home / "memory" / f"{n}.md").is_file() for n in names)


def test_names_are_unique_ignoring_case(mem: Memory) -> None:
    first = mem.remember("Deploy on Fridays is banned", type="project", name="Deploy-Rule")
    second = mem.remember("deploy rule", type="project")
    assert first.name == "Deploy-Rule"
    assert second.name.lower() != first.name.lower()


def test_name_stays_when_description_and_body_change(mem: Memory) -> None:
    rec = mem.remember("We use PostgreSQL 15", type="project")
    updated = mem.update(rec.name, description="We use PostgreSQL 16", statement="PG 16 now")
    assert updated.name == rec.name and updated.path == rec.path
    assert updated.description == "We use PostgreSQL 16"


def test_explicit_name_that_exists_is_refused(mem: Memory) -> None:
    mem.remember("a", type="project", name="taken")
    with pytest.raises(ConflictError, match="already exists"):
        mem.remember("b", type="project", name="taken")


UNSAFE = [
    "../x",
    "../../etc/passwd",
    "/etc/passwd",
    "/tmp/x",
    "a/b",
    "a\\b",
    "..",
    ".",
    ".hidden",
    "-dash",
    "x\x00y",
    "",
    "con",
    "NUL",
    "com1",
    "MEMORY",
    "memory.md",
    "x" * 81,
    "汉" * 81,
    "a..b",
    "name with space",
    "a／b",  # fullwidth solidus
    "e\u0301",  # not NFC
    "%2e%2e",
]


@pytest.mark.parametrize("name", UNSAFE)
def test_unsafe_names_are_refused_and_nothing_is_written(
    mem: Memory, sandbox: Path, name: str
) -> None:
    before = snapshot(sandbox)
    for call in (
        lambda: mem.remember("text", type="project", name=name),
        lambda: mem.get(name),
        lambda: mem.update(name, description="x"),
        lambda: mem.forget(name),
    ):
        with pytest.raises(UnsafeNameError) as info:
            call()
        assert str(info.value)  # a message a person can act on
    assert snapshot(sandbox) == before


def test_unsafe_name_message_says_how_to_fix() -> None:
    with pytest.raises(UnsafeNameError, match="plain name"):
        check_name("../x")
    with pytest.raises(UnsafeNameError, match="too long"):
        check_name("y" * 200)
    with pytest.raises(UnsafeNameError, match="reserved"):
        check_name("aux")


# -- issue 18: remember is idempotent, near-duplicates are pointed out, prefixes resolve --------
def _memory_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("*.md") if p.name != "MEMORY.md")


def test_the_same_statement_again_is_the_same_memory_reinforced(mem: Memory) -> None:
    first = mem.remember("Use pnpm, not npm, in JS projects", type="project")
    before = first.path.read_bytes()
    again = mem.remember("  use PNPM,  not npm, in js projects ", type="project")
    assert first.is_new is True and again.is_new is False
    assert again.name == first.name and again.path == first.path
    assert _memory_files(first.path.parent) == [first.path.name]
    # reinforced: a use in the recall log (counted like a recall) and a logged update
    log = (first.path.parent / ".history" / "recalls.jsonl").read_text(encoding="utf-8")
    assert [json.loads(line)["returned"] for line in log.splitlines()] == [[first.name]]
    mem.reindex()  # the index replays the log: the memory has one use
    db = sqlite3.connect(mem.index("project").path)
    assert db.execute("SELECT count FROM usage WHERE name=?", (first.name,)).fetchone() == (1,)
    db.close()
    ops = [c.op for c in mem.history(first.name)]
    assert ops[0] == "create" and set(ops[1:]) <= {"update"}
    # nothing lost: the statement and every other byte but `updated` are as they were
    assert again.statement == "Use pnpm, not npm, in JS projects"
    strip = lambda b: [ln for ln in b.splitlines() if not ln.startswith(b"updated:")]  # noqa: E731
    assert strip(again.path.read_bytes()) == strip(before)


def test_same_statement_is_found_after_a_rename_and_in_a_batch(mem: Memory) -> None:
    rec = mem.remember("Deploys need a review from the on-call engineer", type="project")
    mem.rename(rec.name, "deploy-review")
    again = mem.remember("Deploys need a review from the on-call engineer", type="project")
    assert again.name == "deploy-review" and again.is_new is False
    items = [{"text": "Tabs, not spaces, in Makefiles", "type": "project"}] * 3
    out = mem.remember_many(items)
    assert len({r.name for r in out}) == 1 and [r.is_new for r in out] == [True, False, False]


def test_same_statement_in_the_other_scope_is_a_memory_of_its_own(mem: Memory) -> None:
    a = mem.remember("Prefer short commit subjects", type="feedback")
    b = mem.remember("Prefer short commit subjects", type="feedback", scope="project")
    assert a.scope == "user" and b.scope == "project" and b.is_new is True


def test_a_different_statement_is_never_merged_and_a_near_duplicate_is_pointed_out(
    mem: Memory,
) -> None:
    first = mem.remember("Use pnpm, not npm", type="project")
    near = mem.remember("Use pnpm, not npm!!", type="project", description="Use pnpm not npm.")
    assert near.is_new is True and near.name != first.name
    assert first.name in near.similar_to
    far = mem.remember("The staging database resets every Sunday", type="project")
    assert far.is_new is True and far.similar_to == ()
    assert len(_memory_files(first.path.parent)) == 3
    # same words but a different statement under the same derived name: a new memory
    other = mem.remember("Never use npm", type="project", description="Use pnpm, not npm")
    assert other.is_new is True and other.statement == "Never use npm"


def test_a_chinese_statement_again_is_one_memory(mem: Memory) -> None:
    a = mem.remember("发版前先跑 pnpm test", type="project")
    b = mem.remember("发版前先跑  PNPM test", type="project")
    assert a.name == b.name == slugify("发版前先跑 pnpm test") and b.is_new is False


def test_existing_non_ascii_names_keep_working(mem: Memory) -> None:
    rec = mem.remember("以后都用中文", type="project", name="以后都用中文")
    assert mem.get("以后都用中文").name == rec.name
    assert mem.resolve("以后") == "以后都用中文"
    again = mem.remember("以后都用中文", type="project")
    assert again.name == "以后都用中文" and again.is_new is False


def test_resolve_takes_a_unique_prefix_and_an_exact_name_wins(mem: Memory) -> None:
    mem.remember("Use pnpm", type="project")
    mem.remember("Use pnpm in CI too", type="project")
    mem.remember("Ruff formats the code", type="project")
    assert mem.resolve("ruff") == "ruff-formats-the-code"
    assert mem.resolve("RUFF-F") == "ruff-formats-the-code"
    assert mem.resolve("use-pnpm") == "use-pnpm"  # exact, though use-pnpm-in-ci-too starts so
    with pytest.raises(AmbiguousError) as err:
        mem.resolve("use")
    assert "use-pnpm, use-pnpm-in-ci-too" in str(err.value) and "type more" in str(err.value)
    assert mem.resolve("nothing-like-it") == "nothing-like-it"  # the operation reports it
    assert mem.names() == ["ruff-formats-the-code", "use-pnpm", "use-pnpm-in-ci-too"]


def test_an_explicit_other_name_is_a_memory_of_its_own(mem: Memory) -> None:
    first = mem.remember("Use pnpm in JS projects", type="feedback")
    twin = mem.remember("Use pnpm in JS projects", type="feedback", name="pnpm-again")
    assert twin.is_new is True and twin.name == "pnpm-again" and first.name != twin.name
    again = mem.remember("use pnpm in js projects", type="feedback", name="pnpm-again")
    assert again.is_new is False and again.name == "pnpm-again"
    with pytest.raises(ConflictError):  # a name that holds another statement is refused
        mem.remember("Something else", type="feedback", name="pnpm-again")
    assert len(mem.list()) == 2
