"""Providers on the wire: real loopback servers speaking OpenAI chat completions and Anthropic
messages, retries, timeouts and errors, and ``get_llm`` from the settings."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from memdir.errors import ProviderError, ValidationError
from memdir.providers import (
    ARGUMENTS_ERROR,
    LLM,
    RAW_ARGUMENTS,
    AnthropicMessages,
    OpenAIChat,
    RejectedRequest,
    ToolCall,
    get_llm,
    llm_configured,
)
from memdir.settings import load_settings, set_values
from wire_server import HANG, Reply, anthropic_answer, openai_answer, serving

SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
    "required": ["name", "age"],
}
TOOL = {
    "name": "search",
    "description": "Search the memories.",
    "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}},
}


@pytest.fixture(autouse=True)
def no_llm_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("PROVIDER", "BASE_URL", "MODEL", "API_KEY", "TIMEOUT", "MAX_RETRIES"):
        monkeypatch.delenv(f"MEMDIR_LLM_{name}", raising=False)


class Waits:
    """Records the provider's backoff waits instead of sleeping them."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def openai(url: str, **kwargs: object) -> OpenAIChat:
    options: dict[str, object] = {"api_key": "sk-test", "backoff": 0.001, "max_retries": 2}
    options.update(kwargs)
    return OpenAIChat("m", base_url=f"{url}/v1", **options)  # type: ignore[arg-type]


# --- OpenAI chat completions ---------------------------------------------------------------


def test_openai_sends_the_chat_completions_request() -> None:
    with serving(Reply(body=openai_answer("hello"))) as server:
        answer = openai(server.url).complete(
            [{"role": "user", "content": "hi"}], system="be brief", max_tokens=7, temperature=0.3
        )
    assert (answer.text, answer.stop_reason, answer.tool_calls) == ("hello", "stop", ())
    assert answer.raw["id"] == "chatcmpl-1"
    [request] = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test"
    assert request.headers["content-type"] == "application/json"
    assert request.body == {
        "model": "m",
        "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}],
        "max_tokens": 7,
        "temperature": 0.3,
    }


def test_openai_without_a_key_sends_no_authorization() -> None:
    with serving(Reply(body=openai_answer())) as server:
        OpenAIChat("m", base_url=f"{server.url}/v1/").complete([{"role": "user", "content": "x"}])
    assert "authorization" not in server.requests[0].headers
    assert server.requests[0].path == "/v1/chat/completions"


def test_openai_json_schema_becomes_a_strict_response_format() -> None:
    with serving(Reply(body=openai_answer('{"name": "Al", "age": 3}'))) as server:
        answer = openai(server.url).complete(
            [{"role": "user", "content": "Al is 3"}], json_schema=SCHEMA, schema_name="person"
        )
    assert json.loads(answer.text) == {"name": "Al", "age": 3}
    body = server.requests[0].body
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "person", "schema": SCHEMA, "strict": True},
    }
    assert [m["role"] for m in body["messages"]] == ["user"]  # the schema is not in the prompt


def test_openai_tools_and_tool_calls() -> None:
    calls = [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "search", "arguments": '{"query": "pnpm"}'},
        },
        {"id": "call_2", "type": "function", "function": {"name": "search", "arguments": "{bad"}},
    ]
    shaped = {"type": "function", "function": {"name": "view", "parameters": {"type": "object"}}}
    with serving(Reply(body=openai_answer(None, calls, "tool_calls"))) as server:
        answer = openai(server.url).complete(
            [{"role": "user", "content": "find"}], tools=[TOOL, shaped]
        )
    assert server.requests[0].body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "search",
                "parameters": TOOL["input_schema"],
                "description": "Search the memories.",
            },
        },
        shaped,
    ]
    assert answer.text == "" and answer.stop_reason == "tool_calls"
    first, second = answer.tool_calls
    assert first == ToolCall("call_1", "search", {"query": "pnpm"})
    assert second.name == "search" and second.arguments[RAW_ARGUMENTS] == "{bad"
    assert "not valid JSON" in second.arguments[ARGUMENTS_ERROR]


