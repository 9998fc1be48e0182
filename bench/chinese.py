"""Chinese/English recall: hit@1 and hit@5 per language pair on a team-written bilingual set.

Protocol:

* Data: twenty team-written slices (or ``--data``, repeatable), each about another fictional
  company: ``tests/fixtures/recall_zh_en.yaml`` (the *dev* slice: 52 facts, 60 questions, used
  while developing the formula), then thirteen *held-out* slices, each written and committed
  before it was first run: ``recall_zh_en_heldout.yaml`` (40 facts, 40 questions) and
  ``recall_zh_en_heldout_2.yaml`` to ``_13`` (48 facts and 48 questions each, written blind
  by a session that never saw the method or the earlier slices), then six *session* slices,
  ``recall_zh_en_sessions_1.yaml`` to ``_6`` (48 and 48, written the same way), whose facts
  come in 8–10 chat sessions as the extractor stores them. A slice stops being held out
  for a change once that change was chosen looking at it; docs/recall.md says which slice was
  fresh for which change. Each holds facts, half Chinese, half English, and questions that
  paraphrase them — Chinese about Chinese, English about English, and cross-lingual both ways.
  A question is a hit at k when any of its answer facts is among the first k results (one
  answered by facts in both languages counts in the group of its first answer). The
  report pools all slices for the Chinese-vs-English comparison (each question counts once).
* Every fact is stored through the public API (``Memory.remember_many``) in a fresh temporary
  home and project, one store per embedder; then every question is recalled once with
  ``top_k=5, track=False, min_score=0.0`` over both scopes (hit@k measures the ranking; what
  the default floor cuts is measured by ``bench/everyday.py``). A session slice's facts keep
  their ``session`` and are learned in file order, a minute apart; the others carry none, and with
  ``--sessions N`` each language's facts are put, in file order, into sessions of N (facts
  extracted from one conversation share a session, and file order mixes topics about as a
  random draw would). Slices with sessions get two more rows: the hybrid without context
  vectors (``context=0``) and without any session term. They are pooled apart from the others.
* Rows: the hybrid default formula for the default embedder and for each of ``--embedders``
  (one that cannot load is skipped with a note), a keyword-only variant (``Weights(vector=0)``:
  BM25 + entities, the same for every embedder) and a vector-only variant per embedder
  (``Weights(keyword=0, entity=0, session_text=0)``), and the hybrid with the keyword weight no
  term can earn (a question and a memory in different scripts) handed to the vector signal
  (``Weights(cross_script=f)`` for each f in ``HANDOFFS``; the default is 0). All variants keep
  the priors, which only reorder near ties.

``run()`` returns the numbers for other scripts; ``python bench/chinese.py`` prints a table and
writes ``bench/results/chinese.md``.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # before numpy loads: one BLAS thread is faster here

import argparse  # noqa: E402
import dataclasses  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from datetime import UTC, datetime, timedelta  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import yaml  # noqa: E402
from provenance import provenance  # noqa: E402

from memdir import MemdirError, Memory  # noqa: E402
from memdir.guard.intent import KINDS  # noqa: E402
from memdir.providers.embeddings import Embedder, get_embedder  # noqa: E402
from memdir.recall import Hit, Recaller, Weights  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT / "tests" / "fixtures" / "recall_zh_en.yaml"
FIXTURES = ROOT / "tests" / "fixtures"
# the dev slice, then the held-out ones in the order they were written
SLICES = (
    DEFAULT_DATA,
    FIXTURES / "recall_zh_en_heldout.yaml",
    *(FIXTURES / f"recall_zh_en_heldout_{n}.yaml" for n in range(2, 14)),
    # facts that come in chat sessions, as the extractor stores them
    *(FIXTURES / f"recall_zh_en_sessions_{n}.yaml" for n in range(1, 7)),
)
RESULTS = ROOT / "bench" / "results" / "chinese.md"
DEFAULT_EMBEDDERS = ["e5", "use", "hashing"]
GROUPS = ("zh→zh", "en→en", "zh→en", "en→zh")
TOP_K = 5
HANDOFFS = (0.5, 1.0)  # cross_script values measured next to the default (0 in the formula)

Facts = dict[str, dict[str, Any]]
Question = dict[str, Any]
Ranker = Callable[[str], list[Hit]]


def load(path: Path) -> tuple[Facts, list[Question]]:
    """Facts by id and questions, each question given its language-pair ``group``."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    facts: Facts = {}
    for fact in data["facts"]:
        if fact["id"] in facts:
            raise SystemExit(f"{path}: fact id {fact['id']} is used twice")
        facts[fact["id"]] = fact
    questions = []
    for q in data["questions"]:
        missing = [a for a in q["answers"] if a not in facts]
        if missing:
            raise SystemExit(f"{path}: question {q['q']!r} names unknown facts {missing}")
        # a question two facts answer, in both languages, counts in the group of its first
        # answer (the one it was written about); a hit on either is a hit
        primary = facts[q["answers"][0]]["lang"]
        questions.append({**q, "group": f"{q['lang']}→{primary}"})
    return facts, questions


