"""A cold CLI: whole ``memdir`` processes timed as a person or a hook runs them (issue 18).

Protocol:

* Every command is a fresh process of the installed ``memdir`` console script (the one next to
  this Python), in a temporary directory outside any repository, with its own ``MEMDIR_HOME``
  and ``MEMDIR_CACHE_DIR`` (the derived tables; the warm-up run builds them, as a user's first
  command does once).
* Each command runs once as a warm-up, then ``--runs`` times (default 5); the table gives the
  median wall time and the median peak resident memory of the child (``os.wait4``'s
  ``ru_maxrss``), beside ``python3 -c pass`` measured the same way in the same run. The very
  first run of ``recall`` with an empty cache directory is reported on its own.
* Stores: 100 and 10,000 synthetic memories (English and about a third Chinese, in the shape of
  agent memories), written through ``Memory.remember_many`` and indexed with
  ``Memory.reindex()`` before the clock starts — a store in use is indexed already.
  ``remember`` writes into a copy of the 100-memory store (each run one new memory).
* First recall through the servers: ``memdir serve --mcp`` driven over stdio by the ``mcp``
  package's own client, and ``memdir serve --http`` on 127.0.0.1 with a real HTTP request;
  each is started ``--runs`` times on the 100-memory store, and the table gives the median time
  from the process start to the first recall's answer, and the recall alone (sent the moment
  the server answers ``initialize`` / accepts a connection).

``python bench/cli.py`` prints the table and writes ``bench/results/cli.md``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from provenance import provenance

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "cli.md"
QUERY = "which package manager do we use in JS projects?"

TOPICS = """deploy database cache index query server release build test lint branch review
schema migration backup replica cluster container registry pipeline queue metric alert
dashboard latency timeout retry token secret config rollout rollback incident runbook endpoint
session login invoice billing payment customer order warehouse frontend backend gateway""".split()
ZH = """部署 数据库 缓存 索引 查询 服务器 发版 构建 测试
分支 评审 迁移 备份 集群 队列 告警 回滚 配置""".split()
ENGLISH = (
    "We use {a} for the {b} service, not {c}.",
    "Always run the {a} check before a {b}; it caught a {c} bug last time.",
    "The {a} of the {b} lives in the {c} repository.",
    "Prefer small {a} changes; a big {b} broke the {c} twice.",
    "Ask the {a} owner before touching the {b} {c}.",
)
CHINESE = ("{a}用的是{b}，不要改成{c}。", "每次{a}之前先检查{b}和{c}。", "{a}的{b}放在{c}目录下。")
TYPES = ("feedback", "project", "reference", "user")


def memories(n: int, seed: int = 18) -> list[dict[str, Any]]:
    """``n`` deterministic memories, about a third Chinese, varied types and tags."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        if i % 3 == 2:
            a, b, c = rng.sample(ZH, 3)
            text = rng.choice(CHINESE).format(a=a, b=b, c=c) + f"（{i}）"
        else:
            a, b, c = rng.sample(TOPICS, 3)
            text = rng.choice(ENGLISH).format(a=a, b=b, c=c) + f" (note {i})"
        tags = [rng.choice(TOPICS)]
        out.append({"text": text, "type": TYPES[i % 4], "tags": tags, "scope": "user"})
    out[0] = {"text": "Use pnpm, not npm, in JS projects", "type": "feedback", "scope": "user"}
    return out


def memdir_command() -> list[str]:
    script = Path(sys.executable).with_name("memdir")
    return [str(script)] if script.exists() else [sys.executable, "-m", "memdir.cli"]


def environment(home: Path, cache: Path) -> dict[str, str]:
    # PYTHONDONTWRITEBYTECODE (set in some sandboxes) would recompile all of memdir's modules in
    # every process; a user's installed Python keeps their bytecode, so the bench does too
    skip = ("PYTHONDONTWRITEBYTECODE",)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMDIR_") and k not in skip}
    env.update(MEMDIR_HOME=str(home), MEMDIR_CACHE_DIR=str(cache))
    return env


# A child's peak RSS (``ru_maxrss``) counts what the process that forked it held until its
# exec, so a command is started by this small launcher (a bare ``python -S``), not by the bench
# process (which holds the embedder after building the stores): it forks, execs the command,
# and prints the command's wall time and peak RSS.
LAUNCHER = """
import os, sys, time
started = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
cpu = usage.ru_utime + usage.ru_stime
print(time.perf_counter() - started, usage.ru_maxrss, cpu, os.waitstatus_to_exitcode(status))
"""


