"""memdir beside its peers, in one run: the same data, the same embedder, the same protocols.

    .venv/bin/python bench/peers.py [--quick] [--data PATH] [--embedder NAME] [--sizes 1000,10000]

Systems. Each runs in its own interpreter as a driver process speaking the JSON-lines protocol
of ``bench/peers_drivers/protocol.py``; nothing of a peer is imported here.

* **memdir** — this checkout, in memdir's own environment (``sys.executable``), its own
  embedder in process, ``recall(track=False, min_score=0)``.
* **mem0** — ``mem0ai`` (and ``fastembed`` for its BM25) installed into a throwaway venv under
  ``bench/.cache/peers/mem0/``; local mode (embedded Qdrant on disk), ``add(infer=False)``,
  its search in two modes: ``semantic`` and ``hybrid`` (with its stemmed BM25). Its embedder
  is memdir's, served by this process over the protocol (``embed`` calls), so the two rank the
  same vectors. See ``mem0_driver.py``.
* **basic-memory** — needs Python ≥ 3.12; it is installed (and would run) only where such an
  interpreter is found (``--python312`` or ``python3.12``/``python3.13`` on ``PATH``), and is
  otherwise skipped with the reason in the report. No driver is written for it yet.

A peer that cannot be installed (no network to PyPI, no suitable Python) is skipped, and the
report says why. Protocols, all in one run:

* **LoCoMo** — ``bench/locomo.py``'s data, items and metrics: every dialog turn one memory
  (``"<speaker>: <text>"``; memdir also gets its date and session, as in ``bench/recall.py``),
  one store per conversation, every category 1–4 question searched with ``k = 50``; turn and
  session recall@5/@10 and NDCG@10 (sessions ranked by their best turn).
* **Everyday (dev)** — ``bench/everyday/dev.yaml`` only (never the held-out batches): one
  store per project, ``k = 10``, hit@1 / hit@3 by language and kind.
* **Latency** — per size N: N synthetic memories (``bench/speed.py``'s corpus) through the
  system's bulk path, then ``WRITES`` single writes, each timed (write p50), then one warm-up
  and ``QUERIES`` different queries (search p50 / p95, and the part spent on the query
  embedding's round trip for a peer).
* **Cold process** — a fresh driver process opening the 1k store and answering one search
  (start to answer), ``RUNS`` times after a warm-up; and memdir's own CLI (``memdir recall``)
  the way ``bench/cli.py`` times it.

Writes ``bench/results/peers.md`` (or ``--out``) with each system's version and configuration,
the command, commit and machine.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Iterator, Sequence  # noqa: E402
from contextlib import contextmanager, suppress  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import IO, Any  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))

from provenance import provenance  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "bench" / ".cache" / "peers"
DRIVERS = ROOT / "bench" / "peers_drivers"
RESULTS = ROOT / "bench" / "results" / "peers.md"
DEPTH = 50  # LoCoMo: turns ranked per question (sessions are ranked from these)
WRITES = 50  # latency: single writes timed after the bulk load
QUERIES = 100  # latency: timed searches after one warm-up
RUNS = 3  # cold process: runs after a warm-up


class ProtocolError(RuntimeError):
    """A driver answered with an error, or not at all."""


# -- the systems ----------------------------------------------------------------------------
@dataclass
class System:
    """One system under test: how to install it and which driver speaks for it."""

    name: str
    driver: str | None  # file in bench/peers_drivers/; None: no driver yet
    packages: tuple[str, ...] = ()  # pip requirements for its venv; () runs in memdir's own
    min_python: tuple[int, int] = (3, 9)
    modes: tuple[str, ...] = ("default",)
    python: str | None = None  # the interpreter once installed
    skipped: str | None = None  # why it did not run
    hello: dict[str, Any] = field(default_factory=dict)


def systems() -> list[System]:
    return [
        System("memdir", "memdir_driver.py", python=sys.executable),
        System("mem0", "mem0_driver.py", ("mem0ai", "fastembed"), modes=("semantic", "hybrid")),
        System("basic-memory", None, ("basic-memory",), min_python=(3, 12), modes=("fts",)),
    ]


def _python_version(python: str) -> tuple[int, int] | None:
    try:
        out = subprocess.run([python, "-c", "import sys; print(*sys.version_info[:2])"],
                             capture_output=True, text=True, check=True, timeout=60)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    major, minor = out.stdout.split()
    return int(major), int(minor)


def find_python(minimum: tuple[int, int], extra: Sequence[str] = ()) -> str | None:
    """An interpreter at least ``minimum``: ``extra`` first, then this one, then ``PATH``."""
    names = [*extra, sys.executable, *(f"python3.{m}" for m in range(14, 8, -1)), "python3"]
    for name in names:
        found = shutil.which(name) or (name if Path(name).exists() else None)
        got = _python_version(found) if found else None
        if got is not None and got >= minimum:
            return found
    return None


def install(system: System, extra_pythons: Sequence[str] = ()) -> None:
    """Give ``system`` a venv of its own under ``CACHE`` with its packages, or a reason why
    not (``system.skipped``). A venv already installed with the same packages is reused."""
    if not system.packages or system.skipped:
        return
    if system.driver is None:
        system.skipped = "no driver for it in bench/peers_drivers/ yet"
    base = find_python(system.min_python, extra_pythons)
    if base is None:
        need = ".".join(map(str, system.min_python))
        here = ".".join(map(str, sys.version_info[:2]))
        system.skipped = (f"needs Python ≥ {need} and none was found (this machine: {here}; "
                          "pass --python312 PATH)")  # fmt: skip
        return
    if system.skipped:
        return
    venv = CACHE / system.name / "venv"
    python = venv / "bin" / "python"
    stamp = venv / "bench-packages.json"
    wanted = json.dumps({"base": base, "packages": system.packages})
    if not (python.exists() and stamp.exists() and stamp.read_text() == wanted):
        shutil.rmtree(venv, ignore_errors=True)
        print(f"installing {' '.join(system.packages)} into {venv} ...", file=sys.stderr)
        steps = [[base, "-m", "venv", str(venv)],
                 [str(python), "-m", "pip", "install", "-q", *system.packages]]  # fmt: skip
        for step in steps:
            done = subprocess.run(step, capture_output=True, text=True)
            if done.returncode != 0:
                errors = [ln for ln in done.stderr.splitlines() if "ERROR" in ln]
                why = (errors or done.stderr.strip().splitlines() or ["no output"])[-1]
                system.skipped = f"could not be installed offline: {why[:300]}"
                return
        stamp.write_text(wanted)
    system.python = str(python)


# -- the protocol, bench side ---------------------------------------------------------------
Embed = Callable[[list[str], str], list[list[float]]]


class Driver:
    """One driver process: ``request`` sends an op and serves its embed calls."""

    def __init__(self, python: str, script: Path, embed: Embed | None, log: Path) -> None:
        log.parent.mkdir(parents=True, exist_ok=True)
        self._log = log.open("a", encoding="utf-8")
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [python, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self._log, text=True, encoding="utf-8", env=env, cwd=script.parent,
        )  # fmt: skip
        self.embed = embed
        self.shared: SharedVectors | None = None  # answers embed calls marked shared

    def request(self, op: str, **args: Any) -> Any:
        stdin, stdout = self._pipes()
        stdin.write(json.dumps({"op": op, **args}, ensure_ascii=False) + "\n")
        stdin.flush()
        while True:
            line = stdout.readline()
            if not line:
                raise ProtocolError(f"the driver exited during {op!r}: see {self._log.name}")
            message = json.loads(line)
            if "embed" in message and message.get("shared") and self.shared is not None:
                started = time.process_time()
                answer = self.shared.answer(message["embed"], bool(message.get("pooled")))
                answer["cpu"] = time.process_time() - started
                stdin.write(json.dumps(answer) + "\n")
                stdin.flush()
            elif "embed" in message:
                if self.embed is None:
                    raise ProtocolError("the driver asked for embeddings; none were offered")
                if message.get("pooled"):
                    raise ProtocolError("pool rows are served only from shared vectors")
                started = time.process_time()
                vectors = self.embed(message["embed"], message.get("kind", "passage"))
                spent = time.process_time() - started
                stdin.write(json.dumps({"vectors": vectors, "cpu": spent}) + "\n")
                stdin.flush()
            elif "error" in message:
                raise ProtocolError(f"{op}: {message['error']}")
            else:
                return message["ok"]

    def _pipes(self) -> tuple[IO[str], IO[str]]:
        if self.proc.stdin is None or self.proc.stdout is None:
            raise ProtocolError("the driver has no pipes")
        return self.proc.stdin, self.proc.stdout

    def close(self) -> None:
        if self.proc.poll() is None:
            with suppress(ProtocolError):
                self.request("close")
            self._pipes()[0].close()
            self.proc.wait(timeout=120)
        self._log.close()


class SharedVectors:
    """Passage vectors (and pool rows, for an embedder that pools) computed once per text by
    the bench and handed to every system's bulk load, so a corpus is embedded once per run —
    and once per machine: they are kept under ``folder`` by model and reloaded."""

    def __init__(self, embedder: Any, folder: Path) -> None:
        import numpy as np

        self.np = np
        self.embedder = embedder
        self.pooled = bool(getattr(embedder, "pool_id", None))
        slug = "".join(c if c.isalnum() else "-" for c in embedder.model_id)
        self.base = folder / slug
        self.row: dict[str, int] = {}
        self.vectors = np.zeros((0, embedder.dim), dtype=np.float32)
        self.pools = np.zeros((0, getattr(embedder, "pool_size", 0)), dtype=np.float32)
        self.computed = 0  # texts embedded by this process (the rest came from disk)
        self.seconds = 0.0  # wall time spent embedding them
        self.misses = 0  # texts a driver asked for that ``fill`` had not seen
        index = self.base.with_suffix(".json")
        if index.is_file():
            texts = json.loads(index.read_text(encoding="utf-8"))
            self.vectors = np.load(self.base.with_suffix(".vec.npy"))
            if self.pooled:
                self.pools = np.load(self.base.with_suffix(".pool.npy"))
            self.row = {t: i for i, t in enumerate(texts)}

    def fill(self, texts: Sequence[str]) -> int:
        """Embed the texts not held yet, in the embedder's batches; how many were new."""
        new = [t for t in dict.fromkeys(texts) if t not in self.row]
        if not new:
            return 0
        started = time.perf_counter()
        step = max(1, int(getattr(self.embedder, "batch_size", 32)))
        vecs, pools = [], []
        for i in range(0, len(new), step):
            batch = new[i : i + step]
            if self.pooled:
                v, p = self.embedder.encode_pooled(batch)
                pools.append(self.np.asarray(p, dtype=self.np.float32))
            else:
                v = self.embedder.encode(batch, "passage")
            vecs.append(self.np.asarray(v, dtype=self.np.float32))
        self.seconds += time.perf_counter() - started
        self.computed += len(new)
        base = len(self.row)
        self.row.update((t, base + j) for j, t in enumerate(new))
        self.vectors = self.np.concatenate([self.vectors, *vecs])
        if self.pooled:
            self.pools = self.np.concatenate([self.pools, *pools])
        return len(new)

    def save(self) -> None:
        self.base.parent.mkdir(parents=True, exist_ok=True)
        texts = sorted(self.row, key=self.row.__getitem__)
        self.np.save(self.base.with_suffix(".vec.npy"), self.vectors)
        if self.pooled:
            self.np.save(self.base.with_suffix(".pool.npy"), self.pools)
        self.base.with_suffix(".json").write_text(json.dumps(texts, ensure_ascii=False))

    def answer(self, texts: list[str], pooled: bool) -> dict[str, Any]:
        """The protocol's answer to a shared embed call (base64 float32 matrices)."""
        import base64

        if pooled and not self.pooled:
            raise ProtocolError(f"{self.embedder.model_id} does not pool")
        self.misses += self.fill(texts)
        rows = [self.row[t] for t in texts]
        vecs = self.vectors[rows]
        out: dict[str, Any] = {"b64": base64.b64encode(vecs.tobytes()).decode(),
                               "shape": list(vecs.shape)}  # fmt: skip
        if pooled:
            pools = self.pools[rows]
            out |= {"pools_b64": base64.b64encode(pools.tobytes()).decode(),
                    "pools_shape": list(pools.shape)}  # fmt: skip
        return out


