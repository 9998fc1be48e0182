"""One command for the recall benchmarks: LoCoMo, the Chinese/English slice, speed and scale.

    .venv/bin/python bench/recall.py [--data PATH] [--sizes 1000,10000] [--skip-speed]

Prints each table and writes ``bench/results/recall.md`` with the date, the commit and the
machine, so numbers are never quoted without the command and the context that produced them.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).parent))

import chinese
import locomo
import speed
from provenance import provenance

from memdir.errors import MemdirError
from memdir.recall import FORMULA, Weights

RESULTS = Path(__file__).parent / "results"


def header(argv: list[str]) -> str:
    return "\n".join(
        ["# Recall benchmark", "", *provenance(argv), f"- formula: {FORMULA} {Weights()}"]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=locomo.DEFAULT_DATA)
    parser.add_argument("--embedder", default=None)
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-locomo", action="store_true")
    parser.add_argument(
        "--locomo-embedders",
        default="use,e5",
        help="embedders to run LoCoMo with (default: %(default)s)",
    )
    parser.add_argument(
        "--chinese-embedders",
        default="use,e5,hashing",
        help="embedders to run the Chinese/English slices with (default: %(default)s)",
    )
    args = parser.parse_args()
    sections = [header(["bench/recall.py", *sys.argv[1:]])]

    if not args.skip_locomo:
        sections += [
            "## LoCoMo (categories 1–4, one memory per dialog turn)",
            (locomo.__doc__ or "").split("\n\n", 1)[1].strip(),
        ]
        for name in args.locomo_embedders.split(","):
            t = time.perf_counter()
            try:
                result = locomo.run(args.data, name)
            except MemdirError as exc:
                sections.append(f"`{name}`: not run ({exc})")
                continue
            text = "\n\n".join(locomo.table(result, split) for split in ("all", "dev", "heldout"))
            print(f"LoCoMo with {result['embedder']}\n{text}\n")
            sections += [
                f"### Embedder `{result['embedder']}`",
                f"{result['questions']} questions, {time.perf_counter() - t:.0f} s; mean recall "
                f"time {result['recall_ms_per_query']} ms per query and method.",
                text,
            ]

    slices = [chinese.run(path, args.chinese_embedders.split(",")) for path in chinese.SLICES]
    both = chinese.pooled(slices)
    sections.append("## Chinese / English slices (`bench/chinese.py`)\n\nEach cell: hit@1 / hit@5.")
    for zh in slices:
        zh_text = chinese.table(zh)
        print(zh_text)
        sections += [f"### `{chinese._shown(Path(zh['data']))}`", zh_text]
    sections.append(
        f"Pooled hit@5 with the default embedder: Chinese questions {both['zh']:.2f}, English "
        f"questions {both['en']:.2f}."
    )

    if not args.skip_speed:
        sizes = [int(x) for x in args.sizes.split(",") if x]
        sp = speed.run(sizes, args.embedder, False)
        sp_text = "\n".join(
            [
                speed.table(sp),
                "",
                *speed.scale_lines(sp),
                "",
                *(f"- {note}" for note in sp.get("notes", [])),
            ]
        )
        print(sp_text)
        sections += ["## Speed and scale (synthetic memories, `bench/speed.py`)", sp_text]

    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "recall.md").write_text("\n\n".join(sections) + "\n", encoding="utf-8")
    print(f"\nwrote {RESULTS / 'recall.md'}")


if __name__ == "__main__":
    main()