def timed(cmd: Sequence[str], env: dict[str, str], cwd: Path) -> tuple[float, float, float]:
    """One process: (wall seconds, peak RSS in MiB, CPU seconds: user + system). A failing
    command stops the bench."""
    with tempfile.TemporaryFile() as err:
        out = subprocess.run(
            [sys.executable, "-S", "-c", LAUNCHER, *cmd],
            env=env, cwd=cwd, stdin=subprocess.DEVNULL, stderr=err, capture_output=False,
            stdout=subprocess.PIPE, check=True,
        )  # fmt: skip
        wall, rss, cpu, code = out.stdout.split()[-4:]
        if int(code) != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(cmd)} failed ({code.decode()}): {err.read().decode()}")
    return float(wall), int(rss) / 1024, float(cpu)  # KiB on Linux


def measure(cmd: Sequence[str], env: dict[str, str], cwd: Path, runs: int) -> dict[str, float]:
    timed(cmd, env, cwd)  # warm-up: page cache, derived tables
    samples = [timed(cmd, env, cwd) for _ in range(runs)]
    return {
        "wall": statistics.median(s[0] for s in samples),
        "rss": statistics.median(s[1] for s in samples),
        "min": min(s[0] for s in samples),
        "cpu": statistics.median(s[2] for s in samples),
    }


def build_store(home: Path, cwd: Path, n: int) -> None:
    from memdir import Memory

    memory = Memory(home=home, cwd=cwd)
    memory.remember_many(memories(n))
    memory.reindex()


def first_mcp_recall(env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(start → first recall answered, the recall alone) over stdio with the SDK's client."""
    import anyio
    from mcp import Client, StdioServerParameters

    cmd = memdir_command()
    params = StdioServerParameters(
        command=cmd[0], args=[*cmd[1:], "serve", "--mcp"], env=env, cwd=str(cwd)
    )
    times: list[float] = []

    async def main() -> None:
        started = time.perf_counter()
        async with Client(params, read_timeout_seconds=120) as client:
            asked = time.perf_counter()
            result = await client.call_tool("recall", {"query": QUERY})
            done = time.perf_counter()
            if result.is_error:
                raise SystemExit(f"MCP recall failed: {result.content}")
            times.extend([done - started, done - asked])

    anyio.run(main)
    return times[0], times[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def first_rest_recall(env: dict[str, str], cwd: Path, data: Path, key: str) -> tuple[float, float]:
    """(start → first recall answered, the recall alone) against ``memdir serve --http``."""
    port = _free_port()
    cmd = [*memdir_command(), "serve", "--http", "--port", str(port), "--data", str(data)]
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stderr=subprocess.DEVNULL)
    try:
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"memdir serve --http exited with {proc.returncode}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.005)  # polling a port: the server says nothing when it is up
        asked = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        body = json.dumps({"query": QUERY, "top_k": 5})
        headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
        conn.request("POST", "/v1/recall", body=body, headers=headers)
        response = conn.getresponse()
        response.read()
        done = time.perf_counter()
        if response.status != 200:
            raise SystemExit(f"REST recall answered {response.status}")
        return done - started, done - asked
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def run(runs: int, big: int, stores: Path | None) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="memdir-bench-cli-") as tmp:
        base = Path(tmp)
        cwd, cache = base / "cwd", base / "cache"
        cwd.mkdir()
        for name, n in (("h100", 100), ("hbig", big)):
            kept = stores / f"{name}-{n}" if stores else None
            if kept is not None and kept.is_dir():  # built by an earlier run: same memories
                shutil.copytree(kept, base / name)
                continue
            started = time.perf_counter()
            build_store(base / name, cwd, n)
            print(f"{n} memories written and indexed in {time.perf_counter() - started:.0f} s")
            if kept is not None:
                shutil.copytree(base / name, kept)
        shutil.copytree(base / "h100", base / "hrem")
        mem, py = memdir_command(), [sys.executable, "-c", "pass"]
        env100 = environment(base / "h100", cache)
        first = timed([*mem, "recall", QUERY], env100, cwd)  # empty cache: builds the tables
        rows.append({"command": "python3 -c pass", **measure(py, env100, cwd, runs)})
        cases = [
            ("memdir --help", ["--help"], "h100"),
            ("memdir --version", ["--version"], "h100"),
            ("memdir remember (100 store)", None, "hrem"),
            ("memdir list (100 store)", ["list"], "h100"),
            ("memdir recall (100 store)", ["recall", QUERY], "h100"),
            (f"memdir recall ({big:,} store)", ["recall", QUERY], "hbig"),
        ]
        for label, args, home in cases:
            env = environment(base / home, cache)
            if args is None:  # remember: a different text each run, so each one writes
                samples = []
                for i in range(runs + 1):
                    text = f"Release notes go in CHANGELOG.md, section {i}"
                    args = ["remember", text, "--type", "project", "--scope", "user"]
                    samples.append(timed([*mem, *args], env, cwd))
                samples = samples[1:]
                rows.append({"command": label,
                             "wall": statistics.median(s[0] for s in samples),
                             "rss": statistics.median(s[1] for s in samples),
                             "min": min(s[0] for s in samples),
                             "cpu": statistics.median(s[2] for s in samples)})  # fmt: skip
            else:
                rows.append({"command": label, **measure([*mem, *args], env, cwd, runs)})
        rows.append({"command": "memdir recall (100 store, empty cache dir)",
                     "wall": first[0], "rss": first[1], "min": first[0],
                     "cpu": first[2]})  # fmt: skip
        rows.extend(server_rows(base, cache, cwd, runs))
    return rows


