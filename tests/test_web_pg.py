"""The web page on the PostgreSQL backend (issue 23: "on the PostgreSQL backend it works
unchanged"), over a real PostgreSQL (tests/pgserver.py) as a role that row-level security
holds (tests/pgapp.py), on a real server over loopback.

The same walk runs on the team server (``memdir serve --http``: each user opens the database
as their own owner) and on ``memdir ui`` over a PostgreSQL ``Memory``: list, search with
explain, a memory's page and its entity graph, edit and see the diff, undo, forget and undo
that; sleep's review page and confirming a tentative memory, as on files (they used to answer
501: the file backend only); and another user's memory is the REST API's 404."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg
import pytest
from tests.pgapp import pg_app_dsn, pg_app_role  # noqa: F401
from tests.pgserver import pg_dsn, pg_server  # noqa: F401

from memdir import Memory
from memdir.backends import open_backend
from web_helpers import live_markup, local_page, team_login, team_page


def _csrf(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, "the page has no CSRF token"
    return found.group(1)


def _undo_id(html: str) -> str:
    found = re.search(r'action="/ui/changes/([^"/]+)/undo"', html)
    assert found, "the notice has no Undo button"
    return found.group(1)


def walk(client: httpx.Client, base: str) -> None:
    """Everything a person does on the page, checked on the page itself."""
    own = {"Origin": base}
    token = _csrf(client.get("/ui/").text)
    for name, text, tags in (
        ("use-pnpm", "Use pnpm, not npm, in JS projects", "js, tooling"),
        ("lint-js", "Lint the JS code before every commit", "js"),
    ):
        made = client.post(
            "/ui/new",
            data={"csrf": token, "text": text, "type": "feedback", "name": name, "tags": tags},
            headers=own,
        )
        assert made.status_code == 200 and "remembered" in made.text, made.text[:500]

    listed = client.get("/ui/?tag=js")
    assert listed.status_code == 200 and "use-pnpm" in listed.text and "lint-js" in listed.text
    assert live_markup(listed.text) == []

    found = client.get("/ui/search", params={"q": "pnpm or npm?", "min_score": "0"})
    assert found.status_code == 200
    hits = found.text.split('class="hits"', 1)[1]
    assert "use-pnpm" in hits.split("</li>", 1)[0] and "keyword" in hits  # best first, explained

    page = client.get("/ui/m/user/use-pnpm")
    assert page.status_code == 200 and "Use pnpm, not npm" in page.text
    graph = client.get("/ui/m/user/use-pnpm/graph")
    assert graph.status_code == 200 and "/ui/m/user/lint-js/graph" in graph.text
    assert live_markup(graph.text, graph=True) == []

    hash_ = re.search(r'name="hash" value="([^"]+)"', page.text)
    assert hash_
    edited = client.post(
        "/ui/m/user/use-pnpm/edit",
        data={
            "csrf": token,
            "hash": hash_.group(1),
            "statement": "Use pnpm (never npm) in JS projects",
        },
        headers=own,
    )
    assert edited.status_code == 200 and "saved" in edited.text
    assert '<span class="add">+Use pnpm (never npm) in JS projects</span>' in edited.text
    undone = client.post(f"/ui/changes/{_undo_id(edited.text)}/undo", data={"csrf": token},
                         headers=own)  # fmt: skip
    assert undone.status_code == 200 and "undid change" in undone.text
    assert '<textarea id="statement" name="statement" rows="4">Use pnpm, not npm' in (undone.text)

    forgot = client.post("/ui/m/user/use-pnpm/forget", data={"csrf": token}, headers=own)
    assert forgot.status_code == 200 and "forgot use-pnpm" in forgot.text
    assert client.get("/ui/m/user/use-pnpm").status_code == 404
    back = client.post(f"/ui/changes/{_undo_id(forgot.text)}/undo", data={"csrf": token},
                       headers=own)  # fmt: skip
    assert back.status_code == 200 and "Use pnpm, not npm" in back.text
    timeline = client.get("/ui/history")
    assert timeline.status_code == 200 and timeline.text.count("use-pnpm") >= 4
    for path in ("/ui/?state=archived", "/ui/?state=tentative", "/ui/stats"):
        assert client.get(path).status_code == 200, path


def sleep_and_settle(client: httpx.Client, base: str, tentative: str) -> None:
    """Sleep's review page, and confirming the tentative memory ``tentative`` (one run, its
    id on the page it lands on), work on the database as on files."""
    sleep = client.get("/ui/sleep")
    assert sleep.status_code == 200, sleep.text[:500]
    assert 'href="/ui/sleep"' in sleep.text
    page = client.get(f"/ui/m/user/{tentative}")
    assert page.status_code == 200 and "tentative</strong>" in page.text
    settle = client.post(f"/ui/m/user/{tentative}/settle",
                         data={"csrf": _csrf(page.text), "do": "confirm"},
                         headers={"Origin": base})  # fmt: skip
    assert settle.status_code == 200, settle.text[:500]
    assert "confirm-" in str(settle.url)  # the run's id, to undo it
    assert "tentative</strong>" not in client.get(f"/ui/m/user/{tentative}").text
    assert client.get("/ui/sessions").status_code == 200  # sessions stay files on every backend


@pytest.fixture
def team(sandbox: Path, pg_app_dsn: str) -> Iterator[tuple[str, dict[str, str], str]]:  # noqa: F811
    with team_page(sandbox / "server", backend=pg_app_dsn) as page:
        yield page.base, page.keys, pg_app_dsn


def test_the_team_page_over_postgresql(team: tuple[str, dict[str, str], str]) -> None:
    base, keys, dsn = team
    alice_rest = {"Authorization": f"Bearer {keys['alice']}"}
    unsure = {"text": "The orders service may run on PostgreSQL 16", "type": "user",
              "name": "orders-db", "confidence": "tentative"}  # fmt: skip
    assert httpx.post(f"{base}/v1/memories", json=unsure, headers=alice_rest,
                      timeout=60).status_code == 201  # fmt: skip
    with team_login(base, keys["alice"]) as alice:
        walk(alice, base)
        sleep_and_settle(alice, base, "orders-db")
    rest = httpx.get(f"{base}/v1/memories/use-pnpm",
                     headers={"Authorization": f"Bearer {keys['bob']}"}, timeout=60)  # fmt: skip
    with team_login(base, keys["bob"]) as bob:
        for path in ("/ui/m/user/use-pnpm", "/ui/m/user/use-pnpm/graph"):
            mine = bob.get(path)
            assert mine.status_code == rest.status_code == 404, path  # like REST
            assert "pnpm, not npm" not in mine.text
        assert "use-pnpm" not in bob.get("/ui/").text
        hits = bob.get("/ui/search", params={"q": "pnpm", "min_score": "0"}).text
        assert "use-pnpm" not in hits.split('role="search"', 1)[1].split("</form>", 1)[1]
    with psycopg.connect(dsn) as conn:  # the page's writes are alice's rows in the database
        conn.execute("SELECT set_config('memdir.owner', 'alice', false)")
        rows = conn.execute("SELECT owner, name FROM memories ORDER BY name").fetchall()
    assert rows == [("alice", "lint-js"), ("alice", "orders-db"), ("alice", "use-pnpm")]


def test_memdir_ui_over_postgresql(sandbox: Path, pg_app_dsn: str) -> None:  # noqa: F811
    mem = Memory(backend=open_backend(pg_app_dsn, owner="local"))  # type: ignore[arg-type]
    mem.remember("The orders service may run on PostgreSQL 16", type="user", name="orders-db",
                 confidence="tentative")  # fmt: skip
    with (
        local_page(mem) as page,
        httpx.Client(base_url=page.base, follow_redirects=True, timeout=120) as client,
    ):
        assert client.get(page.login_url).status_code == 200
        walk(client, page.base)
        sleep_and_settle(client, page.base, "orders-db")
    assert mem.get("use-pnpm").statement == "Use pnpm, not npm, in JS projects"
    assert mem.store("user").exists("lint-js") and mem.get("orders-db").confidence == "confirmed"