def test_openai_translates_tool_calls_and_results_in_the_history() -> None:
    history = [
        {"role": "user", "content": "find pnpm"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "c1", "name": "search", "arguments": {"query": "pnpm"}},
                ToolCall("c2", "view", {"path": "/memories"}),
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "no match"},
        {"role": "tool", "tool_call_id": "c2", "content": [{"type": "text", "text": "a.md"}]},
    ]
    with serving(Reply(body=openai_answer())) as server:
        openai(server.url).complete(history)
    sent = server.requests[0].body["messages"]
    assert sent[1] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "search", "arguments": '{"query": "pnpm"}'},
            },
            {
                "id": "c2",
                "type": "function",
                "function": {"name": "view", "arguments": '{"path": "/memories"}'},
            },
        ],
    }
    assert sent[2] == {"role": "tool", "tool_call_id": "c1", "content": "no match"}
    assert json.loads(sent[3]["content"]) == [{"type": "text", "text": "a.md"}]


def test_openai_falls_back_when_response_format_is_rejected_and_remembers() -> None:
    unsupported = {"error": {"message": "response_format json_schema is not supported"}}
    also = {"error": {"message": "Invalid response_format type json_object"}}
    replies = [Reply(400, unsupported), Reply(400, also), Reply(body=openai_answer('{"a": 1}'))]
    with serving(*replies) as server:
        llm = openai(server.url)
        answer = llm.complete([{"role": "user", "content": "x"}], json_schema=SCHEMA)
        again = llm.complete([{"role": "user", "content": "y"}], json_schema=SCHEMA)
    assert answer.text == again.text == '{"a": 1}'
    bodies = [r.body for r in server.requests]
    assert [b.get("response_format", {}).get("type") for b in bodies] == [
        "json_schema",
        "json_object",
        None,
        None,  # remembered: the second call goes straight to the level that worked
    ]
    assert llm.response_format == "none"
    # below the first level the schema travels in the system message
    system = bodies[2]["messages"][0]
    assert system["role"] == "system" and json.dumps(SCHEMA, sort_keys=True) in system["content"]
    assert "JSON" in bodies[1]["messages"][0]["content"]  # json_object mode needs the word


def test_openai_json_object_fallback_keeps_the_callers_system_message() -> None:
    rejected = {"error": {"message": "unknown field response_format"}}
    with serving(Reply(400, rejected), Reply(body=openai_answer("{}"))) as server:
        openai(server.url).complete(
            [{"role": "user", "content": "x"}], system="You extract.", json_schema=SCHEMA
        )
    system = server.requests[1].body["messages"][0]["content"]
    assert system.startswith("You extract.\n\n") and '"required"' in system
    assert server.requests[1].body["response_format"] == {"type": "json_object"}


def test_openai_adapts_to_models_that_refuse_max_tokens_and_temperature() -> None:
    no_max_tokens = {
        "error": {
            "message": "Unsupported parameter: 'max_tokens' is not supported with this model. "
            "Use 'max_completion_tokens' instead.",
            "param": "max_tokens",
            "code": "unsupported_parameter",
        }
    }
    no_temperature = {
        "error": {
            "message": "Unsupported value: 'temperature' does not support 0.0 with this model. "
            "Only the default (1) value is supported.",
            "param": "temperature",
            "code": "unsupported_value",
        }
    }
    replies = [Reply(400, no_max_tokens), Reply(400, no_temperature), Reply(body=openai_answer())]
    with serving(*replies) as server:
        llm = openai(server.url)
        llm.complete([{"role": "user", "content": "x"}], max_tokens=50)
        llm.complete([{"role": "user", "content": "y"}], max_tokens=60)
    first, second, third, fourth = (r.body for r in server.requests)
    assert first["max_tokens"] == 50 and "max_completion_tokens" not in first
    assert second["max_completion_tokens"] == 50 and "max_tokens" not in second
    assert "temperature" in second and "temperature" not in third
    assert fourth["max_completion_tokens"] == 60 and "temperature" not in fourth  # remembered


def test_openai_other_400_is_not_a_fallback_and_not_retried() -> None:
    with (
        serving(Reply(400, {"error": {"message": "max_tokens is too large"}})) as server,
        pytest.raises(RejectedRequest) as caught,
    ):
        openai(server.url).complete([{"role": "user", "content": "x"}], json_schema=SCHEMA)
    assert len(server.requests) == 1
    assert caught.value.status == 400
    assert "max_tokens is too large" in str(caught.value) and server.url in str(caught.value)


