"""``memdir sleep``, ``list --tentative``, ``confirm``, ``restore`` and ``undo RUN_ID`` through real
subprocesses (SPEC H7, I2)."""

from __future__ import annotations

from pathlib import Path

from cli_runner import ago, data, run
from conftest import snapshot
from memdir import Memory


def tree(m: Memory) -> dict[str, bytes]:
    root = m.store("project").dirs.memory
    derived = (".history", ".index")
    return {k: v for k, v in snapshot(root).items() if not set(Path(k).parts) & set(derived)}


def test_sleep_plan_apply_confirm_and_undo_from_the_command_line(mem: Memory) -> None:
    stale = mem.remember("Billing cron runs at 02:00 UTC", type="project", created=ago(60))
    a = mem.remember("Personal projects deploy with fly", type="project", created=ago(1))
    b = mem.remember("Personal projects deploy with k8s", type="project", created=ago(1))
    before = tree(mem)

    text = run("sleep", "--dry-run").stdout
    assert "ACTION" in text and "Dry run: nothing was changed" in text
    assert f"archive     project  {stale.name}" in text
    assert "tentative" in text
    plan = data("sleep", "--dry-run")
    assert plan["dry_run"] and plan["run"] is None
    assert plan["plan"]["counts"] == {"archive": 1, "tentative": 1}
    assert tree(mem) == before

    applied = data("consolidate")
    sleep_run = applied["run"]
    assert sleep_run.startswith("sleep-") and applied["changes"] == 3
    listed = run("list", "--tentative").stdout
    assert a.name in listed and b.name in listed and f"(conflicts with {b.name})" in listed
    assert "memdir confirm NAME" in listed
    assert [r["name"] for r in data("list", "--archived")] == [stale.name]
    assert [r["name"] for r in data("recall", "billing cron", "--archived")] == [stale.name]
    assert stale.name not in [r["name"] for r in data("recall", "billing cron")]

    confirmed = run("confirm", a.name).stdout
    assert confirmed.startswith(f"Confirmed {a.name}; also changed {b.name}")
    confirm_run = confirmed.rsplit("memdir undo ", 1)[1].strip()
    assert run("list", "--tentative").stdout.strip() == "No tentative memories."
    # the sleep run cannot be undone while the confirm run sits on top of it
    refused = run("undo", sleep_run, ok=False)
    assert refused.returncode == 1 and "nothing was undone" in refused.stderr
    assert "Undid run" in run("undo", confirm_run).stdout
    assert "Undid run" in run("undo", sleep_run).stdout
    assert tree(mem) == before


def test_if_quiet_and_restore(mem: Memory) -> None:
    stale = mem.remember("Billing cron runs at 02:00 UTC", type="project", created=ago(60))
    with mem.session() as s:
        s.append({"role": "user", "content": "hi"})
    out = run("sleep", "--if-quiet", "30m").stdout
    assert out.startswith("Nothing done: not quiet")
    assert data("sleep", "--if-quiet", "1h30m")["skipped"].startswith("not quiet")
    bad = run("sleep", "--if-quiet", "soon", ok=False)
    assert bad.returncode == 1 and "30m, 2h, 1d" in bad.stderr
    assert data("sleep", "--if-quiet", "0m")["changes"] == 1
    assert "Restored" in run("restore", stale.name).stdout
    assert mem.get(stale.name).statement == "Billing cron runs at 02:00 UTC"
    missing = run("restore", stale.name, ok=False)
    assert missing.returncode == 1 and "list --archived" in missing.stderr
