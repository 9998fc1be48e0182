"""The REST API under load (SPEC I4): many concurrent clients, two users, nothing lost.

Protocol:

* ``memdir serve --http`` is started as a subprocess on 127.0.0.1 (a free port) over a fresh
  temporary data directory, with the default embedder (``$MEMDIR_EMBEDDER`` to override), with
  ``--backend``, ``--processes`` and ``--threads`` passed on when given. ``--src DIR`` runs the
  server from another source tree (an older commit's ``src``, checked out with ``git worktree``)
  so that the old and the new server are measured side by side in one run; ``--compare`` names
  each run's options (``--compare "old:--src /tmp/old/src" --compare "new:--processes 2"``).
  Two users get a key each (``open_keys(...).create``, what ``memdir keys create`` calls: in
  ``keys.json``, or in the database for a PostgreSQL backend).
* ``--backend postgresql`` (the word, no DSN) starts a PostgreSQL with pgvector for this run
  (``tests/pgserver.running``, in a temp dir of its own) and gives each configuration a fresh
  database owned by a role that row-level security holds (as ``tests/pgapp.py`` does); a DSN
  is used as given. ``--backend file`` is the file backend. So
  ``--compare "file:--backend file" --compare "pg:--backend postgresql"`` measures both side by
  side in one run.
* ``--clients`` threads (default 50), half for each user, each on its own keep-alive
  connection, send ``--requests`` requests each (default 200), all at once. Each client draws
  its operations from a seeded random mix — remember 40 %, recall 30 %, update 20 %, forget
  10 % — over memories it created itself (names ``c<client>-<n>``), and keeps the state it
  expects: which of its memories exist and with what statement. An update or forget with
  nothing to act on becomes a remember.
* Every request must answer 2xx; anything else (a status, a timeout, a dropped connection) is
  an error. Nothing is retried, so a lost or doubled write cannot be hidden by a retry.
* Afterwards each user's memories are listed through the API and compared with the union of
  what that user's clients expect: the same names (none lost, none extra), each with the
  expected statement, no statement stored twice, and no memory of the other user's clients.
* Before the clock starts, one recall per user and server process loads the embedder and that
  user's facade (a first request pays for both; that is not what is measured here).
* The whole run is bounded (``--timeout`` seconds, default 900): past it, the run fails.

Latency is measured per request on the client, from send to the end of the body; p50/p95/max
per operation and overall, and the throughput over the whole run. The machine is shared (the
server, its worker threads and the 50 client threads all run on the same CPUs), so these are
numbers for this machine under this load, not a capacity figure. *Server CPU ms / request* is
the user + system CPU of the ``memdir serve`` process and its workers (``/proc``) over the run,
divided by the requests: what a request costs the server, which a loaded machine moves much
less than the wall (PostgreSQL's own processes are not in it).

``python bench/serve.py`` prints the table and writes ``bench/results/serve.md``; it exits 1
on any error or mismatch.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shlex
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from provenance import provenance

from memdir.http.keys import open_keys

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "serve.md"
MIX = (("remember", 0.4), ("recall", 0.3), ("update", 0.2), ("forget", 0.1))
WORDS = "deploy cache index query schema build test lint merge review retry token config".split()


@dataclass
class Client:
    number: int
    user: str
    key: str
    port: int
    requests: int
    seed: int
    expected: dict[str, str] = field(default_factory=dict)  # name -> statement
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    made: int = 0

    def _send(
        self, conn: http.client.HTTPConnection, op: str, method: str, path: str, body: Any = None
    ) -> Any:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Authorization": f"Bearer {self.key}", "Content-Type": "application/json"}
        start = time.perf_counter()
        conn.request(method, path, body=data, headers=headers)
        response = conn.getresponse()
        payload = response.read()
        self.latencies.setdefault(op, []).append(time.perf_counter() - start)
        if not 200 <= response.status < 300:
            raise RuntimeError(f"{op} {path}: {response.status} {payload[:200]!r}")
        return json.loads(payload)

    def _statement(self, rng: random.Random, n: int) -> str:
        words = " ".join(rng.choice(WORDS) for _ in range(8))
        return f"client {self.number} memory {n} revision {rng.randrange(10**9)}: {words}"

    def run(self, start: threading.Barrier) -> None:
        rng = random.Random(self.seed)
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        start.wait()
        for _ in range(self.requests):
            op = rng.choices([m for m, _ in MIX], weights=[w for _, w in MIX])[0]
            if op in ("update", "forget") and not self.expected:
                op = "remember"
            try:
                self._one(conn, rng, op)
            except (OSError, RuntimeError, http.client.HTTPException, ValueError) as exc:
                self.errors.append(f"client {self.number}: {exc}")
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        conn.close()

    def _one(self, conn: http.client.HTTPConnection, rng: random.Random, op: str) -> None:
        if op == "remember":
            name = f"c{self.number:02d}-{self.made:04d}"
            statement = self._statement(rng, self.made)
            self.made += 1
            body = {"text": statement, "type": "user", "name": name, "tags": [f"c{self.number}"]}
            got = self._send(conn, op, "POST", "/v1/memories", body)
            assert got["name"] == name
            self.expected[name] = statement
        elif op == "recall":
            query = " ".join(rng.choice(WORDS) for _ in range(3))
            self._send(conn, op, "POST", "/v1/recall", {"query": query, "top_k": 5})
        elif op == "update":
            name = rng.choice(sorted(self.expected))
            statement = self._statement(rng, int(name.split("-")[1]))
            self._send(conn, op, "PATCH", f"/v1/memories/{name}", {"statement": statement})
            self.expected[name] = statement
        else:
            name = rng.choice(sorted(self.expected))
            self._send(conn, op, "DELETE", f"/v1/memories/{name}")
            del self.expected[name]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _wait_for(port: int, proc: subprocess.Popen[bytes], limit: float) -> None:
    deadline = time.monotonic() + limit
    while True:
        if proc.poll() is not None:
            raise SystemExit("the server exited before it listened")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit("the server did not start listening") from None
            time.sleep(0.1)


def _listed(port: int, key: str) -> list[dict[str, Any]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    items: list[dict[str, Any]] = []
    offset: int | None = 0
    while offset is not None:
        conn.request(
            "GET",
            f"/v1/memories?limit=500&offset={offset}",
            headers={"Authorization": f"Bearer {key}"},
        )
        page = json.loads(conn.getresponse().read())
        items += page["items"]
        offset = page["next_offset"]
    conn.close()
    return items


def _check(clients: list[Client], port: int, keys: dict[str, str]) -> list[str]:
    """Every memory each user should have, with its statement; nothing else."""
    problems: list[str] = []
    for user, key in keys.items():
        expected: dict[str, str] = {}
        for c in clients:
            if c.user == user:
                expected.update(c.expected)
        stored = {m["name"]: m["statement"] for m in _listed(port, key)}
        lost = sorted(set(expected) - set(stored))
        extra = sorted(set(stored) - set(expected))
        wrong = sorted(n for n in set(expected) & set(stored) if expected[n] != stored[n])
        statements = list(stored.values())
        doubled = len(statements) - len(set(statements))
        foreign = [
            n
            for n in stored
            if not any(n.startswith(f"c{c.number:02d}-") for c in clients if c.user == user)
        ]
        for label, items in (
            ("lost", lost),
            ("extra", extra),
            ("wrong content", wrong),
            ("other user's", foreign),
        ):
            if items:
                problems.append(f"{user}: {len(items)} {label}: {items[:5]}")
        if doubled:
            problems.append(f"{user}: {doubled} statements stored twice")
        print(f"  {user}: {len(stored)} memories stored, {len(expected)} expected")
    return problems


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


@dataclass
class Run:
    """One configuration's measurement."""

    label: str
    options: list[str]
    wall: float
    clients: list[Client]
    problems: list[str]
    load: float  # the machine's 1-minute load average when the run ended
    connections: str = ""  # PostgreSQL: the most connections to the run's database seen, of max
    cpu: float | None = None  # CPU seconds the memdir server's processes used during the run

    @property
    def errors(self) -> list[str]:
        return [e for c in self.clients for e in c.errors]

    def by_op(self) -> dict[str, list[float]]:
        out: dict[str, list[float]] = {}
        for c in self.clients:
            for op, values in c.latencies.items():
                out.setdefault(op, []).extend(values)
        return out

    def every(self) -> list[float]:
        return [v for values in self.by_op().values() for v in values]

    @property
    def ok(self) -> bool:
        return not self.errors and not self.problems


