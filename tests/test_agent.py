"""The agent loop in process: a scripted model behind a loopback server (both wire formats,
streamed), the memory tool, the session file, extraction, compaction and the sleep hook."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memdir import Memory
from memdir.agent import (
    QUIET,
    Agent,
    AgentEvent,
    LLMSummarizer,
    assistant_message,
    run_sleep,
)
from memdir.chain import repair
from memdir.errors import ProviderError, ValidationError
from memdir.providers import LLM, AnthropicMessages, LLMResponse, OpenAIChat, ToolCall
from scripted_model import Brain, Call, Request, Say, memory_call, script, serve
from waiting import HANG_GUARD_S

PREFERENCE = "/memories/user/prefers-tabs.md"


def provider(wire: str, url: str) -> LLM:
    if wire == "anthropic":
        return AnthropicMessages("claude-test", api_key="sk-ant-test", base_url=url)
    return OpenAIChat("test-model", base_url=f"{url}/v1", api_key="sk-test")


def run(agent: Agent, text: str) -> list[AgentEvent]:
    return list(agent.send(text))


def kinds(events: list[AgentEvent]) -> list[str]:
    out: list[str] = []
    for event in events:
        if not (out and out[-1] == event.kind == "text"):
            out.append(event.kind)
    return out


def stored_chain_is_valid(path: Path) -> None:
    messages = [
        json.loads(line)["content"]
        for line in path.read_text(encoding="utf-8").splitlines()
        if json.loads(line)["type"] in ("user", "assistant", "tool_result")
    ]
    _, repairs = repair(messages)
    assert repairs == [], repairs


def tool_brain() -> Brain:
    """Views the memories, then stores a preference file, then answers."""
    text = "Prefers tabs over spaces.\n\n**Why:** said so."
    return script(
        memory_call(command="view", path="/memories"),
        memory_call(command="create", path=PREFERENCE, file_text=text),
        Say("Noted: tabs from now on."),
    )


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_a_turn_with_memory_tool_calls_is_stored_in_the_providers_shape(
    mem: Memory, wire: str
) -> None:
    with serve(tool_brain()) as (model, url):
        agent = Agent(mem, provider(wire, url))
        events = run(agent, "I like tabs more than spaces")
        agent.close()
    assert kinds(events) == [
        "tool_call",
        "tool_result",
        "tool_call",
        "tool_result",
        "text",
        "turn_end",
    ]
    assert events[-1].text == "Noted: tabs from now on."
    assert "".join(e.text for e in events if e.kind == "text") == events[-1].text
    record = mem.get("prefers-tabs")
    assert (record.scope, record.type, record.source) == ("user", "user", "inferred")
    assert mem.history("prefers-tabs")[0].actor == "agent"
    # every request: system, then the guide as the first user message, then the chain
    first, second, third = model.requests
    assert first.person == "I like tabs more than spaces" and not first.after_tool
    assert "MEMORY.md" in first.guide or "memor" in first.guide.lower()
    assert first.system == second.system == third.system
    assert first.guide == third.guide
    tools = first.body["tools"]
    assert (tools[0]["function"]["name"] if wire == "openai" else tools[0]["name"]) == "memory"
    # the file holds the provider's own messages, disk first, with a valid chain
    lines = [json.loads(x) for x in agent.session.path.read_text().splitlines()]
    types = [x["type"] for x in lines if x["type"] != "meta"]
    if wire == "openai":
        assert types == [
            "user",
            "assistant",
            "tool_result",
            "assistant",
            "tool_result",
            "assistant",
        ]
        call = lines[2]["content"]["tool_calls"][0]
        assert call["type"] == "function" and json.loads(call["function"]["arguments"]) == {
            "command": "view",
            "path": "/memories",
        }
    else:
        assert types == [
            "user",
            "assistant",
            "tool_result",
            "assistant",
            "tool_result",
            "assistant",
        ]
        blocks = lines[3]["content"]["content"]
        assert blocks[0]["type"] == "tool_result" and blocks[0]["tool_use_id"].startswith("call_")
    stored_chain_is_valid(agent.session.path)


def test_an_explicit_request_is_stored_at_once_and_the_model_is_told(mem: Memory) -> None:
    with serve(lambda r: Say("Stored.")) as (model, url):
        agent = Agent(mem, provider("openai", url))
        events = run(agent, "Remember that we deploy with Argo CD")
        agent.close()
    assert kinds(events) == ["remembered", "text", "turn_end"]
    [record] = events[0].records
    assert (record.type, record.scope, record.source) == ("project", "project", "user")
    assert mem.get(record.name).quote == "Remember that we deploy with Argo CD"
    [request] = model.requests
    last = request.body["messages"][-1]
    assert last["role"] == "user" and last["content"].startswith("[memdir] Stored")
    assert record.name in last["content"] and "do not save it again" in last["content"]
    assert request.person == "Remember that we deploy with Argo CD"
    mem.flush_extraction()
    assert [r.name for r in mem.list()] == [record.name]  # extraction did not store it twice


def test_after_turn_extracts_the_finished_turn_in_the_background(mem: Memory) -> None:
    with serve(lambda r: Say("Sure.")) as (_, url):
        agent = Agent(mem, provider("openai", url))
        run(agent, "I prefer short answers without emoji.")
        agent.close()
    assert mem.flush_extraction(timeout=HANG_GUARD_S)
    [record] = mem.list()
    assert (record.type, record.source) == ("feedback", "user")


def test_broken_arguments_and_unknown_tools_are_answered_not_raised(mem: Memory) -> None:
    def brain(request: Request) -> Say | Call:
        if request.after_tool:
            return Say("ok")
        return Call((("shell", {"cmd": "ls"}), ("memory", {"command": "nope"})))

    with serve(brain) as (model, url):
        agent = Agent(mem, provider("anthropic", url))
        events = run(agent, "look around")
        agent.close()
    results = [e.text for e in events if e.kind == "tool_result"]
    assert results[0].startswith("Error: there is no tool named 'shell'")
    assert results[1].startswith("Error: Unknown command 'nope'")
    blocks = model.requests[1].body["messages"][-1]["content"]
    assert [b.get("is_error") for b in blocks] == [True, True]
    call = ToolCall("c", "memory", {"_raw_arguments": "{x", "_arguments_error": "not JSON"})
    assert agent.run_tool(call).startswith("Error: not JSON; call memory again")


def test_a_model_that_never_stops_calling_tools_is_stopped_with_a_valid_chain(
    mem: Memory,
) -> None:
    with serve(lambda r: memory_call(command="view", path="/memories")) as (model, url):
        agent = Agent(mem, provider("openai", url), max_tool_rounds=2)
        events = run(agent, "loop forever")
        agent.close()
    assert events[-1].kind == "notice" and "kept calling tools" in events[-1].text
    assert len(model.requests) == 4  # two rounds, one past the limit, then stopped
    limited = [e.text for e in events if e.kind == "tool_result"][-1]
    assert "tool-call limit" in limited
    stored_chain_is_valid(agent.session.path)


class Plain(LLM):
    """A provider with no streaming of its own and no raw body: the loop builds the messages."""

    model_id = "plain"

    def __init__(self, wire: str) -> None:
        self.wire_format = wire  # type: ignore[assignment]
        self.seen: list[list[dict[str, Any]]] = []

    def complete(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        system: str | None = None,
        json_schema: Mapping[str, Any] | None = None,
        schema_name: str = "output",
        tools: Sequence[Mapping[str, Any]] | None = None,
        max_tokens: int = 1024,
        temperature: float = 0.0,
    ) -> LLMResponse:
        self.seen.append([dict(m) for m in messages])
        if len(self.seen) == 1:
            return LLMResponse(
                "", (ToolCall("t1", "memory", {"command": "view", "path": "/memories"}),)
            )
        return LLMResponse("done")


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_any_llm_subclass_drives_the_loop(mem: Memory, wire: str) -> None:
    llm = Plain(wire)
    agent = Agent(mem, llm)
    events = run(agent, "what do you know?")
    agent.close()
    assert kinds(events) == ["tool_call", "tool_result", "text", "turn_end"]
    stored = agent.session.messages
    if wire == "openai":
        assert stored[1]["tool_calls"][0]["function"]["name"] == "memory"
        assert stored[2] == {"role": "tool", "tool_call_id": "t1", "content": events[1].text}
    else:
        assert stored[1]["content"][0]["type"] == "tool_use"
        assert stored[2]["content"][0]["tool_use_id"] == "t1"
    assert llm.seen[1][-1] == stored[2]  # what was stored is what is sent next


def test_assistant_message_keeps_the_providers_message() -> None:
    raw = {"choices": [{"message": {"role": "assistant", "content": "x", "reasoning": "r"}}]}
    assert assistant_message(LLMResponse("x", raw=raw), "openai") == raw["choices"][0]["message"]
    blocks = [
        {"type": "thinking", "thinking": "t", "signature": "s"},
        {"type": "text", "text": "x"},
    ]
    message = assistant_message(LLMResponse("x", raw={"content": blocks}), "anthropic")
    assert message == {"role": "assistant", "content": blocks}


def test_a_long_conversation_is_compacted_through_the_facade(mem: Memory) -> None:
    policy = "compaction:\n  threshold_tokens: 2500\nconversation:\n  max_messages: 4\n"
    (mem.project_root / ".agent" / "memory-policy.yaml").write_text(policy, encoding="utf-8")
    with serve(lambda r: Say("An answer that takes some room. " * 20)) as (model, url):
        agent = Agent(mem, provider("openai", url))
        events: list[AgentEvent] = []
        for i in range(8):
            events += run(agent, f"question {i}: " + "tell me more about it " * 15)
        agent.close()
    assert "compacted" in kinds(events)
    last = model.requests[-1]
    assert last.guide == model.requests[0].guide  # the guide is re-sent first, unchanged
    assert "Summary of the earlier part" in json.dumps(last.body["messages"][2])
    assert agent.session.summary is not None


@pytest.mark.parametrize("works", [True, False])
def test_compaction_summaries_come_from_the_model_or_say_why_not(mem: Memory, works: bool) -> None:
    policy = "compaction:\n  threshold_tokens: 2500\nconversation:\n  max_messages: 4\n"
    (mem.project_root / ".agent" / "memory-policy.yaml").write_text(policy, encoding="utf-8")

    def brain(request: Request) -> Say:
        if "Summarise the earlier part" in request.person:
            return Say("The person asked questions 0 to 3 about it." if works else "  ")
        return Say("An answer that takes some room. " * 20)

    with serve(brain) as (model, url):
        llm = provider("openai", url)
        summarizer = LLMSummarizer(llm)
        agent = Agent(mem, llm, summarizer=summarizer)
        events: list[AgentEvent] = []
        for i in range(8):
            events += run(agent, f"question {i}: " + "tell me more about it " * 15)
        agent.close()
    summary = agent.session.summary
    assert summary is not None
    asked = [r for r in model.requests if "Summarise the earlier part" in r.person]
    assert asked and "[user] question 0: tell me more" in asked[0].person
    assert "tools" not in asked[0].body  # a plain completion, not a chat turn
    if works:
        assert summary.content["by"] == "llm:openai:test-model:summary-v1"
        assert "questions 0 to 3" in json.dumps(model.requests[-1].body["messages"][2])
        assert "notice" not in kinds(events)
    else:
        assert summary.content["by"] == "memdir-rules-v1"
        [notice] = [e.text for e in events if e.kind == "notice"]
        assert "empty summary" in notice and "rule summary was used" in notice


def test_a_failing_model_keeps_the_persons_message(mem: Memory) -> None:
    llm = OpenAIChat("m", base_url="http://127.0.0.1:9/v1", max_retries=0, timeout=2)
    agent = Agent(mem, llm)
    with pytest.raises(ProviderError, match="connection failed"):
        run(agent, "are you there?")
    assert agent.session.messages == [{"role": "user", "content": "are you there?"}]
    with pytest.raises(ValidationError, match="empty message"):
        run(agent, "  ")
    agent.close()


def test_sleep_after_a_conversation_only_after_a_quiet_period(mem: Memory) -> None:
    """The hook runs the real Memory.sleep: right away for /sleep, and at the end of a chat
    only when the project had been quiet before the conversation began."""
    mem.remember("Use pnpm in JS projects", type="feedback")
    mem.remember("Use pnpm in JS projects", type="feedback", name="pnpm-again")  # a duplicate
    now = datetime.now(UTC)
    busy = run_sleep(mem, quiet_since=now - timedelta(minutes=5), now=now)
    assert busy.startswith("sleep skipped: the project was active 5 min")
    assert len(mem.list()) == 2
    done = run_sleep(mem, quiet_since=now - QUIET - timedelta(minutes=1), now=now)
    assert done.startswith("sleep sleep-") and "memdir undo sleep-" in done
    assert len(mem.list()) == 1  # the duplicate was merged
    assert run_sleep(mem, now=now) == "sleep: nothing to consolidate"


def test_a_request_after_a_greeting_is_stored_once_and_acknowledged(mem: Memory) -> None:
    text = "Thanks. Remember that we deploy on Fridays. 好的。记住我们周五开周会。"
    with serve(lambda r: Say("Noted both.")) as (model, url):
        agent = Agent(mem, provider("openai", url))
        events = run(agent, text)
        agent.close()
    assert kinds(events) == ["remembered", "text", "turn_end"]  # told once, before the reply
    stored = events[0].records
    assert [r.statement for r in stored] == ["We deploy on Fridays", "我们周五开周会"]
    last = model.requests[0].body["messages"][-1]["content"]
    assert all(r.name in last for r in stored)  # the model is told, so it can acknowledge
    assert mem.flush_extraction(timeout=HANG_GUARD_S)
    assert sorted(c.name for c in mem.history() if c.op == "create") == sorted(
        r.name for r in stored
    )


def test_is_error_follows_the_result_not_its_wording() -> None:
    """Issue 19: ``is_error`` came from ``startswith("Error")`` and missed failures worded
    otherwise; it is the tool result's ``ok`` now."""
    from memdir.agent import tool_results
    from memdir.tools import ToolResult

    calls = [ToolCall(f"c{i}", "memory", {}) for i in range(3)]
    results = [
        (calls[0], ToolResult("No replacement was performed, old_str `x` …", False)),
        (calls[1], ToolResult("Error: Unknown command 'nope'", False)),
        (calls[2], ToolResult("Error handling is documented in errors.md", True)),
    ]
    blocks = tool_results(results, "anthropic")[0]["content"]
    assert [b.get("is_error", False) for b in blocks] == [True, True, False]