@contextmanager
def driver(
    system: System, embed: Embed | None, shared: SharedVectors | None = None
) -> Iterator[Driver]:
    if system.python is None or system.driver is None:
        raise ProtocolError(f"{system.name} is not installed")
    d = Driver(system.python, DRIVERS / system.driver, embed, CACHE / "logs" / f"{system.name}.log")
    d.shared = shared
    try:
        yield d
    finally:
        d.close()


def bridge(embedder: Any) -> Embed:
    """memdir's embedder, as the protocol's embed calls want it."""

    def embed(texts: list[str], kind: str) -> list[list[float]]:
        vectors: list[list[float]] = embedder.encode(texts, kind).tolist()
        return vectors

    return embed


def fresh(path: Path) -> str:
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return str(path)


# -- tables ---------------------------------------------------------------------------------
def markdown_table(head: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A Markdown table; floats with three decimals, ``None`` as a dash."""

    def cell(value: Any) -> str:
        if value is None:
            return "—"
        if isinstance(value, float):
            return f"{value:.3f}"
        return str(value).replace("|", "\\|")

    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def percentile_ms(values: Sequence[float], q: float) -> float:
    """The q-quantile (0..1) of seconds, in ms, nearest rank."""
    ordered = sorted(values)
    return round(1000 * ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 2)


def rows_of(system: System) -> list[str]:
    """The row labels of a system: one per search mode."""
    if len(system.modes) == 1:
        return [system.name]
    return [f"{system.name} ({mode})" for mode in system.modes]


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


# -- the protocols --------------------------------------------------------------------------
@dataclass
class Run:
    """What every protocol needs: the systems that run, the shared embedder, where to keep
    the stores."""

    systems: list[System]
    embedder: Any
    embedder_name: str | None
    stores: Path = CACHE / "stores"
    sizes: list[int] = field(default_factory=list)  # the latency sizes of this run

    def open(self, d: Driver, system: System, name: str, *, keep: bool = False) -> None:
        path = self.stores / system.name / name
        where = str(path) if keep else fresh(path)
        d.request("open", path=where, dim=self.embedder.dim, embedder=self.embedder_name)

    def each(self, shared: SharedVectors | None = None) -> Iterator[tuple[System, Driver]]:
        embed = bridge(self.embedder)
        for system in self.systems:
            with driver(system, embed, shared) as d:
                yield system, d


def run_locomo(run: Run, data: Path, convs: Sequence[int] | None) -> dict[str, Any]:
    """Turn and session metrics per row label and split (``bench/locomo.py``'s scoring)."""
    import locomo

    dataset = locomo.load(data)
    per: dict[str, dict[str, list[dict[str, float]]]] = {}
    n_questions = 0
    for system, d in run.each():
        for i, conv in enumerate(dataset):
            if convs is not None and i not in convs:
                continue
            items = [{"id": it["name"], **it} for it in locomo.turns_of(conv)]
            session_of = {it["name"]: it["session"] for it in items}
            questions = locomo.questions_of(i, conv, set(session_of))
            n_questions += len(questions) if system is run.systems[0] else 0
            started = time.perf_counter()
            run.open(d, system, f"locomo-{i}")
            d.request("add", items=items)
            split = "dev" if i < 5 else "heldout"
            for mode, label in zip(system.modes, rows_of(system), strict=True):
                for q in questions:
                    hits = d.request("search", query=q.text, k=DEPTH, mode=mode)["hits"]
                    ranking = [h[0] for h in hits]
                    scores = locomo.score(ranking, q, session_of)
                    per.setdefault(label, {}).setdefault(split, []).append(scores)
            print(f"  LoCoMo {system.name} conv {i}: {len(items)} turns, {len(questions)} "
                  f"questions, {time.perf_counter() - started:.0f} s", file=sys.stderr)  # fmt: skip
    for i, conv in enumerate(dataset):  # the reference: the shared vectors, nothing else
        if convs is None or i in convs:
            items = locomo.turns_of(conv)
            session_of = {it["name"]: it["session"] for it in items}
            questions = locomo.questions_of(i, conv, set(session_of))
            split = "dev" if i < 5 else "heldout"
            for q, ranking in zip(questions, cosine(run.embedder, items, questions), strict=True):
                scores = locomo.score(ranking, q, session_of)
                per.setdefault(COSINE, {}).setdefault(split, []).append(scores)
    summary: dict[str, Any] = {}
    for label, splits in per.items():
        summary[label] = {split: locomo._mean(rows) for split, rows in splits.items()}
        summary[label]["all"] = locomo._mean([r for rows in splits.values() for r in rows])
    return {"rows": summary, "questions": n_questions}


COSINE = "cosine (reference)"


def cosine(embedder: Any, items: list[dict[str, Any]], questions: list[Any]) -> list[list[str]]:
    """The top ``DEPTH`` turns of each question by cosine over the shared embedder's vectors,
    computed here: what a vector store over the same vectors must reproduce."""
    import numpy as np

    passages = embedder.encode([it["text"] for it in items], "passage")
    names = [it["name"] for it in items]
    out = []
    for q in questions:
        scores = passages @ embedder.encode([q.text], "query")[0]
        out.append([names[j] for j in np.argsort(-scores, kind="stable")[:DEPTH]])
    return out


LOCOMO_COLS = ("turn_r5", "turn_r10", "turn_ndcg10", "sess_r5", "sess_r10", "sess_ndcg10")


def locomo_table(result: dict[str, Any], split: str) -> str:
    rows = [
        [f"{label} ({split})", *(r[split][c] for c in LOCOMO_COLS), r[split]["n"]]
        for label, r in result["rows"].items()
        if split in r
    ]
    return markdown_table(["system", *LOCOMO_COLS, "n"], rows)


def run_everyday(run: Run, path: Path) -> dict[str, Any]:
    """hit@1 / hit@3 per row label (``bench/everyday.py``'s scoring), dev batch."""
    import everyday

    from memdir import recall
    from memdir.guard.intent import KINDS

    data = everyday.load(path)
    rows: dict[str, list[dict[str, Any]]] = {}
    for system, d in run.each():
        for group, (memories, questions) in data.items():
            items = [{"id": mid, "text": text, "type": kind, "allow": list(KINDS)}
                     for mid, (kind, text) in memories.items()]  # fmt: skip
            run.open(d, system, f"everyday-{group}")
            d.request("add", items=items)
            for mode, label in zip(system.modes, rows_of(system), strict=True):
                for q in questions:
                    hits = d.request("search", query=q["q"], k=everyday.TOP_K, mode=mode)["hits"]
                    rows.setdefault(label, []).append({**q, "got": [tuple(h) for h in hits]})
        print(f"  everyday {system.name}: done", file=sys.stderr)
    floor = float(recall.MIN_SCORE)
    return {label: everyday.summarise(r, floor) for label, r in rows.items()}


EVERYDAY_COLS = ("all", "lang:en", "lang:zh", "lang:cross", "kind:direct", "kind:paraphrase",
                 "kind:world", "kind:cross")  # fmt: skip


def everyday_table(summary: dict[str, Any]) -> str:
    def cell(s: dict[str, Any] | None) -> str:
        return f"{s['hit@1']:.3f} / {s['hit@3']:.3f} ({s['n']})" if s else "—"

    rows = []
    for label, s in summary.items():
        empty = f"{s['empty']['share']:.3f} ({s['empty']['n']})" if label == "memdir" else None
        rows.append([label, *(cell(s.get(c)) for c in EVERYDAY_COLS), empty])
    head = [c.replace("lang:", "").replace("kind:", "kind ") for c in EVERYDAY_COLS]
    return markdown_table(["system", *head, "unanswerable empty"], rows)


def run_latency(run: Run, sizes: Sequence[int]) -> list[dict[str, Any]]:
    """Bulk load, single writes and searches per size and system (``bench/speed.py``'s
    synthetic corpus and queries)."""
    import random

    import speed

    corpus = speed.Corpus()
    queries = corpus.queries(QUERIES + 1)  # the first one is the warm-up
    singles = [{"id": f"w{i}", "type": "project",
                "text": f"{corpus.english(random.Random(1000 + i), 14)} (written {i})"}
               for i in range(WRITES)]  # fmt: skip
    shared = SharedVectors(run.embedder, CACHE / "vectors")
    corpora = {size: [{"id": it["name"], **it} for it in corpus.memories(size)] for size in sizes}
    embedded = embed_corpora(run, shared, corpora)
    out: list[dict[str, Any]] = []
    for size, items in corpora.items():
        for system, d in run.each(shared):
            run.open(d, system, f"speed-{size}")
            bulk = d.request("add", items=items, shared=True)
            single = d.request("add", items=singles, each=True)
            for mode, label in zip(system.modes, rows_of(system), strict=True):
                d.request("search", query=queries[0], k=10, mode=mode)
                got = [d.request("search", query=q, k=10, mode=mode) for q in queries[1:]]
                seconds = [g["seconds"] for g in got]
                embeds = [g["embed_seconds"] for g in got]
                out.append({
                    "size": size, "label": label, "system": system.name,
                    "bulk_per_s": size / (bulk["seconds"][0] + (bulk.get("index_seconds") or 0)),
                    "index_s": bulk.get("index_seconds"),
                    "write_p50": percentile_ms(single["seconds"], 0.5),
                    "write_p95": percentile_ms(single["seconds"], 0.95),
                    "search_p50": percentile_ms(seconds, 0.5),
                    "search_p95": percentile_ms(seconds, 0.95),
                    "embed_p50": percentile_ms(embeds, 0.5) if any(embeds) else None,
                    "write_cpu_p50": percentile_ms(single["cpu_seconds"], 0.5),
                    "search_cpu_p50": percentile_ms([g["cpu_seconds"] for g in got], 0.5),
                })  # fmt: skip
            print(f"  latency {system.name} N={size}: {out[-1]}", file=sys.stderr)
    embedded["misses"] = shared.misses  # asked for during a bulk load yet not embedded before
    return {"rows": out, "embedded": embedded}


def embed_corpora(
    run: Run, shared: SharedVectors, corpora: dict[int, list[dict[str, Any]]]
) -> dict[str, Any]:
    """Every text any system will embed in its bulk loads (each driver says which:
    ``passages``), embedded once here before any timing, and kept for the next run."""
    texts: list[str] = []
    memory_fs = Path("/dev/shm")  # the scratch stores' fsyncs cost nothing there
    where = memory_fs / f"memdir-peers-{os.getpid()}" if memory_fs.is_dir() else run.stores
    for system, d in run.each():
        for size, items in corpora.items():
            scratch = str(where / system.name / f"passages-{size}")
            texts += d.request("passages", path=scratch, items=items)["texts"]
    new = shared.fill(texts)
    if new:
        shared.save()
    return {"texts": len(set(texts)), "computed": new, "seconds": shared.seconds}


def latency_note(embedded: dict[str, Any]) -> str:
    if embedded["computed"]:
        done = (f"{embedded['computed']:,} of them embedded in this run, "
                f"{embedded['computed'] / max(embedded['seconds'], 1e-9):.0f}/s")  # fmt: skip
    else:
        done = "all of them embedded by an earlier run on this machine (bench/.cache/peers/vectors)"
    misses = embedded.get("misses", 0)
    return (
        f"*Shared vectors*: the bulk corpora were embedded once, before any timing — "
        f"{embedded['texts']:,} distinct passages (every text any system embeds for them, each "
        f"driver saying which), {done} — and each system's bulk load got those vectors from the "
        "bench (memdir its pool rows too) instead of running the model: *bulk load /s* is the "
        "store's own speed. Single writes and queries embed as they always do. Passages asked "
        f"for during a bulk load that had not been embedded before: {misses}."
    )


def latency_table(rows: list[dict[str, Any]]) -> str:
    head = ["N", "system", "bulk load /s", "write p50 ms", "write p95 ms", "write CPU p50 ms",
            "search p50 ms", "search p95 ms", "search CPU p50 ms",
            "embed round trip p50 ms"]  # fmt: skip
    body = [[f"{r['size']:,}", r["label"], f"{r['bulk_per_s']:.0f}", f"{r['write_p50']:.1f}",
             f"{r['write_p95']:.1f}", f"{r['write_cpu_p50']:.1f}", f"{r['search_p50']:.1f}",
             f"{r['search_p95']:.1f}", f"{r['search_cpu_p50']:.1f}",
             None if r["embed_p50"] is None else f"{r['embed_p50']:.1f}"]
            for r in rows]  # fmt: skip
    return markdown_table(head, body)


def run_cold(run: Run, size: int, query: str) -> list[dict[str, Any]]:
    """A fresh driver process: start → open the ``size`` store → one search answered; and
    memdir's CLI on the same store as ``bench/cli.py`` times it."""
    import cli

    embed = bridge(run.embedder)
    out = []
    for system in run.systems:
        if not (run.stores / system.name / f"speed-{size}").is_dir():
            raise SystemExit(f"no {size:,} store of {system.name}: run the latency protocol")
        samples = []
        for _ in range(RUNS + 1):  # the first is the warm-up (page cache, bytecode)
            started = time.perf_counter()
            with driver(system, embed) as d:
                run.open(d, system, f"speed-{size}", keep=True)
                d.request("search", query=query, k=10, mode=system.modes[-1])
                samples.append(time.perf_counter() - started)
        out.append({"what": f"{system.name}: new process, open, first search ({size:,} store)",
                    "median": median(samples[1:]), "min": min(samples[1:])})  # fmt: skip
    store = run.stores / "memdir" / f"speed-{size}"
    env = cli.environment(store / "home", CACHE / "cli-cache")
    if run.embedder_name:
        env["MEMDIR_EMBEDDER"] = run.embedder_name
    version = [("memdir --version", ["--version"])] if size == min(run.sizes or [size]) else []
    for label, args in (*version, (f"memdir recall ({size:,} store)", ["recall", query])):
        got = cli.measure([*cli.memdir_command(), *args], env, store / "project", RUNS)
        out.append({"what": f"CLI: {label}", "median": got["wall"], "min": got["min"]})
    return out


def cold_table(rows: list[dict[str, Any]]) -> str:
    body = [[r["what"], f"{r['median']:.3f}", f"{r['min']:.3f}"] for r in rows]
    return markdown_table(["process", f"median s ({RUNS} runs)", "min s"], body)


# -- the report -----------------------------------------------------------------------------
def systems_table(all_systems: list[System], embedder_id: str) -> str:
    rows = []
    for s in all_systems:
        if s.skipped:
            rows.append([s.name, "—", f"skipped: {s.skipped}"])
        else:
            config = s.hello.get("config", "")
            rows.append([s.name, s.hello.get("version", "?"), f"{config}; embedder {embedder_id}"])
    return markdown_table(["system", "version", "configuration"], rows)


def report(all_systems: list[System], embedder_id: str, sections: list[str],
           facts: list[str], seconds: float, *, done: bool = True,
           kept: Sequence[str] = ()) -> str:  # fmt: skip
    partial = [] if done else ["- **partial**: the run had not finished these sections"]
    if kept:
        partial.append(f"- this run skipped {', '.join(kept)}: those sections are kept from "
                       "the run that measured them, which each one names (`--keep`)")  # fmt: skip
    return "\n\n".join([
        "# memdir beside its peers",
        "\n".join([*facts, *partial, f"- run time {seconds / 60:.1f} min; load "
                   f"average {', '.join(f'{x:.2f}' for x in os.getloadavg())} (a shared "
                   "machine: tails are noisy)"]),
        "One run, the same data and the same embedder for every system (a peer gets memdir's "
        "vectors over the driver protocol); each system in its own interpreter. Protocols: "
        "the docstring of `bench/peers.py`.",
        systems_table(all_systems, embedder_id),
        *sections,
    ]) + "\n"  # fmt: skip


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="2 LoCoMo conversations and 1k memories, to iterate")  # fmt: skip
    parser.add_argument("--data", type=Path, default=None, help="locomo10.json")
    parser.add_argument("--embedder", default=None, help="default: memdir's default")
    parser.add_argument("--sizes", default=None, help="latency sizes (default 1000,10000)")
    parser.add_argument("--convs", default=None, help="LoCoMo conversations, e.g. 0,1")
    parser.add_argument("--skip", default="", help="any of locomo,everyday,latency,cold")
    parser.add_argument("--keep", action="store_true",
                        help="keep the sections of the skipped protocols from the existing "
                        "--out file, each marked with the run it came from")  # fmt: skip
    parser.add_argument("--python312", action="append", default=[],
                        help="a Python ≥ 3.12 for basic-memory")  # fmt: skip
    parser.add_argument("--stores", type=Path, default=CACHE / "stores",
                        help="where the stores are built (default: %(default)s)")  # fmt: skip
    parser.add_argument("--out", type=Path, default=None,
                        help=f"default: {RESULTS.relative_to(ROOT)} (--quick: not written "
                        "unless given)")  # fmt: skip
    args = parser.parse_args(argv[1:])
    started = time.perf_counter()
    import locomo

    from memdir.providers.embeddings import get_embedder

    sizes = [int(s) for s in (args.sizes or ("1000" if args.quick else "1000,10000")).split(",")]
    convs = [int(c) for c in args.convs.split(",")] if args.convs else None
    if convs is None and args.quick:
        convs = [0, 1]
    skip = {s for s in args.skip.split(",") if s}
    data = args.data or locomo.DEFAULT_DATA
    if "locomo" not in skip and not data.is_file():
        raise SystemExit(f"no LoCoMo data at {data}: pass --data PATH/locomo10.json")
    embedder = get_embedder(args.embedder)
    all_systems = systems()
    for system in all_systems:
        install(system, args.python312)
        if system.skipped:
            print(f"{system.name}: skipped — {system.skipped}", file=sys.stderr)
    active = [s for s in all_systems if not s.skipped]
    for s in active:
        with driver(s, bridge(embedder)) as d:
            s.hello = d.request("hello")
    run = Run(active, embedder, args.embedder, args.stores, sizes)
    out = args.out or (None if args.quick else RESULTS)
    kept = kept_sections(out, skip) if args.keep and out is not None else {}
    # once, before the report is first written: it is a tracked file, so a later look would
    # find the tree changed by the report itself
    facts = provenance(["bench/peers.py", *argv[1:]])
    measured: dict[str, str] = {}
    parts = itertools.chain(measure(run, args, data, convs, sizes, skip), [None])
    for part in parts:  # lazily: the report is rewritten after every part, so a crash keeps them
        if part:
            print("\n\n".join(part), file=sys.stderr)
            protocol = next(p for p, head in PROTOCOLS.items() if part[0].startswith(head))
            measured[protocol] = "\n\n".join(part)
        # in the protocols' order; a skipped one from the run that measured it (--keep)
        sections = [measured.get(p) or kept[p] for p in PROTOCOLS if p in measured or p in kept]
        text = report(all_systems, embedder.model_id, sections, facts,
                      time.perf_counter() - started, done=part is None,
                      kept=[p for p in PROTOCOLS if p in kept])  # fmt: skip
        if out is not None:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, encoding="utf-8")
    print(f"wrote {out}" if out else text, file=sys.stderr if out else sys.stdout)
    return 0