def _server_command(port: int, data: Path, options: list[str]) -> tuple[list[str], dict[str, str]]:
    """The server's command line and environment; ``--src DIR`` runs another source tree."""
    options = list(options)
    env = dict(os.environ)
    if "--src" in options:
        at = options.index("--src")
        env["PYTHONPATH"] = str(Path(options[at + 1]).resolve())
        del options[at : at + 2]
    command = [sys.executable, "-m", "memdir.cli", "serve", "--http", "--port", str(port)]
    return [*command, "--data", str(data), *options], env


def _warm(port: int, key: str, times: int) -> None:
    """Recalls on fresh connections: each server process that takes one loads the embedder
    and the user's facade before the clock starts."""
    for _ in range(times):
        warm = Client(99, "", key, port, 0, 0)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        warm._send(conn, "warm-up", "POST", "/v1/recall", {"query": "warm up"})
        conn.close()


APP_ROLE, APP_PASSWORD = "memdir_bench", "bench-pw"


class Postgres:
    """One PostgreSQL for the whole run (started on first use); a fresh database per
    configuration, owned by a role without superuser or BYPASSRLS, with pgvector installed."""

    def __init__(self, stack: ExitStack) -> None:
        self._stack = stack
        self._admin: str | None = None

    def _server(self) -> str:
        if self._admin is None:
            sys.path.insert(0, str(ROOT / "tests"))
            from pgserver import running

            server: AbstractContextManager[str] = running("memdir-serve-bench-pg-")
            self._admin = self._stack.enter_context(server)
            import psycopg

            with psycopg.connect(self._admin, autocommit=True) as conn:
                conn.execute(
                    f"CREATE ROLE {APP_ROLE} LOGIN NOSUPERUSER NOBYPASSRLS "
                    f"PASSWORD '{APP_PASSWORD}'"
                )
        return self._admin

    def fresh(self) -> str:
        """The DSN of a new, empty database, as the application role."""
        from urllib.parse import urlsplit, urlunsplit

        import psycopg

        admin = self._server()
        name = f"bench_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}" OWNER {APP_ROLE}')
        parts = urlsplit(admin)
        db_admin = urlunsplit(parts._replace(path="/" + name))
        with psycopg.connect(db_admin, autocommit=True) as conn:
            conn.execute(f"ALTER SCHEMA public OWNER TO {APP_ROLE}")
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        host = parts.netloc.rsplit("@", 1)[-1]
        return urlunsplit(
            parts._replace(netloc=f"{APP_ROLE}:{APP_PASSWORD}@{host}", path="/" + name)
        )