def test_openai_400_about_response_format_without_a_schema_is_an_error() -> None:
    with (
        serving(Reply(400, {"error": {"message": "bad response_format"}})) as server,
        pytest.raises(ProviderError),
    ):
        openai(server.url).complete([{"role": "user", "content": "x"}])
    assert len(server.requests) == 1


# --- retries, timeouts, errors (shared by every provider through Endpoint) -----------------


def test_429_then_success_honours_retry_after() -> None:
    waits = Waits()
    limited = Reply(429, {"error": {"message": "slow down"}}, {"Retry-After": "7"})
    with serving(limited, Reply(body=openai_answer("fine"))) as server:
        answer = openai(server.url, sleep=waits, max_backoff=60.0).complete(
            [{"role": "user", "content": "x"}]
        )
    assert answer.text == "fine" and len(server.requests) == 2
    assert waits.delays == [7.0]


def test_retry_after_as_an_http_date_in_the_past_means_the_usual_backoff() -> None:
    waits = Waits()
    dated = Reply(503, "busy", {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"})
    with serving(dated, Reply(body=openai_answer())) as server:
        openai(server.url, sleep=waits, backoff=0.25).complete([{"role": "user", "content": "x"}])
    assert len(server.requests) == 2
    [delay] = waits.delays
    assert 0.125 <= delay <= 0.25


def test_retry_after_longer_than_memdir_waits_fails_at_once() -> None:
    waits = Waits()
    with (
        serving(Reply(429, {}, {"Retry-After": "3600"})) as server,
        pytest.raises(ProviderError, match="3600"),
    ):
        openai(server.url, sleep=waits).complete([{"role": "user", "content": "x"}])
    assert len(server.requests) == 1 and waits.delays == []


def test_500_then_success_backs_off_exponentially() -> None:
    waits = Waits()
    replies = [Reply(500, "oops"), Reply(503, "busy"), Reply(body=openai_answer("up"))]
    with serving(*replies) as server:
        answer = openai(server.url, sleep=waits, backoff=1.0).complete(
            [{"role": "user", "content": "x"}]
        )
    assert answer.text == "up" and len(server.requests) == 3
    first, second = waits.delays
    assert 0.5 <= first <= 1.0 and 1.0 <= second <= 2.0  # 2**attempt, jittered into [½, 1]


def test_5xx_every_time_is_a_provider_error_after_the_retries() -> None:
    with (
        serving(Reply(502, {"error": {"message": "bad gateway"}})) as server,
        pytest.raises(ProviderError) as caught,
    ):
        openai(server.url, max_retries=3).complete([{"role": "user", "content": "x"}])
    assert len(server.requests) == 4
    message = str(caught.value)
    assert f"{server.url}/v1/chat/completions" in message
    assert "HTTP 502" in message and "bad gateway" in message and "4 attempt" in message


def test_a_server_that_never_answers_times_out_after_the_retries() -> None:
    with serving(HANG) as server:
        llm = openai(server.url, timeout=0.3, max_retries=1)
        with pytest.raises(ProviderError) as caught:
            llm.complete([{"role": "user", "content": "x"}])
    assert len(server.requests) == 2
    assert "timed out" in str(caught.value) and "llm.timeout" in str(caught.value)


def test_401_fails_at_once_and_says_to_check_the_key() -> None:
    with (
        serving(Reply(401, {"error": {"message": "Incorrect API key provided"}})) as server,
        pytest.raises(ProviderError) as caught,
    ):
        openai(server.url).complete([{"role": "user", "content": "x"}])
    assert len(server.requests) == 1
    assert "HTTP 401" in str(caught.value) and "llm.api_key" in str(caught.value)
    assert "MEMDIR_LLM_API_KEY" in str(caught.value)


def test_404_points_at_the_base_url_and_model() -> None:
    with (
        serving(Reply(404, "404 page not found")) as server,
        pytest.raises(ProviderError, match=r"llm\.base_url"),
    ):
        openai(server.url).complete([{"role": "user", "content": "x"}])


def test_nothing_listening_is_a_connection_error_after_the_retries() -> None:
    with socket.socket() as probe:  # a port that was just free: nothing listens there now
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    waits = Waits()
    with pytest.raises(ProviderError) as caught:
        openai(f"http://127.0.0.1:{port}", sleep=waits).complete([{"role": "user", "content": "x"}])
    assert "connection failed" in str(caught.value) and "3 attempt" in str(caught.value)
    assert len(waits.delays) == 2


def test_an_answer_that_is_not_json_is_a_provider_error() -> None:
    with (
        serving(Reply(200, "<html>hello</html>")) as server,
        pytest.raises(ProviderError, match="not JSON"),
    ):
        openai(server.url).complete([{"role": "user", "content": "x"}])


def test_an_answer_without_choices_is_a_provider_error() -> None:
    with (
        serving(Reply(200, {"choices": []})) as server,
        pytest.raises(ProviderError, match="no choices"),
    ):
        openai(server.url).complete([{"role": "user", "content": "x"}])


def test_bad_messages_and_tools_are_refused_before_sending() -> None:
    llm = OpenAIChat("m", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ValidationError, match="role"):
        llm.complete([{"role": "robot", "content": "x"}])
    with pytest.raises(ValidationError, match="input_schema"):
        llm.complete([{"role": "user", "content": "x"}], tools=[{"description": "nameless"}])


# --- Anthropic messages ----------------------------------------------------------------------


def anthropic(url: str, **kwargs: object) -> AnthropicMessages:
    options: dict[str, object] = {"api_key": "sk-ant-test", "backoff": 0.001}
    options.update(kwargs)
    return AnthropicMessages("claude-x", base_url=url, **options)  # type: ignore[arg-type]


def test_anthropic_sends_the_messages_request() -> None:
    with serving(Reply(body=anthropic_answer({"type": "text", "text": "hi there"}))) as server:
        answer = anthropic(server.url).complete(
            [{"role": "user", "content": "hi"}], system="be brief", max_tokens=9
        )
    assert (answer.text, answer.stop_reason, answer.tool_calls) == ("hi there", "end_turn", ())
    [request] = server.requests
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == "sk-ant-test"
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in request.headers
    assert request.body == {
        "model": "claude-x",
        "max_tokens": 9,
        "temperature": 0.0,
        "messages": [{"role": "user", "content": "hi"}],
        "system": "be brief",
    }


def test_anthropic_json_schema_is_a_forced_tool_returned_as_text() -> None:
    block = {"type": "tool_use", "id": "tu_1", "name": "person", "input": {"name": "Al", "age": 3}}
    with serving(Reply(body=anthropic_answer(block, stop="tool_use"))) as server:
        answer = anthropic(f"{server.url}/v1").complete(
            [{"role": "user", "content": "Al is 3"}], json_schema=SCHEMA, schema_name="person"
        )
    assert json.loads(answer.text) == {"name": "Al", "age": 3}
    assert answer.tool_calls == ()  # the structured answer is the text, not a call to run
    body = server.requests[0].body
    assert server.requests[0].path == "/v1/messages"
    assert body["tool_choice"] == {"type": "tool", "name": "person"}
    assert body["tools"] == [
        {
            "name": "person",
            "description": "Give the answer as this tool's input.",
            "input_schema": SCHEMA,
        }
    ]


def test_anthropic_tool_use_becomes_tool_calls() -> None:
    blocks = (
        {"type": "text", "text": "Let me look."},
        {"type": "tool_use", "id": "tu_1", "name": "search", "input": {"query": "pnpm"}},
    )
    with serving(Reply(body=anthropic_answer(*blocks, stop="tool_use"))) as server:
        answer = anthropic(server.url).complete([{"role": "user", "content": "x"}], tools=[TOOL])
    assert server.requests[0].body["tools"] == [TOOL]
    assert "tool_choice" not in server.requests[0].body
    assert answer.text == "Let me look." and answer.stop_reason == "tool_use"
    assert answer.tool_calls == (ToolCall("tu_1", "search", {"query": "pnpm"}),)


def test_anthropic_translates_tool_calls_and_results_in_the_history() -> None:
    history = [
        {"role": "system", "content": "inline rule"},
        {"role": "user", "content": "find"},
        {
            "role": "assistant",
            "content": "Looking.",
            "tool_calls": [
                ToolCall("c1", "search", {"query": "a"}),
                {"id": "c2", "type": "function", "function": {"name": "view", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "none"},
        {"role": "tool", "tool_call_id": "c2", "content": "a.md", "is_error": True},
        {"role": "user", "content": "and?"},
    ]
    with serving(Reply(body=anthropic_answer())) as server:
        anthropic(server.url).complete(history, system="role")
    body = server.requests[0].body
    assert body["system"] == "role\n\ninline rule"
    assert body["messages"] == [
        {"role": "user", "content": "find"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Looking."},
                {"type": "tool_use", "id": "c1", "name": "search", "input": {"query": "a"}},
                {"type": "tool_use", "id": "c2", "name": "view", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "c1", "content": "none"},
                {"type": "tool_result", "tool_use_id": "c2", "content": "a.md", "is_error": True},
                {"type": "text", "text": "and?"},
            ],
        },
    ]


def test_anthropic_529_overloaded_is_retried() -> None:
    waits = Waits()
    overloaded = Reply(529, {"type": "error", "error": {"type": "overloaded_error"}})
    with serving(overloaded, Reply(body=anthropic_answer())) as server:
        answer = anthropic(server.url, sleep=waits).complete([{"role": "user", "content": "x"}])
    assert answer.text == "ok" and len(server.requests) == 2 and len(waits.delays) == 1


def test_anthropic_401_names_the_key() -> None:
    error = {
        "type": "error",
        "error": {"type": "authentication_error", "message": "invalid x-api-key"},
    }
    with (
        serving(Reply(401, error)) as server,
        pytest.raises(ProviderError, match=r"invalid x-api-key.*llm\.api_key"),
    ):
        anthropic(server.url).complete([{"role": "user", "content": "x"}])
    assert len(server.requests) == 1


# --- get_llm: settings → provider ----------------------------------------------------------


def test_get_llm_without_settings_says_what_to_set() -> None:
    assert not llm_configured()
    with pytest.raises(ProviderError) as caught:
        get_llm()
    message = str(caught.value)
    assert "llm.model" in message and "MEMDIR_LLM_MODEL" in message
    assert (
        "memdir config set llm.base_url http://localhost:11434/v1 llm.model qwen2.5:3b" in message
    )


def test_get_llm_names_only_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMDIR_LLM_BASE_URL", "http://localhost:11434/v1")
    with pytest.raises(ProviderError) as caught:
        get_llm()
    assert "set llm.model (or MEMDIR_LLM_MODEL)." in str(caught.value)


def test_get_llm_builds_the_configured_provider(sandbox: Path) -> None:
    set_values({"llm.base_url": "http://localhost:11434/v1", "llm.model": "qwen2.5:3b"})
    assert llm_configured()
    llm = get_llm()
    assert isinstance(llm, OpenAIChat) and llm.model_id == "openai:qwen2.5:3b"
    home = sandbox / "other-home"
    set_values({"llm.api_key": "sk-ant-1234567890", "llm.provider": "anthropic"}, home=home)
    assert not llm_configured(home=home)  # no model yet
    set_values({"llm.model": "claude-x"}, home=home)
    claude = get_llm(home=home)
    assert isinstance(claude, AnthropicMessages)
    assert claude.endpoint.url("v1/messages") == "https://api.anthropic.com/v1/messages"
    by_url = load_settings(environ={"MEMDIR_LLM_BASE_URL": "https://api.anthropic.com"})
    assert by_url.provider == "anthropic"


def test_get_llm_from_the_environment_talks_to_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    with serving(Reply(body=openai_answer("from env"))) as server:
        monkeypatch.setenv("MEMDIR_LLM_BASE_URL", f"{server.url}/v1")
        monkeypatch.setenv("MEMDIR_LLM_MODEL", "local-model")
        monkeypatch.setenv("MEMDIR_LLM_API_KEY", "sk-env")
        llm: LLM = get_llm()
        assert llm.complete([{"role": "user", "content": "x"}]).text == "from env"
    assert server.requests[0].body["model"] == "local-model"
    assert server.requests[0].headers["authorization"] == "Bearer sk-env"
