"""What the model sees (SPEC E1–E4, C5, C7) and the policy that shapes it (H1).

The system message is short and stable; the memory guide is the first user message, carries
indexes and never bodies, is cut at policy limits with a pointer, is built once per session and
sent byte-for-byte the same after a resume; compaction past the token threshold folds older turns
into one summary without separating a tool call from its result, and the guide comes back first.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memdir import ConfigError, Memory, Policy, ValidationError
from memdir.context import GUIDANCE, SYSTEM, RuleSummarizer, SummaryRequest, dumps
from memdir.policy import load_policy
from memdir.tokens import count_messages, count_text, with_margin
from provider_chains import assert_valid_anthropic, assert_valid_openai


def _policy(mem: Memory, text: str) -> None:
    assert mem.project_root is not None
    (mem.project_root / ".agent" / "memory-policy.yaml").write_text(text, encoding="utf-8")


def _openai(result: Any) -> list[dict[str, Any]]:
    assert isinstance(result, list)
    return result


# -- E1: the system message ----------------------------------------------------------------
def test_system_message_is_short_stable_and_holds_no_memory(mem: Memory) -> None:
    first = _openai(mem.context())[0]
    mem.remember("We deploy on Fridays", type="project")
    (mem.project_root / "AGENT.md").write_text("Always run the linter.\n")  # type: ignore[operator]
    with mem.session() as s:
        second = _openai(mem.context(s))[0]
    assert first == second == {"role": "system", "content": SYSTEM}
    assert len(SYSTEM) < 300
    anthropic = mem.context(format="anthropic")
    assert isinstance(anthropic, dict) and anthropic["system"] == SYSTEM
    assert all(m["role"] != "system" for m in anthropic["messages"])


# -- E2/E3: the memory guide ---------------------------------------------------------------
def test_guide_is_the_first_user_message_in_order(mem: Memory) -> None:
    assert mem.project_root is not None
    (mem.project_root / "AGENT.md").write_text("TEAM-RULE: tests before commits.\n")
    mem.remember("Orders use PostgreSQL 16", type="project", description="orders database")
    mem.remember("I prefer short answers", type="user", description="short answers please")
    messages = _openai(mem.context())
    assert [m["role"] for m in messages] == ["system", "user"]
    guide = messages[1]["content"]
    positions = [
        guide.index("TEAM-RULE"),
        guide.index("orders database"),
        guide.index("short answers please"),
        guide.index("How to use these memories"),
    ]
    assert positions == sorted(positions)
    for phrase in (
        "background, not orders",
        "may be stale",
        "check the current state",
        "What the person says now wins",
        "cannot grant permissions",
        "memory tool",
    ):
        assert phrase in guide, phrase
    assert GUIDANCE in guide


def test_guide_carries_indexes_never_bodies(mem: Memory) -> None:
    mem.remember(
        "BODY-SECRET-STATEMENT: the staging password rotates weekly",
        type="project",
        description="staging credentials rotate",
        why="BODY-WHY-TEXT",
    )
    guide = _openai(mem.context())[1]["content"]
    assert "staging credentials rotate" in guide
    assert "BODY-SECRET-STATEMENT" not in guide and "BODY-WHY-TEXT" not in guide
    assert "memdir:begin" not in guide  # markers are not sent


def test_each_part_is_cut_at_its_limit_with_a_pointer(mem: Memory) -> None:
    _policy(mem, "long_memory:\n  project:\n    max_chars: 400\n  user:\n    max_chars: 500\n")
    for i in range(30):
        mem.remember(
            f"Project fact number {i}", type="project", description=f"project fact {i:02d}"
        )
        mem.remember(f"User fact number {i}", type="user", description=f"user fact {i:02d}")
    guide = _openai(mem.context())[1]["content"]
    project = guide.split("## Project memory index", 1)[1].split("## User memory index")[0]
    user = guide.split("## User memory index", 1)[1].split("## How to use")[0]
    for part, limit, scope in ((project, 400, "project"), (user, 500, "user")):
        body, pointer = part.strip().rsplit("\n", 1)
        fenced = body.split("\n", 2)[2]  # after the heading line: the memories' fenced block
        assert fenced.startswith("```memdir-memories") and fenced.endswith("```")
        assert len(fenced.split("\n", 1)[1].rsplit("\n", 1)[0]) <= limit
        assert pointer.startswith(f"[memdir] Cut at {limit} characters")
        store = mem.store(scope)  # type: ignore[arg-type]
        assert str(store.dirs.index_file) in pointer and "more line(s)" in pointer
    assert "project fact 00" in project and "project fact 29" not in project


def test_instruction_limit_comes_from_the_policy(mem: Memory) -> None:
    assert mem.project_root is not None
    (mem.project_root / "AGENT.md").write_text("".join(f"rule {i}\n" for i in range(200)))
    _policy(mem, "instructions:\n  max_chars: 300\n")
    guide = _openai(mem.context())[1]["content"]
    assert "rule 0\n" in guide and "rule 199" not in guide
    assert f"are in {mem.project_root / 'AGENT.md'}" in guide


# -- E4: built once per session ------------------------------------------------------------
def test_guide_is_recorded_and_resumes_byte_for_byte(mem: Memory) -> None:
    mem.remember("Use pnpm", type="feedback")
    s = mem.session()
    s.append({"role": "user", "content": "hello"})
    s.append({"role": "assistant", "content": "hi"})
    before = dumps(mem.context(s, "anthropic"))
    mem.remember("LEARNED-DURING-THE-SESSION", type="feedback")
    assert mem.project_root is not None
    (mem.project_root / "AGENT.md").write_text("NEW-INSTRUCTION\n")
    assert dumps(mem.context(s, "anthropic")) == before  # same session: same guide
    s.close()
    resumed = Memory().session(s.id)  # a fresh process would do exactly this
    assert dumps(Memory().context(resumed, "anthropic")) == before
    resumed.append({"role": "user", "content": "more"})
    after = dumps(Memory().context(resumed, "anthropic"))
    assert after[: len(before) - 2] == before[:-2]  # old request is a prefix: caches hit
    resumed.close()
    with mem.session() as new:
        guide = _openai(mem.context(new))[1]["content"]
    assert "LEARNED-DURING-THE-SESSION" in guide and "NEW-INSTRUCTION" in guide
    [record] = mem.read_session(s.id).meta("guide")
    assert "LEARNED-DURING-THE-SESSION" not in record.content["text"]


# -- E4: the memories recalled for the first user message ---------------------------------
RECALLED = "## Recalled for the first message"


def test_no_recalled_block_unless_the_policy_asks(mem: Memory) -> None:
    mem.remember("We use pnpm for every JavaScript package", type="project")
    with mem.session() as s:
        s.append({"role": "user", "content": "which package manager do we use?"})
        assert RECALLED not in _openai(mem.context(s))[1]["content"]
        assert s.meta("recalled") == []


def test_the_first_message_recalls_once_and_the_bytes_stay(mem: Memory) -> None:
    _policy(mem, "long_memory:\n  recalled: 2\n")
    pnpm = mem.remember("We use pnpm for every JavaScript package", type="project")
    mem.remember("The staging database resets every Sunday", type="project")
    s = mem.session()
    assert RECALLED not in _openai(mem.context(s))[1]["content"]  # nothing asked yet
    s.append({"role": "user", "content": "which package manager do we use?"})
    first = _openai(mem.context(s))
    guide = first[1]["content"]
    assert RECALLED in guide and f"project/{pnpm.name} (project): We use pnpm" in guide
    assert first[2] == {"role": "user", "content": "which package manager do we use?"}
    [record] = s.meta("recalled")
    assert record.content["names"][0] == f"project/{pnpm.name}"
    [stored] = s.meta("guide")
    assert RECALLED not in stored.content["text"]  # the guide itself is unchanged
    # later memories, messages and a resume do not change what was recalled
    mem.remember("We switched to bun for every JavaScript package", type="project")
    s.append({"role": "assistant", "content": "pnpm"})
    s.append({"role": "user", "content": "and for the staging database?"})
    assert _openai(mem.context(s))[1]["content"] == guide
    s.close()
    resumed = Memory().session(s.id)
    assert _openai(Memory().context(resumed))[1]["content"] == guide
    assert len(resumed.meta("recalled")) == 1
    resumed.close()
    log = mem.store("project").dirs.recalls.read_text(encoding="utf-8").splitlines()
    asked = [json.loads(line)["query"] for line in log]
    assert asked.count("which package manager do we use?") == 1  # tracked, and only once


def test_a_read_only_session_computes_the_block_without_writing(mem: Memory) -> None:
    mem.remember("We use pnpm for every JavaScript package", type="project")
    with mem.session() as s:
        s.append({"role": "user", "content": "which package manager do we use?"})
        sid = s.id
    _policy(mem, "long_memory:\n  recalled: 1\n")
    view = mem.read_session(sid)
    assert RECALLED in _openai(mem.context(view))[1]["content"]
    assert mem.read_session(sid).meta("recalled") == []


# -- formats -------------------------------------------------------------------------------
def test_formats(mem: Memory) -> None:
    with mem.session() as s:
        s.append({"role": "user", "content": "hello"})
        s.append({"role": "assistant", "content": "hi"})
        openai = _openai(mem.context(s, "openai"))
        anthropic = mem.context(s, "anthropic")
        text = mem.context(s, "text")
        assert isinstance(anthropic, dict) and isinstance(text, str)
        assert openai[1:] == anthropic["messages"]
        assert text.startswith(f"=== system ===\n{SYSTEM}")
        assert "=== user (memory guide) ===" in text and "=== assistant ===\nhi" in text
        with pytest.raises(ValidationError, match="format must be one of"):
            mem.context(s, "xml")


def test_a_shape_mismatch_says_which_format_to_use(mem: Memory) -> None:
    with mem.session() as s:
        s.append({"role": "user", "content": "go"})
        s.append({"role": "assistant", "content": None, "tool_calls": [_call("a")]})
        s.append({"role": "tool", "tool_call_id": "a", "content": "ok"})
        with pytest.raises(ValidationError, match="format='openai'"):
            mem.context(s, "anthropic")
        assert_valid_openai(_openai(mem.context(s, "openai"))[2:])


# -- tokens --------------------------------------------------------------------------------
def test_token_estimate_rule() -> None:
    assert count_text("") == 0
    assert count_text("abcd" * 25) == 25  # other characters / 4
    assert count_text("记忆系统") == 4  # one per CJK character
    assert count_text("用 pnpm 安装") == 3 + 2  # 3 CJK + ceil(6 others / 4)
    assert count_text("カタカナ한국어") == 7
    assert with_margin(100) == 120
    assert count_messages([{"role": "user", "content": "abcd"}]) > count_text("abcd")


# -- C7: compaction ------------------------------------------------------------------------
def _call(call_id: str, name: str = "run_tests") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}


def _conversation(turns: int, *, size: int = 400) -> list[dict[str, Any]]:
    """``turns`` user turns, each with a tool call and its result, padded to ``size`` chars."""
    out: list[dict[str, Any]] = []
    for t in range(turns):
        out.append({"role": "user", "content": f"request {t}: " + "x" * size})
        out.append({"role": "assistant", "content": None, "tool_calls": [_call(f"c{t}")]})
        result = "error: 2 failed" if t % 3 == 0 else "all passed " + "y" * size
        out.append({"role": "tool", "tool_call_id": f"c{t}", "content": result})
        out.append({"role": "assistant", "content": f"answer {t}"})
    return out


def _fill(mem: Memory, messages: Sequence[dict[str, Any]]) -> str:
    with mem.session() as s:
        for message in messages:
            s.append(message)
        return s.id


def test_no_compaction_under_the_threshold(mem: Memory) -> None:
    sid = _fill(mem, _conversation(5))
    with mem.session(sid) as s:
        sent = _openai(mem.context(s))
        assert s.summary is None and len(sent) == 2 + 20


def test_past_the_threshold_older_turns_become_one_summary(mem: Memory) -> None:
    _policy(mem, "compaction:\n  threshold_tokens: 3000\nconversation:\n  max_messages: 8\n")
    messages = _conversation(20)
    sid = _fill(mem, messages)
    with mem.session(sid) as s:  # restored history over the threshold: compacted at resume
        assert s.summary is not None and any("compacted" in n for n in s.notices)
        sent = _openai(mem.context(s))
        file_after_resume = s.path.read_bytes()
        assert _openai(mem.context(s)) == sent  # nothing more to do: no second summary
        assert s.path.read_bytes() == file_after_resume
    assert sent[0]["role"] == "system" and sent[1]["content"].startswith("# Memory guide")
    summary = sent[2]["content"]
    assert summary.startswith("[memdir] Summary of the earlier part")
    assert "First request: request 0:" in summary
    assert "run_tests ×" in summary and "error" in summary and "ok" in summary
    tail = sent[3:]
    assert tail == messages[-len(tail) :]  # recent turns verbatim, exactly as stored
    assert 0 < len(tail) <= 8 and tail[0]["role"] == "user"  # cut at a turn start
    assert_valid_openai(tail)
    record = mem.read_session(sid).summary
    assert record is not None and record.content["by"] == "memdir-rules-v1"
    assert record.content["covers"] == len(messages) - len(tail)
    policy = mem.policy()
    tokens = with_margin(count_messages(sent))
    assert tokens <= policy.compaction.threshold_tokens


def test_a_call_and_its_result_are_never_split(mem: Memory) -> None:
    # one long user turn of many tool calls: no turn start to cut at, so the cut must fall
    # on an assistant message that starts a new call, never between a call and its result
    _policy(mem, "compaction:\n  threshold_tokens: 2000\nconversation:\n  max_messages: 7\n")
    messages: list[dict[str, Any]] = [{"role": "user", "content": "fix all the tests"}]
    for i in range(30):
        calls = [_call(f"c{i}a", "read"), _call(f"c{i}b", "edit")]
        messages.append({"role": "assistant", "content": None, "tool_calls": calls})
        messages.append({"role": "tool", "tool_call_id": f"c{i}a", "content": "z" * 300})
        messages.append({"role": "tool", "tool_call_id": f"c{i}b", "content": "done"})
    sid = _fill(mem, messages)
    with mem.session(sid) as s:
        sent = _openai(mem.context(s))
    tail = sent[3:]
    assert tail and tail[0]["role"] == "assistant" and tail[0]["tool_calls"]
    assert len(tail) <= 7
    assert_valid_openai(tail)
    assert tail == messages[-len(tail) :]
    record = mem.read_session(sid).summary  # the summary itself ends on a whole group,
    assert record is not None  # not on a result the repair would then have to cut
    assert record.content["covers"] == len(messages) - len(tail)


def test_anthropic_compaction_keeps_pairs_and_the_guide(mem: Memory) -> None:
    _policy(mem, "compaction:\n  threshold_tokens: 2500\n")
    messages: list[dict[str, Any]] = []
    for t in range(25):
        messages.append({"role": "user", "content": f"请求 {t}：" + "内容" * 60})
        use = {"type": "tool_use", "id": f"t{t}", "name": "grep", "input": {"q": "x"}}
        messages.append({"role": "assistant", "content": [{"type": "text", "text": "找"}, use]})
        result = {"type": "tool_result", "tool_use_id": f"t{t}", "content": "行" * 80}
        messages.append({"role": "user", "content": [result]})
        messages.append({"role": "assistant", "content": f"答 {t}"})
    sid = _fill(mem, messages)
    guide_before = mem.read_session(sid).meta("guide")[0].content["text"]
    with mem.session(sid) as s:
        request = mem.context(s, "anthropic")
    assert isinstance(request, dict)
    sent = request["messages"]
    assert sent[0] == {"role": "user", "content": guide_before}  # re-injected, unchanged
    assert sent[1]["content"].startswith("[memdir] Summary")
    assert "grep ×" in sent[1]["content"] and "请求 0" in sent[1]["content"]
    assert_valid_anthropic(sent[2:])
    assert sent[2:] == messages[-len(sent[2:]) :]


def test_compacting_again_folds_the_previous_summary(mem: Memory) -> None:
    _policy(mem, "compaction:\n  threshold_tokens: 3000\nconversation:\n  max_messages: 8\n")
    sid = _fill(mem, _conversation(20))
    with mem.session(sid) as s:
        first = s.summary
        for message in _conversation(20)[:60]:
            s.append({**message, "content": message["content"]})
        mem.context(s)
        second = s.summary
    assert first is not None and second is not None and second is not first
    assert second.content["text"].startswith("Earlier: ")
    assert second.content["covers"] > first.content["covers"]


class _EchoSummarizer:
    """A summarizer the way an LLM one plugs in: a real object with the protocol's shape."""

    name = "echo-v1"

    def __init__(self) -> None:
        self.requests: list[SummaryRequest] = []

    def summarize(self, request: SummaryRequest) -> str:
        self.requests.append(request)
        return f"ECHO {len(request.messages)} messages of {request.session_id}"


