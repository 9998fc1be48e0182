"""The DailyLog contract (``ports.DailyLog``, reached by ``Store.daily_log()``) and what sleep
and undo ask of a Store beside the memories (``run_as``, ``hash_at``): the same bytes and the
same answers on every backend."""

from __future__ import annotations

from memdir.markdown import content_hash

from .contract_ports import Ports


def test_append_starts_a_day_with_its_heading_then_appends_whole_lines(ports: Ports) -> None:
    logs = ports.store.daily_log()
    assert logs.days() == [] and logs.read("log/2026-06-01.md") is None
    with ports.store.locked():
        where = logs.append("2026-06-01", "- 09:00:00Z (user) one\n")
        logs.append("2026-06-01", "- 09:01:00Z (user) two\n")
    assert where.name == "2026-06-01.md" and where.parent.name == "log"
    data = b"# Log 2026-06-01\n\n- 09:00:00Z (user) one\n- 09:01:00Z (user) two\n"
    assert logs.read("log/2026-06-01.md") == data
    assert [(d.path, d.data, d.link) for d in logs.days()] == [("log/2026-06-01.md", data, False)]


def test_a_torn_last_line_keeps_to_itself(ports: Ports) -> None:
    logs = ports.store.daily_log()
    with ports.store.locked():
        logs.write("log/2026-06-02.md", b"# Log 2026-06-02\n\n- 10:00:00Z (user, sess")
        logs.append("2026-06-02", "- 10:01:00Z (user) next\n")
    assert logs.read("log/2026-06-02.md") == (
        b"# Log 2026-06-02\n\n- 10:00:00Z (user, sess\n- 10:01:00Z (user) next\n"
    )


def test_write_remove_and_the_journal_of_moves(ports: Ports) -> None:
    logs = ports.store.daily_log()
    move = {"run": "sleep-x", "time": "t", "from": "log/a.md", "to": None,
            "before": "sha256:1", "after": None}  # fmt: skip
    with ports.store.locked():
        logs.write("archive/log/2026-01-01.md.gz", b"\x1f\x8bzip")
        logs.record(move)
        logs.record({**move, "run": "undo-sleep-x", "undoes": "sleep-x"})
        logs.remove("log/2026-01-09.md")  # nothing there: nothing happens
    assert [d.path for d in logs.days()] == ["archive/log/2026-01-01.md.gz"]
    assert logs.journal() == [move, {**move, "run": "undo-sleep-x", "undoes": "sleep-x"}]
    with ports.store.locked():
        logs.remove("archive/log/2026-01-01.md.gz")
    assert logs.days() == [] and logs.read("archive/log/2026-01-01.md.gz") is None


def test_run_as_tags_every_change_and_hash_at_sees_both_sides(ports: Ports) -> None:
    name = ports.add("The team meets on Mondays")
    rec = ports.store.read(name)
    assert ports.store.scope == rec.scope
    assert ports.store.hash_at(f"{name}.md") == rec.content_hash
    with ports.store.run_as("sleep-20260601-120000-abcd"):
        ports.store.archive(name, actor="sleep", stamp="2026-06-01T12:00:00Z")
    assert ports.store.hash_at(f"{name}.md") is None
    archived = ports.store.archived().read(name)
    assert ports.store.hash_at(f"archive/{name}.md") == archived.content_hash
    assert archived.content_hash == content_hash(ports.changes.load(archived.content_hash))
    last = ports.changes.last()
    assert last is not None and last.run == "sleep-20260601-120000-abcd"
    ports.store.restore(name, actor="contract")
    last = ports.changes.last()
    assert last is not None and last.run is None  # the run ended with its block
