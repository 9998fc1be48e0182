"""Speed at scale: write throughput, embedding throughput, recall latency and size on disk.

Protocol, per size N (``--sizes``, default 1000,10000,100000) and embedder:

* N synthetic memories, deterministic (seeded RNG): sentences over a few thousand generated
  words with a Zipf-like frequency curve, about 10 % of them Chinese sentences built from a
  built-in word list; varied types, tags, importance and related files. All are project-scope,
  and every run of ``SESSION_SIZE`` consecutive memories shares a ``session`` (as memories
  extracted from one conversation do), so the session-text term and its index upkeep are paid.
* **write** — ``Memory.remember_many`` into a fresh temporary home and project: memories/s for
  the file writes (atomic, locked, change-logged; no embedding happens here).
* **index** — ``Memory.reindex()``: the FTS rows, every embedding and the session contexts
  (embedded, or composed from pools by an embedder that pools); texts embedded/s and
  memories indexed/s.
* **recall** — one warm-up query (reported as *cold*), then 100 different queries through
  ``Memory.recall(top_k=5, track=False)``; p50/p95 in ms, the query's embedding included. The
  embedder is wrapped (a real ``Embedder`` subclass that delegates and times) so each query's
  encode time is known and the rest is reported as *search*.
* **after write** — ``AFTER_WRITES`` cycles of one ``remember`` (into the last session) and one
  recall, the recall timed (it catches the index up with the write first: the agent loop's path);
  then as many recalls with ``track=True``, each logging its answer for the next to fold in.
* **size** — the index on disk (``stats()["bytes"]``) and the whole memory directory.

Embedding 100k texts with e5 takes hours on two cores, so for N ≥ 50k a slow embedder (anything
but ``use`` and ``hashing``) is replaced for the write/index phase by ``--large-embedder``:
``hashing`` built at the slow one's dimension (so the vector search does the same work), or
``use``; the report says so. The e5 cost at that size is then given as two real measurements
side by side: e5's own query-encode time for the same 100 queries, and the search time on the
N-memory index.
Thread pools are pinned to one thread before numpy loads. ``--fast`` adds runs with ``use``.

``run()`` returns the numbers; ``python bench/speed.py`` prints a table and writes
``bench/results/speed.md``.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # before numpy loads: a second BLAS thread made search 8x slower

import argparse  # noqa: E402
import random  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from provenance import provenance  # noqa: E402

from memdir import MemdirError, Memory  # noqa: E402
from memdir.providers.embeddings import (  # noqa: E402
    DelegatingEmbedder,
    Embedder,
    HashingEmbedder,
    Kind,
    Vectors,
    get_embedder,
)

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "speed.md"
QUERIES = 100
SLOW_FROM = 50_000  # sizes from here on do not write with a slow embedder
AFTER_WRITES = 10  # remember-then-recall cycles timed after the warm queries
FAST_EMBEDDERS = ("use", "hashing")  # what counts as fast: anything else is slow at 50k+

# -- synthetic memories ---------------------------------------------------------------------
TECH = """deploy database cache index query server client staging production release build
test lint commit branch merge review schema migration backup restore replica cluster node
container image registry pipeline runner worker queue topic event stream log metric alert
dashboard latency timeout retry token secret config flag rollout rollback incident oncall
pager runbook api endpoint route handler middleware session cookie auth login password user
team sprint ticket issue bug feature fix refactor docs readme changelog version package
dependency lockfile compiler linter formatter editor terminal shell script cron job batch
import export report invoice billing payment customer order shipment warehouse tracking
mobile frontend backend service gateway proxy load balancer region zone bucket storage disk
memory cpu thread process socket port network dns certificate domain firewall vpn ssh""".split()
STOP = "the a to of and in for on with is we our use never always before after".split()
SYLLABLES = [c + v for c in "bcdfghjklmnprstvwz" for v in ("a", "e", "i", "o", "u", "ai", "ou")]
ZH_WORDS = """数据库 服务器 部署 测试 前端 后端 接口 缓存 日志 监控 告警 备份 发布 版本 分支 合并
评审 需求 文档 配置 权限 用户 订单 支付 消息 队列 任务 调度 性能 延迟 内存 磁盘 网络 集群 节点
容器 镜像 脚本 依赖 框架 组件 页面 样式 设计 产品 项目 团队 会议 周报 上线 回滚 故障 复盘 安全
密钥 证书 域名 负载 均衡 每天 每周 凌晨 下午 上午 必须 不要 以后 总是 尽量 记得 使用 改用 升级
迁移 清理 检查 修复 优化 重构 提交 推送 构建 打包 运行 启动 停止 重启 同步 异步 老王 李娜 陈晓
张伟 杭州 深圳 北京 上海 机房 流水线 覆盖率 单元测试 集成测试 客户 工单 推送 看板 邮件 飞书
的 了 在 和 把 被 给 要 先 再""".split()
TYPES = ("project", "project", "project", "reference")
TAGS = ("ops", "frontend", "backend", "release", "security", "data", "mobile", "billing")
DIRS = ("src", "src/api", "src/web", "deploy", "scripts", "docs", "tests")
SESSION_SIZE = 20  # memories per synthetic session


class Corpus:
    """Deterministic synthetic text: a Zipf-weighted vocabulary plus Chinese sentences."""

    def __init__(self, seed: int = 7, vocabulary: int = 4000) -> None:
        rng = random.Random(seed)
        words = set(TECH)
        while len(words) < vocabulary:
            words.add("".join(rng.choices(SYLLABLES, k=rng.choice((2, 2, 3, 3, 4)))))
        self.words = sorted(words)
        rng.shuffle(self.words)
        self.weights = [1.0 / (rank + 1) ** 0.9 for rank in range(len(self.words))]

    def english(self, rng: random.Random, n: int) -> str:
        out = []
        for word in rng.choices(self.words, self.weights, k=n):
            out.append(word)
            if rng.random() < 0.3:
                out.append(rng.choice(STOP))
        text = " ".join(out)
        return text[0].upper() + text[1:] + "."

    @staticmethod
    def chinese(rng: random.Random, n: int) -> str:
        return "".join(rng.choices(ZH_WORDS, k=n)) + "。"

    def memories(self, n: int, seed: int = 11) -> list[dict[str, Any]]:
        rng = random.Random(seed)
        items = []
        for i in range(n):
            zh = rng.random() < 0.10
            text = (
                self.chinese(rng, rng.randint(6, 16))
                if zh
                else self.english(rng, rng.randint(8, 24))
            )
            item: dict[str, Any] = {
                "text": text,
                "session": f"s{i // SESSION_SIZE:05d}",  # consumes no randomness
                "type": rng.choice(TYPES),
                "name": f"m{i:06d}",
                "importance": rng.randint(1, 10),
                "tags": rng.sample(TAGS, rng.randint(0, 2)),
            }
            if rng.random() < 0.4:
                item["why"] = self.english(rng, rng.randint(5, 12))
            if rng.random() < 0.2:
                item["related_files"] = [f"{rng.choice(DIRS)}/{rng.choice(self.words)}.py"]
            items.append(item)
        return items

    def queries(self, n: int, seed: int = 13) -> list[str]:
        rng = random.Random(seed)
        out: list[str] = []
        while len(out) < n:
            kind = rng.random()
            if kind < 0.10:
                q = self.chinese(rng, rng.randint(2, 5)).rstrip("。") + "？"
            elif kind < 0.55:
                a, b = rng.choices(self.words, self.weights, k=2)
                q = f"how do we {a} the {b}?"
            else:
                q = " ".join(rng.choices(self.words, self.weights, k=rng.randint(2, 6)))
            if q not in out:
                out.append(q)
        return out


# -- measuring ------------------------------------------------------------------------------
class TimedEmbedder(DelegatingEmbedder):
    """Delegates to a real embedder and records how long each query encode took."""

    def __init__(self, inner: Embedder) -> None:
        super().__init__(inner)
        self.query_seconds: list[float] = []

    def encode(self, texts: Sequence[str], kind: Kind = "passage") -> Vectors:
        started = time.perf_counter()
        out = self.inner.encode(texts, kind)
        if kind == "query":
            self.query_seconds.append(time.perf_counter() - started)
        return out


def _pct(values: Sequence[float], q: float) -> float:
    """The q-quantile (0..1) in ms, nearest rank."""
    ordered = sorted(values)
    return round(1000 * ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 2)


def _tree_bytes(folder: Path) -> int:
    return sum(p.lstat().st_size for p in folder.rglob("*") if p.is_file())


def _measure(size: int, embedder: Embedder, corpus: Corpus, queries: list[str]) -> dict[str, Any]:
    """One full pass (write, index, recall, size) at ``size`` with ``embedder``."""
    items = corpus.memories(size)
    timed = TimedEmbedder(embedder)
    with tempfile.TemporaryDirectory(prefix="memdir-speed-") as tmp:
        root = Path(tmp)
        (root / "project").mkdir()
        m = Memory(home=root / "home", project=root / "project", embedder=timed)
        m.init()
        started = time.perf_counter()
        m.remember_many(items)
        write_s = time.perf_counter() - started
        started = time.perf_counter()
        report = m.reindex()["project"]
        index_s = time.perf_counter() - started
        totals, encodes = [], []
        for query in queries:
            before = len(timed.query_seconds)
            started = time.perf_counter()
            m.recall(query, top_k=5, track=False)
            totals.append(time.perf_counter() - started)
            encodes.append(sum(timed.query_seconds[before:]))
        searches = [t - e for t, e in zip(totals, encodes, strict=True)]
        # the agent-loop path: one memory learned (in the last session), then a recall
        after = []
        for i, query in enumerate(queries[:AFTER_WRITES]):
            m.remember(f"{corpus.english(random.Random(i), 12)} (learned just now, {i})",
                       type="project", session=items[-1].get("session"))  # fmt: skip
            started = time.perf_counter()
            m.recall(query, top_k=5, track=False)
            after.append(time.perf_counter() - started)
        # the agent's default: a tracked recall logs its answer, so the next one folds that
        # use count in first
        tracked = []
        for query in queries[AFTER_WRITES : 2 * AFTER_WRITES]:
            started = time.perf_counter()
            m.recall(query, top_k=5)
            tracked.append(time.perf_counter() - started)
        stats = m.index("project").stats()
        folder = m.store("project").dirs.memory
        return {
            "size": size,
            "embedder": embedder.model_id,
            "write_s": round(write_s, 2),
            "write_per_s": round(size / write_s, 1),
            "index_s": round(index_s, 2),
            "embedded": report.embedded,
            "embed_per_s": round(report.embedded / index_s, 1),
            "composed": report.composed,
            "index_per_s": round(size / index_s, 1),
            "cold_ms": round(1000 * totals[0], 2),
            "p50_ms": _pct(totals[1:], 0.5),
            "p95_ms": _pct(totals[1:], 0.95),
            "encode_p50_ms": _pct(encodes[1:], 0.5),
            "search_p50_ms": _pct(searches[1:], 0.5),
            "search_p95_ms": _pct(searches[1:], 0.95),
            "after_write_p50_ms": _pct(after, 0.5),
            "after_write_max_ms": _pct(after, 1.0),
            "tracked_p50_ms": _pct(tracked, 0.5),
            "tracked_max_ms": _pct(tracked, 1.0),
            "index_bytes": stats["bytes"],
            "dir_bytes": _tree_bytes(folder),
            "docs": stats["docs"],
        }


def _encode_only(embedder: Embedder, queries: list[str]) -> dict[str, float]:
    """Query-encode latency of ``embedder`` alone (the first call is warm-up)."""
    seconds = []
    for query in queries:
        started = time.perf_counter()
        embedder.encode([query], "query")
        seconds.append(time.perf_counter() - started)
    return {"p50_ms": _pct(seconds[1:], 0.5), "p95_ms": _pct(seconds[1:], 0.95)}


def _load(name: str | None) -> Embedder | None:
    try:
        return get_embedder(name)
    except (MemdirError, ImportError, OSError):
        return None


def _large_embedder(name: str, slow: Embedder) -> Embedder:
    """The embedder that writes the large sizes instead of ``slow``: ``hashing`` is built at
    the slow one's dimension so that the vector search costs the same as it would with it."""
    if name == "hashing":
        return HashingEmbedder(dim=slow.dim)
    return _load(name) or HashingEmbedder(dim=slow.dim)


