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
  ``remember`` writes into a copy of the 100-memory store (each run one new memory); on the
  10,000-memory store, after its recalls, ``remember`` writes a new memory and ``forget``
  deletes one (a different one each run) — a write from a cold process on a large store.
* First recall through the servers: ``memdir serve --mcp`` driven over stdio by the ``mcp``
  package's own client, and ``memdir serve --http`` on 127.0.0.1 with a real HTTP request;
  each is started ``--runs`` times on the 100-memory store, and the table gives the median time
  from the process start to the first recall's answer, and the recall alone (sent the moment
  the server answers ``initialize`` / accepts a connection).

* ``--compare REV`` measures the code of commit ``REV`` (``git archive`` of its ``src``) beside
  this tree's in the same run: each sample runs the old and the new command one after the other
  (each with its own copy of the stores and its own cache dir), so both see the same load, and
  the table gives each one's median and the new/old ratio. Both are started the same way
  (``python -c "from memdir.cli import main; ..."`` with ``PYTHONPATH`` on their ``src``).

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
from collections.abc import Callable, Sequence
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


ENTRY = "import sys; from memdir.cli import main; sys.exit(main())"


def memdir_command(src: Path | None = None) -> list[str]:
    """The installed console script, or (with ``src``, a source tree on ``PYTHONPATH``) the
    same entry point run by this Python."""
    script = Path(sys.executable).with_name("memdir")
    if src is None and script.exists():
        return [str(script)]
    return [sys.executable, "-c", ENTRY]


def environment(home: Path, cache: Path, src: Path | None = None) -> dict[str, str]:
    # PYTHONDONTWRITEBYTECODE (set in some sandboxes) would recompile all of memdir's modules in
    # every process; a user's installed Python keeps their bytecode, so the bench does too
    skip = ("PYTHONDONTWRITEBYTECODE",)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMDIR_") and k not in skip}
    env.update(MEMDIR_HOME=str(home), MEMDIR_CACHE_DIR=str(cache))
    if src is not None:
        env["PYTHONPATH"] = str(src)
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


def summary(samples: Sequence[tuple[float, float, float]]) -> dict[str, float]:
    return {
        "wall": statistics.median(s[0] for s in samples),
        "rss": statistics.median(s[1] for s in samples),
        "min": min(s[0] for s in samples),
        "cpu": statistics.median(s[2] for s in samples),
    }


def measure(
    cmds: Sequence[tuple[Sequence[str], dict[str, str]]], cwd: Path, runs: int
) -> list[dict[str, float]]:
    """Each (command, environment) once as a warm-up (page cache, derived tables), then
    ``runs`` rounds, each running every command once in turn: old and new see the same load."""
    for cmd, env in cmds:
        timed(cmd, env, cwd)
    samples: list[list[tuple[float, float, float]]] = [[] for _ in cmds]
    for _ in range(runs):
        for i, (cmd, env) in enumerate(cmds):
            samples[i].append(timed(cmd, env, cwd))
    return [summary(s) for s in samples]


def build_store(home: Path, cwd: Path, n: int) -> None:
    from memdir import Memory

    memory = Memory(home=home, cwd=cwd)
    memory.remember_many(memories(n))
    memory.reindex()


def first_mcp_recall(env: dict[str, str], cwd: Path, cmd: list[str]) -> tuple[float, float]:
    """(start → first recall answered, the recall alone) over stdio with the SDK's client."""
    import anyio
    from mcp import Client, StdioServerParameters

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


def first_rest_recall(
    env: dict[str, str], cwd: Path, data: Path, key: str, mem: list[str]
) -> tuple[float, float]:
    """(start → first recall answered, the recall alone) against ``memdir serve --http``."""
    port = _free_port()
    cmd = [*mem, "serve", "--http", "--port", str(port), "--data", str(data)]
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


Variant = tuple[str, Path | None]  # (label, source tree on PYTHONPATH or None: installed)