def test_a_configured_summarizer_is_used(mem: Memory) -> None:
    _policy(mem, "compaction:\n  threshold_tokens: 3000\n")
    sid = _fill(mem, _conversation(20))
    echo = _EchoSummarizer()
    with mem.session(sid, summarizer=echo) as s:
        sent = _openai(mem.context(s, summarizer=echo))
    assert len(echo.requests) == 1 and echo.requests[0].previous is None
    assert sent[2]["content"].endswith(f"ECHO {len(echo.requests[0].messages)} messages of {sid}")
    record = mem.read_session(sid).summary
    assert record is not None and record.content["by"] == "echo-v1"


def test_the_rule_summary_is_deterministic() -> None:
    messages = _conversation(6)
    one = RuleSummarizer().summarize(SummaryRequest("s", messages, None))
    two = RuleSummarizer().summarize(SummaryRequest("s", json.loads(json.dumps(messages)), None))
    assert one == two
    assert "run_tests ×6 (2 error, 4 ok)" in one


def test_reading_a_session_over_the_threshold_writes_nothing(mem: Memory) -> None:
    sid = _fill(mem, _conversation(20))
    _policy(mem, "compaction:\n  threshold_tokens: 3000\n")
    path = mem.read_session(sid).path
    before = path.read_bytes()
    view = mem.context(mem.read_session(sid))
    assert path.read_bytes() == before  # read-only: compacted in view only
    with mem.session(sid) as s:  # a writer records the same compaction, and sends the same
        assert mem.context(s) == view


