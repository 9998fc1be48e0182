"""Session transcripts (SPEC C1–C6) on real files and real processes.

Covers: the file and its id, disk-first append, one writer per file, SIGKILL at random moments,
content kept exactly as sent (both providers' shapes), torn lines, chain repair, the "N days
since" note, listing from file names and last lines, and retention (distill → archive → delete
only when the policy says so).
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from forkserver import ForkServer
from memdir import MemdirError, Memory, NotFoundError, SessionBusyError, ValidationError
from memdir.chain import INTERRUPTED, repair
from memdir.sessions import Session, list_sessions
from provider_chains import assert_valid_anthropic, assert_valid_openai

ID = re.compile(r"\d{8}-\d{6}-[0-9a-f]{4}")


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}


def _lines(session: Session) -> list[dict[str, Any]]:
    return [json.loads(line) for line in session.path.read_text().splitlines()]


def _request(m: Memory, session: Session, fmt: str) -> list[dict[str, Any]]:
    """The messages a provider would get, after the guide."""
    result = m.context(session, fmt)
    messages = result["messages"] if isinstance(result, dict) else result
    assert isinstance(messages, list)
    return messages[2:] if fmt == "openai" else messages[1:]


def _write_session(folder: Path, sid: str, records: list[dict[str, Any]]) -> Path:
    """A session file written by hand (as an older run, or another tool, would leave it)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{sid}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _msg(role: str, text: str, ts: datetime) -> dict[str, Any]:
    kind = "assistant" if role == "assistant" else "user"
    return {
        "type": kind,
        "ts": ts.isoformat().replace("+00:00", "Z"),
        "content": {"role": role, "content": text},
    }


# -- C1: one file per session -------------------------------------------------------------
def test_new_session_is_one_file_named_by_its_id(mem: Memory, sandbox: Path) -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    with mem.session() as s:
        after = datetime.now(UTC)
        assert ID.fullmatch(s.id)
        assert s.path == sandbox / "project" / ".agent" / "sessions" / f"{s.id}.jsonl"
        started = datetime.strptime(s.id[:15], "%Y%m%d-%H%M%S").replace(tzinfo=UTC)
        assert before <= started <= after  # named by when it began, however slow the machine
        s.append({"role": "user", "content": "hello"})
    first, second = _lines(s)
    assert first["type"] == "meta" and first["content"]["kind"] == "guide"
    assert second == {
        "type": "user",
        "ts": second["ts"],
        "content": {"role": "user", "content": "hello"},
    }
    with mem.session() as other:
        assert other.id != s.id and other.path != s.path


def test_outside_a_project_sessions_live_in_the_home(sandbox: Path) -> None:
    elsewhere = sandbox / "elsewhere"
    elsewhere.mkdir()
    m = Memory(cwd=elsewhere)
    if m.project_root is not None:
        pytest.skip("the temp directory is inside a project")
    with m.session() as s:
        assert s.path.parent == sandbox / "home" / "sessions"
    assert [i.id for i in m.sessions()] == [s.id]


# -- C3: disk first ------------------------------------------------------------------------
def test_append_is_on_disk_when_it_returns(mem: Memory) -> None:
    with mem.session() as s:
        for i in range(5):
            s.append({"role": "user", "content": f"message {i}"})
            # a separate reader (no shared state) sees the line the moment append returns
            assert mem.read_session(s.id).messages == s.messages
        assert [m["content"] for m in s.messages] == [f"message {i}" for i in range(5)]


DISK_FULL = """
import resource, signal, sys
from memdir import Memory, MemdirError
s = Memory().session(sys.argv[1])
before = list(s.messages)
size = s.path.stat().st_size
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # get EFBIG instead of being killed
resource.setrlimit(resource.RLIMIT_FSIZE, (size + 100, resource.RLIM_INFINITY))
try:
    s.append({"role": "user", "content": "x" * 10_000})
except MemdirError as exc:
    print("refused:", exc)
assert s.messages == before, "memory changed although the disk write failed"
resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
s.append({"role": "user", "content": "ok"})  # small enough: a fresh line after the torn one
print(len(s.messages))
"""