def run(
    runs: int, big: int, stores: Path | None, variants: Sequence[Variant]
) -> list[dict[str, Any]]:
    """One row per command; each row holds one result per variant, under its label."""
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="memdir-bench-cli-") as tmp:
        base = Path(tmp)
        cwd = base / "cwd"
        cwd.mkdir()
        built = base / "built"
        for name, n in (("h100", 100), ("hbig", big)):
            kept = stores / f"{name}-{n}" if stores else None
            if kept is not None and kept.is_dir():  # built by an earlier run: same memories
                shutil.copytree(kept, built / name)
                continue
            started = time.perf_counter()
            build_store(built / name, cwd, n)
            print(f"{n} memories written and indexed in {time.perf_counter() - started:.0f} s")
            if kept is not None:
                shutil.copytree(built / name, kept)
        homes = {}
        for label, _ in variants:  # each its own stores and cache dir: nothing shared
            home = homes[label] = base / label
            for name in ("h100", "hbig"):
                shutil.copytree(built / name, home / name)
            shutil.copytree(built / "h100", home / "hrem")

        def env(label: str, src: Path | None, store: str) -> dict[str, str]:
            return environment(homes[label] / store, homes[label] / "cache", src)

        first = {}  # empty cache dir: the first command builds the derived tables
        for label, src in variants:
            first[label] = timed(
                [*memdir_command(src), "recall", QUERY], env(label, src, "h100"), cwd
            )
        py = [sys.executable, "-c", "pass"]
        pass_row = measure([(py, env(variants[0][0], None, "h100"))], cwd, runs)[0]
        rows.append({"command": "python3 -c pass", **{label: pass_row for label, _ in variants}})
        cases = [
            ("memdir --help", ["--help"], "h100"),
            ("memdir --version", ["--version"], "h100"),
            ("memdir list (100 store)", ["list"], "h100"),
            ("memdir recall (100 store)", ["recall", QUERY], "h100"),
            (f"memdir recall ({big:,} store)", ["recall", QUERY], "hbig"),
        ]
        for label, args, store in cases:
            cmds = [([*memdir_command(src), *args], env(v, src, store)) for v, src in variants]
            results = measure(cmds, cwd, runs)
            rows.append(
                {"command": label, **{v: r for (v, _), r in zip(variants, results, strict=True)}}
            )
        # remember: a different text each run, so each one writes (the first is the warm-up)
        samples: dict[str, list[tuple[float, float, float]]] = {v: [] for v, _ in variants}
        for i in range(runs + 1):
            text = f"Release notes go in CHANGELOG.md, section {i}"
            args = ["remember", text, "--type", "project", "--scope", "user"]
            for v, src in variants:
                samples[v].append(timed([*memdir_command(src), *args], env(v, src, "hrem"), cwd))
        rows.insert(3, {"command": "memdir remember (100 store)",
                        **{v: summary(s[1:]) for v, s in samples.items()}})  # fmt: skip
        rows.extend(big_writes(big, runs, variants, env, cwd, homes))
        rows.append({"command": "memdir recall (100 store, empty cache dir)",
                     **{v: {"wall": f[0], "rss": f[1], "min": f[0], "cpu": f[2]}
                        for v, f in first.items()}})  # fmt: skip
        rows.extend(server_rows(homes, cwd, runs, variants))
    return rows


def big_writes(
    big: int,
    runs: int,
    variants: Sequence[Variant],
    env: Callable[[str, Path | None, str], dict[str, str]],
    cwd: Path,
    homes: dict[str, Path],
) -> list[dict[str, Any]]:
    """A write on the large store from a cold process: MEMORY.md is rendered again from a pass
    over every file, and forget looks for what sleep built from the memory."""
    names = sorted(p.stem for p in (homes[variants[0][0]] / "hbig" / "memory").glob("*.md"))
    names = [n for n in names if n != "MEMORY"][: runs + 1]
    rows = []
    for label, make in (
        ("remember", lambda i: ["remember", f"Release notes go in CHANGELOG.md, part {i}",
                                "--type", "project", "--scope", "user"]),
        ("forget", lambda i: ["forget", names[i]]),
    ):  # fmt: skip
        samples: dict[str, list[tuple[float, float, float]]] = {v: [] for v, _ in variants}
        for i in range(runs + 1):  # the first is the warm-up
            for v, src in variants:
                samples[v].append(timed([*memdir_command(src), *make(i)], env(v, src, "hbig"), cwd))
        rows.append({"command": f"memdir {label} ({big:,} store)",
                     **{v: summary(s[1:]) for v, s in samples.items()}})  # fmt: skip
    return rows


def server_rows(
    homes: dict[str, Path], cwd: Path, runs: int, variants: Sequence[Variant]
) -> list[dict[str, Any]]:
    from memdir.http.keys import KeyRing

    mcp: dict[str, list[tuple[float, float]]] = {v: [] for v, _ in variants}
    rest: dict[str, list[tuple[float, float]]] = {v: [] for v, _ in variants}
    keys = {}
    for v, _ in variants:
        data = homes[v] / "server"
        _, keys[v] = KeyRing(data).create("bench")
        shutil.copytree(homes[v] / "h100", data / "users" / "bench" / "home")  # the user's own
    for _ in range(runs):  # old and new in turn, as above
        for v, src in variants:
            env = environment(homes[v] / "h100", homes[v] / "cache", src)
            mcp[v].append(first_mcp_recall(env, cwd, memdir_command(src)))
            rest_env = environment(homes[v] / "hrest", homes[v] / "cache", src)
            data = homes[v] / "server"
            rest[v].append(first_rest_recall(rest_env, cwd, data, keys[v], memdir_command(src)))
    out = []
    for label, by in (("serve --mcp: first recall", mcp), ("serve --http: first recall", rest)):
        out.append({"command": label, **{v: {
            "wall": statistics.median(s[0] for s in samples),
            "recall": statistics.median(s[1] for s in samples),
            "min": min(s[0] for s in samples),
        } for v, samples in by.items()}})  # fmt: skip
    return out