def test_resume_after_days_adds_the_note_after_a_compaction(mem: Memory) -> None:
    _policy(mem, "compaction:\n  threshold_tokens: 3000\n")
    sid = _fill(mem, _conversation(20))
    later = datetime.now(UTC) + timedelta(days=5)
    with mem.session(sid, now=later) as s:
        sent = _openai(mem.context(s, now=later))
    assert "5 days since the last conversation" in sent[-1]["content"]
    assert sent[2]["content"].startswith("[memdir] Summary")


# -- H1: the policy file -------------------------------------------------------------------
def test_policy_defaults_are_built_in(tmp_path: Path) -> None:
    policy = load_policy(tmp_path / "missing.yaml")
    assert policy == Policy()
    assert policy.sessions.retention_days == 30 and policy.sessions.on_expiry == "archive"
    assert policy.sessions.delete_archived_after_days is None
    assert policy.conversation.max_messages == 30
    assert policy.long_memory.project.max_chars == 3000
    assert policy.long_memory.user.max_chars == 4000
    assert policy.compaction.threshold_tokens == 100_000
    assert policy.instructions.file_names == ("AGENT.md", "AGENTS.md", "CLAUDE.md")
    (tmp_path / "empty.yaml").write_text("")
    assert load_policy(tmp_path / "empty.yaml") == Policy()


