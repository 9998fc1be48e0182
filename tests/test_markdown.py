"""Lossless frontmatter: golden files, parse errors, and a property test of set_fields."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memdir import Memory
from memdir.markdown import FormatError, parse, render_new, set_fields, split_body

GOLDEN = Path(__file__).parent / "golden"
ODD = (GOLDEN / "odd.md").read_bytes()

CASES: dict[str, dict[str, Any]] = {
    "importance": {"importance": 7},
    "why": {"why": "只有 15 有备份"},
    "tags": {"tags": ["db", "中文"]},
    "remove-custom": {"custom_key": None},
    "statement": {"statement": "我们用 PostgreSQL 16。"},
}


def test_golden_file_has_every_oddity() -> None:
    assert ODD.startswith(b"\xef\xbb\xbf")
    assert b"\r\n" in ODD and b"\n" not in ODD.replace(b"\r\n", b"")
    assert b"# Written by hand" in ODD and "数据库".encode() in ODD


def test_parse_reads_values_and_keeps_raw_parts() -> None:
    doc = parse(ODD)
    assert doc.bom and doc.newline == "\r\n"
    assert doc.meta["description"] == 'Colons: here, and "quotes" too'
    assert doc.meta["notes"] == "multi-line\n\nwith a blank line\n"
    assert doc.meta["created"] == "2026-01-02T03:04:05Z"  # a string, not a datetime
    assert doc.meta["single quoted"] == "it's"
    assert doc.dump() == ODD
    statement, why, how = split_body(doc.body)
    assert statement.startswith("我们用 PostgreSQL 15。") and "not-frontmatter" in statement
    assert (why, how) == ("运维团队只支持 15", "when writing migrations")


@pytest.mark.parametrize("case", sorted(CASES))
def test_update_one_field_is_byte_identical_elsewhere(mem: Memory, case: str) -> None:
    path = mem.store("project").dirs.memory / "odd.md"
    path.write_bytes(ODD)
    record = mem.update("odd", scope="project", **CASES[case])
    assert record.updated is not None
    expected = (GOLDEN / f"odd.after-{case}.md").read_bytes()
    assert path.read_bytes() == expected.replace(b"@UPDATED@", record.updated.encode())


def test_update_then_undo_restores_original_bytes(mem: Memory) -> None:
    path = mem.store("project").dirs.memory / "odd.md"
    path.write_bytes(ODD)
    mem.update("odd", scope="project", importance=9, why="x")
    change = mem.history("odd")[-1]
    mem.undo(change.id)
    assert path.read_bytes() == ODD


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"no frontmatter here\n", "must start with a '---' line"),
        (b"---\nname: x\n", "not closed"),
        (b"---\nname: [unclosed\n---\n", "invalid YAML"),
        (b"---\n- a list\n---\n", "YAML mapping"),
        (b"---\nname: x\x00\n---\n", "binary"),
        (b"---\nname: \xff\xfe\n---\n", "not UTF-8"),
    ],
)
def test_parse_errors_say_what_is_wrong(data: bytes, reason: str) -> None:
    with pytest.raises(FormatError, match=reason):
        parse(data)


_keys = st.sampled_from(["description", "quote", "session", "extra_a", "tags", "importance"])
_text = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\ufeff"), max_size=40
)
_values = st.one_of(
    _text.filter(lambda s: s.strip() == s and s != ""),
    st.integers(1, 10),
    st.lists(_text.filter(lambda s: s.strip() != ""), max_size=3),
    _text.map(lambda s: f"line one\n{s}\nline three"),
)


@settings(max_examples=150, deadline=None)
@given(updates=st.dictionaries(_keys, _values, max_size=4), crlf=st.booleans())
def test_set_fields_reads_back_and_keeps_other_lines(updates: dict[str, Any], crlf: bool) -> None:
    original = render_new(
        {"name": "n", "description": "d", "type": "user", "kept": "value # not a comment"},
        "Body\n",
    )
    if crlf:
        original = original.replace(b"\n", b"\r\n")
    doc = set_fields(parse(original), updates)
    again = parse(doc.dump())
    for key, value in updates.items():
        assert again.meta[key] == value
    assert again.meta["kept"] == "value # not a comment"
    assert again.body == parse(original).body
    untouched = [
        ln for ln in parse(original).frontmatter.splitlines() if ln.split(":")[0] not in updates
    ]
    assert all(line in doc.frontmatter.splitlines() for line in untouched)


def _yaml_wrote(key: str, value: Any) -> str:
    """What PyYAML's own emitter writes for ``key: value`` (the fast path bypassed)."""
    from memdir import markdown

    fast, markdown._dump_fast = markdown._dump_fast, lambda key, value: None
    try:
        return markdown._dump_key(key, value, "\n")
    finally:
        markdown._dump_fast = fast


_LETTERS = st.sampled_from(
    [*"aZq0 9_.,()/+-:#'\"[]{}!&*?|>%@`~=<\\\t", "我", "们", "，", "：", "ー", "한", "é", "\u3000"]
)
_WORDS = st.lists(_LETTERS, max_size=24).map("".join)
# mostly what the fast writer takes itself, so both of its answers are tried
_SAFEISH = st.lists(st.sampled_from([*"aZq0 9_.,()/+-", "我", "，", "ー", ":"]), max_size=24)
_TRICKY = st.sampled_from(
    [
        "yes",
        "No",
        "ON",
        "off",
        "null",
        "Null",
        "true",
        "y",
        "n",
        "~",
        "2026-12-03T17:26:01Z",
        "2026-12-03",
        "2026-12-03T17:26:01.5+08:00",
        "12:30",
        "0x1F",
        "1_000",
        ".inf",
        "a: b",
        "a #b",
        "- a",
        "a ",
        " a",
        "a  b",
        "发版 前 先跑测试",
        "pnpm, not npm",
        "e2e/smoke-test",
    ]
)


@settings(max_examples=600, deadline=None)
@given(
    st.one_of(
        _WORDS,
        _TRICKY,
        st.integers(),
        st.booleans(),
        st.lists(st.one_of(_WORDS, _SAFEISH.map("".join), _TRICKY), max_size=4),
    )
)
def test_the_fast_frontmatter_writer_writes_what_yaml_writes(value: Any) -> None:
    """``_dump_key``'s own writer for plain values must give PyYAML's exact bytes, or step aside."""
    from memdir.markdown import _dump_key

    assert _dump_key("description", value, "\n") == _yaml_wrote("description", value)