def run(
    sizes: Sequence[int], embedder: str | None, fast: bool, *, large: str = "hashing"
) -> dict[str, Any]:
    """Measure every size with ``embedder`` (default: memdir's default) and, with ``fast``,
    with ``use`` too. A slow embedder is replaced from ``SLOW_FROM`` memories on by ``large``
    (``hashing`` at the slow one's dimension, or ``use``). Returns every run and notes."""
    main = get_embedder(embedder)
    corpus = Corpus()
    queries = corpus.queries(QUERIES + 1)  # the first one is the warm-up
    notes: list[str] = []
    loaded = [e for e in map(_load, FAST_EMBEDDERS) if e is not None]
    slow = main.model_id not in {e.model_id for e in loaded}
    stand_in = _large_embedder(large, main) if slow and max(sizes) >= SLOW_FROM else main
    fast_embedder = _load("use") if fast else None
    if fast and fast_embedder is None:
        notes.append("--fast: the use embedder did not load (pip install 'memdir[fast]')")
    runs: list[dict[str, Any]] = []
    for size in sizes:
        chosen = [stand_in if slow and size >= SLOW_FROM else main]
        if chosen[0] is not main:
            notes.append(
                f"N={size}: written and indexed with {stand_in.model_id} ({stand_in.dim}-d) "
                f"instead of {main.model_id} ({main.dim}-d): embedding {size:,} texts with "
                "it would take hours here"
            )
        if fast_embedder is not None and fast_embedder.model_id != chosen[0].model_id:
            chosen.append(fast_embedder)
        for emb in chosen:
            print(f"N={size} with {emb.model_id} ...", file=sys.stderr, flush=True)
            runs.append(_measure(size, emb, corpus, queries))
            print(f"  {runs[-1]}", file=sys.stderr, flush=True)
    result: dict[str, Any] = {"runs": runs, "notes": notes, "queries": QUERIES}
    if slow and any(s >= SLOW_FROM for s in sizes):
        result["slow_query_encode"] = {"embedder": main.model_id, **_encode_only(main, queries)}
    return result