def test_policy_file_overrides_only_what_it_says(mem: Memory) -> None:
    _policy(mem, "sessions:\n  retention_days: 7\nlong_memory:\n  user:\n    max_chars: 900\n")
    policy = mem.policy()
    assert policy.sessions.retention_days == 7 and policy.long_memory.user.max_chars == 900
    assert policy.long_memory.project.max_chars == 3000
    assert policy.to_dict()["sessions"]["retention_days"] == 7


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("sessions:\n  on_expiry: shred\n", "sessions.on_expiry must be one of archive, delete"),
        ("sessions:\n  retention_days: -1\n", "sessions.retention_days must be a whole number"),
        ("sessions:\n  retention_days: true\n", "sessions.retention_days must be a whole number"),
        ("long_memory:\n  project:\n    max_chars: lots\n", "long_memory.project.max_chars"),
        ("sessions: 3\n", "`sessions` must be a mapping"),
        ("instructions:\n  file_names: []\n", "instructions.file_names must be a non-empty list"),
        ("sessions: [unclosed\n", "is not valid YAML"),
    ],
)
def test_a_bad_policy_names_the_key_and_what_is_allowed(
    mem: Memory, text: str, expected: str
) -> None:
    _policy(mem, text)
    with pytest.raises(ConfigError, match=r"memory-policy\.yaml") as info:
        mem.policy()
    assert expected in str(info.value)
    with pytest.raises(ConfigError):
        mem.session()  # nothing starts on a policy that does not load