PROTOCOLS = {"locomo": "## LoCoMo", "everyday": "## Everyday", "latency": "## Latency",
             "cold": "## Cold"}  # fmt: skip


def kept_sections(path: Path, skip: set[str]) -> dict[str, str]:
    """The sections of the skipped protocols in the report at ``path``, each headed by a line
    naming the run that measured it (its date, commit and command, from the report's top)."""
    if not path.is_file():
        return {}
    text = path.read_text(encoding="utf-8")
    head, _, _ = text.partition("\n## ")
    facts = {}
    for line in head.splitlines():
        key, sep, value = line.removeprefix("- ").partition(": ")
        if line.startswith("- ") and sep and key in ("date", "commit", "command"):
            facts[key] = value
    origin = (f"the run of {facts.get('date', '?')} at commit {facts.get('commit', '?')}, "
              f"{facts.get('command', '?')}")  # fmt: skip
    kept = {}
    for chunk in ("\n" + text).split("\n## ")[1:]:
        body = "## " + chunk.strip()
        title, _, rest = body.partition("\n")
        for protocol, prefix in PROTOCOLS.items():
            if protocol in skip and title.startswith(prefix):
                marked = rest.lstrip().startswith("*From ")  # kept by an earlier --keep
                kept[protocol] = (
                    body if marked else f"{title}\n\n*From {origin}, not this run.*\n{rest}"
                )
    return kept