# -- report -------------------------------------------------------------------------------------
HEAD = ("N", "embedder", "write/s", "embed/s", "indexed/s", "index s", "p50 ms", "p95 ms",
        "encode p50", "search p50", "search p95", "after write p50 / max", "tracked p50 / max",
        "cold ms", "index MB", "dir MB")  # fmt: skip


def table(result: dict[str, Any]) -> str:
    lines = ["| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
    for r in result["runs"]:
        cells = [
            f"{r['size']:,}", r["embedder"], f"{r['write_per_s']:.0f}", f"{r['embed_per_s']:.0f}",
            f"{r['index_per_s']:.0f}", f"{r['index_s']:.1f}", f"{r['p50_ms']:.1f}",
            f"{r['p95_ms']:.1f}",
            f"{r['encode_p50_ms']:.1f}", f"{r['search_p50_ms']:.1f}", f"{r['search_p95_ms']:.1f}",
            f"{r['after_write_p50_ms']:.0f} / {r['after_write_max_ms']:.0f}",
            f"{r['tracked_p50_ms']:.0f} / {r['tracked_max_ms']:.0f}",
            f"{r['cold_ms']:.0f}", f"{r['index_bytes'] / 1e6:.1f}", f"{r['dir_bytes'] / 1e6:.1f}",
        ]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def scale_lines(result: dict[str, Any]) -> list[str]:
    """e5 at the sizes it did not index: its encode time next to the measured search time."""
    slow = result.get("slow_query_encode")
    if not slow:
        return []
    lines = [f"- {slow['embedder']} query encode alone: p50 {slow['p50_ms']:.1f} ms, "
             f"p95 {slow['p95_ms']:.1f} ms ({QUERIES} queries)."]  # fmt: skip
    for r in result["runs"]:
        if r["size"] >= SLOW_FROM:
            lines.append(
                f"- N={r['size']:,} ({r['embedder']} index): search p50 {r['search_p50_ms']:.1f} "
                f"ms + {slow['embedder']} encode p50 {slow['p50_ms']:.1f} ms ≈ "
                f"{r['search_p50_ms'] + slow['p50_ms']:.1f} ms for a recall with the default "
                "embedder (two real measurements added, not one end-to-end run)."
            )
    return lines


def report(result: dict[str, Any], argv: list[str], seconds: float) -> str:
    return "\n".join([
        "# Speed and scale",
        "",
        *provenance(argv),
        f"- run time {seconds / 60:.1f} min; BLAS/OpenMP threads pinned to 1",
        f"- load average (1/5/15 min) at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}"
        " — the machine is shared, so tails (p95) are noisy",
        "",
        "Synthetic memories (≈10 % Chinese), all in the project scope. `write/s`: "
        "`remember_many` file writes; `embed/s`: texts embedded during `reindex()`; "
        "`indexed/s`: memories through `reindex()` (FTS rows, embeddings and session "
        "contexts: `N / index s`); `p50`/`p95`: `recall(top_k=5, track=False)` over "
        f"{result['queries']} different queries after one warm-up (`cold ms`), the query "
        "embedding included; `encode` is the query embedding alone and `search` the rest; "
        f"`after write`: {AFTER_WRITES} cycles of one `remember` (into the last session) and "
        "one recall, the recall timed: the index catches up with the write first; "
        f"`tracked`: {AFTER_WRITES} more recalls with `track=True` (the default: each logs "
        "its answer, and the next folds that use count in first); "
        "`index MB`: `.index/index.sqlite*`; `dir MB`: the whole memory directory.",
        "",
        table(result),
        "",
        *(f"- {note}" for note in result["notes"]),
        *scale_lines(result),
        "",
    ])  # fmt: skip


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--sizes", default="1000,10000,100000", help="default: %(default)s")
    parser.add_argument("--embedder", default=None, help="default: memdir's default embedder")
    parser.add_argument("--fast", action="store_true", help="also measure the use embedder")
    parser.add_argument("--large-embedder", choices=("hashing", "use"), default="hashing",
                        help=f"writes N >= {SLOW_FROM:,} in place of a slow embedder "
                        "(default: %(default)s, at the slow one's dimension)")  # fmt: skip
    parser.add_argument("--out", type=Path, default=RESULTS, help="default: %(default)s")
    args = parser.parse_args(argv[1:])
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    started = time.perf_counter()
    result = run(sizes, args.embedder, args.fast, large=args.large_embedder)
    print(table(result))
    for line in [*result["notes"], *scale_lines(result)]:
        print(line.removeprefix("- "))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report(result, argv, time.perf_counter() - started), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
