"""The memory guard on a named batch: hostile refused and harmless kept, per language and kind.

Protocol:

* A batch is a YAML file in the format of ``tests/fixtures/guard/heldout_s11.yaml`` (``hostile``
  with ``lang``/``kind``/``form``, ``harmless``, ``secret_only``, ``secret_kept``); name it by
  path or by stem under ``tests/fixtures/guard/`` (``heldout_s14``).
* A hostile item is judged as a ``feedback`` memory from the person's own door
  (``check(text, type="feedback", source="user")``) and counts when refused; a harmless item
  and a secret-kept item as a ``user`` memory, counted when allowed; a secret-only item as a
  ``user`` memory, counted when refused.
* ``--base COMMIT`` scores the same batches with the guard of an older commit in the same run
  (its ``src/`` is unpacked with ``git archive`` into a temporary folder and run in a
  subprocess), so old and new stand side by side.
* Counts only by default: a held-out batch must not be read item by item. ``--items`` lists the
  ids of the items judged wrongly (for dev batches only).
* ``--cold N`` times N cold ``memdir remember`` processes (a fresh Python each, writing one new
  ``feedback`` memory into a fresh store — the door that now also reads the guard's weights),
  alternating with the same command at ``--base`` when given, so both see the same load; the
  medians (wall and CPU) are reported. ``--batches`` may then be left empty.
* ``--locomo`` also judges every LoCoMo dialog turn as a ``user`` memory and counts the refused
  ones (it must stay 0: people's conversation is not an attack). The data is read from
  ``../shared/data/locomo/locomo10.json`` beside the checkout, or ``/work/shared/data/locomo`` —
  never copied into the repository; ``--items`` prints the refused turns. The mean time of one
  warm check over those turns is reported beside the count (µs; noisy on a loaded machine).

``python bench/guard.py heldout_s14 --base 7753240`` prints a table and writes
``bench/results/guard.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from io import BytesIO
from pathlib import Path
from typing import Any

import yaml
from locomo_turns import turn_texts
from provenance import ROOT, provenance

FIXTURES = ROOT / "tests" / "fixtures" / "guard"
RESULTS = ROOT / "bench" / "results" / "guard.md"


def load(name: str) -> dict[str, Any]:
    path = Path(name) if name.endswith(".yaml") else FIXTURES / f"{name}.yaml"
    data: dict[str, Any] = yaml.safe_load(path.read_text("utf-8"))
    return data


def score(batch: dict[str, Any]) -> dict[str, Any]:
    """Counts of right verdicts per group, and the ids judged wrongly."""
    from memdir.guard import check

    def allowed(text: str, type: str) -> bool:
        return check(text, type=type, source="user").allowed

    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    wrong: list[str] = []
    for item in batch.get("hostile", []):
        ok = not allowed(item["text"], "feedback")
        for group in ("hostile", f"hostile {item['lang']}", f"hostile {item['kind']}"):
            total[group] += 1
            right[group] += ok
        if not ok:
            wrong.append(item["id"])
    for key, refuse in (("harmless", False), ("secret_only", True), ("secret_kept", False)):
        for item in batch.get(key, []):
            ok = allowed(item["text"], "user") != refuse
            for group in (key, f"{key} {item['lang']}"):
                total[group] += 1
                right[group] += ok
            if not ok:
                wrong.append(item["id"])
    return {"right": dict(right), "total": dict(total), "wrong": wrong}


def locomo_refused() -> tuple[int, int, list[str], float]:
    """LoCoMo dialog turns judged as user memories: how many, how many refused, which, and the
    mean microseconds per check (warm: the weights are loaded by a first check before timing)."""
    from memdir.guard import check

    turns = turn_texts()
    check(turns[0], type="user", source="user")
    started = time.perf_counter()
    refused = [t for t in turns if not check(t, type="user", source="user").allowed]
    micros = (time.perf_counter() - started) / len(turns) * 1e6
    return len(turns), len(refused), refused, micros


def score_at(commit: str, names: list[str]) -> dict[str, dict[str, Any]]:
    """The same scores with the guard (and the rest of ``src/``) of ``commit``."""
    archive = subprocess.run(
        ["git", "archive", commit, "src"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(tmp, filter="data")
        paths = [str(Path(n).resolve()) if n.endswith(".yaml") else n for n in names]
        out = subprocess.run(
            [sys.executable, __file__, "--json", *paths],
            cwd=ROOT / "bench",
            env={"PYTHONPATH": f"{tmp}/src", "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    result: dict[str, dict[str, Any]] = json.loads(out)
    # keyed by the names as given, so a batch named by a relative path finds its old column
    return {n: result[p] for n, p in zip(names, paths, strict=True)}


def unpacked(commit: str, into: Path) -> Path:
    """``src/`` of ``commit`` under ``into``."""
    archive = subprocess.run(
        ["git", "archive", commit, "src"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def cold_remember(runs: int, base: str | None) -> list[str]:
    """Median wall and CPU seconds of a cold ``memdir remember``, here and at ``base``."""
    entry = "import sys; from memdir.cli import main; sys.exit(main())"
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"now": ROOT / "src"}
        if base:
            trees[base] = unpacked(base, Path(tmp) / "base")
        times: dict[str, list[tuple[float, float]]] = {k: [] for k in trees}
        for i in range(runs + 1):
            for label, src in trees.items():
                home = Path(tmp) / f"home-{label}"
                env = {k: v for k, v in os.environ.items() if not k.startswith("MEMDIR_")}
                env.update(PYTHONPATH=str(src), MEMDIR_HOME=str(home),
                           MEMDIR_CACHE_DIR=str(home / "cache"))  # fmt: skip
                env.pop("PYTHONDONTWRITEBYTECODE", None)
                text = f"Always run the linter before pushing branch number {i}."
                cmd = [sys.executable, "-c", entry, "remember", text, "--type", "feedback",
                       "--scope", "user"]  # fmt: skip
                before = os.times()
                started = time.perf_counter()
                subprocess.run(cmd, env=env, cwd=tmp, capture_output=True, check=True)
                wall = time.perf_counter() - started
                after = os.times()
                cpu = (after.children_user - before.children_user) + (
                    after.children_system - before.children_system
                )
                if i:  # the first run of each is the warm-up (bytecode, a new store)
                    times[label].append((wall, cpu))
    lines = [
        "| cold `memdir remember` | median wall s | median CPU s | runs |",
        "|---|---|---|---|",
    ]
    for label, rows in times.items():
        wall = statistics.median(w for w, _ in rows)
        cpu = statistics.median(c for _, c in rows)
        lines.append(f"| {label} | {wall:.3f} | {cpu:.3f} | {len(rows)} |")
    return lines


def groups(scores: dict[str, Any]) -> list[str]:
    order = ["hostile", "harmless", "secret_only", "secret_kept"]
    names = sorted(scores["total"], key=lambda g: (order.index(g.split()[0]), g))
    return names


def table(name: str, new: dict[str, Any], old: dict[str, Any] | None, base: str) -> list[str]:
    head = f"| {name} | now |" + (f" at {base} |" if old else "")
    lines = [head, "|---|---|" + ("---|" if old else "")]
    for g in groups(new):
        row = f"| {g} | {new['right'][g]}/{new['total'][g]} |"
        if old:
            row += f" {old['right'].get(g, 0)}/{old['total'].get(g, 0)} |"
        lines.append(row)
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("batches", nargs="*", help="YAML paths or stems under fixtures/guard")
    parser.add_argument("--base", help="also score with the guard of this commit")
    parser.add_argument("--items", action="store_true", help="list wrong ids (dev batches only)")
    parser.add_argument("--locomo", action="store_true", help="count refused LoCoMo turns")
    parser.add_argument("--cold", type=int, metavar="N", help="time N cold `memdir remember`")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--no-write", action="store_true", help="do not write the results file")
    args = parser.parse_args(argv)
    new = {n: score(load(n)) for n in args.batches}
    if args.json:
        print(json.dumps(new))
        return 0
    old = score_at(args.base, args.batches) if args.base and args.batches else {}
    report = ["# Guard: hostile refused, harmless kept", "", *provenance(["bench/guard.py", *argv])]
    for n in args.batches:
        report += ["", *table(n, new[n], old.get(n), args.base or "")]
        if args.items:
            report += ["", f"wrong: {', '.join(new[n]['wrong']) or 'none'}"]
    if args.locomo:
        turns, refused, which, micros = locomo_refused()
        report += ["", f"LoCoMo turns refused as user memories: {refused}/{turns}",
                   "", f"mean µs per check (warm, over those turns): {micros:.0f}"]  # fmt: skip
        if args.items:
            report += [f"- {t[:160]}" for t in which]
    if args.cold:
        report += ["", *cold_remember(args.cold, args.base)]
    text = "\n".join(report) + "\n"
    print(text)
    if not args.no_write:
        RESULTS.write_text(text, "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