def test_a_failed_disk_write_leaves_memory_unchanged(mem: Memory) -> None:
    with mem.session() as s:
        s.append({"role": "user", "content": "first"})
    result = subprocess.run(
        [sys.executable, "-c", DISK_FULL, s.id], env=_env(), capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "refused:" in result.stdout and "the message was not added" in result.stdout
    assert result.stdout.split()[-1] == "2"
    again = mem.read_session(s.id)
    assert [m["content"] for m in again.messages] == ["first", "ok"]
    assert len(again.problems) == 1  # the partial line is reported, not fatal


def test_bad_messages_are_refused_before_anything_is_written(mem: Memory) -> None:
    with mem.session() as s:
        size = s.path.stat().st_size
        for bad in (
            {"role": "user", "content": {1, 2}},
            {"role": "user", "content": float("nan")},
            {"role": "system", "content": "you are"},
            {"content": "no role"},
        ):
            with pytest.raises(ValidationError):
                s.append(bad)
        with pytest.raises(ValidationError):
            s.append("just text")  # type: ignore[arg-type]
        assert s.path.stat().st_size == size and s.messages == []


# -- C1: one writer ------------------------------------------------------------------------
SECOND_WRITER = """
import sys
from memdir import Memory, SessionBusyError
try:
    Memory().session(sys.argv[1]).append({"role": "user", "content": "intruder"})
except SessionBusyError as exc:
    print("busy:", exc)
    sys.exit(3)
"""


def test_a_second_writer_gets_a_clear_error(mem: Memory) -> None:
    s = mem.session()
    s.append({"role": "user", "content": "mine"})
    before = s.path.read_bytes()
    with pytest.raises(SessionBusyError, match="another process"):
        mem.session(s.id)  # same process, second open file: refused too
    child = subprocess.run(
        [sys.executable, "-c", SECOND_WRITER, s.id], env=_env(), capture_output=True, text=True
    )
    assert child.returncode == 3, child.stderr
    assert f"session {s.id} is open for writing" in child.stdout
    assert s.path.read_bytes() == before  # nothing interleaved
    assert mem.read_session(s.id).messages == s.messages  # readers are never blocked
    s.close()
    child = subprocess.run([sys.executable, "-c", SECOND_WRITER, s.id], env=_env())
    assert child.returncode == 0
    assert [m["content"] for m in mem.read_session(s.id).messages] == ["mine", "intruder"]


# -- crash test ----------------------------------------------------------------------------
CRASH_WRITER = """
import sys
from memdir import Memory
sid, shape = sys.argv[1], sys.argv[2]
s = Memory().session(sid)
seq = s.messages[-1]["seq"] + 1 if s.messages else 0
print("ready", flush=True)
pad = "p" * (1 << 20)  # 1 MiB lines: a kill can land inside their write
while True:
    step, big = seq % 4, pad if seq % 5 == 0 else ""
    if step == 0:
        m = {"role": "user", "content": f"request {seq} {big}"}
    elif step == 1 and shape == "openai":
        m = {"role": "assistant", "content": None, "tool_calls": [{"id": f"c{seq}",
             "type": "function", "function": {"name": "read", "arguments": "{}"}}]}
    elif step == 1:
        m = {"role": "assistant", "content": [{"type": "tool_use", "id": f"c{seq}",
             "name": "read", "input": {}}]}
    elif step == 2 and shape == "openai":
        m = {"role": "tool", "tool_call_id": f"c{seq - 1}", "content": f"result {big}"}
    elif step == 2:
        m = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"c{seq - 1}",
             "content": f"result {big}"}]}
    else:
        m = {"role": "assistant", "content": f"answer {seq}"}
    s.append({**m, "seq": seq})
    print(seq, flush=True)  # after each completed append: the parent kills inside the next
    seq += 1
"""


@pytest.mark.slow
def test_sigkill_at_random_moments_loses_at_most_the_line_being_written(mem: Memory) -> None:
    policy = mem.project_root / ".agent" / "memory-policy.yaml"  # type: ignore[operator]
    policy.write_text("compaction:\n  threshold_tokens: 1000000000\n")  # keep this about I/O
    sids = {}
    for shape in ("openai", "anthropic"):
        with mem.session() as s:
            sids[shape] = s.id
    rng = random.Random(20261129)
    kills, torn, retired, reported = 0, 0, 0, 0
    seen: dict[str, list[int]] = {"openai": [], "anthropic": []}
    problems = {"openai": 0, "anthropic": 0}
    with ForkServer(_env()) as writers:  # a real process per writer, Python started once
        for _ in range(50):
            shape = ("openai", "anthropic")[kills % 2]
            writers.start(CRASH_WRITER, sids[shape], shape)
            assert writers.readline() == "ready\n"
            done = [int(writers.readline()) for _ in range(rng.randint(0, 4))]  # not a clock
            reported += len(done)
            kills += writers.kill() == signal.SIGKILL
            s = mem.read_session(sids[shape])  # the same reading a resume does
            torn += len(s.problems) > problems[shape]
            seqs = [m["seq"] for m in s.messages]
            assert seqs == list(range(len(seqs))), "a complete line was lost or duplicated"
            assert not done or done[-1] < len(seqs), "an append the writer finished was lost"
            assert seqs[: len(seen[shape])] == seen[shape], "an earlier line changed"
            seen[shape] = seqs
            assert len(s.problems) <= problems[shape] + 1  # at most the line being written
            problems[shape] = len(s.problems)
            messages = _request(mem, s, shape)
            (assert_valid_openai if shape == "openai" else assert_valid_anthropic)(messages)
            if s.path.stat().st_size > 24 << 20:  # keep each check fast: go on in a new file
                retired += len(seqs)
                with mem.session() as fresh:
                    sids[shape], seen[shape], problems[shape] = fresh.id, [], 0
    assert kills == 50  # every writer was still writing: it never stops by itself
    written = retired + sum(map(len, seen.values()))
    assert written >= reported > 50, "the writers hardly wrote anything"
    print(f"{kills} kills, {written} messages, {torn} torn lines skipped and reported")
    for sid in sids.values():  # a resumed writer continues cleanly after the last kill
        with mem.session(sid) as s:
            s.append({"role": "user", "content": "after the crashes", "seq": len(s.messages)})
        again = mem.read_session(sid)
        assert again.messages[-1]["content"] == "after the crashes"
        assert [m["seq"] for m in again.messages] == list(range(len(again.messages)))


def test_a_torn_last_line_is_skipped_and_reported(mem: Memory) -> None:
    with mem.session() as s:
        s.append({"role": "user", "content": "one"})
        s.append({"role": "assistant", "content": "two"})
    data = s.path.read_bytes()
    s.path.write_bytes(data[:-20])  # the last write cut short
    with mem.session(s.id) as resumed:
        assert [m["content"] for m in resumed.messages] == ["one"]
        [problem] = resumed.problems
        assert "cut short by a crash" in problem.reason and problem.severity == "warning"
        resumed.append({"role": "assistant", "content": "two again"})
        resumed.append({"role": "user", "content": "three"})
    after = mem.read_session(s.id)
    assert [m["content"] for m in after.messages] == ["one", "two again", "three"]
    assert b"\n\n" not in after.path.read_bytes()  # one fresh line, then business as usual
    assert len(after.problems) == 1 and "skipped" in after.problems[0].reason
    assert after.path.read_bytes().startswith(data[:-20] + b"\n")  # the torn bytes are kept


def test_garbage_lines_anywhere_are_skipped(mem: Memory) -> None:
    with mem.session() as s:
        s.append({"role": "user", "content": "one"})
    with open(s.path, "ab") as f:
        f.write(b'not json\n{"type": "bogus", "ts": "x", "content": {}}\n[1, 2]\n\xff\xfe\n')
    with mem.session(s.id) as s2:
        s2.append({"role": "user", "content": "two"})
    again = mem.read_session(s.id)
    assert [m["content"] for m in again.messages] == ["one", "two"]
    assert len(again.problems) == 4


# -- C2: content kept as sent --------------------------------------------------------------
ANTHROPIC = [
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "看看 main.py", "cache_control": {"type": "ephemeral"}}
        ],
    },
    {
        "role": "assistant",
        "id": "msg_01",
        "model": "claude-x",
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 10, "output_tokens": 3, "cache_read_input_tokens": 0},
        "content": [
            {"type": "thinking", "thinking": "Let me read it.", "signature": "EqQBCgIYAh…=="},
            {"type": "redacted_thinking", "data": "abc=="},
            {"type": "text", "text": "Reading.", "citations": None},
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "read",
                "input": {"path": "main.py", "n": 1.5e-7},
            },
            {
                "type": "server_tool_use",
                "id": "srvtoolu_1",
                "name": "web_search",
                "input": {"q": "x"},
            },
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
        ],
    },
    {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_1",
                "is_error": False,
                "content": [
                    {"type": "text", "text": "print('hi')\n"},
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"},
                    },
                ],
            },
            {"type": "text", "text": "and?"},
        ],
    },
    {
        "role": "assistant",
        "content": "Done. \u2028 😀 \x00 half an emoji: \ud83d",
        "x-unknown": {"nested": [1, None, True]},
    },
]
OPENAI = [
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "hi"},
            {"type": "image_url", "image_url": {"url": "data:,"}},
        ],
        "name": "ana",
    },
    {
        "role": "assistant",
        "content": None,
        "refusal": None,
        "annotations": [],
        "audio": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "f", "arguments": '{"a": 1}'},
            },
            {"id": "call_2", "type": "function", "function": {"name": "g", "arguments": "{}"}},
        ],
        "reasoning_content": "hmm",
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "1"},
    {"role": "tool", "tool_call_id": "call_2", "content": [{"type": "text", "text": "2"}]},
    {
        "role": "assistant",
        "content": "done",
        "provider_specific": {"seed": 12345678901234567890, "p": 0.1},
    },
]


