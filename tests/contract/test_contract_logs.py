"""ChangeLog and RecallLog contracts (``memdir.ports``): origin on every change, cursors,
exact objects, and bad input."""

from __future__ import annotations

import pytest

from memdir.errors import NotFoundError, ValidationError
from memdir.markdown import content_hash, parse

from .contract_ports import Ports

DIGEST = "sha256:" + "ab" * 32


def test_every_write_is_a_change_with_its_origin(ports: Ports) -> None:
    name = ports.add("The team meets on Mondays")
    ports.store.update(name, {"statement": "The team meets on Tuesdays"}, actor="sleep")
    ports.store.delete(name, actor="agent", reason="asked to")
    ops = [(c.op, c.name, c.actor) for c in ports.changes.entries()]
    assert ops == [("create", name, "contract"), ("update", name, "sleep"),
                   ("delete", name, "agent")]  # fmt: skip
    last = ports.changes.last()
    assert last is not None and last.reason == "asked to" and last.source == "user"


def test_since_follows_the_log_from_a_cursor(ports: Ports) -> None:
    assert ports.changes.since(0) == ([], 0)
    ports.add("one", base="one")
    first, cursor = ports.changes.since(0)
    assert [c.name for c in first] == ["one"] and cursor > 0
    ports.add("two", base="two")
    later, after = ports.changes.since(cursor)
    assert [c.name for c in later] == ["two"] and after > cursor
    assert ports.changes.since(after) == ([], after)
    with pytest.raises(ValidationError, match="cursor"):
        ports.changes.since(-1)


def test_find_by_prefix(ports: Ports) -> None:
    ports.add("x")
    change = ports.changes.last()
    assert change is not None
    assert ports.changes.find(change.id[:6]) == change
    assert ports.changes.find("zzzz-not-an-id") is None


def test_objects_keep_exact_bytes(ports: Ports) -> None:
    name = ports.add("kept exactly")
    change = ports.changes.last()
    assert change is not None and change.after is not None
    assert ports.changes.has(change.after)
    record = ports.store.read(name)
    data = ports.changes.load(change.after)
    assert content_hash(data) == change.after == record.content_hash
    assert b"kept exactly" in data and parse(data).meta["name"] == name
    ports.changes.keep(DIGEST, b"some bytes")
    assert ports.changes.load(DIGEST) == b"some bytes"


def test_a_missing_object_says_so(ports: Ports) -> None:
    missing = "sha256:" + "cd" * 32
    assert not ports.changes.has(missing)
    with pytest.raises(NotFoundError, match="cannot be undone"):
        ports.changes.load(missing)


def test_recall_log_appends_and_reads_back(ports: Ports) -> None:
    assert ports.recalls.entries() == []
    entry = {"time": "2026-01-01T00:00:00.000Z", "query": "q", "returned": ["a"]}
    ports.recalls.append(entry)
    ports.recalls.append({**entry, "query": "r"})
    assert [e["query"] for e in ports.recalls.entries()] == ["q", "r"]
