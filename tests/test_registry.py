"""Backends, embedders and LLM providers are chosen by name through one registry (issue 19): the
built-ins are registered through the same door a plugin uses, an unknown name is refused with
the choices, and a second, different registration under a taken name is refused."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cli_runner import ENTRY
from llm_fakes import ScriptedLLM
from memdir import ConfigError, Memory
from memdir.backends import BACKENDS, FileBackend, open_backend, register_backend
from memdir.providers import (
    HashingEmbedder,
    get_embedder,
    get_llm,
    register_embedder,
    register_llm_provider,
)
from memdir.providers.embeddings import EMBEDDERS
from memdir.providers.factory import LLM_PROVIDERS
from memdir.settings import LLMSettings, load_settings


class SmallHashing(HashingEmbedder):
    """A real embedder of another shape: the hashing embedder at 64 dimensions."""

    model_id = "hashing-64-test"

    def __init__(self) -> None:
        super().__init__(dim=64)


def test_the_built_ins_are_registered_through_the_same_door() -> None:
    # (other tests in this process may have registered more since: they sort after these)
    assert EMBEDDERS.names()[:3] == ["use", "e5", "hashing"]
    assert LLM_PROVIDERS.names()[:2] == ["openai", "anthropic"]
    assert BACKENDS.names()[0] == "file" and "postgresql" in BACKENDS
    assert type(BACKENDS) is type(EMBEDDERS) is type(LLM_PROVIDERS)  # one Registry class


def test_a_registered_backend_opens_through_the_same_registry(sandbox: Path) -> None:
    class Named(FileBackend):
        name = "named-test"

    register_backend("named-test", Named)
    assert BACKENDS.get("named-test") is Named
    assert isinstance(open_backend("named-test"), Named)
    with pytest.raises(ConfigError) as raised:
        open_backend("nope")
    message = str(raised.value)
    assert message.startswith("no storage backend named 'nope': the storage backends are file")
    assert message.endswith("(set MEMDIR_BACKEND or `backend:` in config.yaml to one of them)")


def test_a_registered_embedder_serves_recall(
    monkeypatch: pytest.MonkeyPatch, sandbox: Path
) -> None:
    register_embedder("hashing-64", SmallHashing)
    monkeypatch.setenv("MEMDIR_EMBEDDER", "hashing-64")
    m = Memory()
    m.init()
    stored = m.remember("Deploys run through the release pipeline on Fridays", type="project")
    m.remember("The user prefers tabs over spaces", type="user")
    assert m.embedder is get_embedder("hashing-64") and m.embedder.dim == 64
    hits = m.recall("when do deploys run?", min_score=0)
    assert [h.record.name for h in hits][:1] == [stored.name]


def test_an_unknown_embedder_names_the_choices(sandbox: Path) -> None:
    with pytest.raises(ConfigError) as raised:
        get_embedder("bert-large")
    assert str(raised.value) == (
        "no embedder named 'bert-large': the embedders are use, e5, hashing"
        + "".join(f", {n}" for n in EMBEDDERS.names()[3:])
        + " (set MEMDIR_EMBEDDER to auto or one of them)"
    )


def test_a_taken_name_is_refused_and_the_first_registration_kept() -> None:
    with pytest.raises(ConfigError, match="an embedder named 'hashing' is already registered"):
        register_embedder("hashing", SmallHashing)
    assert EMBEDDERS.get("hashing") is HashingEmbedder
    with pytest.raises(ConfigError, match="is a word"):
        register_embedder("two words", SmallHashing)


def test_a_registered_llm_provider_is_configurable_and_built(sandbox: Path) -> None:
    built: list[LLMSettings] = []

    def scripted(settings: LLMSettings) -> ScriptedLLM:
        built.append(settings)
        return ScriptedLLM("pong")

    register_llm_provider("scripted", scripted, default_base_url="http://127.0.0.1:9/v1")
    settings = load_settings(
        environ={
            "MEMDIR_LLM_PROVIDER": "scripted",
            "MEMDIR_LLM_MODEL": "x",
            "MEMDIR_LLM_API_KEY": "k",
        }
    )
    assert settings.base_url == "http://127.0.0.1:9/v1"
    llm = get_llm(settings)
    assert isinstance(llm, ScriptedLLM) and built == [settings]
    assert llm.complete([{"role": "user", "content": "ping"}]).text == "pong"


def test_an_unregistered_provider_is_refused_by_the_cli_with_the_choices(sandbox: Path) -> None:
    before = (sandbox / "home").exists() and sorted((sandbox / "home").rglob("*"))
    result = subprocess.run(
        [sys.executable, *ENTRY, "config", "set", "llm.provider", "vertex"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0
    assert "llm.provider must be one of openai, anthropic (got 'vertex')" in result.stderr
    after = (sandbox / "home").exists() and sorted((sandbox / "home").rglob("*"))
    assert before == after  # nothing written