@pytest.mark.parametrize("messages", [ANTHROPIC, OPENAI], ids=["anthropic", "openai"])
def test_content_survives_a_round_trip_unchanged(
    mem: Memory, messages: list[dict[str, Any]]
) -> None:
    original = json.dumps(messages, ensure_ascii=False)
    with mem.session() as s:
        for message in messages:
            s.append(message)
        assert s.messages == messages
    # the caller's dicts were not touched, and later changes to them do not reach the history
    assert json.dumps(messages, ensure_ascii=False) == original
    messages[-1]["content"] = "changed after append"
    back = mem.read_session(s.id).messages
    assert json.dumps(back, ensure_ascii=False) == original  # same keys, order, values
    with mem.session(s.id) as resumed:
        assert json.dumps(resumed.messages, ensure_ascii=False) == original
    stored = [line["content"] for line in _lines(s) if line["type"] != "meta"]
    assert json.dumps(stored, ensure_ascii=False) == original
    types = [line["type"] for line in _lines(s) if line["type"] != "meta"]
    assert types == (
        ["user", "assistant", "tool_result", "assistant"]
        if len(types) == 4
        else ["user", "assistant", "tool_result", "tool_result", "assistant"]
    )


# -- C5: repair ----------------------------------------------------------------------------
def _openai_call(*ids: str) -> dict[str, Any]:
    calls = [
        {"id": i, "type": "function", "function": {"name": "run", "arguments": "{}"}} for i in ids
    ]
    return {"role": "assistant", "content": None, "tool_calls": calls}