def _store(
    root: Path, embedder: Embedder, facts: Facts, sessions: int = 0
) -> tuple[Memory, dict[str, str], float]:
    """A fresh store holding every fact; returns it, ``scope/name → fact id`` and the seconds
    the embedding pass (``reindex``) took. With ``sessions`` > 0 the facts of each language
    are put, in file order, into sessions of that many, as if each group had been learned in
    one conversation (topics as the file has them: about as unrelated as a random draw)."""
    (root / "project").mkdir(parents=True)
    m = Memory(home=root / "home", project=root / "project", embedder=embedder)
    m.init()
    items: list[dict[str, Any]] = [
        {"text": f["text"], "type": f["type"], "tags": f.get("tags", [])} for f in facts.values()
    ]
    if sessions:
        seen: dict[str, int] = {}
        for item, f in zip(items, facts.values(), strict=True):
            k = seen[f["lang"]] = seen.get(f["lang"], -1) + 1
            item["session"] = f"{f['lang']}-{k // sessions}"
    else:  # a slice written in chat sessions (``recall_zh_en_sessions_*``) keeps its own
        for item, f in zip(items, facts.values(), strict=True):
            if f.get("session"):
                item["session"] = str(f["session"])
    if any("session" in item for item in items):  # learned in file order, a minute apart
        start = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
        for k, item in enumerate(items):
            item["created"] = (start + timedelta(minutes=k)).strftime("%Y-%m-%dT%H:%M:%SZ")
    # the facts are the person's own words, stored as from a terminal: a team rule ("commit
    # with the password manager's …") is a fact of the slice, not a grant the guard must stop
    for item in items:
        item["allow"] = KINDS
    records = m.remember_many(items)
    id_of = {f"{r.scope}/{r.name}": fid for r, fid in zip(records, facts, strict=True)}
    started = time.perf_counter()
    m.reindex()
    return m, id_of, time.perf_counter() - started


def _rate(hits: Sequence[bool]) -> float | None:
    return round(sum(hits) / len(hits), 4) if hits else None


def _evaluate(rank: Ranker, questions: list[Question], id_of: dict[str, str]) -> dict[str, Any]:
    """hit@1 / hit@5 per group, per question language and overall, plus timing and misses."""
    per: dict[str, list[tuple[bool, bool]]] = {}
    misses: list[str] = []
    started = time.perf_counter()
    for q in questions:
        ids = [id_of[f"{h.record.scope}/{h.record.name}"] for h in rank(q["q"])]
        hit1, hit5 = bool(set(ids[:1]) & set(q["answers"])), bool(set(ids[:5]) & set(q["answers"]))
        for key in (q["group"], f"{q['lang']} (all)", "overall"):
            per.setdefault(key, []).append((hit1, hit5))
        if not hit5:
            misses.append(f"[{q['group']}] {q['q']} → {', '.join(q['answers'])}; got {ids}")
    elapsed = time.perf_counter() - started
    scores = {
        key: {"n": len(v), "hit@1": _rate([a for a, _ in v]), "hit@5": _rate([b for _, b in v])}
        for key, v in per.items()
    }
    return {"scores": scores, "ms_per_query": round(1000 * elapsed / len(questions), 2),
            "misses": misses}  # fmt: skip


def _variants(sessions: bool = False) -> dict[str, Weights] | str:
    """Keyword-only, vector-only and cross-script hand-off weights (with sessions: without the
    context vectors, and without any session term), or why they cannot be made."""
    try:
        grouped = {
            "context=0": dataclasses.replace(Weights(), context=0.0),
            "context=0, session=0, session_text=0": dataclasses.replace(
                Weights(), context=0.0, session=0.0, session_text=0.0
            ),
        }
        return {
            **(grouped if sessions else {}),
            "keyword": dataclasses.replace(Weights(), vector=0.0),
            "vector": dataclasses.replace(Weights(), keyword=0.0, entity=0.0, session_text=0.0),
            **{
                f"cross_script={f}": dataclasses.replace(Weights(), cross_script=f)
                for f in HANDOFFS
            },
        }
    except TypeError as exc:  # the formula's fields changed
        return f"keyword/vector-only variants skipped: {exc}"