def measure(run: Run, args: argparse.Namespace, data: Path, convs: list[int] | None,
            sizes: list[int], skip: set[str]) -> Iterator[list[str]]:  # fmt: skip
    """The report's sections, one protocol at a time."""
    if "locomo" not in skip:
        result = run_locomo(run, data, convs)
        chosen = "all 10" if convs is None else ", ".join(map(str, convs))
        title = f"## LoCoMo recall (conversations {chosen}; {result['questions']} questions)"
        tables = [locomo_table(result, split) for split in ("all", "dev", "heldout")]
        yield [title, LOCOMO_NOTE, *tables]
    if "everyday" not in skip:
        summary = run_everyday(run, ROOT / "bench" / "everyday" / "dev.yaml")
        yield ["## Everyday recall (dev batch; hit@1 / hit@3 (n))", everyday_table(summary),
               "*unanswerable empty* is memdir's floor (`recall.MIN_SCORE`) at work; the "
               "peers have no calibrated floor, so it is not given for them."]  # fmt: skip
    if "latency" not in skip:
        got = run_latency(run, sizes)
        yield [f"## Latency ({WRITES} single writes after the bulk load; {QUERIES} searches, "
               "k = 10, after one warm-up)", latency_table(got["rows"]), LATENCY_NOTE,
               latency_note(got["embedded"])]  # fmt: skip
    if "cold" not in skip:  # on the stores the latency protocol built (in this run or before)
        rows = [row for size in sizes for row in run_cold(run, size, QUERY)]
        yield ["## Cold process", cold_table(rows), COLD_NOTE]