class Connections:
    """Samples how many connections the run's database has (``pg_stat_activity``) while the
    clients run, on a thread of its own: the peak, beside the server's ``max_connections``."""

    def __init__(self, dsn: str) -> None:
        import psycopg

        self._conn = psycopg.connect(dsn, autocommit=True)
        row = self._conn.execute("SHOW max_connections").fetchone()
        self.limit = int(row[0]) if row else 0
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        query = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
        while not self._stop.wait(0.2):
            row = self._conn.execute(query).fetchone()
            self.peak = max(self.peak, int(row[0]) if row else 0)

    def stop(self) -> str:
        self._stop.set()
        self._thread.join()
        self._conn.close()
        return f"{self.peak} of {self.limit}"


@contextmanager
def _backend(options: list[str], pg: Postgres) -> Iterator[tuple[list[str], str | None]]:
    """``options`` with ``--backend postgresql`` made a fresh database's DSN, and the backend
    the keys go to (``None``: the file backend's keys.json)."""
    options = list(options)
    if "--backend" not in options:
        yield options, None
        return
    at = options.index("--backend") + 1
    if options[at] == "postgresql":
        options[at] = pg.fresh()
    yield options, None if options[at] == "file" else options[at]


def measure(label: str, given: list[str], args: argparse.Namespace, pg: Postgres) -> Run:
    with (
        tempfile.TemporaryDirectory(prefix="memdir-serve-bench-") as tmp,
        _backend(given, pg) as (options, keys_backend),
    ):
        data = Path(tmp) / "server"
        ring = open_keys(data, keys_backend or "file")
        keys = {user: ring.create(user)[1] for user in ("alice", "bob")}
        port = _free_port()
        command, env = _server_command(port, data, options)
        env["MEMDIR_HOME"] = str(Path(tmp) / "home")
        log = (Path(tmp) / "server.log").open("wb")
        server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=log)
        sampler = Connections(keys_backend) if keys_backend else None
        connections = ""
        try:
            _wait_for(port, server, 120)
            processes = (
                int(options[options.index("--processes") + 1]) if ("--processes" in options) else 1
            )
            for key in keys.values():
                _warm(port, key, 4 * processes)
            users = list(keys)
            clients = [
                Client(i, users[i % 2], keys[users[i % 2]], port, args.requests, args.seed + i)
                for i in range(args.clients)
            ]
            barrier = threading.Barrier(len(clients) + 1)
            threads = [
                threading.Thread(target=c.run, args=(barrier,), daemon=True) for c in clients
            ]
            for t in threads:
                t.start()
            barrier.wait()
            began, cpu_before = time.perf_counter(), _tree_cpu(server.pid)
            deadline = time.monotonic() + args.timeout
            for t in threads:
                t.join(timeout=max(0.0, deadline - time.monotonic()))
            wall = time.perf_counter() - began
            cpu_after = _tree_cpu(server.pid)
            cpu = None if cpu_before is None or cpu_after is None else cpu_after - cpu_before
            if any(t.is_alive() for t in threads):
                raise SystemExit(f"FAILED: {label} did not finish within {args.timeout:.0f} s")
            print(f"{label}: {len(clients)} clients x {args.requests} requests in {wall:.1f} s")
            problems = _check(clients, port, keys)
        finally:
            connections = sampler.stop() if sampler else ""
            server.terminate()
            server.wait(timeout=60)
            log.close()
        if any(c.errors for c in clients):  # the server's side of the errors: its tracebacks
            text = (Path(tmp) / "server.log").read_text(errors="replace")
            tracebacks = [t for t in text.split("Traceback") if "Error" in t][:3]
            said = sorted(
                {ln.strip() for ln in text.splitlines() if "FATAL" in ln or "too many" in ln}
            )
            print("server log, database errors:", *said[:5], sep="\n  ")
            print("server log:", *("Traceback" + t[-3000:] for t in tracebacks), sep="\n")
    return Run(label, given, wall, clients, problems, os.getloadavg()[0], connections, cpu)


