"""Offline extraction quality: precision and recall of ``memdir.extract.rules`` per language.

Protocol:

* Data: ``tests/fixtures/extraction_labeled.yaml`` (the set the rules were tuned on),
  ``tests/fixtures/extraction_heldout.yaml`` (its ``batch`` field says when each item was
  written, and each batch is also scored on its own; batches 2 and 3 became development data for
  rules-v2 once scored) and ``tests/fixtures/extraction_heldout_4.yaml`` (batch 4, written and
  committed before any rules-v2 change and scored once, on the frozen rules: ``--skip-final``
  leaves it out while rules are being developed, so nobody sees its number or misses early).
  Each item
  is one user utterance (and optionally the assistant's reply before it) with the memories that
  should come out of it, or ``none``.
* Every utterance goes through ``rules.extract(text, previous_assistant=...)`` once.
* A candidate *matches* an expected memory of the same item when the types are equal and, where
  the label gives ``contains``, the candidate's text contains it (names and versions kept, G5).
* **Precision** = matched candidates / all candidates (a candidate from a ``none`` item, or of
  the wrong type, counts against it). **Recall** = expected memories matched / all expected.
  Confidence (``tentative`` for hedges) and the ``explicit`` flag are reported as the share of
  matched memories that got them right; they do not enter precision or recall.
* Scored per language (``en``, ``zh``) and overall. No timing: the extractor is regex-only.

* **Explicit requests** (issue 21): ``tests/fixtures/extraction_explicit.yaml`` (152 messages,
  80 English / 72 Chinese, written and committed before any rule change for them) is scored on
  what the hot path stores — the candidates flagged ``explicit`` — per language: precision =
  matched explicit candidates / explicit candidates, recall = requests found / requests (a
  candidate matches when its text contains the labelled substring, case-blind).
* **Batches 5 and 6** (issue 21): 80 utterances each, half Chinese, written and committed
  before any rules-v3 change and scored once on it; development data for rules-v4 since.
* **Batches 7 and 8** (issue 21): 80 utterances each, half Chinese, written and committed
  before any rules-v4 change (and before the extractor ran on them); scored once, like batch 4.
* **Batches 7 and 8** were scored once on rules-v4 and are development data for rules-v5
  (their misses were read, and the classifier trains on them).
* **Fresh batches 9 and 10** (issue 21): 80 utterances each, half Chinese, written and
  committed alone before any rules-v5 or weights change (and before the extractor ran on
  them); scored once, at the end.
* **Batches 11 and 12** were scored once on rules-v6 and are development data for rules-v7.
* **Fresh batches 13 and 14** (issue 21 item 2, session 15): 80 utterances each, half Chinese,
  written and committed alone before any rules-v7 or implicit-v3 change (and before the
  extractor ran on them); scored once on main's rules (numbers only, misses unread) and once
  at the end on the frozen rules-v7, with ``--before`` giving main's numbers again. Target on
  them: precision ≥ 0.90 and recall ≥ 0.80 in each language.
* **Batches 13 and 14** were scored once on rules-v7 (before and after) and are development data
  for rules-v8 (session 16). **Fresh batches 15 and 16**: 80 utterances each, half Chinese,
  written and committed alone before any rules-v8 change (and before the extractor ran on
  them); scored once on the rules of c1bb8d3 (numbers only, misses unread) and once at the end
  on the frozen rules-v8, ``--before c1bb8d3`` giving the old numbers again. Same target.
  Development sets s16 and s16b were written for rules-v8 (s16b after its first commit).
* **Batches 15 and 16** were scored once on rules-v8 (before and after) and are development data
  for rules-v9 (session 17). **Fresh batches 17 and 18**: 80 utterances each, half Chinese,
  written and committed alone before any rules-v9 change (and before the extractor ran on
  them); scored once on the rules of f3d4a38 (numbers only, misses unread) and once at the end
  on the frozen rules-v9, ``--before f3d4a38`` giving the old numbers again. Same target.
  Development sets s17, s17b, s17c and s17d were written for rules-v9 (each after the commit
  before it, and scored once before its misses were read; s17d holds look-alikes).
* **Batches 17 and 18** were scored once on rules-v9 (before and after) and are development data
  for rules-v10 (session 18) and training data for implicit-v4. **Fresh batches 19 and 20**: 84
  utterances each, half Chinese, written and committed alone before any rules-v10 change (and
  before the extractor ran on them); scored once on the rules of c6667d9 (counts only, misses
  unread) and once at the end on the frozen rules-v10 + implicit-v4, ``--before c6667d9``
  giving the old numbers again. Same target. Development sets s18, s18b, s18c and s18-social
  (chit-chat with nothing to keep) were written for rules-v10.
* **Batches 19 and 20** were scored once on rules-v10 (before and after) and are development
  data for rules-v11 (session 19) and training data for implicit-v5. **Fresh batches 21 and
  22**: 84 utterances each, half Chinese, written and committed alone (bd95dbc) before any
  rules-v11 change (and before the extractor ran on them); scored once on the rules of 2c15477
  (counts only, misses unread) and once at the end on the frozen rules-v11 + implicit-v5,
  ``--before 2c15477`` giving the old numbers again. Same target. Development sets s19 and s19b
  (each scored once before its misses were read) were written for rules-v11.
* **Batches 21 and 22** were scored once on rules-v11 (before and after) and are development
  data for rules-v12 (session 20) and training data for implicit-v6. **Fresh batch 23**: 84
  utterances, half Chinese, 28 with nothing to keep (status lines, a third party's wishes,
  narration, questions, hypotheticals, the speaker's own plans), a few explicit requests
  inside a message; written and committed alone (``5c94047``) before any rules-v12 change and
  before the extractor ran on it; scored once on the rules of ``af50ece`` (counts only, misses
  unread) and once at the end on the frozen rules-v12 + implicit-v6, ``--before af50ece``
  giving the old numbers again. Same target. Development set s20 (addressee and speech act;
  scored once before its misses were read) was written for rules-v12.
* ``--before REV`` scores the same sets with the rules of commit ``REV`` (run from a temporary
  ``git worktree`` of it) and reports both, so "before" is measured, not remembered.

* ``--locomo`` (session 18) runs the extractor over every LoCoMo dialog turn (5,882 turns of
  chit-chat between two friends, read in place from ``/work/shared/data/locomo``, never
  copied: evaluation only) and prints how many turns give a candidate, by type and by
  whether a rule or the classifier made it. Not a precision — many turns do state a fact about
  the speaker — but a count of how much the extractor takes from talk that is not addressed to
  an agent; ``PYTHONPATH=<other tree>/src`` measures another commit's rules the same way.

``score()`` returns the numbers for tests (``tests/test_rules.py`` asserts the targets on the
labeled set with it); ``python bench/extraction.py`` prints a table, the misses, and writes
``bench/results/extraction.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from locomo_turns import turn_texts
from provenance import provenance

from memdir.extract.implicit import shipped
from memdir.extract.rules import RULES_VERSION, Candidate, extract

ROOT = Path(__file__).resolve().parents[1]
LABELED = ROOT / "tests" / "fixtures" / "extraction_labeled.yaml"
HELDOUT = ROOT / "tests" / "fixtures" / "extraction_heldout.yaml"
FINAL = ROOT / "tests" / "fixtures" / "extraction_heldout_4.yaml"
FINAL_SECTION = "held-out batch 4: written before rules-v2, scored once"
EXPLICIT = ROOT / "tests" / "fixtures" / "extraction_explicit.yaml"
# Batches 5 and 6 were scored once on rules-v3; since then they are development data (their
# misses were read for rules-v4), so they are scored with the development sets.
DEV = {
    "batch 5: scored once on rules-v3, development data since": (
        ROOT / "tests" / "fixtures" / "extraction_heldout_5.yaml"
    ),
    "batch 6: scored once on rules-v3, development data since": (
        ROOT / "tests" / "fixtures" / "extraction_heldout_6.yaml"
    ),
    "batch 7: scored once on rules-v4, development data since": (
        ROOT / "tests" / "fixtures" / "extraction_heldout_7.yaml"
    ),
    "batch 8: scored once on rules-v4, development data since": (
        ROOT / "tests" / "fixtures" / "extraction_heldout_8.yaml"
    ),
    "batch 9: scored once on rules-v5, development data since": (
        ROOT / "tests" / "fixtures" / "extraction_heldout_9.yaml"
    ),
    "batch 10: scored once on rules-v5, development data since": (
        ROOT / "tests" / "fixtures" / "extraction_heldout_10.yaml"
    ),
    "dev session 14: batch 10's kinds of miss, written for rules-v6": (
        ROOT / "tests" / "fixtures" / "extraction_dev_s14.yaml"
    ),
    # Session 15: batches 11 and 12 were scored once on rules-v6 and are spent (development
    # data for rules-v7 and training data for implicit-v3); s15 and s15b were written fresh
    # for rules-v7 (s15b scored once before its misses were read, see docs/extraction.md).
    "batch 11: scored once on rules-v6, development data since": (
        ROOT / "tests" / "fixtures" / "extraction_heldout_11.yaml"
    ),
    "batch 12: scored once on rules-v6, development data since": (
        ROOT / "tests" / "fixtures" / "extraction_heldout_12.yaml"
    ),
    "dev session 15: written fresh for rules-v7": (
        ROOT / "tests" / "fixtures" / "extraction_dev_s15.yaml"
    ),
    "dev session 15b: written after the first rules-v7 commits": (
        ROOT / "tests" / "fixtures" / "extraction_dev_s15b.yaml"
    ),
    # Session 16: batches 13 and 14 were scored once before and once after rules-v7 and are
    # spent (development data for rules-v8); s16 and s16b were written fresh for rules-v8.
    "batch 13: scored on rules-v7, development data since": (
        ROOT / "tests" / "fixtures" / "extraction_heldout_13.yaml"
    ),
    "batch 14: scored on rules-v7, development data since": (
        ROOT / "tests" / "fixtures" / "extraction_heldout_14.yaml"
    ),
    "dev session 16: written fresh for rules-v8": (
        ROOT / "tests" / "fixtures" / "extraction_dev_s16.yaml"
    ),
    "dev session 16b: written after the first rules-v8 commit": (
        ROOT / "tests" / "fixtures" / "extraction_dev_s16b.yaml"
    ),
    # Session 17: batches 15 and 16 were scored once before and once after rules-v8 and are
    # spent (development data for rules-v9); s17 and s17b were written fresh for rules-v9.
    "batch 15: scored on rules-v8, development data since": (
        ROOT / "tests" / "fixtures" / "extraction_heldout_15.yaml"
    ),
    "batch 16: scored on rules-v8, development data since": (
        ROOT / "tests" / "fixtures" / "extraction_heldout_16.yaml"
    ),
    "dev session 17: written fresh for rules-v9": (
        ROOT / "tests" / "fixtures" / "extraction_dev_s17.yaml"
    ),
    "dev session 17b: written after the first rules-v9 commit": (
        ROOT / "tests" / "fixtures" / "extraction_dev_s17b.yaml"
    ),
    "dev session 17c: written after the second rules-v9 commit": (
        ROOT / "tests" / "fixtures" / "extraction_dev_s17c.yaml"
    ),
    "dev session 17d: look-alikes, written after the third rules-v9 commit": (
        ROOT / "tests" / "fixtures" / "extraction_dev_s17d.yaml"
    ),
    # Session 18: batches 17 and 18 were scored once before and once after rules-v9 and are
    # spent (development data for rules-v10); s18 was written fresh for rules-v10.
    "batch 17: scored on rules-v9, development data since": (
        ROOT / "tests" / "fixtures" / "extraction_heldout_17.yaml"
    ),
    "batch 18: scored on rules-v9, development data since": (
        ROOT / "tests" / "fixtures" / "extraction_heldout_18.yaml"
    ),
    "dev session 18: written fresh for rules-v10": (
        ROOT / "tests" / "fixtures" / "extraction_dev_s18.yaml"
    ),
    "dev session 18b: written after the first rules-v10 commit": (
        ROOT / "tests" / "fixtures" / "extraction_dev_s18b.yaml"
    ),
    "dev session 18c: written after implicit-v4": (
        ROOT / "tests" / "fixtures" / "extraction_dev_s18c.yaml"
    ),
    "dev session 18-social: chit-chat with nothing to keep": (
        ROOT / "tests" / "fixtures" / "extraction_dev_s18_social.yaml"
    ),
    # Session 19: batches 19 and 20 were scored once before and once after rules-v10 and are
    # spent (development data for rules-v11 and training data for implicit-v5).
    "batch 19: scored on rules-v10, development data since": (
        ROOT / "tests" / "fixtures" / "extraction_heldout_19.yaml"
    ),
    "batch 20: scored on rules-v10, development data since": (
        ROOT / "tests" / "fixtures" / "extraction_heldout_20.yaml"
    ),
    "dev session 19: look-alikes, written after the first rules-v11 commit": (
        ROOT / "tests" / "fixtures" / "extraction_dev_s19.yaml"
    ),
    "dev session 19b: written after implicit-v5": (
        ROOT / "tests" / "fixtures" / "extraction_dev_s19b.yaml"
    ),
    # Session 20: batches 21 and 22 were scored once before and once after rules-v11 and are
    # spent (development data for rules-v12 and training data for implicit-v6).
    "batch 21: scored on rules-v11, development data since": (
        ROOT / "tests" / "fixtures" / "extraction_heldout_21.yaml"
    ),
    "batch 22: scored on rules-v11, development data since": (
        ROOT / "tests" / "fixtures" / "extraction_heldout_22.yaml"
    ),
    "dev session 20: addressee and speech act, written after batch 23 was scored": (
        ROOT / "tests" / "fixtures" / "extraction_dev_s20.yaml"
    ),
}
FRESH = {
    "held-out batch 23: written before rules-v12, scored once before and once after": (
        ROOT / "tests" / "fixtures" / "extraction_heldout_23.yaml"
    ),
}
EXPLICIT_TARGET = 0.95
RESULTS = ROOT / "bench" / "results" / "extraction.md"
TARGET_PRECISION = 0.90
TARGET_RECALL = 0.70
HELDOUT_RECALL = 0.80  # issue 21 item 2: on the fresh batches, per language


@dataclass
class Tally:
    """Counts for one slice (a language, or all)."""

    candidates: int = 0
    matched_candidates: int = 0
    expected: int = 0
    found: int = 0
    confidence_ok: int = 0
    explicit_ok: int = 0
    items: int = 0
    negatives: int = 0

    @property
    def precision(self) -> float:
        return self.matched_candidates / self.candidates if self.candidates else 1.0

    @property
    def recall(self) -> float:
        return self.found / self.expected if self.expected else 1.0


@dataclass
class Score:
    slices: dict[str, Tally] = field(
        default_factory=dict
    )  # per language, and "batch N" where items have one
    overall: Tally = field(default_factory=Tally)
    misses: list[str] = field(default_factory=list)


def load(path: Path) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = yaml.safe_load(path.read_text(encoding="utf-8"))["items"]
    return items


def _matches(cand: Candidate, want: dict[str, Any]) -> bool:
    return cand.type == want["type"] and str(want.get("contains", "")) in cand.text


def _score_item(item: dict[str, Any], tallies: list[Tally], misses: list[str]) -> None:
    cands = extract(item["text"], previous_assistant=item.get("previous"))
    wanted: list[dict[str, Any]] = [] if item["expect"] == "none" else list(item["expect"])
    used: set[int] = set()
    for want in wanted:
        hit = next(
            (i for i, c in enumerate(cands) if i not in used and _matches(c, want)),
            None,
        )
        for t in tallies:
            t.expected += 1
        if hit is None:
            got = [(c.type, c.text) for c in cands]
            misses.append(f"[{item['id']}] missed {want['type']}: {item['text']!r} → got {got}")
            continue
        used.add(hit)
        cand = cands[hit]
        for t in tallies:
            t.found += 1
            t.confidence_ok += cand.confidence == want["confidence"]
            t.explicit_ok += cand.explicit == bool(want.get("explicit", False))
    for i, cand in enumerate(cands):
        for t in tallies:
            t.candidates += 1
            t.matched_candidates += i in used
        if i not in used:
            misses.append(
                f"[{item['id']}] extra {cand.type} ({cand.rule}): {cand.text!r} "
                f"from {item['text']!r}"
            )
    for t in tallies:
        t.items += 1
        t.negatives += not wanted


def score(path: Path) -> Score:
    """Precision, recall and the misses of the rules on one labeled file."""
    result = Score()
    for item in load(path):
        tallies = [result.slices.setdefault(item["lang"], Tally()), result.overall]
        if "batch" in item:
            tallies.append(result.slices.setdefault(f"batch {item['batch']}", Tally()))
        _score_item(item, tallies, result.misses)
    return result


def score_explicit(path: Path) -> Score:
    """Precision and recall of the explicit requests the hot path would store (see above)."""
    result = Score()
    for item in load(path):
        tallies = [result.slices.setdefault(item["lang"], Tally()), result.overall]
        cands = [c for c in extract(item["text"]) if c.explicit]
        used: set[int] = set()
        for want in item["expect"]:
            hit = next(
                (
                    i
                    for i, c in enumerate(cands)
                    if i not in used and str(want).casefold() in c.text.casefold()
                ),
                None,
            )
            for t in tallies:
                t.expected += 1
                t.found += hit is not None
            if hit is None:
                got = [c.text for c in cands]
                result.misses.append(f"[{item['id']}] missed {want!r}: {item['text']!r} → {got}")
            else:
                used.add(hit)
        for i, cand in enumerate(cands):
            for t in tallies:
                t.candidates += 1
                t.matched_candidates += i in used
            if i not in used:
                result.misses.append(f"[{item['id']}] extra {cand.text!r} from {item['text']!r}")
        for t in tallies:
            t.items += 1
            t.negatives += not item["expect"]
    return result


def _numbers(s: Score) -> dict[str, list[float]]:
    rows = {**s.slices, "overall": s.overall}
    return {k: [t.precision, t.recall] for k, t in rows.items() if "batch" not in k}


def before(rev: str) -> dict[str, dict[str, list[float]]]:
    """The numbers of the same sets with the rules of commit ``rev`` (this script, run with
    that commit's ``src`` first on the path)."""
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(tree), rev],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        try:
            env = {**os.environ, "PYTHONPATH": str(tree / "src")}
            out = subprocess.run(
                [sys.executable, __file__, "--numbers"],
                env=env,
                check=True,
                capture_output=True,
                text=True,
            )
        finally:
            subprocess.run(
                ["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False
            )
    numbers: dict[str, dict[str, list[float]]] = json.loads(out.stdout)
    return numbers


def _scored_once() -> dict[str, tuple[Path, Score]]:
    scores = {FINAL_SECTION: (FINAL, score(FINAL))}
    scores.update({name: (path, score(path)) for name, path in FRESH.items()})
    return scores


def _row(name: str, t: Tally) -> str:
    conf = t.confidence_ok / t.found if t.found else 1.0
    expl = t.explicit_ok / t.found if t.found else 1.0
    return (
        f"| {name} | {t.items} ({t.negatives} none) | {t.candidates} | {t.precision:.2f} | "
        f"{t.expected} | {t.recall:.2f} | {conf:.2f} | {expl:.2f} |"
    )


def _before_table(
    name: str, now: Score, then: dict[str, list[float]] | None, rev: str
) -> list[str]:
    if then is None:
        return []
    lines = [
        "",
        f"Before (rules of `{rev}`) and after, on `{name}`:",
        "",
        "| slice | P before | R before | P after | R after |",
        "|---|---|---|---|---|",
    ]
    for key, (p, r) in _numbers(now).items():
        bp, br = then.get(key, [float("nan"), float("nan")])
        lines.append(f"| {key} | {bp:.2f} | {br:.2f} | {p:.2f} | {r:.2f} |")
    return lines


def explicit_report(s: Score, then: dict[str, list[float]] | None, rev: str) -> list[str]:
    lines = [
        "",
        "## explicit requests: written before rules-v3, scored once "
        f"(`{EXPLICIT.relative_to(ROOT)}`)",
        "",
        f"Target: precision ≥ {EXPLICIT_TARGET:.2f} and recall ≥ {EXPLICIT_TARGET:.2f} in each "
        "language, on what the hot path stores (candidates flagged `explicit`).",
        "",
        "| slice | messages | explicit candidates | precision | requests | recall |",
        "|---|---|---|---|---|---|",
    ]
    for name, t in [*sorted(s.slices.items()), ("overall", s.overall)]:
        lines.append(
            f"| {name} | {t.items} ({t.negatives} none) | {t.candidates} | {t.precision:.2f} | "
            f"{t.expected} | {t.recall:.2f} |"
        )
    lines += _before_table("explicit requests", s, then, rev)
    lines += ["", "Misses and extras:", ""]
    return lines + ([f"- {m}" for m in s.misses] or ["- none"])


def report(scores: dict[str, tuple[Path, Score]], argv: list[str]) -> str:
    model = shipped()
    lines = ["# Offline extraction (rules)", "", *provenance(argv), f"- rules: {RULES_VERSION}"]
    lines.append(f"- classifier: {model.version if model else 'none'}")
    lines += [
        "",
        f"Targets on the labeled set: precision ≥ {TARGET_PRECISION:.2f}, recall ≥ "
        f"{TARGET_RECALL:.2f}. Batch 1 of the held-out set was written with the labeled set, "
        "before any rule existed (by the same author, who had the rule design in mind); batch 2 "
        "was written after rules-v1 existed and committed before the rules were run on it, in "
        "messier phrasing; batch 3 was written in session 2 by someone who had seen batch 2's "
        "misses (so it leans towards those families) and committed before the rules were run "
        "on it. Batches 2 and 3 were then development data for rules-v2 (their misses were "
        "read), so for rules-v2 they are no longer an honest estimate. Held-out batch 4 "
        "(its own file) was written and committed before any rules-v2 change, never opened "
        "while the rules were developed (the bench ran with `--skip-final`), and scored once on "
        "the frozen rules: read it as the estimate for conversations the rules were not written "
        "for. Precision: matched candidates / candidates; recall: expected memories found with "
        "the right type (and the labeled substring) / expected. `confidence` and "
        "`explicit`: share of found memories whose flag matches the label.",
        "",
        "Session 15 (rules-v7, implicit-v3): batches 4 to 12 are all spent — each was scored "
        "once on an earlier rules version and has been development data since (for rules-v7 "
        "too, and training data for the implicit-v3 classifier), so their numbers below are no "
        "estimate. Dev sets s15 and s15b were written fresh for rules-v7 (s15b after the first "
        "rules-v7 commits; its first score, taken before its misses were read, was en 0.93/0.93 "
        "and zh 0.93/0.87). Held-out batches 13 and 14 were written and committed alone before "
        "any rules-v7 change, scored once on main's rules with the numbers only (the misses "
        "unread: the `before` column, measured again here by `--before`), and once at the end "
        "on the frozen rules: read them as the estimate for conversations the rules were not "
        f"written for; target on them: precision ≥ {TARGET_PRECISION:.2f} and recall ≥ "
        f"{HELDOUT_RECALL:.2f} in each language. Caveat: the same helper wrote batches 13/14 and "
        "the rules-v7 lexicon, so the held-out wording is not independent of the rule author "
        "(words found only in the held-out batches were kept out of the lexicon).",
        "",
        "Session 16 (rules-v8, implicit-v3 unchanged): batches 13 and 14 are spent too (scored "
        "before and after rules-v7, development data for rules-v8, never training data). Dev "
        "sets s16 and s16b were written fresh for rules-v8 (s16's first score on rules-v7: en "
        "0.69/0.45, zh 0.85/0.55; s16b's, on the first rules-v8 commit before its misses were "
        "read: en 0.85/0.79, zh 0.91/0.77). Held-out batches 15 and 16 were written and "
        "committed alone before any rules-v8 change, scored once on the rules of `c1bb8d3` "
        "with the numbers only (the `before` column) and once at the end on the frozen "
        "rules-v8: they are the estimate, with the same target and the same caveat (one "
        "helper wrote batches 15/16, the dev sets and the rules-v8 lexicon; no word found only "
        "in batches 15/16 was added to it).",
        "",
        "Session 17 (rules-v9, implicit-v3 unchanged; the rule tables split by kind into "
        "`lexicon_en_*`/`lexicon_zh_*` modules with every number unchanged): batches 15 and 16 "
        "are spent too (scored before and after rules-v8, development data for rules-v9, never "
        "training data). Four dev sets were written fresh for rules-v9, each scored once before "
        "its misses were read: s17 (from batches 15/16's kinds of miss, on the unchanged rules: "
        "en 0.64/0.70, zh 0.62/0.20), s17b (after the first rules-v9 commit: en 0.90/0.90, zh "
        "0.92/0.67), s17c (after the second: en 0.60/0.60, zh 0.93/0.72) and s17d (look-alikes "
        "that are no memories, after the third: en 0.50/1.00, zh 0.40/0.50). Held-out batches "
        "17 and 18 were written and committed alone before any rules-v9 change, scored once on "
        "the rules of `f3d4a38` with the numbers only (the `before` column, measured again here "
        "by `--before`) and once at the end on the frozen rules-v9: they are the estimate, with "
        "the same target. Caveat as before: one helper wrote batches 17/18, the dev sets and the "
        "rules-v9 lexicon, so the held-out wording is not independent of the rule author; no "
        "word found only in batches 17/18 was added to it.",
        "",
        "Session 18 (rules-v10, implicit-v4): batches 17 and 18 are spent too (scored before and "
        "after rules-v9; development data for rules-v10 and training data for implicit-v4). Five "
        "dev sets were written fresh, each scored once before its misses were read: s18 (on "
        "rules-v9: en 0.80/0.67, zh 0.79/0.60), s18b (after the first rules-v10 commit: en "
        "1.00/0.90, zh 0.86/0.60), s18c (after implicit-v4: en 0.83/0.62, zh 0.90/0.90; "
        "`c6667d9`: en 0.83/0.62, zh 0.88/0.75) and s18-social (60 chit-chat turns with nothing "
        "to keep: 15 English / 2 Chinese candidates, `c6667d9` 14 / 2). Held-out batches 19 and 20 "
        "(84 utterances each) were written and committed alone before any rules-v10 change, "
        "scored once on the rules of `c6667d9` with the counts only (the `before` column, "
        "measured again here by `--before`) and once at the end on the frozen rules-v10 + "
        "implicit-v4: they are the estimate, with the same target and the same caveat (one "
        "helper wrote batches 19/20, the dev sets and the rules-v10 lexicon).",
        "",
        "Session 19 (rules-v11, implicit-v5): batches 19 and 20 are spent too (scored before and "
        "after rules-v10; development data for rules-v11 and training data for implicit-v5, "
        "whose English threshold went from 0.50 to 0.55, the highest before out-of-fold recall "
        "on batches 19, 20 and s19 drops). Two dev sets were written fresh, each scored once "
        "before its misses were read: s19 (look-alikes and new conversations, on the first "
        "rules-v11 commit `69e4da0`: en 0.64/0.93, zh 0.88/0.93) and s19b (on `8c55aac`, after "
        "implicit-v5: en 0.62/0.80, zh 1.00/0.90). Held-out batches 21 and 22 (84 utterances "
        "each, 28 with nothing to keep) were written and committed alone (`bd95dbc`) before any "
        "rules-v11 change, scored once on the rules of `2c15477` with the counts only (the "
        "`before` column, measured again here by `--before`) and once at the end on the frozen "
        "rules-v11 + implicit-v5: they are the estimate, with the same target. Caveats: one "
        "helper wrote batches 21/22, the dev sets and the rules-v11 lexicon; and some of their "
        "topics (a wedding, a newsroom, an accounting firm's tax season) had appeared in dev set "
        "s18, in other words. `--locomo` (5,882 chit-chat turns, not a precision): 1,755 "
        "candidates on `2c15477`, 1,497 on rules-v11 + implicit-v5 (1,858 with implicit-v5 at "
        "the old English threshold).",
        "",
        "Session 20 (rules-v12, implicit-v6): batches 21 and 22 are spent too (scored before and "
        "after rules-v11; development data for rules-v12 and training data for implicit-v6). "
        "Their English loss was read as two kinds: talk not addressed to the agent (a third "
        "party's wish, a status line, a day's narration) and, as often, a fact of the right "
        "sentence typed wrong (an instruction in a later clause, 'so keep …', typed as a fact; "
        "'X is on <Tool>' typed `project`). rules-v12 reads who is addressed and what speech act "
        "a sentence is (`extract/speech.py`: tags `to-agent`, `third`, `status`, `narration`, "
        "`located`), gates on them and gives them to the classifier as features. Dev set s20 "
        "(66 utterances, written after batch 23 was scored) read en 0.73/0.73, zh 0.88/0.93 on "
        "`af50ece` before its misses were read. Leave one batch out on batches 19-22 and s20 "
        "(each fold's model trained without its file), pooled: en 0.95/0.86 at the new English "
        "threshold 0.60 (0.94/0.87 at 0.55), zh 0.96/0.91. Fresh batch 23 (84 utterances, 28 "
        "with nothing to keep) was written and committed alone (`5c94047`) before any rules-v12 "
        "change, scored once on `af50ece` with the counts only (the `before` column, measured "
        "again here by `--before`) and once at the end on the frozen rules-v12 + implicit-v6. "
        "Caveat: one helper wrote batch 23, s20 and rules-v12. `--locomo`: 1,497 candidates on "
        "`af50ece`, 1,186 on rules-v12 + implicit-v6.",
    ]
    for name, (path, s) in scores.items():
        lines += [
            "",
            f"## {name} (`{path.relative_to(ROOT)}`)",
            "",
            "| slice | utterances | candidates | precision | expected | recall | confidence "
            "| explicit |",
            "|---|---|---|---|---|---|---|---|",
        ]
        lines += [_row(lang, t) for lang, t in sorted(s.slices.items()) if "batch" not in lang]
        lines.append(_row("overall", s.overall))
        lines += [_row(name, t) for name, t in sorted(s.slices.items()) if "batch" in name]
        lines += _before_table(name, s, BEFORE.get(name), BEFORE_REV)
        lines += ["", "Misses and extras:", ""]
        lines += [f"- {m}" for m in s.misses] or ["- none"]
    return "\n".join(lines) + "\n"


BEFORE: dict[str, dict[str, list[float]]] = {}
BEFORE_REV = ""


def locomo_counts() -> dict[str, Any]:
    """How much the extractor takes from LoCoMo's dialog turns (see the module docstring)."""
    turns = turn_texts()
    by_type: dict[str, int] = {}
    by_source = {"rules": 0, "classifier": 0}
    with_any = 0
    for text in turns:
        cands = extract(text)
        with_any += bool(cands)
        for c in cands:
            by_type[c.type] = by_type.get(c.type, 0) + 1
            by_source["classifier" if ".implicit." in c.rule else "rules"] += 1
    return {
        "rules": RULES_VERSION,
        "turns": len(turns),
        "turns_with_a_candidate": with_any,
        "candidates_by_type": dict(sorted(by_type.items())),
        "candidates_by_source": by_source,
    }


def main(argv: list[str]) -> int:
    global BEFORE_REV
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument(
        "--skip-final",
        action="store_true",
        help="leave out the sets scored once (while developing rules; implies --no-write)",
    )
    parser.add_argument("--before", metavar="REV", help="also score the rules of commit REV")
    parser.add_argument("--numbers", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--locomo", action="store_true", help="count what the extractor takes from LoCoMo turns"
    )
    args = parser.parse_args(argv[1:])
    if args.locomo:
        print(json.dumps(locomo_counts()))
        return 0
    scores = {"labeled": (LABELED, score(LABELED)), "held-out": (HELDOUT, score(HELDOUT))}
    scores.update({name: (path, score(path)) for name, path in DEV.items()})
    if args.numbers:  # what --before reads from a worktree of another commit
        every = {**scores, **_scored_once()}
        out = {name: _numbers(s) for name, (_, s) in every.items()}
        out["explicit"] = _numbers(score_explicit(EXPLICIT))
        print(json.dumps(out))
        return 0
    if not args.skip_final:
        scores.update(_scored_once())
    if args.before:
        BEFORE.update(before(args.before))
        BEFORE_REV = args.before
    text = report(scores, argv)
    if not args.skip_final:
        text += "\n".join(
            explicit_report(score_explicit(EXPLICIT), BEFORE.get("explicit"), BEFORE_REV)
        )
        text += "\n"
    print(text)
    if not (args.no_write or args.skip_final):
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