def _anthropic_call(*ids: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": i, "name": "run", "input": {}} for i in ids],
    }


def _anthropic_result(*ids: str, text: str | None = None) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = [
        {"type": "tool_result", "tool_use_id": i, "content": "ok"} for i in ids
    ]
    if text:
        blocks.append({"type": "text", "text": text})
    return {"role": "user", "content": blocks}


OPENAI_BROKEN = {
    "dangling at the end": [{"role": "user", "content": "go"}, _openai_call("a", "b")],
    "half answered": [
        {"role": "user", "content": "go"},
        _openai_call("a", "b"),
        {"role": "tool", "tool_call_id": "a", "content": "ok"},
        {"role": "user", "content": "and now?"},
    ],
    "orphan result": [
        {"role": "user", "content": "go"},
        {"role": "tool", "tool_call_id": "zz", "content": "late"},
        {"role": "assistant", "content": "hi"},
    ],
}
ANTHROPIC_BROKEN = {
    "dangling at the end": [{"role": "user", "content": "go"}, _anthropic_call("a")],
    "dangling, then the person spoke": [
        {"role": "user", "content": "go"},
        _anthropic_call("a", "b"),
        {"role": "user", "content": "still there?"},
    ],
    "half answered": [
        {"role": "user", "content": "go"},
        _anthropic_call("a", "b"),
        _anthropic_result("b", text="also this"),
    ],
    "orphan result": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "hi"},
        _anthropic_result("zz", text="keep me"),
    ],
}


