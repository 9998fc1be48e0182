"""Facts that stop being true (issue 22 §3): supersede keeps the old with ``valid_to`` and
``superseded_by``, the new gets ``valid_from`` and ``supersedes``; recall holds to now, ``recall
--as-of`` to then, ``history NAME`` shows the chain, the guide never shows a superseded one."""

from __future__ import annotations

from cli_runner import ago, data, run
from memdir import Memory


def test_a_changed_fact_is_kept_with_when_it_held(mem: Memory) -> None:
    old = mem.remember("We bundle the frontend with Webpack", type="project", created=ago(60))
    new = mem.remember("We bundle the frontend with Vite now", type="project", created=ago(10))
    assert data("sleep")["plan"]["counts"] == {"supersede": 1}
    kept = mem.get(new.name)
    assert kept.extra["supersedes"] == [old.name] and kept.extra["valid_from"] == new.created
    (gone,) = mem.archived()
    assert gone.name == old.name and gone.statement == old.statement  # kept, word for word
    assert gone.extra["superseded_by"] == new.name and gone.extra["valid_to"] == new.created

    now = [r["name"] for r in data("recall", "how is the frontend bundled", "--min-score", "0")]
    assert new.name in now and old.name not in now  # default recall: what holds now
    then = [r["name"] for r in data("recall", "frontend bundle", "--as-of", ago(30)[:10])]
    assert then == [old.name]  # a month ago Webpack held, and Vite was not yet said
    both_before = data("recall", "frontend bundle", "--as-of", ago(90)[:10])
    assert both_before == []  # nothing was known yet

    chain = run("history", new.name).stdout
    assert "Chain (oldest first):" in chain
    lines = chain.split("Chain (oldest first):")[1].strip().splitlines()
    assert old.name in lines[0] and new.name in lines[1] and "→ now" in lines[1]
    assert "Webpack" not in run("context").stdout  # the guide never shows a superseded memory
    bad = run("recall", "frontend", "--as-of", "last spring", ok=False)
    assert bad.returncode == 1 and "use 2026-01-31" in bad.stderr
