"""Page times of the web page on a 10k-memory store (issue 23: list, search, a memory's page,
p50 ≤ 150 ms server time), optionally against an older commit in the same run.

    .venv/bin/python bench/web.py [N] [--embedder hashing|use] [--compare COMMIT] [--aa]
                                  [--rounds R]

Builds N synthetic memories (default 10 000: English-like sentences over a made-up vocabulary,
spread over both scopes, four types and 40 tags, every 50th one edited once so memory pages
have a history), serves ``memdir ui``'s app with uvicorn on 127.0.0.1 in a process of its own
and times each page as its round trip over loopback after one warm-up: the server's time plus
a loopback hop, so an upper bound on the server time. Prints the table and writes
``bench/results/web.md`` with the command, the commits, the machine and its load.

``--compare COMMIT`` also serves the same store with ``src/`` as it was at COMMIT (``git
archive`` into a temp folder; the server process imports memdir from there) and asks the two
servers in turn, request by request, who goes first rotating: on a loaded machine both see the
same noise, so the ratio new/old is the number to read. ``--aa`` serves this tree a second
time beside them: its ratio to the first copy is what chance alone moves (the noise floor).

The default embedder is the 512-dimensional hashing embedder (``bench/search_at_scale.py``
does the same): embedding 10k texts with the real model takes minutes here, and the vector
search costs the same at the same dimension. A search with the real ``use`` model costs one
query encode more (~5-10 ms, measured in bench/results/recall.md); ``--embedder use`` runs it.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
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
def pages_for(n: int, rounds: int) -> dict[str, list[str]]:
    rng = random.Random(5)
    vocab = _words()
    return {
        "list (first page of 50, counts)": ["/ui/"] * rounds,
        "list filtered by tag": [f"/ui/?tag=tag{rng.randrange(40)}" for _ in range(rounds)],
        "search with explain": [
            "/ui/search?q=" + "+".join(rng.choice(vocab) for _ in range(4)) for _ in range(rounds)
        ],
        "a memory's page (history, related)": [
            f"/ui/m/{'user' if i % 4 < 2 else 'project'}/m{i:05d}"
            for i in (rng.randrange(0, n, 50) for _ in range(rounds))
        ],
        GRAPH: [
            f"/ui/m/{'user' if i % 4 < 2 else 'project'}/m{i:05d}/graph"
            for i in (rng.randrange(n) for _ in range(rounds))
        ],
    }


def _get(server: Server, path: str) -> float:
    start = time.perf_counter()
    answer = server.client.get(path)
    elapsed = (time.perf_counter() - start) * 1000
    assert answer.status_code == 200, (server.label, path, answer.status_code, answer.text[:300])
    return elapsed


def timed(servers: list[Server], paths: list[str]) -> dict[str, list[float]]:
    """Each path asked of every server in turn, who goes first rotating round by round."""
    for each in servers:
        _get(each, paths[0])  # warm-up: caches and the index views load once
    out: dict[str, list[float]] = {s.label: [] for s in servers}
    for i, path in enumerate(paths):
        turn = i % len(servers)
        for each in servers[turn:] + servers[:turn]:
            out[each.label].append(_get(each, path))
    return out


def _p(ms: list[float], q: float) -> float:
    ordered = sorted(ms)
    return ordered[max(0, int(len(ordered) * q) - 1)]


def _options() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("n", nargs="?", type=int, default=10_000, help="memories in the store")
    parser.add_argument("--embedder", default="hashing", help="hashing (default) or use")
    parser.add_argument("--compare", metavar="COMMIT", help="also serve src/ as at COMMIT")
    parser.add_argument("--aa", action="store_true",
                        help="also serve this tree a second time: the noise floor")  # fmt: skip
    parser.add_argument("--rounds", type=int, default=30, help="requests per page and server")
    return parser.parse_args()


def main() -> int:
    if sys.argv[1:2] == ["--serve"]:
        serve(Path(sys.argv[2]), sys.argv[3])
        return 0
    opts = _options()
    root = Path(tempfile.gettempdir()) / f"memdir-web-bench-{opts.n}-{opts.embedder}"
    t = time.perf_counter()
    build(root, opts.n, opts.embedder)
    print(f"store of {opts.n} memories ready in {time.perf_counter() - t:.0f} s", flush=True)
    load_before = os.getloadavg()[0]
    new = _commit() + ("+ (uncommitted changes)" if _dirty() else "")
    results: dict[str, dict[str, list[float]]] = {}
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="memdir-web-old-") as tmp:
        wanted = [("new", new, ROOT / "src")]
        if opts.compare:
            wanted.append(("old", _commit(opts.compare), old_source(opts.compare, Path(tmp))))
        if opts.aa:
            wanted.append(("again", new, ROOT / "src"))
        servers = [
            stack.enter_context(server(label, commit, src, root, opts.embedder))
            for label, commit, src in wanted
        ]
        for label, paths in pages_for(opts.n, opts.rounds).items():
            asked = [s for s in servers if s.label != "old" or label != GRAPH]
            results[label] = timed(asked, paths)
            line = ", ".join(
                f"{k} p50 {statistics.median(v):.0f} ms" for k, v in results[label].items()
            )
            print(f"{label}: {line}", flush=True)
        commits = {s.label: s.commit for s in servers}
    write(results, opts, commits, load_before)
    return 0 if all(statistics.median(r["new"]) <= 150 for r in results.values()) else 1


def _row(label: str, r: dict[str, list[float]], labels: list[str]) -> str:
    cells = [label]
    for name in labels:
        cells.append(f"{statistics.median(r[name]):.0f}" if name in r else "—")
    new = statistics.median(r["new"])
    for name in labels[1:]:
        cells.append(f"{new / statistics.median(r[name]):.2f}" if name in r else "—")
    cells += [f"{_p(r[name], 0.95):.0f}" if name in r else "—" for name in labels]
    return "| " + " | ".join(cells) + " |"


def write(
    results: dict[str, dict[str, list[float]]],
    opts: argparse.Namespace,
    commits: dict[str, str],
    load_before: float,
) -> None:
    load = os.getloadavg()[0]
    labels = list(commits)  # new, then old and again when asked for
    names = {"new": "new", "old": "old", "again": "new again"}
    head = [f"{names[x]} p50 ms" for x in labels]
    head += [f"new/{names[x]}" for x in labels[1:]]
    head += [f"{names[x]} p95 ms" for x in labels]
    table = ["| page | " + " | ".join(head) + " |", "| --- |" + " ---: |" * len(head)]
    table += [_row(label, r, labels) for label, r in results.items()]
    command = f"nice -n 10 .venv/bin/python bench/web.py {opts.n} --embedder {opts.embedder}"
    command += f" --compare {commits['old']}" if "old" in commits else ""
    command += " --aa" if opts.aa else ""
    command += f" --rounds {opts.rounds}" if opts.rounds != 30 else ""
    cores = os.cpu_count() or 1
    loaded = max(load, load_before) > cores
    served = {
        "new": f"new: commit {commits['new']}",
        "old": f"old: commit {commits.get('old')} (its src/, from git archive)",
        "again": "new again: the same tree in a third process (the noise floor: its ratio "
        "to new is what chance alone moves)",
    }
    text = "\n".join(
        [
            f"# The web page on a {opts.n:,}-memory store",
            "",
            f"`{command}` — {'; '.join(served[x] for x in labels)}. {platform.machine()}, "
            f"{cores} cores, Python {platform.python_version()}, load average "
            f"{load_before:.1f} at the start and {load:.1f} at the end (the machine is shared "
            "with other work).",
            "",
            f"Round trip over loopback of {opts.rounds} requests per page and server after one "
            "warm-up (an upper bound on the server time); target p50 ≤ 150 ms."
            + (
                " Every server serves the same store in its own process; they are asked in "
                "turn, request by request, who goes first rotating, so all see the same load: "
                "read the ratios."
                if len(labels) > 1
                else ""
            ),
            "",
            *table,
            "",
            *(
                [
                    f"The load average ({max(load, load_before):.0f}) was over the {cores} "
                    "cores: every request waited its turn for a core, so the absolute times "
                    "are not the page's cost on a quiet machine"
                    + ("; compare the ratios." if len(labels) > 1 else "; run it there."),
                    "",
                ]
                if loaded
                else []
            ),
        ]
    )
    RESULTS.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    sys.exit(main())