def _embedders(names: list[str]) -> tuple[list[tuple[str, Embedder]], dict[str, str]]:
    """(label, embedder) for the default and each name; a name that fails to load is skipped."""
    chosen: list[tuple[str, Embedder]] = []
    skipped: dict[str, str] = {}
    default = get_embedder(None)
    chosen.append((f"default ({default.model_id})", default))
    for name in names:
        try:
            embedder = get_embedder(name)
        except (MemdirError, ImportError, OSError) as exc:
            skipped[name] = str(exc)
            continue
        if any(e.model_id == embedder.model_id for _, e in chosen):
            continue  # the default already is this one
        chosen.append((f"{name} ({embedder.model_id})", embedder))
    return chosen, skipped


def run(data_path: Path | None, embedders: list[str], sessions: int = 0) -> dict[str, Any]:
    """Evaluate the default embedder and ``embedders``; returns every row's scores."""
    path = data_path or DEFAULT_DATA
    facts, questions = load(path)
    chosen, skipped = _embedders(embedders)
    grouped = bool(sessions) or any(f.get("session") for f in facts.values())
    variants = _variants(grouped)
    rows: list[dict[str, Any]] = []
    notes = [variants] if isinstance(variants, str) else []
    for label, embedder in chosen:
        with tempfile.TemporaryDirectory(prefix="memdir-zh-") as tmp:
            m, id_of, index_s = _store(Path(tmp), embedder, facts, sessions)

            def hybrid(q: str, m: Memory = m) -> list[Hit]:
                return m.recall(q, top_k=TOP_K, track=False, min_score=0.0)

            rows.append({"method": "hybrid", "embedder": label, "index_seconds": round(index_s, 2),
                         **_evaluate(hybrid, questions, id_of)})  # fmt: skip
            if isinstance(variants, str):
                continue
            indexes = {s: m.index(s) for s in m.scopes()}
            for variant, weights in variants.items():
                if variant == "keyword" and any(r["method"] == "keyword only" for r in rows):
                    continue  # keyword-only does not depend on the embedder
                recaller = Recaller(indexes, embedder, weights)

                def ranked(q: str, r: Recaller = recaller) -> list[Hit]:
                    return r.recall(q, top_k=TOP_K, track=False, min_score=0.0)

                method = f"{variant} only" if "=" not in variant else f"hybrid, {variant}"
                rows.append({"method": method,
                             "embedder": label if variant != "keyword" else "any (no vectors)",
                             **_evaluate(ranked, questions, id_of)})  # fmt: skip
    sizes = {g: sum(q["group"] == g for q in questions) for g in GROUPS}
    return {"data": str(path), "facts": len(facts), "questions": len(questions),
            "group_sizes": sizes, "top_k": TOP_K, "rows": rows, "skipped": skipped,
            "notes": notes, "sessions": grouped}  # fmt: skip


# -- report -------------------------------------------------------------------------------------
COLUMNS = (*GROUPS, "zh (all)", "en (all)", "overall")


def table(result: dict[str, Any]) -> str:
    """A Markdown table: hit@1 / hit@5 per column."""
    head = "| method | embedder | " + " | ".join(COLUMNS) + " | ms/query |"
    lines = [head, "|" + "---|" * (len(COLUMNS) + 3)]
    for row in result["rows"]:
        cells = []
        for col in COLUMNS:
            s = row["scores"].get(col)
            cells.append(f"{s['hit@1']:.2f} / {s['hit@5']:.2f}" if s else "–")
        lines.append(
            f"| {row['method']} | {row['embedder']} | "
            + " | ".join(cells)
            + f" | {row['ms_per_query']:.1f} |"
        )
    return "\n".join(lines)


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def _slice_report(result: dict[str, Any]) -> list[str]:
    sizes = ", ".join(f"{g} {n}" for g, n in result["group_sizes"].items())
    default = next(r for r in result["rows"] if r["method"] == "hybrid")
    lines = [
        f"## `{_shown(Path(result['data']))}`",
        "",
        f"{result['facts']} facts and {result['questions']} questions ({sizes}).",
        "",
        table(result),
        "",
    ]
    for name, why in result["skipped"].items():
        lines.append(f"- skipped `{name}`: {why}")
    lines += [f"- {note}" for note in result["notes"]]
    zh, en = default["scores"]["zh (all)"]["hit@5"], default["scores"]["en (all)"]["hit@5"]
    lines += [
        f"- default embedder, Chinese questions vs English questions at hit@5: {zh:.2f} vs "
        f"{en:.2f}.",
        "",
        f"Questions the hybrid default, {default['embedder']}, misses at hit@5:",
        "",
        *(f"- {miss}" for miss in default["misses"] or ["none"]),
        "",
    ]
    return lines