@pytest.mark.parametrize("case", list(OPENAI_BROKEN))
def test_repair_openai_chains(mem: Memory, case: str) -> None:
    with mem.session() as s:
        for message in OPENAI_BROKEN[case]:
            s.append(message)
    before = s.path.read_bytes()
    with mem.session(s.id) as resumed:
        assert resumed.notices, "the repair is reported"
        sent = _request(mem, resumed, "openai")
    assert_valid_openai(sent)
    assert s.path.read_bytes() == before  # repair is a view: the file keeps what happened
    interrupted = [m for m in sent if m.get("content") == INTERRUPTED]
    assert (
        len(interrupted) == {"dangling at the end": 2, "half answered": 1, "orphan result": 0}[case]
    )
    assert all(m["role"] == "tool" for m in interrupted)
    if case == "orphan result":
        assert [m["role"] for m in sent] == ["user", "assistant"]


@pytest.mark.parametrize("case", list(ANTHROPIC_BROKEN))
def test_repair_anthropic_chains(mem: Memory, case: str) -> None:
    with mem.session() as s:
        for message in ANTHROPIC_BROKEN[case]:
            s.append(message)
    with mem.session(s.id) as resumed:
        sent = _request(mem, resumed, "anthropic")
    assert_valid_anthropic(sent)
    texts = json.dumps(sent, ensure_ascii=False)
    if case == "half answered":
        assert "also this" in texts and texts.count(INTERRUPTED) == 1
    if case == "orphan result":
        assert "keep me" in texts and "zz" not in texts
    if case.startswith("dangling"):
        assert texts.count(INTERRUPTED) == len(ANTHROPIC_BROKEN[case][1]["content"])
        results = [m for m in sent if INTERRUPTED in json.dumps(m)]
        assert all(b["is_error"] for m in results for b in m["content"])


def test_repair_is_pure_and_keeps_stored_messages_untouched() -> None:
    messages = ANTHROPIC_BROKEN["half answered"]
    frozen = json.dumps(messages)
    first, notes = repair(messages)
    second, _ = repair(messages)
    assert first == second and notes
    assert json.dumps(messages) == frozen


def test_a_call_answered_after_the_crash_is_not_split_by_the_note(mem: Memory) -> None:
    with mem.session() as s:
        s.append({"role": "user", "content": "go"})
        s.append(_openai_call("a"))
    later = datetime.now(UTC) + timedelta(days=2)
    with mem.session(s.id, now=later) as resumed:  # note recorded after the dangling call
        resumed.append({"role": "tool", "tool_call_id": "a", "content": "ran it again"})
        sent = _request(mem, resumed, "openai")
    assert_valid_openai(sent)
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "user"]
    assert "2 days since the last conversation" in sent[-1]["content"]


# -- C5: the "N days since" note -----------------------------------------------------------
def test_a_gap_over_24_hours_adds_one_note(mem: Memory) -> None:
    with mem.session() as s:
        s.append({"role": "user", "content": "let's continue tomorrow"})
        s.append({"role": "assistant", "content": "sure"})
    last = mem.read_session(s.id).last_message_time()
    assert last is not None
    with mem.session(s.id, now=last + timedelta(hours=23)) as r:
        assert not any("since the last conversation" in n for n in r.notices)
    with mem.session(s.id, now=last + timedelta(days=3, hours=2)) as r:
        assert any("3 days since the last conversation" in n for n in r.notices)
        sent = _request(mem, r, "openai")
    assert (
        sent[-1]["role"] == "user" and "3 days since the last conversation" in sent[-1]["content"]
    )
    with mem.session(s.id, now=last + timedelta(days=4)) as r:  # resumed again: still one note
        assert not any("since the last conversation" in n for n in r.notices)
        r.append({"role": "user", "content": "back"})
        sent = _request(mem, r, "openai")
    notes = [m for m in sent if "since the last conversation" in str(m["content"])]
    assert len(notes) == 1 and sent[-1]["content"] == "back"
    assert len(mem.read_session(s.id).meta("note")) == 1


