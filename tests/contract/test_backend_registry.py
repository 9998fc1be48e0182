"""The backend registry: how a backend is named, chosen and refused (``memdir.backends``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdir import Memory
from memdir.backends import FileBackend, backend_names, open_backend, register_backend
from memdir.errors import ConfigError

from .contract_ports import files_under


def test_the_file_backend_is_registered_and_the_default() -> None:
    assert backend_names()[0] == "file"
    assert open_backend().name == "file"
    assert Memory().backend.name == "file"


def test_an_unknown_backend_is_refused_with_the_names_to_use(
    sandbox: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem = Memory()
    mem.init()
    mem.remember("The CI runs on every push", type="project")
    before = files_under(sandbox)
    with pytest.raises(ConfigError, match=r"no storage backend named 'nope'.*file"):
        Memory(backend="nope")
    monkeypatch.setenv("MEMDIR_BACKEND", "mysql://db.example/memdir")
    with pytest.raises(ConfigError, match=r"'mysql'.*postgresql.*MEMDIR_BACKEND"):
        Memory()
    assert files_under(sandbox) == before  # nothing written, nothing lost


def test_config_yaml_names_the_backend(sandbox: Path) -> None:
    (sandbox / "home").mkdir()
    (sandbox / "home" / "config.yaml").write_text("backend: file\nllm:\n  model: m\n")
    assert Memory().backend.name == "file"
    (sandbox / "home" / "config.yaml").write_text("backend: [1, 2]\n")
    with pytest.raises(ConfigError, match="backend must be a name"):
        Memory()


def test_a_name_is_registered_once() -> None:
    register_backend("file", FileBackend)  # the same factory again: harmless
    with pytest.raises(ConfigError, match="already registered"):
        register_backend("file", lambda: FileBackend())
    with pytest.raises(ConfigError, match="a word"):
        register_backend("no spaces", FileBackend)


def test_memory_takes_a_backend_object(sandbox: Path) -> None:
    mem = Memory(backend=FileBackend())
    mem.init()
    record = mem.remember("Staging is at staging.example.com", type="project")
    assert mem.get(record.name).statement == record.statement