def pooled(results: list[dict[str, Any]]) -> dict[str, float]:
    """hit@5 of the default's Chinese and English questions over all slices, each question
    once."""
    out = {}
    for lang in ("zh", "en"):
        groups = [g for g in GROUPS if g.startswith(lang)]
        hits = total = 0.0
        for result in results:
            default = next(r for r in result["rows"] if r["method"] == "hybrid")
            n = sum(result["group_sizes"][g] for g in groups)
            hits += default["scores"][f"{lang} (all)"]["hit@5"] * n
            total += n
        out[lang] = hits / total if total else 0.0
    return out


def pooled_table(results: list[dict[str, Any]]) -> str:
    """Every method and embedder over all slices, each question once: hit@1 / hit@5 per group,
    per question language and overall."""
    sums: dict[tuple[str, str], dict[str, list[float]]] = {}
    for result in results:
        for row in result["rows"]:
            cells = sums.setdefault((row["method"], row["embedder"]), {})
            for key, score in row["scores"].items():
                cell = cells.setdefault(key, [0.0, 0.0, 0.0])
                cell[0] += score["hit@1"] * score["n"]
                cell[1] += score["hit@5"] * score["n"]
                cell[2] += score["n"]
    lines = [
        "| method | embedder | " + " | ".join(COLUMNS) + " | questions |",
        "|---" * (len(COLUMNS) + 3) + "|",
    ]
    for (method, embedder), cells in sums.items():
        shown = [
            f"{cells[c][0] / cells[c][2]:.3f} / {cells[c][1] / cells[c][2]:.3f}"
            if c in cells
            else "—"
            for c in COLUMNS
        ]
        n = int(cells["overall"][2])
        lines.append(f"| {method} | {embedder} | " + " | ".join(shown) + f" | {n} |")
    return "\n".join(lines)


def _parts(results: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """The slices whose facts carry no session and those in chat sessions, pooled apart (the
    session variants exist only for the second), then all of them."""
    plain = [r for r in results if not r.get("sessions")]
    grouped = [r for r in results if r.get("sessions")]
    if not plain or not grouped:
        return [("all slices", results)]
    return [
        ("slices without sessions", plain),
        ("session slices", grouped),
        ("all slices", results),
    ]


def report(results: list[dict[str, Any]], argv: list[str]) -> str:
    both = pooled(results)
    lines = [
        "# Chinese / English recall",
        "",
        *provenance(argv),
        "",
        "Each cell is hit@1 / hit@5 (an answer fact first / in the top "
        f"{results[0]['top_k']}); `zh (all)` and `en (all)` group by the language of the "
        "question. `hybrid` is `Memory.recall` with the current formula; `keyword only` is "
        "`Weights(vector=0)`, `vector only` is `Weights(keyword=0, entity=0, session_text=0)`; "
        "`hybrid, cross_script=f` hands that share of the keyword weight a memory in another "
        "script cannot earn to the vector signal (priors kept in all).",
        "",
        f"**All slices pooled, default embedder, hit@5: Chinese questions {both['zh']:.3f}, "
        f"English questions {both['en']:.3f}** (target: within 0.05).",
        "",
    ]
    for label, part in _parts(results):
        lines += [f"{label.capitalize()} pooled, each question once:", "", pooled_table(part), ""]
    for result in results:
        lines += _slice_report(result)
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, action="append", default=None,
                        help="repeatable (default: "
                             + ", ".join(map(_shown, SLICES)) + ")")  # fmt: skip
    parser.add_argument("--embedders", default=",".join(DEFAULT_EMBEDDERS),
                        help="besides the default, comma-separated (%(default)s)")  # fmt: skip
    parser.add_argument("--sessions", type=int, default=0, metavar="N",
                        help="store each language's facts in sessions of N, in file order "
                             "(default 0: no sessions)")  # fmt: skip
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help=f"default: {_shown(RESULTS)} (chinese-sessions-N.md with --sessions)",
    )
    args = parser.parse_args(argv[1:])
    if args.out is None:
        args.out = (
            RESULTS.with_name(f"chinese-sessions-{args.sessions}.md") if args.sessions else RESULTS
        )
    names = [n.strip() for n in args.embedders.split(",") if n.strip()]
    results = [run(path, names, args.sessions) for path in args.data or SLICES]
    for result in results:
        print(f"{_shown(Path(result['data']))}\n{table(result)}")
        for name, why in result["skipped"].items():
            print(f"skipped {name}: {why}")
    for label, part in _parts(results):
        print(f"{label} pooled\n{pooled_table(part)}")
    both = pooled(results)
    print(f"pooled hit@5, default: Chinese {both['zh']:.3f}, English {both['en']:.3f}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report(results, argv), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