def test_a_single_day_reads_naturally(mem: Memory) -> None:
    with mem.session() as s:
        s.append({"role": "user", "content": "x"})
    last = mem.read_session(s.id).last_message_time()
    assert last is not None
    with mem.session(s.id, now=last + timedelta(hours=30)) as r:
        assert any("1 day since the last conversation" in n for n in r.notices)


# -- C4: listing ---------------------------------------------------------------------------
def test_listing_reads_names_and_last_lines(mem: Memory, sandbox: Path) -> None:
    folder = sandbox / "project" / ".agent" / "sessions"
    t0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    _write_session(
        folder,
        "20260102-030405-aaaa",
        [_msg("user", "hi", t0), _msg("assistant", "hello there", t0 + timedelta(hours=5))],
    )
    torn = _write_session(folder, "20260101-000000-bbbb", [_msg("user", "first", t0)])
    with open(torn, "a") as f:
        f.write('{"type": "user", "ts": "2026-')
    (folder / "20260103-000000-cccc.jsonl").write_bytes(b"")
    (folder / "notes.txt").write_text("not a session")
    (folder / "2026-bad-name.jsonl").write_text("{}\n")
    infos = mem.sessions()
    assert [i.id for i in infos] == [
        "20260101-000000-bbbb",
        "20260102-030405-aaaa",
        "20260103-000000-cccc",
    ]
    torn_info, full, empty = infos
    assert full.started == t0 and full.last_active == t0 + timedelta(hours=5)
    assert full.last_type == "assistant" and full.preview == "hello there"
    assert torn_info.last_active == t0 and torn_info.preview == "first"  # torn tail skipped
    assert empty.last_active is None and empty.size == 0


def _read_bytes_so_far() -> int:
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar")


def test_listing_reads_only_the_tail_of_each_file(mem: Memory, sandbox: Path) -> None:
    if not Path("/proc/self/io").exists():
        pytest.skip("needs Linux /proc/self/io to count bytes read")
    folder = sandbox / "project" / ".agent" / "sessions"
    t0 = datetime(2026, 1, 2, tzinfo=UTC)
    big = [_msg("user", "x" * 100_000, t0 + timedelta(minutes=i)) for i in range(100)]
    _write_session(folder, "20260102-000000-aaaa", big)  # a 10 MB transcript
    # a last line much longer than one read: the tail grows until it holds a whole line
    _write_session(folder, "20260102-000000-bbbb", [_msg("user", "y" * 300_000, t0)])
    before = _read_bytes_so_far()
    infos = list_sessions(folder)
    read = _read_bytes_so_far() - before
    assert [i.last_active for i in infos] == [t0 + timedelta(minutes=99), t0]
    assert read < 1_000_000, f"listing read {read} bytes of ~10.3 MB"


# -- C6: retention -------------------------------------------------------------------------
def _old_session(folder: Path, sid: str, days_ago: float) -> Path:
    when = datetime.now(UTC) - timedelta(days=days_ago)
    return _write_session(
        folder, sid, [_msg("user", f"{sid} question", when), _msg("assistant", "answer", when)]
    )