LOCOMO_NOTE = (
    f"Every turn one memory, one store per conversation; each question searched once per "
    f"system with k = {DEPTH}; turn recall@k / NDCG@10 over the evidence turns, session "
    "recall@k / NDCG@10 over sessions ranked by their best turn (`bench/locomo.py`'s "
    "scoring). Conversations 0–4 are memdir's dev split, 5–9 held out. memdir also stores "
    "each turn's date and session (as `bench/recall.py` does); mem0 is given the text. "
    f"*{COSINE}*: the same vectors ranked by cosine in the bench process (numpy), no "
    "system at all — the vector baseline every system starts from."
)
QUERY = "which package manager do we use in JS projects?"
LATENCY_NOTE = (
    "*bulk load*: the system's fastest way in (memdir `remember_many` and the index catch-up "
    "after it, mem0 one `add` per memory: its metadata is per call). *write*: one call per "
    "memory — memdir's `remember` writes the file and defers the embedding to the next index "
    "catch-up (the driver runs `reindex` after the batch, outside the timings); mem0's "
    "`add(infer=False)` embeds (a round trip to the bench), BM25-encodes and inserts. "
    "*search*: the call's wall time inside the driver; for mem0 it includes the query "
    "embedding's round trip over the pipes, given in the last column (memdir embeds in "
    "process, inside *search*; its writes are atomic and fsynced). *CPU*: the CPU time of the "
    "same call — the driver's, plus the bench's for a peer's embeddings — which a loaded "
    "machine moves far less than the wall time."
)
COLD_NOTE = (
    "A new driver process each run (one warm-up first): interpreter start, imports, opening "
    "the store on disk, one search. memdir loads its embedder in that process; mem0's comes "
    "from the bench, already loaded — so mem0's row leaves out an embedder load that memdir's "
    "includes. mem0ai has no CLI of its own; memdir's CLI rows use `bench/cli.py`'s launcher "
    "(wall of the child, median of the runs after a warm-up)."
)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
