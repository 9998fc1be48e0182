"""LoCoMo's dialog turns as plain texts, read in place from ``../shared/data`` (the data is
licensed for evaluation only: it is never copied into this repository, and nothing here trains
on it). What ``bench/guard.py --locomo`` judges as user memories and ``bench/extraction.py
--locomo`` counts candidates in."""

from __future__ import annotations

import json
from pathlib import Path

from provenance import ROOT

PATHS = (
    ROOT.parent / "shared" / "data" / "locomo" / "locomo10.json",
    Path("/work/shared/data/locomo/locomo10.json"),
)


def turn_texts() -> list[str]:
    """The text of every dialog turn of every conversation, in order."""
    path = next((p for p in PATHS if p.exists()), None)
    if path is None:
        raise SystemExit(f"LoCoMo data not found at {' or '.join(map(str, PATHS))}")
    return [
        turn["text"]
        for sample in json.loads(path.read_text("utf-8"))
        for key, session in sample["conversation"].items()
        if key.startswith("session_") and isinstance(session, list)
        for turn in session
        if turn.get("text")
    ]