def table(rows: list[dict[str, Any]], label: str) -> str:
    """One variant's results, as the single-tree table has always been."""
    base = rows[0][label]["wall"]
    lines = [
        "| command | median wall s | min s | × python3 -c pass | median CPU s | peak RSS MiB |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        r = row[label]
        rss = f"{r['rss']:.0f}" if "rss" in r else f"(recall alone {r['recall']:.3f} s)"
        cpu = f"{r['cpu']:.3f}" if "cpu" in r else "—"  # a server's CPU is not its answer's
        lines.append(f"| {row['command']} | {r['wall']:.3f} | {r['min']:.3f} | "
                     f"{r['wall'] / base:.1f} | {cpu} | {rss} |")  # fmt: skip
    return "\n".join(lines)


def side_by_side(rows: list[dict[str, Any]], old: str) -> str:
    """New and old in one table: medians, × python3 -c pass, and new / old."""
    base_new, base_old = rows[0]["new"]["wall"], rows[0][old]["wall"]
    lines = [
        f"| command | new wall s | {old} wall s | new × pass | {old} × pass | new / {old} wall | "
        f"new CPU s | {old} CPU s | new RSS MiB | {old} RSS MiB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        n, o = row["new"], row[old]
        cpu = f"{n['cpu']:.3f} | {o['cpu']:.3f}" if "cpu" in n else "— | —"
        rss = (f"{n['rss']:.0f} | {o['rss']:.0f}" if "rss" in n
               else f"(recall alone {n['recall']:.3f} s) | ({o['recall']:.3f} s)")  # fmt: skip
        lines.append(f"| {row['command']} | {n['wall']:.3f} | {o['wall']:.3f} | "
                     f"{n['wall'] / base_new:.1f} | {o['wall'] / base_old:.1f} | "
                     f"{n['wall'] / o['wall']:.2f} | {cpu} | {rss} |")  # fmt: skip
    return "\n".join(lines)


def old_tree(rev: str, into: Path) -> Path:
    """``src`` of commit ``rev``, unpacked under ``into`` and byte-compiled (as installed code
    is), so the old code pays what a user's installed copy would."""
    archive = subprocess.run(["git", "archive", rev, "src"], cwd=ROOT, capture_output=True,
                             check=True).stdout  # fmt: skip
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(into / "src")], check=True,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    return into / "src"


def report(
    rows: list[dict[str, Any]], argv: list[str], runs: int, big: int, old: str | None
) -> str:
    compared = [] if old is None else [
        f"## This tree (new) beside commit {old} (old), in the same run",
        "",
        "Each sample ran the old and the new command one after the other, so both saw the same "
        "load; each has its own copy of the stores and its own cache dir. Both are started as "
        "`python -c 'from memdir.cli import main; …'` with `PYTHONPATH` on their `src` (the "
        "old one from `git archive`, byte-compiled). Compare the ratios: *new / old* and "
        "*× pass* are what the load moves least.",
        "",
        side_by_side(rows, "old"),
        "",
        "## New alone",
        "",
    ]  # fmt: skip
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
        *compared,
        table(rows, "new"),
        "",
    ])  # fmt: skip


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5, help="runs after the warm-up (%(default)s)")
    parser.add_argument("--big", type=int, default=10_000, help="the large store (%(default)s)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="default: %(default)s")
    parser.add_argument("--stores", type=Path, help="keep the built stores here and reuse them")
    parser.add_argument("--compare", metavar="REV", help="also measure commit REV, side by side")
    args = parser.parse_args(argv[1:])
    with tempfile.TemporaryDirectory(prefix="memdir-bench-cli-old-") as tmp:
        variants: list[Variant] = [("new", None)]
        if args.compare:
            variants = [("new", ROOT / "src"), ("old", old_tree(args.compare, Path(tmp)))]
        rows = run(args.runs, args.big, args.stores, variants)
    print(side_by_side(rows, "old") if args.compare else table(rows, "new"))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report(rows, argv, args.runs, args.big, args.compare), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