def server_rows(base: Path, cache: Path, cwd: Path, runs: int) -> list[dict[str, Any]]:
    from memdir.http.keys import KeyRing

    env = environment(base / "h100", cache)
    mcp = [first_mcp_recall(env, cwd) for _ in range(runs)]
    data = base / "server"
    _, key = KeyRing(data).create("bench")
    shutil.copytree(base / "h100", data / "users" / "bench" / "home")  # the user's own store
    rest_env = environment(base / "hrest", cache)
    rest_runs = [first_rest_recall(rest_env, cwd, data, key) for _ in range(runs)]
    out = []
    for label, samples in (("serve --mcp: first recall", mcp), ("serve --http: first recall",
                                                                 rest_runs)):  # fmt: skip
        out.append({
            "command": label,
            "wall": statistics.median(s[0] for s in samples),
            "recall": statistics.median(s[1] for s in samples),
            "min": min(s[0] for s in samples),
        })  # fmt: skip
    return out


def table(rows: list[dict[str, Any]]) -> str:
    base = rows[0]["wall"]
    lines = [
        "| command | median wall s | min s | × python3 -c pass | median CPU s | peak RSS MiB |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        rss = f"{r['rss']:.0f}" if "rss" in r else f"(recall alone {r['recall']:.3f} s)"
        cpu = f"{r['cpu']:.3f}" if "cpu" in r else "—"  # a server's CPU is not its answer's
        lines.append(f"| {r['command']} | {r['wall']:.3f} | {r['min']:.3f} | "
                     f"{r['wall'] / base:.1f} | {cpu} | {rss} |")  # fmt: skip
    return "\n".join(lines)


def report(rows: list[dict[str, Any]], argv: list[str], runs: int, big: int) -> str:
    return "\n".join([
        "# A cold CLI",
        "",
        *provenance(argv),
        f"- load average (1/5/15 min) at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}"
        " — the machine is shared by other jobs, so walls are noisy; the min is the quiet case",
        "",
        f"Each row: one warm-up, then {runs} runs of a fresh process; median wall and median peak "
        "RSS of the child (`os.wait4`), and its median CPU time (user + system: less moved "
        "by a loaded machine than the wall). Stores of 100 and "
        f"{big:,} synthetic memories (a third Chinese), indexed beforehand; `MEMDIR_CACHE_DIR` "
        "holds the derived tables the warm-up built, except in the *empty cache dir* row (the "
        "first command a user ever runs). Server rows: the process start to the first recall's "
        "answer (median), and the recall alone, sent as soon as the server answered. "
        "`PYTHONDONTWRITEBYTECODE` is dropped from the children's environment (this sandbox sets "
        "it; with it every process recompiles memdir's modules).",
        "",
        table(rows),
        "",
    ])  # fmt: skip


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5, help="runs after the warm-up (%(default)s)")
    parser.add_argument("--big", type=int, default=10_000, help="the large store (%(default)s)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="default: %(default)s")
    parser.add_argument("--stores", type=Path, help="keep the built stores here and reuse them")
    args = parser.parse_args(argv[1:])
    rows = run(args.runs, args.big, args.stores)
    print(table(rows))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report(rows, argv, args.runs, args.big), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