def _tree_cpu(pid: int) -> float | None:
    """User + system CPU seconds of ``pid`` and its descendants (``--processes`` workers), from
    ``/proc``; None where there is no ``/proc``. Less moved by a loaded machine than the wall:
    the CPU each request costs the server, whatever else runs beside it."""
    stats: dict[int, tuple[int, float]] = {}
    try:
        entries = [e for e in os.listdir("/proc") if e.isdigit()]
    except OSError:
        return None
    for entry in entries:
        try:
            raw = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = raw[raw.rindex(")") + 2 :].split()  # after "pid (comm) "
        stats[int(entry)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / _TICKS)
    if pid not in stats:
        return None
    tree, total, grew = {pid}, 0.0, True
    while grew:
        more = {p for p, (parent, _) in stats.items() if parent in tree} - tree
        tree |= more
        grew = bool(more)
    for p in tree:
        total += stats[p][1]
    return total


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _table(run: Run) -> list[str]:
    by_op = run.by_op()
    every = run.every()
    rows = [
        f"| {op} | {len(v)} | {_pct(v, 0.5):.1f} | {_pct(v, 0.95):.1f} | {max(v) * 1000:.0f} |"
        for op, v in ((op, by_op.get(op, [])) for op, _ in MIX)
        if v
    ]
    rows.append(
        f"| **all** | {len(every)} | **{_pct(every, 0.5):.1f}** | **{_pct(every, 0.95):.1f}** | "
        f"{max(every) * 1000:.0f} |"
    )
    stored = sum(len(c.expected) for c in run.clients)
    verdict = (
        f"**PASS** — 0 errors; {stored} memories expected at the end, every one found with its "
        "expected statement, none lost, none extra, none doubled, none of the other user's"
        if run.ok
        else f"**FAIL** — {len(run.errors)} errors; problems: {run.problems[:5]}"
    )
    return [
        f"### {run.label}: `serve --http {shlex.join(run.options)}`",
        "",
        f"- result: {verdict}",
        f"- wall time {run.wall:.1f} s for {len(every)} requests: **{len(every) / run.wall:.0f} "
        f"requests/s**; load average {run.load:.1f} at the end",
        "",
        "| operation | requests | p50 ms | p95 ms | max ms |",
        "| --- | --- | --- | --- | --- |",
        *rows,
        "",
    ]