def test_prune_distills_then_archives_and_deletes_nothing_by_default(
    mem: Memory, sandbox: Path
) -> None:
    folder = sandbox / "project" / ".agent" / "sessions"
    old = _old_session(folder, "20250101-000000-0001", 45)
    _old_session(folder, "20250101-000000-0002", 10)
    with mem.session() as fresh:
        fresh.append({"role": "user", "content": "today"})
    before = {p: p.read_bytes() for p in folder.glob("*.jsonl")}
    plan = mem.prune_sessions(dry_run=True)
    assert [(a.session.id, a.action) for a in plan.plan] == [("20250101-000000-0001", "archive")]
    assert {p: p.read_bytes() for p in folder.glob("*.jsonl")} == before  # dry run: untouched
    distilled: list[tuple[str, bool, int]] = []

    def distill(session: Session) -> None:
        distilled.append((session.id, session.path.exists(), len(session.messages)))

    report = mem.prune_sessions(distill=distill)
    assert distilled == [("20250101-000000-0001", True, 2)]  # handed over before it moved
    assert [a.session.id for a in report.done] == ["20250101-000000-0001"]
    archived = folder / "archive" / old.name
    assert archived.read_bytes() == before[old] and not old.exists()
    assert [i.id for i in mem.sessions(archived=True)] == ["20250101-000000-0001"]
    assert len(mem.sessions()) == 2
    with pytest.raises(NotFoundError, match="archived"):
        mem.session("20250101-000000-0001")  # not resumed from the archive...
    assert mem.read_session("20250101-000000-0001").messages  # ...but still readable
    # default policy: archived sessions are never deleted, however old
    assert mem.prune_sessions(now=datetime.now(UTC) + timedelta(days=3650), dry_run=True).plan
    assert all(
        a.action == "archive"
        for a in mem.prune_sessions(now=datetime.now(UTC) + timedelta(days=3650), dry_run=True).plan
    )


def test_prune_age_is_configurable(mem: Memory, sandbox: Path) -> None:
    folder = sandbox / "project" / ".agent" / "sessions"
    _old_session(folder, "20250101-000000-0001", 10)
    assert mem.prune_sessions(dry_run=True).plan == []  # default 30 days
    assert len(mem.prune_sessions(older_than=timedelta(days=7), dry_run=True).plan) == 1
    (sandbox / "project" / ".agent" / "memory-policy.yaml").write_text(
        "sessions:\n  retention_days: 5\n"
    )
    assert len(mem.prune_sessions(dry_run=True).plan) == 1


def test_deletion_only_when_the_policy_says_so(mem: Memory, sandbox: Path) -> None:
    folder = sandbox / "project" / ".agent" / "sessions"
    policy = sandbox / "project" / ".agent" / "memory-policy.yaml"
    old = _old_session(folder, "20250101-000000-0001", 45)
    archived = _old_session(folder / "archive", "20240101-000000-0002", 400)
    policy.write_text("sessions:\n  delete_archived_after_days: 365\n")
    plan = mem.prune_sessions(dry_run=True).plan
    assert sorted((a.session.id, a.action) for a in plan) == [
        ("20240101-000000-0002", "delete"),
        ("20250101-000000-0001", "archive"),
    ]
    seen: list[str] = []
    mem.prune_sessions(distill=lambda s: seen.append(s.id))
    assert seen == ["20250101-000000-0001"]  # already-archived sessions were distilled before
    assert not archived.exists() and (folder / "archive" / old.name).exists()
    policy.write_text("sessions:\n  on_expiry: delete\n")
    new_old = _old_session(folder, "20250101-000000-0003", 45)
    mem.prune_sessions(distill=lambda s: seen.append(s.id))
    assert seen[-1] == "20250101-000000-0003" and not new_old.exists()
    assert not (folder / "archive" / new_old.name).exists()


def test_prune_skips_a_session_in_use_or_whose_distill_failed(mem: Memory, sandbox: Path) -> None:
    folder = sandbox / "project" / ".agent" / "sessions"
    busy = _old_session(folder, "20250101-000000-0001", 45)
    failing = _old_session(folder, "20250101-000000-0002", 45)

    def distill(session: Session) -> None:
        if session.id.endswith("0002"):
            raise MemdirError("the extractor could not parse the model's answer")

    with Session.open(busy, write=True):  # another writer holds it (without writing)
        report = mem.prune_sessions(distill=distill)
    assert report.done == []
    why = {a.session.id: reason for a, reason in report.skipped}
    assert "open for writing" in why["20250101-000000-0001"]
    assert "could not parse" in why["20250101-000000-0002"]
    assert busy.exists() and failing.exists()
