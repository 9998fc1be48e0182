"""Train the guard's learned reading (``src/memdir/guard/model.py``) and measure it honestly.

Data (never LoCoMo, licensed for evaluation only; never a held-out batch not yet spent):

* attacks (labelled with their kind): the ``hostile`` items of every batch under
  ``tests/fixtures/guard/`` except the ones named in ``--exclude`` (the fresh held-out batch),
  of ``tests/fixtures/injections_dev.yaml`` and ``injections_heldout.yaml`` (session 9, spent),
  and every item of ``tests/fixtures/injections.yaml`` (kind: the rules' finding, else its goal);
* harmless: the look-alikes and secret-kept items of those batches, plus people's ordinary
  statements: the memories of ``bench/everyday/*.yaml`` and the utterances of
  ``tests/fixtures/extraction_*.yaml`` (those the rules refuse are left out: they are not
  known to be harmless).

Cross-validation holds out whole files: for each batch, a model trained on every other file
scores it, so each number printed is out-of-sample for that batch. A text is scored only where
the guard would ask the model at all (``intent.meaning_asked``: not a restriction, not a single
question), so the threshold is chosen for the texts it will judge. The threshold is chosen on
those out-of-fold scores: the lowest at which the look-alikes of the guard batches stay ≥ 99 %
kept (rules and model together) and the final model refuses at most ``--locomo`` LoCoMo turns
(0 of 5,882; scored, never trained on). Chinese text gets a higher threshold (``--zh``).
``--write`` saves the model trained on all the data with those thresholds.

``python bench/guard_train.py --write`` (heldout_s19 and heldout_s20, the fresh held-out batches,
are always left out; seeded: the same data give the same weights).
"""

from __future__ import annotations

import argparse
import base64
import json
import re
import sys
import zlib
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from locomo_turns import turn_texts
from provenance import ROOT, provenance

from memdir.guard import intent
from memdir.guard.model import DIM, MODEL_PATH, Model, features

FIXTURES = ROOT / "tests" / "fixtures"
CLASSES = ["harmless", *intent.KINDS]
GOAL_KIND = {"permission": "permission", "exfiltration": "exfiltration",
             "persona": "role-switch", "rule": "override"}  # fmt: skip
VERSION = "guard-model-v2"  # v2: structural signals among the features (model.signals)
HAN = re.compile(r"[\u4e00-\u9fff]")

Item = tuple[str, str, str]  # (fold, label, text)


def rules_kind(text: str) -> str | None:
    found = intent.judge(text, learned=False)
    return found[0].kind if found else None


def gather(exclude: set[str]) -> list[Item]:
    items: list[Item] = []
    batches = sorted((FIXTURES / "guard").glob("*.yaml"))
    batches += [FIXTURES / "injections_dev.yaml", FIXTURES / "injections_heldout.yaml"]
    for path in batches:
        if path.stem in exclude:
            continue
        data = yaml.safe_load(path.read_text("utf-8"))
        items += [(path.stem, h["kind"], h["text"]) for h in data.get("hostile", [])]
        for key in ("harmless", "secret_kept"):
            items += [(path.stem, "harmless", h["text"]) for h in data.get(key, [])]
    for h in yaml.safe_load((FIXTURES / "injections.yaml").read_text("utf-8"))["items"]:
        items.append(("injections", rules_kind(h["text"]) or GOAL_KIND[h["goal"]], h["text"]))
    for path in sorted((ROOT / "bench" / "everyday").glob("*.yaml")):
        for group in yaml.safe_load(path.read_text("utf-8"))["groups"].values():
            for _, text in group["memories"].values():
                if rules_kind(text) is None:
                    items.append(("everyday", "harmless", text))
    for path in sorted(FIXTURES.glob("extraction_*.yaml")):
        data = yaml.safe_load(path.read_text("utf-8"))
        for it in data.get("items", []):
            if isinstance(it, dict) and it.get("text") and rules_kind(it["text"]) is None:
                items.append(("extraction", "harmless", it["text"]))
    return items


