"""Properties of sleep over generated stores, and two sleeps racing in real processes."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import snapshot
from memdir import Memory

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
# a small vocabulary, so generated statements collide: duplicates, swaps, negations, conditions
WORDS = ["use", "pnpm", "npm", "never", "always", "lint", "deploy", "work", "home", "db2", "15"]

memory_st = st.fixed_dictionaries(
    {
        "words": st.lists(st.sampled_from(WORDS), min_size=2, max_size=5),
        "days": st.integers(min_value=0, max_value=800),
        "source": st.sampled_from(["user", "inferred", "imported"]),
        "quote": st.booleans(),
        "type": st.sampled_from(["project", "user"]),
    }
)


def _tree(root: Path) -> dict[str, bytes]:
    return {
        k: v for k, v in snapshot(root).items() if not {".history", ".index"} & set(Path(k).parts)
    }


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(items=st.lists(memory_st, min_size=1, max_size=14), gap=st.integers(0, 400))
def test_sleep_then_undo_is_exact_and_keeps_the_persons_words(
    items: list[dict[str, Any]], gap: int
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "project" / ".git").mkdir(parents=True)
        m = Memory(home=root / "home", project=root / "project", llm=False)
        m.init()
        quotes = []
        for i, item in enumerate(items):
            quote = f"quote-{i}-x" if item["quote"] and item["source"] == "user" else None
            quotes += [quote] if quote else []
            m.remember(
                " ".join(item["words"]),
                type=item["type"],
                name=f"m{i}",
                source=item["source"],
                quote=quote,
                created=(NOW - timedelta(days=item["days"])).strftime("%Y-%m-%dT%H:%M:%SZ"),
            )
        m.sleep(now=NOW - timedelta(days=gap), sessions=False)  # an earlier night
        before = _tree(root)
        report = m.sleep(now=NOW, sessions=False)
        after = _tree(root)
        text = "\n".join(v.decode() for v in after.values())
        assert [q for q in quotes if q not in text] == []  # no quote is ever lost
        for scope in m.scopes():
            for change in m.store(scope).log.entries():
                if change.op == "delete" and change.actor == "sleep":
                    assert change.source != "user", change  # never the person's words
        if report.run:
            m.undo_run(report.run)
            assert _tree(root) == before


def test_two_sleeps_racing_archive_each_memory_once(mem: Memory) -> None:
    old = (NOW - timedelta(days=90)).strftime("%Y-%m-%dT%H:%M:%SZ")
    rng = random.Random(7)
    syllables = [a + b + c for a in "bdkmprst" for b in "aeiou" for c in "lnrxz"]
    mem.remember_many(
        [
            {
                "text": " ".join(rng.sample(syllables, 6)),  # nothing alike: all stale
                "type": "project",
                "created": old,
            }
            for _ in range(150)
        ]
    )
    code = (
        "import json, sys; from datetime import datetime; from memdir import Memory; "
        "from memdir.errors import ConflictError\n"
        "try:\n"
        "    r = Memory().sleep(now=datetime.fromisoformat(sys.argv[1]), sessions=False)\n"
        "    print(json.dumps({'changes': len(r.changes)}))\n"
        "except ConflictError as e:\n"
        "    print(json.dumps({'conflict': str(e)}))\n"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, NOW.isoformat()], stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    results = [json.loads(p.communicate(timeout=120)[0]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert sorted(r.get("changes", 0) for r in results)[-1] == 150
    assert sum(r.get("changes", 0) for r in results) == 150  # the other found nothing or refused
    store = mem.store("project")
    assert store.memory_names() == []
    assert len(store.archived().memory_names()) == 150
    archives = [c for c in store.log.entries() if c.op == "archive"]
    assert len(archives) == 150 and len({c.name for c in archives}) == 150


NAMES = ["Ana", "Ben", "Chen", "Dara", "Eli", "小周", "阿强"]
VERBS = ["reviews", "mentors", "backs up", "reports to", "calls", "covers for"]


@settings(max_examples=40, deadline=None)
@given(
    pair=st.lists(st.sampled_from(NAMES), min_size=2, max_size=2, unique=True),
    verb=st.sampled_from(VERBS),
    tail=st.sampled_from(["", " on Mondays", " when on leave", "'s pull requests"]),
)
def test_two_roles_exchanged_are_never_one_fact(pair: list[str], verb: str, tail: str) -> None:
    # relate-v7: "X verb Y…" and "Y verb X…" hold the same words in other roles — never merged,
    # whatever the cosine or the store's nearest-pair evidence; the same sentence still is one
    from memdir.lifecycle import relate

    x, y = pair
    a, b = f"{x} {verb} {y}{tail}", f"{y} {verb} {x}{tail}"
    assert relate(a, b, 0.99, nearest=0.5) == "unrelated"
    assert relate(a, a.lower(), 0.99) == "duplicate"
