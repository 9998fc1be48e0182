"""Names: derived from the text, unique in a scope, stable, safe as file names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import snapshot
from memdir import ConflictError, Memory, UnsafeNameError
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
