"""User settings (``$MEMDIR_HOME/config.yaml`` under ``MEMDIR_LLM_*``) and ``memdir config``."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from memdir.cli import main
from memdir.errors import ConfigError
from memdir.settings import (
    KEYS,
    env_var,
    infer_provider,
    load_settings,
    mask_secret,
    read_file,
    set_values,
    settings_file,
    unset_values,
)
from wire_server import Reply, openai_answer, serving


@pytest.fixture(autouse=True)
def no_llm_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in KEYS:
        monkeypatch.delenv(env_var(key), raising=False)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# --- the library -----------------------------------------------------------------------------


def test_defaults_when_nothing_is_set() -> None:
    settings = load_settings()
    assert (settings.provider, settings.base_url, settings.model) == (
        "openai",
        "https://api.openai.com/v1",
        None,
    )
    assert (settings.api_key, settings.timeout, settings.max_retries) == (None, 60.0, 2)
    assert set(settings.sources.values()) == {"default"}
    assert not settings.configured and settings.missing == ["llm.model", "llm.base_url"]
    assert not settings_file().exists()  # reading never creates the file


def test_set_writes_nested_yaml_with_mode_0600(sandbox: Path) -> None:
    set_values({"llm.base_url": "http://localhost:11434/v1/", "llm.model": "qwen2.5:3b"})
    path = sandbox / "home" / "config.yaml"
    assert path == settings_file()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    text = path.read_text(encoding="utf-8")
    assert "llm:\n  base_url: http://localhost:11434/v1\n  model: qwen2.5:3b\n" in text
    assert [p.name for p in path.parent.iterdir()] == ["config.yaml"]  # no temp file left
    settings = load_settings()
    assert settings.configured and settings.sources["llm.model"] == "file"
    assert settings.base_url == "http://localhost:11434/v1"  # trailing slash dropped


def test_set_keeps_other_keys_and_a_stable_order() -> None:
    set_values({"llm.timeout": "120", "llm.model": "a"})
    set_values({"llm.api_key": "sk-1234567890abcd", "llm.model": "b"})
    assert read_file() == {
        "llm.model": "b",
        "llm.api_key": "sk-1234567890abcd",
        "llm.timeout": 120.0,
    }
    assert list(read_file()) == ["llm.model", "llm.api_key", "llm.timeout"]


def test_a_bad_value_writes_nothing() -> None:
    set_values({"llm.model": "a"})
    before = settings_file().read_bytes()
    with pytest.raises(ConfigError, match=r"llm\.max_retries must be a whole number from 0 to 10"):
        set_values({"llm.model": "b", "llm.max_retries": "lots"})
    assert settings_file().read_bytes() == before


@pytest.mark.parametrize(
    ("key", "value", "fragment"),
    [
        ("llm.provider", "azure", "one of openai, anthropic"),
        ("llm.base_url", "localhost:11434", "http:// or https:// URL"),
        ("llm.base_url", "ftp://x", "http:// or https:// URL"),
        ("llm.timeout", "0", "seconds"),
        ("llm.timeout", "soon", "seconds"),
        ("llm.max_retries", "-1", "whole number"),
        ("llm.max_retries", "1.5", "whole number"),
        ("llm.model", "", "non-empty"),
        ("llm.modle", "x", "the settings are llm.provider, llm.base_url, llm.model"),
    ],
)
def test_bad_keys_and_values_name_the_key_and_what_is_allowed(
    key: str, value: str, fragment: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        set_values({key: value})
    assert key in str(caught.value) and fragment in str(caught.value)


def test_environment_overrides_the_file() -> None:
    set_values({"llm.model": "from-file", "llm.timeout": "30"})
    env = {"MEMDIR_LLM_MODEL": "from-env", "MEMDIR_LLM_MAX_RETRIES": "0", "MEMDIR_LLM_TIMEOUT": ""}
    settings = load_settings(environ=env)
    assert (settings.model, settings.max_retries, settings.timeout) == ("from-env", 0, 30.0)
    assert settings.sources["llm.model"] == "env" and settings.sources["llm.timeout"] == "file"


def test_a_bad_environment_value_names_the_variable() -> None:
    with pytest.raises(ConfigError, match="MEMDIR_LLM_TIMEOUT must be a number"):
        load_settings(environ={"MEMDIR_LLM_TIMEOUT": "ten"})
    with pytest.raises(ConfigError, match="MEMDIR_LLM_PROVIDER must be one of openai, anthropic"):
        load_settings(environ={"MEMDIR_LLM_PROVIDER": "claude"})


def test_hand_edited_file_is_checked(sandbox: Path) -> None:
    path = settings_file()
    path.parent.mkdir(parents=True)
    path.write_text("llm:\n  model: m\n  tempreature: 1\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"'llm\.tempreature' in .*config\.yaml"):
        load_settings()
    path.write_text("llm:\n  timeout: -5\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"llm\.timeout in .*config\.yaml must be a number"):
        load_settings()
    path.write_text("- just\n- a list\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="must be a mapping"):
        load_settings()
    path.write_text("llm: [1\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_settings()
    path.write_text("llm: fast\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="must be a section"):
        load_settings()
    path.write_text("# nothing yet\n", encoding="utf-8")
    assert read_file() == {}


def test_provider_is_inferred_from_the_base_url() -> None:
    assert infer_provider("https://api.anthropic.com") == "anthropic"
    assert infer_provider("https://anthropic.com/v1") == "anthropic"
    assert infer_provider("https://notanthropic.com/v1") == "openai"
    assert infer_provider("http://localhost:11434/v1") == "openai"
    assert infer_provider(None) == "openai"
    settings = load_settings(environ={"MEMDIR_LLM_PROVIDER": "anthropic"})
    assert settings.base_url == "https://api.anthropic.com"
    assert settings.missing == ["llm.model", "llm.api_key"]  # a vendor API needs a key


def test_an_explicit_provider_beats_the_inference() -> None:
    env = {
        "MEMDIR_LLM_BASE_URL": "https://proxy.example/anthropic",
        "MEMDIR_LLM_PROVIDER": "anthropic",
    }
    assert load_settings(environ=env).provider == "anthropic"


def test_configured_needs_a_model_and_a_url_or_a_key() -> None:
    assert not load_settings(environ={"MEMDIR_LLM_MODEL": "m"}).configured
    assert load_settings(environ={"MEMDIR_LLM_MODEL": "m", "MEMDIR_LLM_API_KEY": "k"}).configured
    local = {"MEMDIR_LLM_MODEL": "m", "MEMDIR_LLM_BASE_URL": "http://127.0.0.1:8080/v1"}
    assert load_settings(environ=local).configured


def test_unset_removes_only_what_was_set() -> None:
    set_values({"llm.model": "m", "llm.timeout": "5"})
    assert unset_values(["llm.timeout", "llm.api_key"]) == ["llm.timeout"]
    assert read_file() == {"llm.model": "m"}
    with pytest.raises(ConfigError, match="unknown setting"):
        unset_values(["llm.nope"])


def test_mask_secret() -> None:
    assert mask_secret("sk-proj-abcdefghijklmnopqrstuvwxyzabcd") == "sk-…abcd"
    assert mask_secret("short") == "…"
    assert mask_secret("") == ""


def test_the_file_stays_private_when_rewritten(sandbox: Path) -> None:
    set_values({"llm.model": "m"})
    os.chmod(settings_file(), 0o644)
    set_values({"llm.api_key": "sk-secret-value-123"})
    assert stat.S_IMODE(settings_file().stat().st_mode) == 0o600


# --- memdir config ---------------------------------------------------------------------------


def test_cli_set_get_list_unset(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "config", "set", "llm.base_url", "http://localhost:11434/v1", "llm.model", "qwen2.5:3b",
        "llm.api_key", "sk-proj-0123456789abcd",
    )  # fmt: skip
    assert code == 0
    assert "llm.model = qwen2.5:3b" in out and "llm.api_key = sk-…abcd" in out
    assert "0123456789" not in out and str(settings_file()) in out

    assert run(capsys, "config", "get", "llm.model") == (0, "qwen2.5:3b\n", "")
    assert run(capsys, "config", "get", "llm.api_key")[1] == "sk-…abcd\n"
    assert run(capsys, "config", "get", "llm.api_key", "--reveal")[1] == "sk-proj-0123456789abcd\n"
    code, out, _ = run(capsys, "config", "get", "llm.timeout", "--json")
    assert json.loads(out) == {"key": "llm.timeout", "value": 60.0, "source": "default"}

    code, out, _ = run(capsys, "config", "list")
    assert code == 0 and "sk-…abcd" in out and "0123456789" not in out
    assert "llm.model" in out and "(file)" in out and "(default)" in out
    code, out, _ = run(capsys, "config", "list", "--json")
    data = json.loads(out)
    assert data["configured"] is True and data["file"] == str(settings_file())
    assert data["settings"]["llm.api_key"] == {"value": "sk-…abcd", "source": "file"}
    assert data["settings"]["llm.provider"] == {"value": "openai", "source": "default"}

    code, out, _ = run(capsys, "config", "unset", "llm.api_key", "llm.timeout")
    assert code == 0 and "llm.api_key unset" in out and "llm.timeout was not set" in out
    assert "llm.api_key" not in read_file()


def test_cli_list_says_what_is_missing_and_names_env_overrides(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run(capsys, "config", "list")
    assert code == 0 and "no LLM configured yet: set llm.model, llm.base_url" in out
    monkeypatch.setenv("MEMDIR_LLM_MODEL", "env-model")
    code, out, err = run(capsys, "config", "set", "llm.model", "file-model")
    assert code == 0 and "MEMDIR_LLM_MODEL is set and overrides llm.model" in err
    assert "env-model" in run(capsys, "config", "list")[1]
    assert "(MEMDIR_LLM_MODEL)" in run(capsys, "config", "list")[1]


def test_cli_refuses_bad_input_and_writes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "config", "set", "llm.model")
    assert code == 2 and "KEY VALUE pairs" in err
    code, _, err = run(capsys, "config", "set", "llm.model", "m", "llm.timeout", "-1")
    assert code == 1 and "llm.timeout must be a number of seconds" in err
    code, _, err = run(capsys, "config", "set", "llm.temperature", "1")
    assert code == 1 and "unknown setting 'llm.temperature'" in err
    code, _, err = run(capsys, "config", "get", "llm.nope")
    assert code == 2 and "the keys are llm.provider" in err
    assert not settings_file().exists()


def test_cli_config_test_reports_model_and_latency(capsys: pytest.CaptureFixture[str]) -> None:
    with serving(Reply(body=openai_answer("ok"))) as server:
        run(capsys, "config", "set", "llm.base_url", f"{server.url}/v1", "llm.model", "tiny")
        code, out, _ = run(capsys, "config", "test")
        assert code == 0
        assert f"ok: openai:tiny at {server.url}/v1 answered in" in out and "reply: 'ok'" in out
        code, out, _ = run(capsys, "config", "test", "--json", "--prompt", "ping")
    data = json.loads(out)
    assert code == 0 and data["ok"] is True and data["reply"] == "ok" and data["model"] == "tiny"
    assert isinstance(data["latency_s"], float)
    assert server.requests[-1].body["messages"] == [{"role": "user", "content": "ping"}]
    assert server.requests[-1].body["max_tokens"] == 16


def test_cli_config_test_reports_the_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "config", "test")
    assert code == 1 and "no LLM is configured" in err and "llm.model" in err
    with serving(Reply(401, {"error": {"message": "bad key"}})) as server:
        run(capsys, "config", "set", "llm.base_url", server.url, "llm.model", "m")
        code, out, _ = run(capsys, "config", "test", "--json")
    data = json.loads(out)
    assert code == 1 and data["ok"] is False and "HTTP 401" in data["error"]
    assert "llm.api_key" in data["error"]