def matrix(texts: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows as (row index, bucket, value) with values 1/sqrt(n), as ``Model`` reads them."""
    rows, cols, vals = [], [], []
    for i, t in enumerate(texts):
        f = features(t)
        rows += [i] * len(f)
        cols += f
        vals += [1.0 / np.sqrt(len(f))] * len(f)
    return np.array(rows), np.array(cols), np.array(vals, dtype=np.float32)


def train(
    texts: list[str], labels: list[str], *, l2: float, epochs: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Softmax regression by full-batch Adam, classes weighted to balance harmless and attack."""
    rng = np.random.default_rng(seed)
    rows, cols, vals = matrix(texts)
    n, k = len(texts), len(CLASSES)
    y = np.array([CLASSES.index(lab) for lab in labels])
    counts = np.bincount(y, minlength=k).astype(float)
    attack = counts[1:].sum()
    # harmless and attacks weigh the same in all; within attacks each item the same
    weight = np.where(y == 0, 0.5 / max(counts[0], 1), 0.5 / max(attack, 1)) * n
    w = rng.normal(0, 1e-3, (DIM, k))
    b = np.zeros(k)
    m, v = np.zeros_like(w), np.zeros_like(w)
    mb, vb = np.zeros_like(b), np.zeros_like(b)
    onehot = np.eye(k)[y]
    for t in range(1, epochs + 1):
        wc = w[cols] * vals[:, None]
        scores = np.stack([np.bincount(rows, wc[:, c], n) for c in range(k)], 1) + b
        scores -= scores.max(1, keepdims=True)
        p = np.exp(scores)
        p /= p.sum(1, keepdims=True)
        g = (p - onehot) * weight[:, None] / n
        gr = g[rows] * vals[:, None]
        gw = np.stack([np.bincount(cols, gr[:, c], DIM) for c in range(k)], 1) + l2 * w
        gb = g.sum(0)
        for param, grad, mm, vv in ((w, gw, m, v), (b, gb, mb, vb)):
            mm *= 0.9
            mm += 0.1 * grad
            vv *= 0.999
            vv += 0.001 * grad * grad
            param -= 0.05 * (mm / (1 - 0.9**t)) / (np.sqrt(vv / (1 - 0.999**t)) + 1e-8)
    return w, b


def quantise(w: np.ndarray, b: np.ndarray, threshold: float, zh: float = 1.0) -> Model:
    scales = np.maximum(np.abs(w).max(0), 1e-9) / 127.0
    q = np.clip(np.round(w / scales), -127, 127).astype(np.int8)
    return Model(CLASSES, [float(x) for x in b], [float(s) for s in scales], q.tobytes(),
                 {"en": threshold, "zh": max(threshold, zh)}, VERSION)  # fmt: skip


def to_json(model: Model) -> dict[str, Any]:
    return {
        "version": model.version,
        "classes": model.classes,
        "thresholds": {k: round(v, 4) for k, v in model.thresholds.items()},
        "bias": [round(x, 5) for x in model.bias],
        "scales": [float(f"{s:.6g}") for s in model.scales],
        "weights": base64.b64encode(zlib.compress(model.weights, 9)).decode("ascii"),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--exclude",
        action="append",
        default=["heldout_s19", "heldout_s20"],
        help="batch stems left out",
    )
    parser.add_argument("--l2", type=float, default=1e-5)
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--kept", type=float, default=0.99, help="look-alikes kept at least")
    # chosen by hand on bench/sleep_pairs (dev statements): at the English threshold five short
    # Chinese rules there ("热修复不允许直接上生产") were refused; cross-validation shows the
    # model adds few Chinese attacks to the rules' (9 of 623) at any threshold
    parser.add_argument("--zh", type=float, default=0.88, help="threshold for Chinese text")
    # session 18 allowed one LoCoMo turn ("Glad you had support. Being yourself is great!");
    # with praise and support said to a person in the training text (chat_s18, train_s19) none
    # needs to be refused
    parser.add_argument("--locomo", type=int, default=0, help="LoCoMo turns it may refuse")
    parser.add_argument("--write", action="store_true", help="save the model trained on all")
    parser.add_argument("--dump", type=Path, help="write the out-of-fold scores here (JSON)")
    args = parser.parse_args(argv)
    items = gather(set(args.exclude))
    folds = sorted({f for f, _, _ in items})
    print(f"{len(items)} texts in {len(folds)} files: {dict(Counter(lab for _, lab, _ in items))}")
    # every guard batch is held out in turn; ordinary statements and chat always train
    guard_folds = [f for f in folds if f.startswith(("heldout", "dev", "injections"))]
    oof: dict[int, float] = {}
    for fold in guard_folds:
        train_idx = [i for i, it in enumerate(items) if it[0] != fold]
        w, b = train([items[i][2] for i in train_idx], [items[i][1] for i in train_idx],
                     l2=args.l2, epochs=args.epochs, seed=args.seed)  # fmt: skip
        model = quantise(w, b, 1.0)
        for i, it in enumerate(items):
            if it[0] == fold:
                oof[i] = model.read(it[2]).score if intent.meaning_asked(it[2], model) else 0.0
        print(f"  fold {fold} done", file=sys.stderr)
    rules = [rules_kind(t) is not None for _, _, t in items]
    full_w, full_b = train([t for _, _, t in items], [lab for _, lab, _ in items],
                           l2=args.l2, epochs=args.epochs, seed=args.seed)  # fmt: skip
    full = quantise(full_w, full_b, 1.0)
    turns = turn_texts()
    locomo = sorted(
        (full.read(t).score for t in turns if intent.meaning_asked(t, full)), reverse=True
    )
    look = [i for i, it in enumerate(items) if it[0] in guard_folds and it[1] == "harmless"]
    threshold = 0.5
    for t in sorted({round(x, 3) for x in oof.values()} | {0.5}):
        kept = sum(not rules[i] and oof[i] < t for i in look) / len(look)
        if t > 0.5 and kept >= args.kept and locomo[args.locomo] < t:
            threshold = t
            break
    else:
        threshold = max(locomo[args.locomo] + 1e-3, 0.5)
    report = ["# Guard model: batch-held-out cross-validation", "",
              *provenance(["bench/guard_train.py", *argv]), "",
              f"threshold {threshold:.3f} (Chinese {max(threshold, args.zh):.3f}); LoCoMo top "
              f"scores {[round(x, 3) for x in locomo[:5]]}",
              "", "| file | attacks: rules | model | either | harmless kept: rules | either |",
              "|---|---|---|---|---|---|"]  # fmt: skip
    tot: Counter[str] = Counter()
    for fold in guard_folds:
        idx = [i for i, it in enumerate(items) if it[0] == fold]
        c: Counter[str] = Counter()
        for i in idx:
            model_says = oof[i] >= (
                max(threshold, args.zh) if HAN.search(items[i][2]) else threshold
            )
            if items[i][1] == "harmless":
                c["harm"] += 1
                c["harm_rules"] += not rules[i]
                c["harm_either"] += not (rules[i] or model_says)
            else:
                c["att"] += 1
                c["att_rules"] += rules[i]
                c["att_model"] += model_says
                c["att_either"] += rules[i] or model_says
        tot.update(c)
        report.append(
            f"| {fold} | {c['att_rules']}/{c['att']} | {c['att_model']}/{c['att']} | "
            f"{c['att_either']}/{c['att']} | {c['harm_rules']}/{c['harm']} | "
            f"{c['harm_either']}/{c['harm']} |"
        )
    c = tot
    report.append(
        f"| **all** | {c['att_rules']}/{c['att']} | {c['att_model']}/{c['att']} | "
        f"{c['att_either']}/{c['att']} | {c['harm_rules']}/{c['harm']} | "
        f"{c['harm_either']}/{c['harm']} |"
    )
    print("\n".join(report))
    if args.dump:
        rows = [[*items[i], oof[i], rules[i]] for i in sorted(oof)]
        args.dump.write_text(json.dumps({"locomo": locomo[:50], "rows": rows}), "utf-8")
    if args.write:
        model = quantise(full_w, full_b, threshold, args.zh)
        MODEL_PATH.write_text(json.dumps(to_json(model)) + "\n", "utf-8")
        print(f"wrote {MODEL_PATH.relative_to(ROOT)} ({MODEL_PATH.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
