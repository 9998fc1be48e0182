"""Page times of the web page on a 10k-memory store (issue 23: list, search, a memory's page,
p50 ≤ 150 ms server time), optionally against an older commit in the same run.

    .venv/bin/python bench/web.py [N] [--embedder hashing|use] [--compare COMMIT]

Builds N synthetic memories (default 10 000: English-like sentences over a made-up vocabulary,
spread over both scopes, four types and 40 tags, every 50th one edited once so memory pages
have a history), serves ``memdir ui``'s app with uvicorn on 127.0.0.1 in a process of its own
and times each page as its round trip over loopback after one warm-up: the server's time plus
a loopback hop, so an upper bound on the server time. Prints the table and writes
``bench/results/web.md`` with the command, the commits, the machine and its load.

``--compare COMMIT`` also serves the same store with ``src/`` as it was at COMMIT (``git
archive`` into a temp folder; the server process imports memdir from there) and asks the two
servers in turn, request by request, the first of each pair alternating: on a loaded machine
both see the same noise, so the ratio new/old is the number to read.

The default embedder is the 512-dimensional hashing embedder (``bench/search_at_scale.py``
does the same): embedding 10k texts with the real model takes minutes here, and the vector
search costs the same at the same dimension. A search with the real ``use`` model costs one
query encode more (~5-10 ms, measured in bench/results/recall.md); ``--embedder use`` runs it.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import json
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

import httpx

ROOT = Path(__file__).parents[1]
RESULTS = ROOT / "bench" / "results" / "web.md"
ROUNDS = 30
TOKEN = "bench-token"
GRAPH = "a memory's entity graph"  # new in 342eae1: not asked of an older commit


def _words() -> list[str]:
    heads = ["ka", "lo", "mi", "ne", "pu", "ra", "si", "to", "vu", "ze", "ba", "de"]
    tails = ["ron", "las", "mit", "gor", "bel", "tus", "vin", "dra", "kel", "pon", "sar"]
    return [h + t + s for h in heads for t in tails for s in ("", "er", "ing", "ness", "ity")]


def _memory(root: Path, embedder: str):  # type: ignore[no-untyped-def]  (either commit's Memory)
    from memdir import Memory
    from memdir.providers.embeddings import HashingEmbedder

    chosen = HashingEmbedder(dim=512) if embedder == "hashing" else embedder
    return Memory(home=root / "h", project=root / "p", embedder=chosen)


def build(root: Path, n: int, embedder: str) -> None:
    """The store, once: it is kept under the temp dir and reused by the next run (building
    10k memories takes minutes on a loaded machine); delete it to build afresh."""
    if (root / "built").exists():
        return
    shutil.rmtree(root, ignore_errors=True)
    (root / "p" / ".agent").mkdir(parents=True)
    m = _memory(root, embedder)
    m.init()
    rng = random.Random(23)
    vocab = _words()
    types = ["user", "feedback", "project", "reference"]
    items = [
        {
            "text": "The " + " ".join(rng.choice(vocab) for _ in range(rng.randint(8, 24))),
            "type": types[i % 4],
            "name": f"m{i:05d}",
            "tags": [f"tag{rng.randrange(40)}"],
        }
        for i in range(n)
    ]
    m.remember_many(items)
    for i in range(0, n, 50):
        m.update(f"m{i:05d}", importance=3, reason="bench: a history to show")
    m.reindex()
    (root / "built").write_text("ok", encoding="utf-8")


# -- the servers -------------------------------------------------------------------------
def serve(root: Path, embedder: str) -> None:
    """In the server process: ``memdir ui``'s app on the store, on a free loopback port; the
    port is printed once the socket is bound (the parent waits for that line, not a clock)."""
    import socket

    import uvicorn

    import memdir
    from memdir.web import local_app

    app, backend = local_app(_memory(root, embedder), TOKEN)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    backend.hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
    print(json.dumps({"port": port, "memdir": memdir.__file__}), flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off")).run([sock])


@dataclass
class Server:
    label: str  # "new" | "old"
    commit: str
    base: str
    imported: str  # the memdir package the process imported (checked against the source)
    client: httpx.Client


@contextmanager
def server(label: str, commit: str, src: Path, root: Path, embedder: str) -> Iterator[Server]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    args = [sys.executable, str(Path(__file__).resolve()), "--serve", str(root), embedder]
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, text=True, cwd=src.parent)
    try:
        assert proc.stdout is not None
        started = json.loads(proc.stdout.readline() or "{}")
        if "port" not in started:
            raise SystemExit(f"the {label} server did not start (exit {proc.wait()})")
        imported = str(started["memdir"])
        if not Path(imported).is_relative_to(src):
            raise SystemExit(f"the {label} server imported {imported}, not {src}")
        base = f"http://127.0.0.1:{started['port']}"
        with httpx.Client(base_url=base, follow_redirects=True, timeout=300) as client:
            client.get(f"/ui/login?token={TOKEN}").raise_for_status()
            yield Server(label, commit, base, imported, client)
    finally:
        proc.terminate()
        proc.wait(60)


def old_source(commit: str, into: Path) -> Path:
    """``src/`` as it was at ``commit``, unpacked under ``into`` (git archive, no worktree)."""
    tar = subprocess.run(["git", "archive", commit, "src"], cwd=ROOT, capture_output=True,
                         check=True).stdout  # fmt: skip
    with tarfile.open(fileobj=BytesIO(tar)) as archive:
        archive.extractall(into, filter="data")
    return into / "src"


def _commit(ref: str = "HEAD") -> str:
    return subprocess.run(["git", "rev-parse", "--short", ref], capture_output=True, text=True,
                          cwd=ROOT, check=True).stdout.strip()  # fmt: skip


def _dirty() -> bool:
    wanted = ["git", "status", "--porcelain", "src", "bench/web.py"]
    status = subprocess.run(wanted, capture_output=True, text=True, cwd=ROOT, check=True).stdout
    return bool(status.strip())


# -- timing ------------------------------------------------------------------------------
def pages_for(n: int) -> dict[str, list[str]]:
    rng = random.Random(5)
    vocab = _words()
    return {
        "list (first page of 50, counts)": ["/ui/"] * ROUNDS,
        "list filtered by tag": [f"/ui/?tag=tag{rng.randrange(40)}" for _ in range(ROUNDS)],
        "search with explain": [
            "/ui/search?q=" + "+".join(rng.choice(vocab) for _ in range(4)) for _ in range(ROUNDS)
        ],
        "a memory's page (history, related)": [
            f"/ui/m/{'user' if i % 4 < 2 else 'project'}/m{i:05d}"
            for i in (rng.randrange(0, n, 50) for _ in range(ROUNDS))
        ],
        GRAPH: [
            f"/ui/m/{'user' if i % 4 < 2 else 'project'}/m{i:05d}/graph"
            for i in (rng.randrange(n) for _ in range(ROUNDS))
        ],
    }


def _get(server: Server, path: str) -> float:
    start = time.perf_counter()
    answer = server.client.get(path)
    elapsed = (time.perf_counter() - start) * 1000
    assert answer.status_code == 200, (server.label, path, answer.status_code, answer.text[:300])
    return elapsed


def timed(servers: list[Server], paths: list[str]) -> dict[str, list[float]]:
    """Each path asked of every server in turn, the first of each round alternating."""
    for each in servers:
        _get(each, paths[0])  # warm-up: caches and the index views load once
    out: dict[str, list[float]] = {s.label: [] for s in servers}
    for i, path in enumerate(paths):
        for each in servers if i % 2 == 0 else servers[::-1]:
            out[each.label].append(_get(each, path))
    return out


def _p(ms: list[float], q: float) -> float:
    ordered = sorted(ms)
    return ordered[max(0, int(len(ordered) * q) - 1)]


def main() -> int:
    if sys.argv[1:2] == ["--serve"]:
        serve(Path(sys.argv[2]), sys.argv[3])
        return 0
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(args[0]) if args else 10_000
    embedder = sys.argv[sys.argv.index("--embedder") + 1] if "--embedder" in sys.argv else "hashing"
    compare = sys.argv[sys.argv.index("--compare") + 1] if "--compare" in sys.argv else None
    args = [a for a in args if a not in (embedder, compare)]
    root = Path(tempfile.gettempdir()) / f"memdir-web-bench-{n}-{embedder}"
    t = time.perf_counter()
    build(root, n, embedder)
    print(f"store of {n} memories ready in {time.perf_counter() - t:.0f} s", flush=True)
    load_before = os.getloadavg()[0]
    new = _commit() + ("+ (uncommitted changes)" if _dirty() else "")
    results: dict[str, dict[str, list[float]]] = {}
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="memdir-web-old-") as tmp:
        servers = [stack.enter_context(server("new", new, ROOT / "src", root, embedder))]
        if compare:
            src = old_source(compare, Path(tmp))
            servers.append(
                stack.enter_context(server("old", _commit(compare), src, root, embedder))
            )
        for label, paths in pages_for(n).items():
            asked = [s for s in servers if s.label == "new" or label != GRAPH]
            results[label] = timed(asked, paths)
            line = ", ".join(
                f"{k} p50 {statistics.median(v):.0f} ms" for k, v in results[label].items()
            )
            print(f"{label}: {line}", flush=True)
        commits = {s.label: s.commit for s in servers}
    write(results, n, embedder, commits, load_before)
    return 0 if all(statistics.median(r["new"]) <= 150 for r in results.values()) else 1


def write(
    results: dict[str, dict[str, list[float]]],
    n: int,
    embedder: str,
    commits: dict[str, str],
    load_before: float,
) -> None:
    load = os.getloadavg()[0]
    old = "old" in commits
    if old:
        table = [
            "| page | old p50 ms | new p50 ms | new/old | old p95 ms | new p95 ms |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
        ]
        for label, r in results.items():
            b = statistics.median(r["new"])
            if "old" not in r:  # a page the old commit does not have
                table.append(f"| {label} | — | {b:.0f} | — | — | {_p(r['new'], 0.95):.0f} |")
                continue
            a = statistics.median(r["old"])
            table.append(f"| {label} | {a:.0f} | {b:.0f} | {b / a:.2f} | "
                         f"{_p(r['old'], 0.95):.0f} | {_p(r['new'], 0.95):.0f} |")  # fmt: skip
    else:
        table = ["| page | p50 ms | p95 ms | max ms |", "| --- | ---: | ---: | ---: |"]
        for label, r in results.items():
            ms = r["new"]
            table.append(f"| {label} | {statistics.median(ms):.0f} | {_p(ms, 0.95):.0f} | "
                         f"{max(ms):.0f} |")  # fmt: skip
    command = f"nice -n 10 .venv/bin/python bench/web.py {n} --embedder {embedder}"
    command += f" --compare {commits['old']}" if old else ""
    cores = os.cpu_count() or 1
    text = "\n".join(
        [
            f"# The web page on a {n:,}-memory store",
            "",
            f"`{command}` — new: commit {commits['new']}"
            + (f", old: commit {commits['old']}" if old else "")
            + f"; {platform.machine()} {cores} cores, Python {platform.python_version()}, "
            f"load average {load_before:.1f} at the start and {load:.1f} at the end (the "
            "machine is shared with other work).",
            "",
            f"Round trip over loopback of {ROUNDS} requests per page after one warm-up (an upper "
            "bound on the server time); target p50 ≤ 150 ms."
            + (
                " Both servers serve the same store, each in its own process, asked in turn "
                "request by request (the first of each pair alternating), so both see the same "
                "load: read the ratio."
                if old
                else ""
            ),
            "",
            *table,
            "",
            *(
                [
                    f"The load average ({max(load, load_before):.0f}) was over the {cores} "
                    "cores: every request here waited its turn for a core, so the absolute times "
                    "are not the page's cost on a quiet machine"
                    + (
                        "; the ratios hold." if old else ". Run it again there to check the target."
                    ),
                    "",
                ]
                if max(load, load_before) > cores
                else []
            ),
        ]
    )
    RESULTS.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    sys.exit(main())
