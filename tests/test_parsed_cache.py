"""The parse cache kept between processes (files/parsed.py): a new store lists a large scope
without parsing the files no one changed, and never returns what a file no longer says."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ACCESS
from memdir import Memory
from waiting import until_the_clock_moves


def _opened(access: object, folder: Path) -> set[str]:
    return {n for e, n in access.touched(folder) if e == "open" and not n.startswith(".")}  # type: ignore[attr-defined]


def _fill(mem: Memory, n: int = 40) -> Path:
    mem.remember_many({"text": f"fact {i}", "type": "project"} for i in range(n))
    memory = mem.store("project").dirs.memory
    assert len(Memory().list(scope="project")) == n  # a fresh store parses all, and keeps them
    assert (memory / ".index" / "parsed.json").is_file()
    return memory


def test_a_new_store_lists_without_parsing_unchanged_files(mem: Memory, sandbox: Path) -> None:
    memory = _fill(mem)
    edited = memory / "fact-3.md"
    until_the_clock_moves(memory, sandbox)
    edited.write_text(
        edited.read_text(encoding="utf-8").replace("fact 3", "changed by hand"), encoding="utf-8"
    )
    with ACCESS.watch() as access:
        listed = {r.name: r for r in Memory().list(scope="project")}
    # only the file that changed is read (and MEMORY.md, rendered again for it)
    assert _opened(access, memory) == {"fact-3.md", "MEMORY.md"}
    assert len(listed) == 40 and "changed by hand" in listed["fact-3"].statement
    assert listed["fact-7"].statement == "fact 7"


@pytest.mark.parametrize("damage", [b"", b"[1, 2", b'{"format": "parsed-v0", "entries": []}'])
def test_a_damaged_parse_cache_costs_a_parse_and_nothing_else(mem: Memory, damage: bytes) -> None:
    memory = _fill(mem)
    kept = memory / ".index" / "parsed.json"
    kept.write_bytes(damage)
    with ACCESS.watch() as access:
        listed = Memory().list(scope="project")
    assert sorted(r.statement for r in listed) == sorted(f"fact {i}" for i in range(40))
    assert len(_opened(access, memory)) == 40
    assert kept.read_bytes() != damage  # kept again


def test_frontmatter_json_cannot_carry_is_parsed_each_time(mem: Memory) -> None:
    memory = _fill(mem)
    dated = memory / "dated.md"
    dated.write_text(
        "---\nname: dated\ndescription: a dated one\ntype: project\nreviewed: 2026-03-01\n"
        "---\nReviewed in March.\n",
        encoding="utf-8",
    )
    Memory().list(scope="project")  # parses it; a YAML date does not read back from JSON
    with ACCESS.watch() as access:
        (rec,) = [r for r in Memory().list(scope="project") if r.name == "dated"]
    assert _opened(access, memory) == {"dated.md"}
    assert str(rec.extra["reviewed"]) == "2026-03-01"
