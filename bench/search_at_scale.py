"""Search latency at a size where embedding every text with the real model takes too long here.

    .venv/bin/python bench/search_at_scale.py 100000

Writes N synthetic memories with ``remember_many``, indexes them with a 512-dimensional hashing
embedder (the same dimension as the default ``use`` model, so the vector search costs the same),
times 100 recalls (query encode ~0.1 ms, so this is the search), then times the real ``use``
model's query encode separately. A recall with the default embedder costs the sum of the two
medians: two real measurements added, not one end-to-end run. ``bench/speed.py`` is the
end-to-end benchmark (with the real model) for sizes where that is practical.
"""

import os
import random
import shutil
import statistics
import sys
import tempfile
import time

os.environ["OMP_NUM_THREADS"] = "1"
os.environ["OPENBLAS_NUM_THREADS"] = "1"
from pathlib import Path

from memdir import Memory
from memdir.providers.embeddings import HashingEmbedder, get_embedder

N = int(sys.argv[1])
root = Path(tempfile.mkdtemp(prefix="memdir-big-"))
(root / "p/.agent").mkdir(parents=True)
emb = HashingEmbedder(dim=512)
m = Memory(home=root / "h", project=root / "p", embedder=emb)
rng = random.Random(7)
vocab = [
    f"{a}{b}"
    for a in ["ka", "lo", "mi", "ne", "pu", "ra", "si", "to", "vu", "ze", "ba", "de"]
    for b in [
        "ron",
        "las",
        "mit",
        "gor",
        "bel",
        "tus",
        "vin",
        "dra",
        "kel",
        "pon",
        "sar",
        "fen",
        "lum",
        "qua",
        "zor",
    ]
]
vocab = [
    w + s
    for w in vocab
    for s in [
        "",
        "er",
        "ing",
        "ly",
        "ness",
        "ist",
        "ance",
        "ity",
        "ous",
        "ful",
        "ment",
        "ize",
        "ward",
        "ism",
        "ery",
    ]
]
t = time.perf_counter()
m.remember_many(
    [
        {"text": " ".join(rng.choice(vocab) for _ in range(rng.randint(8, 30))), "type": "project"}
        for _ in range(N)
    ]
)
print("write/s", N / (time.perf_counter() - t), flush=True)
t = time.perf_counter()
m.reindex()
print("index s", time.perf_counter() - t, flush=True)
qs = [" ".join(rng.choice(vocab) for _ in range(5)) for _ in range(101)]
t = time.perf_counter()
m.recall(qs[0], track=False)
print("cold ms", (time.perf_counter() - t) * 1000)
lat = []
for q in qs[1:]:
    t = time.perf_counter()
    m.recall(q, track=False)
    lat.append((time.perf_counter() - t) * 1000)
lat.sort()
print(f"search p50 {statistics.median(lat):.1f} p95 {lat[94]:.1f} ms (hashing-512 index)")
use = get_embedder("use")
use.encode(["warm"], "query")
enc = []
for q in qs[1:]:
    t = time.perf_counter()
    use.encode([q], "query")
    enc.append((time.perf_counter() - t) * 1000)
enc.sort()
print(f"use query encode p50 {statistics.median(enc):.1f} p95 {enc[94]:.1f} ms")
shutil.rmtree(root)
