"""The rest of the seeds' lifecycle rules (issue 22 item 6), each driven through the real agent
loop with the scripted model, or through sleep on real files:

* tentative memories are marked in MEMORY.md and the guide, and the agent asks about one when it
  becomes relevant (seed 003 §5.1);
* project facts that hold across projects are proposed for the user scope with their provenance
  (seed 001's second filter);
* repeated procedures become skill memories offered at the start of a matching task (seed 003);
* when the project's stack differs from what most memories describe, those are set aside, not
  offered (seed 003 §5.2)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memdir import Memory
from memdir.agent import Agent
from memdir.errors import ProviderError
from memdir.lifecycle.stack import drift, memory_stack, project_stack
from memdir.providers import LLM, OpenAIChat
from scripted_model import Request, Say, serve
from waiting import HANG_GUARD_S


def provider(url: str) -> LLM:
    return OpenAIChat("test-model", base_url=f"{url}/v1", api_key="sk-test")


def ago(days: float) -> str:
    return (datetime.now(UTC) - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


def converse(mem: Memory, *texts: str) -> list[Request]:
    """One session of the real agent loop (a model that says "Okay."); the requests it sent."""
    with serve(lambda r: Say("Okay.")) as (model, url):
        agent = Agent(mem, provider(url))
        for text in texts:
            list(agent.send(text))
        # known before session end decides promotion (the timeout is only a hang guard)
        assert mem.flush_extraction(timeout=HANG_GUARD_S)
        agent.close()
    return model.requests


def notes_sent(request: Request) -> list[str]:
    return [
        str(m["content"])
        for m in request.body["messages"]
        if m.get("role") == "user" and str(m.get("content", "")).startswith("[memdir]")
    ]


def test_a_tentative_memory_is_marked_and_asked_about_when_it_becomes_relevant(
    mem: Memory,
) -> None:
    day = ago(1)  # said at the same moment: nothing says which is newer
    a = mem.remember("Personal projects deploy with fly", type="project", created=day)
    b = mem.remember("Personal projects deploy with k8s", type="project", created=day)
    mem.remember("The office is closed on Fridays", type="project", created=day)
    assert mem.sleep().plan.counts() == {"tentative": 1}  # type: ignore[union-attr]
    # marked in MEMORY.md and in the guide a new session gets
    index = mem.store("project").dirs.index_file.read_text(encoding="utf-8")
    line = next(x for x in index.splitlines() if f"({a.name}.md)" in x)
    assert f"(tentative: may conflict with {b.name}; ask the person" in line
    assert f"may conflict with {a.name}" in str(mem.context(format="text"))

    def brain(request: Request) -> Say:
        last = str(request.body["messages"][-1].get("content", ""))
        if "A tentative memory bears on this" in last:  # the note right after the message
            return Say("Before I answer: do personal projects deploy with fly or with k8s?")
        return Say("Sure.")

    with serve(brain) as (model, url):
        agent = Agent(mem, provider(url))
        unrelated = list(agent.send("Is the office open on Mondays?"))
        asked = list(agent.send("How should I deploy my personal projects?"))
        again = list(agent.send("And how do personal projects deploy on weekends?"))
        agent.close()
    assert unrelated[-1].text == "Sure."  # not relevant: not asked
    assert asked[-1].text.startswith("Before I answer")
    [note] = [n for n in notes_sent(model.requests[1]) if "tentative" in n]
    assert a.name in note and b.name in note and "Ask the person which holds" in note
    assert again[-1].text == "Sure."  # asked once per session, not at every turn
    assert len([n for n in notes_sent(model.requests[2]) if "tentative" in n]) == 1


def test_a_project_fact_that_holds_everywhere_is_proposed_for_the_user_scope(mem: Memory) -> None:
    mine = mem.remember("I prefer answers in British English", type="project", scope="project")
    bound = mem.remember("Our API handlers live in src/api/handlers.py", type="project")
    here = mem.remember("I prefer tabs in this repo", type="project")
    plan = mem.sleep().plan
    assert plan is not None
    [step] = [s for s in plan.steps if s.action == "propose"]
    assert step.names[0] == mine.name
    [proposed] = mem.list(scope="user")
    assert proposed.statement == mine.statement and proposed.confidence == "tentative"
    assert proposed.extra["proposed_from"] == str(mine.path)  # its provenance
    assert "does it hold in every project" in str(proposed.extra["review"])
    assert mem.get(mine.name).extra["proposed_as"] == f"user/{proposed.name}"
    assert "proposed_as" not in mem.get(bound.name).extra
    assert "proposed_as" not in mem.get(here.name).extra
    user_index = mem.store("user").dirs.index_file.read_text(encoding="utf-8")
    assert "(tentative: proposed from the project memory" in user_index
    # proposed once; accepted, the project copy is archived and points to where it lives now
    again = mem.sleep(dry_run=True).plan
    assert again is not None and not [s for s in again.steps if s.action == "propose"]
    mem.confirm(proposed.name)
    mem.sleep()
    [moved] = [r for r in mem.archived(scope="project") if r.name == mine.name]
    assert moved.extra["moved_to"] == f"user/{proposed.name}"
    assert mem.get(proposed.name).confidence == "confirmed"


def test_a_refused_proposal_leaves_the_fact_with_the_project(mem: Memory) -> None:
    mine = mem.remember("The user likes one-line commit messages", type="project")
    mem.sleep()
    [proposed] = mem.list(scope="user")
    mem.confirm(proposed.name, drop=True)
    mem.sleep()
    assert mem.list(scope="user") == []
    assert mem.get(mine.name).extra["proposed_as"] == f"user/{proposed.name}"  # never again


RELEASE = "To release: first bump the version, then run make dist, then upload with twine."


def test_a_repeated_procedure_becomes_a_skill_offered_when_a_matching_task_starts(
    mem: Memory,
) -> None:
    for _ in range(2):
        converse(mem, RELEASE)
    [skill] = [r for r in mem.list() if "skill" in r.tags]
    assert skill.statement.rstrip(".") == RELEASE.rstrip(".")
    assert skill.type in ("feedback", "project")
    first, second = converse(mem, "Please release version 2.1 today", "and release 2.2 later")
    [other] = converse(mem, "Which linter do we use?")
    [offered] = [n for n in notes_sent(first) if "Skills remembered" in n]
    assert skill.name in offered and "make dist" in offered
    assert [n for n in notes_sent(second) if "Skills remembered" in n] == [offered]  # not again
    assert not [n for n in notes_sent(other) if "Skills remembered" in n]


PYTHON = [
    "I write backends in Python with FastAPI",
    "Use pytest fixtures for test data",
    "Format code with ruff before committing",
]
START = "To start the service: first create a venv, then pip install -e ., then run uvicorn."


def _python_history(mem: Memory) -> None:
    for text in PYTHON:
        mem.remember(text, type="feedback")
    mem.remember(START, type="feedback", tags=["skill"])
    mem.remember("Answer in short sentences", type="feedback")


def test_after_a_stack_switch_old_stack_memories_are_set_aside_not_offered(mem: Memory) -> None:
    _python_history(mem)
    Path("pom.xml").write_text("<project/>\n", encoding="utf-8")
    first, second = converse(mem, "How do I start the service?", "And start it in debug mode?")
    notes = notes_sent(first)
    assert not [n for n in notes if "Skills remembered" in n]  # the Python skill is not offered
    [aside] = [n for n in notes if "set aside" in n]
    assert "This project uses java (pom.xml)" in aside and "describe python" in aside
    assert "start-the-service" in aside or "to-start-the-service" in aside
    assert notes_sent(second) == notes  # said once, not repeated


def test_without_a_switch_the_same_skill_is_offered(mem: Memory) -> None:
    _python_history(mem)
    Path("pyproject.toml").write_text("[project]\nname = 'svc'\n", encoding="utf-8")
    [request] = converse(mem, "How do I start the service?")
    notes = notes_sent(request)
    assert [n for n in notes if "Skills remembered" in n and "uvicorn" in n]
    assert not [n for n in notes if "set aside" in n]


RECALLED = "## Recalled for the first message"


def _first_message_block(mem: Memory, text: str) -> tuple[str, dict[str, object]]:
    """The recalled block the first user message ``text`` gets, and its recorded meta."""
    assert mem.project_root is not None
    policy = mem.project_root / ".agent" / "memory-policy.yaml"
    policy.write_text("long_memory:\n  recalled: 3\n", encoding="utf-8")
    with mem.session() as s:
        s.append({"role": "user", "content": text})
        built = mem.context(s)
        assert isinstance(built, list)
        [record] = s.meta("recalled")
        return str(built[1]["content"]), dict(record.content)


def test_the_first_message_recall_is_stack_weighted_like_the_guide(mem: Memory) -> None:
    pytest_habit = mem.remember("Write tests with pytest fixtures for the service", type="feedback")
    for text in PYTHON:
        mem.remember(text, type="feedback")
    neutral = mem.remember("Tests for the service must not call the network", type="feedback")
    Path("pom.xml").write_text("<project/>\n", encoding="utf-8")
    guide, meta = _first_message_block(mem, "How should I write tests for the service?")
    block = guide[guide.index(RECALLED) :]
    assert f"project/{neutral.name}" in block or f"user/{neutral.name}" in block
    kept = " ".join(map(str, meta["names"]))  # type: ignore[call-overload]
    assert pytest_habit.name not in kept  # down-weighted, not injected …
    aside = " ".join(map(str, meta["set_aside"]))  # type: ignore[call-overload]
    assert pytest_habit.name in aside  # … and named as set aside, with the project's stack
    assert "Set aside, about another stack than this project's (java)" in block
    assert "pytest fixtures" not in block


def test_without_a_switch_the_first_message_recall_injects_the_same_memory(
    mem: Memory,
) -> None:
    pytest_habit = mem.remember("Write tests with pytest fixtures for the service", type="feedback")
    for text in PYTHON:
        mem.remember(text, type="feedback")
    Path("pyproject.toml").write_text("[project]\nname = 'svc'\n", encoding="utf-8")
    guide, meta = _first_message_block(mem, "How should I write tests for the service?")
    assert pytest_habit.name in " ".join(map(str, meta["names"]))  # type: ignore[call-overload]
    assert "set_aside" not in meta and "Set aside" not in guide
    assert "pytest fixtures" in guide[guide.index(RECALLED) :]


def test_stack_detection_reads_manifests_and_tools(tmp_path: Path, mem: Memory) -> None:
    assert memory_stack("Run pytest with -n 2") == {"python"}
    assert memory_stack("We build with Gradle and Spring Boot") == {"java"}
    assert memory_stack("React to review comments within a day") == frozenset()
    assert memory_stack("pipelines run nightly") == frozenset()  # not "pip"
    (tmp_path / "go.mod").write_text("module x\n", encoding="utf-8")
    langs, found = project_stack(tmp_path)
    assert (langs, found) == ({"go"}, ("go.mod",))
    records = [mem.remember(text, type="feedback") for text in PYTHON]
    switched = drift((langs, found), records)
    assert switched.switched and switched.majority == "python"
    assert switched.weight(records[0]) == 0.25
    neutral = mem.remember("Answer in short sentences", type="feedback")
    assert switched.weight(neutral) == 1.0
    assert not drift(project_stack(None), records).switched  # no project: nothing set aside


def test_with_a_model_the_judge_confirms_each_proposal(sandbox: Path) -> None:
    from llm_fakes import ScriptedLLM

    for holds, proposed in ((False, 0), (True, 1)):
        llm = ScriptedLLM({"holds_elsewhere": holds})
        m = Memory(llm=llm)
        m.init()
        mine = m.remember(f"I prefer answers in British English {holds}", type="project")
        m.sleep()
        assert len(m.list(scope="user")) == proposed
        [request] = llm.requests
        assert mine.statement in str(request) and "other projects" in str(request)
        m.forget(mine.name, scope="project")
        for rec in m.list(scope="user"):
            m.forget(rec.name, scope="user")
    # an answer the judge cannot read is an error naming the way out, never a guess
    m = Memory(llm=ScriptedLLM({"relation": "unrelated"}))
    m.remember("The user likes dark mode", type="project")
    with pytest.raises(ProviderError, match="--offline"):
        m.sleep()
    assert m.list(scope="user") == []
