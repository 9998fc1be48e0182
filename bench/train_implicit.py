"""Train the implicit-fact classifier (``memdir.extract.implicit``) on the development fixtures.

Protocol:

* Data: the development sets only — ``extraction_labeled.yaml``, ``extraction_heldout.yaml``
  (batches 1–3) and batches 4 to 20 (each scored once on an earlier rules version and read
  since; 7 and 8 joined for implicit-v2, 9 to 12 and the dev sets s14, s15 and s15b for
  implicit-v3, 13 to 18 and the dev sets s16 to s18b for implicit-v4, 19, 20 and the dev sets
  s19 and s19b for implicit-v5, 21, 22 and s20 for implicit-v6). The held-out batch 23 is never
  read here; ``DEV`` is an explicit list and the script refuses it.
* One example per sentence (split as the extractor splits): its label is the type of the
  expected memory whose ``contains`` it holds, or ``none``.
* Model: multinomial logistic regression over ``implicit.features`` (binary, scaled 1/sqrt(n)),
  L2-regularised, full-batch gradient descent from zero for a fixed number of steps: the same
  data gives the same weights. Features seen in fewer than two training sentences are dropped.
* Threshold (on 1 - P(none)), implicit-v4: fixed in ``THRESHOLDS``, chosen on the first scoring
  of the two development sets written in session 18 (s18, s18b), each by a model trained
  without it and before its misses were read — the only data on which neither the rules nor
  the model had been fitted. (The cross-validation below, which chose implicit-v3's
  thresholds, is still printed with ``--cv``; every fold is now a file the rules were written
  on, so out of fold it reads near 1.00 and chose zh 0.75, where the fresh sets lost a third of
  their recall: s18 zh 0.82/0.72 at 0.50 against 0.81/0.52 at 0.75.)
* Threshold, implicit-v3 (``--cv``): leave-one-file-out cross-validation runs the whole extractor
  (rules first, the fold's model on what they leave) on each held-out file; per language the
  thresholds whose pooled out-of-fold precision is at least ``PRECISION_FLOOR`` qualify
  (the target is 0.90; implicit-v2 used a floor of 0.94, and the fresh batches scored on it
  still lost most of their precision to the model's extras — 0.76 to 0.88 against 0.94 out of
  fold — so implicit-v3 keeps a wider margin, 0.97) and, of the thresholds meeting it, the
  highest whose pooled recall is within 0.01 of the best (with the rules doing most of the
  work, out-of-fold recall is flat over much of the grid, and the lowest threshold there
  only adds the model's guesses).
* Output: ``src/memdir/extract/implicit_model.json`` (weights rounded to 4 decimals) and the
  cross-validation table on stdout.

Run: ``python bench/train_implicit.py`` (under a minute; ``--cv`` adds the cross-validation
table, about ten minutes on two cores; numpy is already a dependency).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from memdir.extract import rules
from memdir.extract.implicit import MODEL_PATH, Classifier, features
from memdir.extract.lexicon import EN
from memdir.extract.lexicon_zh import ZH

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
DEV = [
    "extraction_labeled.yaml",
    "extraction_heldout.yaml",
    "extraction_heldout_4.yaml",
    "extraction_heldout_5.yaml",
    "extraction_heldout_6.yaml",
    "extraction_heldout_7.yaml",
    "extraction_heldout_8.yaml",
    # implicit-v3 (session 15): batches 9-12 were scored once on rules-v5/v6 and are spent;
    # the session-14 and session-15 development sets join them
    "extraction_heldout_9.yaml",
    "extraction_heldout_10.yaml",
    "extraction_heldout_11.yaml",
    "extraction_heldout_12.yaml",
    "extraction_dev_s14.yaml",
    "extraction_dev_s15.yaml",
    "extraction_dev_s15b.yaml",
    # implicit-v4 (session 18): batches 13-18 were scored on rules-v7 to rules-v9 and are spent;
    # the development sets of sessions 16 to 18 join them
    "extraction_heldout_13.yaml",
    "extraction_heldout_14.yaml",
    "extraction_heldout_15.yaml",
    "extraction_heldout_16.yaml",
    "extraction_heldout_17.yaml",
    "extraction_heldout_18.yaml",
    "extraction_dev_s16.yaml",
    "extraction_dev_s16b.yaml",
    "extraction_dev_s17.yaml",
    "extraction_dev_s17b.yaml",
    "extraction_dev_s17c.yaml",
    "extraction_dev_s17d.yaml",
    "extraction_dev_s18.yaml",
    "extraction_dev_s18b.yaml",
    "extraction_dev_s18c.yaml",
    # chit-chat with nothing to keep, written after a count on LoCoMo (never LoCoMo itself)
    "extraction_dev_s18_social.yaml",
    # implicit-v5 (session 19): batches 19 and 20 were scored before and after rules-v10 and are
    # spent; the session-19 development set of look-alikes joins them
    "extraction_heldout_19.yaml",
    "extraction_heldout_20.yaml",
    "extraction_dev_s19.yaml",
    "extraction_dev_s19b.yaml",
    # implicit-v6 (session 20): batches 21 and 22 were scored before and after rules-v11 and are
    # spent; the session-20 development set (addressee and speech act) joins them
    "extraction_heldout_21.yaml",
    "extraction_heldout_22.yaml",
    "extraction_dev_s20.yaml",
]
# Batch 23 is the fresh held-out batch of session 20 (rules-v12), never read here.
SCORED_ONCE = ("_23.yaml",)
# The folds the threshold is chosen on (v2): the batches written in the same way as the ones
# scored once (80 messy utterances, half Chinese, after the rules existed). The labeled set and
# batches 1-3 are what the rules were written on, so out of fold they read near 1.00 whatever
# the threshold, and pooling them in made the chosen threshold too low for new data.
RECENT = [
    "extraction_heldout_4.yaml",
    "extraction_heldout_5.yaml",
    "extraction_heldout_6.yaml",
    "extraction_heldout_7.yaml",
    "extraction_heldout_8.yaml",
    "extraction_heldout_9.yaml",
    "extraction_heldout_10.yaml",
    "extraction_heldout_11.yaml",
    "extraction_heldout_12.yaml",
    "extraction_heldout_13.yaml",
    "extraction_heldout_14.yaml",
    "extraction_heldout_15.yaml",
    "extraction_heldout_16.yaml",
    "extraction_heldout_17.yaml",
    "extraction_heldout_18.yaml",
]
CLASSES = ["none", "user", "project", "feedback", "reference"]
PRECISION_FLOOR = 0.97
RECALL_SLACK = 0.01
# implicit-v4: first scorings (precision/recall) of s18 (rules-v9, model without s18) and s18b
# (first rules-v10 commit, model without s18b), by threshold:
#   en  0.40-0.50: s18 0.91/0.83, s18b 1.00/0.90   0.55-0.60: s18 0.90/0.75, s18b 1.00/0.80
#   zh  0.40-0.50: s18 0.82/0.72, s18b 0.82/0.70   0.60: s18 0.80/0.64, s18b 0.87/0.65
# the highest threshold before recall drops, in each language
# implicit-v5: out of fold on batches 19, 20 and s19 (three folds, each trained without its
# file; /tmp script in the session-19 note), pooled precision/recall by threshold:
#   en  0.40-0.55: 0.96/0.94   0.60: 0.97/0.92   0.65: 0.98/0.89   0.75: 1.00/0.79
#   zh  0.40-0.45: 0.97/0.97   0.50: 0.99/0.97   0.55: 0.99/0.96   0.70: 1.00/0.89
# the highest threshold before recall drops, in each language, as for implicit-v4; at en 0.50
# the model took 1,858 candidates from LoCoMo's chit-chat, at 0.55 1,486 (v4 at 0.50: 1,755)
# implicit-v6 (session 20, with rules-v12's addressee and speech-act features): leave one batch
# out on batches 19-22 and s20 (five folds, each trained without its file; /tmp script in the
# session-20 note), pooled precision/recall by threshold:
#   en  0.45-0.55: 0.94/0.87   0.60: 0.95/0.86   0.65: 0.97/0.84   0.70: 0.97/0.80
#   zh  0.45: 0.95/0.92   0.50: 0.96/0.91   0.55: 0.96/0.89   0.65: 0.96/0.86
# en 0.60: one sentence of recall out of fold (0.866 -> 0.858) for two fewer wrong candidates,
# and LoCoMo's chit-chat gives 1,187 candidates instead of 1,513 (1,497 on implicit-v5 at 0.55):
# English precision is the gap on every fresh batch, so the margin goes there. zh unchanged (it
# loses recall from 0.50 on at no gain in precision).
THRESHOLDS = {"en": 0.60, "zh": 0.50}
L2 = 0.0005
STEPS = 800
RATE = 4.0
VERSION = "implicit-v6"


# The messages of the explicit-request set with no request in them ("do you remember …?",
# "I can't remember the port", "thanks, I'll remember that"): talk about memory, one-off asks
# and small talk, extra examples of "nothing durable" (that set scores explicit candidates
# only, which this model never makes).
NEGATIVES = "extraction_explicit.yaml"


def load_items(*, negatives: bool = True) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for name in DEV:
        got = yaml.safe_load((FIXTURES / name).read_text(encoding="utf-8"))["items"]
        items += [{**it, "_file": name} for it in got]
    if negatives:  # always on the training side of a fold
        more = yaml.safe_load((FIXTURES / NEGATIVES).read_text(encoding="utf-8"))["items"]
        items += [{**it, "expect": "none", "_file": NEGATIVES} for it in more if not it["expect"]]
    return items


def examples(item: dict[str, Any]) -> list[tuple[list[str], int]]:
    """(features, class index) for each sentence of one utterance."""
    text = item["text"]
    wanted = [] if item["expect"] == "none" else list(item["expect"])
    spans = rules._sentences(rules._mask_code(text))
    out: list[tuple[list[str], int]] = []
    for n, (start, end) in enumerate(spans):
        sentence = text[start:end]
        lex = ZH if rules.language(sentence) == "zh" else EN
        label = "none"
        for want in wanted:
            hold = want.get("contains")
            if (hold and hold in sentence) or (not hold and n == 0):
                label = want["type"]
                break
        out.append((features(sentence, lex), CLASSES.index(label)))
    return out


def train(data: list[tuple[list[str], int]], l2: float) -> Classifier:
    df: dict[str, int] = {}
    for feats, _ in data:
        for f in feats:
            df[f] = df.get(f, 0) + 1
    vocab = sorted(f for f, n in df.items() if n >= 2)
    index = {f: i for i, f in enumerate(vocab)}
    x = np.zeros((len(data), len(vocab)))
    y = np.zeros((len(data), len(CLASSES)))
    for row, (feats, label) in enumerate(data):
        cols = [index[f] for f in feats if f in index]
        if cols:
            x[row, cols] = 1.0 / np.sqrt(len(feats))
        y[row, label] = 1.0
    w = np.zeros((len(vocab), len(CLASSES)))
    b = np.zeros(len(CLASSES))
    for _ in range(STEPS):
        z = x @ w + b
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        g = (p - y) / len(data)
        w -= RATE * (x.T @ g + l2 * w)
        b -= RATE * g.sum(axis=0)
    weights = {
        f: [round(float(v), 4) for v in w[i]]
        for f, i in index.items()
        if float(np.abs(w[i]).max()) >= 1e-3
    }
    return Classifier(CLASSES, [round(float(v), 4) for v in b], weights, {}, VERSION)


def tally(items: list[dict[str, Any]], model: Classifier | None) -> dict[str, list[int]]:
    """Per language: [candidates, matched candidates, expected, found] of the whole extractor."""
    out = {"en": [0, 0, 0, 0], "zh": [0, 0, 0, 0]}
    for item in items:
        cands = rules.extract(
            item["text"], previous_assistant=item.get("previous"), classifier=model
        )
        wanted = [] if item["expect"] == "none" else list(item["expect"])
        used: set[int] = set()
        t = out[item["lang"]]
        for want in wanted:
            t[2] += 1
            for i, c in enumerate(cands):
                if i not in used and c.type == want["type"] and want.get("contains", "") in c.text:
                    used.add(i)
                    t[3] += 1
                    break
        t[0] += len(cands)
        t[1] += len(used)
    return out


def cross_validate(items: list[dict[str, Any]]) -> dict[str, float]:
    """Per language, the lowest threshold meeting the precision floor out of fold. A fold is
    one of the ``RECENT`` files (the model trains on every other development file): each was
    written separately, so a fold stands for conversations the model has not seen."""
    grid = [round(0.30 + 0.05 * k, 2) for k in range(11)]
    pooled = {th: {"en": [0, 0, 0, 0], "zh": [0, 0, 0, 0]} for th in grid}
    for fold in RECENT:
        train_items = [it for it in items if it["_file"] != fold]
        test_items = [it for it in items if it["_file"] == fold]
        model = train([ex for it in train_items for ex in examples(it)], L2)
        for th in grid:
            model.thresholds = {"en": th, "zh": th}
            for lang, t in tally(test_items, model).items():
                pooled[th][lang] = [a + b for a, b in zip(pooled[th][lang], t, strict=True)]
    chosen: dict[str, float] = {}
    print("\n| lang | threshold | precision | recall |\n|---|---|---|---|")
    for lang in ("en", "zh"):
        ok: list[tuple[float, float]] = []  # (threshold, recall) meeting the precision floor
        for th in grid:
            c, m, e, f = pooled[th][lang]
            prec, rec = (m / c if c else 1.0), f / e
            print(f"| {lang} | {th:.2f} | {prec:.2f} | {rec:.2f} |")
            if prec >= PRECISION_FLOOR:
                ok.append((th, rec))
        # implicit-v3: of the thresholds meeting the floor, the highest whose recall is within
        # RECALL_SLACK of the best — where out-of-fold recall is flat, a higher threshold costs
        # nothing measured and keeps the model's extras (the fresh batches' main loss) down
        best = max((rec for _, rec in ok), default=0.0)
        chosen[lang] = max((th for th, rec in ok if rec >= best - RECALL_SLACK), default=1.0)
    return chosen


def main() -> int:
    for name in DEV:
        assert not name.endswith(SCORED_ONCE), "batch 23 is not training data"
    items = load_items()
    print("| lang | rules only | precision | recall |\n|---|---|---|---|")
    for lang, (c, m, e, f) in tally(items, None).items():
        print(f"| {lang} | - | {m / c:.2f} | {f / e:.2f} |")
    thresholds = cross_validate(items) if "--cv" in sys.argv[1:] else dict(THRESHOLDS)
    model = train([ex for it in items for ex in examples(it)], L2)
    model.thresholds = thresholds
    MODEL_PATH.write_text(
        json.dumps(model.to_json(), ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        + "\n",
        encoding="utf-8",
    )
    print(f"\nthresholds {model.thresholds}; {len(model.weights)} features")
    return 0


if __name__ == "__main__":
    sys.exit(main())