def _summary(runs: list[Run]) -> list[str]:
    base = runs[0]
    base_rate = len(base.every()) / base.wall
    lines = [
        "| run | options | requests/s | p50 ms | p95 ms | server CPU ms / request | errors | "
        f"lost or wrong | × {base.label} requests/s | peak DB connections |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for run in runs:
        every = run.every()
        rate = len(every) / run.wall
        cpu = "-" if run.cpu is None else f"{1000 * run.cpu / len(every):.1f}"
        lines.append(
            f"| {run.label} | `{shlex.join(run.options) or '(defaults)'}` | **{rate:.0f}** | "
            f"{_pct(every, 0.5):.0f} | **{_pct(every, 0.95):.0f}** | {cpu} | {len(run.errors)} | "
            f"{len(run.problems)} | {rate / base_rate:.2f} | {run.connections or '-'} |"
        )
    return lines


def _configurations(args: argparse.Namespace) -> list[tuple[str, list[str]]]:
    if args.compare:
        out = []
        for spec in args.compare:
            label, _, opts = spec.partition(":")
            out.append((label, shlex.split(opts)))
        return out
    options: list[str] = []
    for flag in ("backend", "processes", "threads", "src"):
        value = getattr(args, flag)
        if value is not None:
            options += [f"--{flag}", str(value)]
    return [("this run", options)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--backend", help="serve --backend: a backend name or a DSN")
    parser.add_argument("--processes", type=int, help="serve --processes")
    parser.add_argument("--threads", type=int, help="serve --threads")
    parser.add_argument("--src", help="run the server from this source tree (an old commit)")
    parser.add_argument(
        "--compare",
        action="append",
        metavar="LABEL:OPTIONS",
        help="measure several configurations in one run, in order (repeat); the first is the "
        "baseline of the ratios",
    )
    parser.add_argument("--no-write", action="store_true", help="do not write the report")
    args = parser.parse_args()

    with ExitStack() as stack:
        pg = Postgres(stack)
        runs = [measure(label, options, args, pg) for label, options in _configurations(args)]
    lines = [
        "# The REST API under load (SPEC I4, issue 20 item 5)",
        "",
        *provenance(sys.argv),
        "",
        f"`memdir serve --http` on 127.0.0.1; {args.clients} concurrent clients (keep-alive, "
        f"half per user, 2 users) x {args.requests} requests, mix remember 40 % / recall 30 % / "
        f"update 20 % / forget 10 %, embedder `{os.environ.get('MEMDIR_EMBEDDER', 'default')}`. "
        "Configurations run one after another in this one run, on the same machine.",
        "",
        *_summary(runs),
        "",
        *(line for run in runs for line in _table(run)),
        "One recall per user and server process ran before the clock started (it loads the "
        "embedder and the user's facade). Client threads, servers and their threads share the "
        "same CPUs, and the machine is shared with other work (the load average above): "
        "compare the ratios within one run, not absolute numbers across runs.",
    ]
    print("\n".join(lines[lines.index("") + 1 :]))
    for run in runs:
        for e in run.errors[:10]:
            print(f"error ({run.label}):", e)
        for p in run.problems:
            print(f"mismatch ({run.label}):", p)
    if not args.no_write:
        RESULTS.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {RESULTS.relative_to(ROOT)}")
    return 0 if all(run.ok for run in runs) else 1


if __name__ == "__main__":
    raise SystemExit(main())
