"""The web page end to end in a real headless Chromium (Debian's ``chromium``, driven by
Playwright with ``executable_path``; scripts/test.sh installs it), on a real server over
loopback: create, search with explain, edit, see the diff, undo, the entity graph, forget and
undo that, confirm a tentative memory, review and apply a sleep plan and undo the run, read a
session with its secret redacted — then the hostile memories of tests/test_web.py (their
graphs too) run nothing, the page reads with JavaScript off, fits a phone's width and starts
with a skip link for the keyboard.

Screenshots of each page go to ``<tmp>/screenshots`` (and to ``$MEMDIR_WEB_SCREENSHOTS`` when
set: how docs/web.md's images are made)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from memdir import Memory
from test_web import hostile_store
from web_helpers import LocalPage, local_page

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no chromium: scripts/test.sh installs it (apt-get install chromium)"
)
SECRET = "ghp_abcdefghijklmnopqrstuvwxyz0123456789AB"

if CHROMIUM is not None:
    from playwright.sync_api import Browser, Page, expect, sync_playwright


@pytest.fixture
def browser() -> Iterator[Browser]:
    with sync_playwright() as pw:
        # --no-sandbox: CI runs as root, where Chromium's sandbox cannot start
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture
def shots(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "screenshots"
    folder.mkdir()
    yield folder
    if os.environ.get("MEMDIR_WEB_SCREENSHOTS"):
        target = Path(os.environ["MEMDIR_WEB_SCREENSHOTS"])
        target.mkdir(parents=True, exist_ok=True)
        for shot in folder.glob("*.png"):
            shutil.copy(shot, target / shot.name)


def _store(mem: Memory) -> str:
    """A small store with something for every page; the session's id."""
    mem.remember("Use pnpm, not npm, in JS projects", type="feedback", name="use-pnpm",
                 tags=["js"], why="npm lockfiles broke CI twice",
                 related_files=["web/package.json"])  # fmt: skip
    mem.remember("Format the web code with prettier", type="project", name="prettier",
                 tags=["frontend"], related_files=["web/package.json"])  # fmt: skip
    mem.remember("The orders service runs on PostgreSQL 16", type="project", name="orders-db",
                 confidence="tentative")  # fmt: skip
    mem.remember("We deploy on Fridays after the standup", type="project", name="deploy-fridays")
    mem.remember("We deploy on Fridays, after standup", type="project", name="deploy-fridays-2")
    with mem.session() as session:
        session.append({"role": "user", "content": f"Remember that staging is db-stage-2. "
                        f"My token is {SECRET}"})  # fmt: skip
        session.append({"role": "assistant", "content": "Noted: staging is db-stage-2."})
        mem.after_turn(session)
    mem.flush_extraction()
    return session.id


def _open(browser: Browser, page_info: LocalPage, **context: object) -> Page:
    page = browser.new_context(**context).new_page()  # type: ignore[arg-type]
    page.set_default_timeout(120_000)  # a loaded 2-core CI machine: generous, never a budget
    page.goto(page_info.login_url)
    return page


def test_the_whole_loop_in_a_browser(mem: Memory, browser: Browser, shots: Path) -> None:
    session_id = _store(mem)
    with local_page(mem) as info:
        page = _open(browser, info, viewport={"width": 1200, "height": 900})
        expect(page.locator("h1")).to_have_text("Memories")
        page.screenshot(path=shots / "list.png", full_page=True)

        # create
        page.get_by_text("Remember something new").click()
        page.get_by_label("Statement").fill("Run the linter before every commit")
        page.get_by_label("Type").select_option("feedback")
        page.get_by_label("Name (optional)").fill("lint-first")
        page.get_by_role("button", name="Remember").click()
        expect(page.locator(".notice")).to_contain_text("remembered")
        assert "lint-first" in mem.names()

        # search with explain
        page.get_by_role("link", name="Search", exact=True).click()
        page.get_by_label("Question").fill("pnpm or npm in JS projects?")
        page.get_by_label("Floor").fill("0")
        page.get_by_role("button", name="Search").click()
        first = page.locator("ol.hits li").first
        expect(first).to_contain_text("use-pnpm")  # keywords and meaning agree: best first
        first.get_by_text("explain").click()
        expect(first.locator("table.signals")).to_contain_text("keyword")
        page.screenshot(path=shots / "search.png", full_page=True)

        # edit, see the diff, undo
        first.get_by_role("link", name="use-pnpm").click()
        page.get_by_label("Statement").fill("Use pnpm (never npm) in JS projects")
        page.get_by_role("button", name="Save").click()
        expect(page.locator(".notice")).to_contain_text("saved")
        newest = page.locator("pre.diff").first  # the history is newest first
        # two lines each: the statement, and the description it gave (never set by hand)
        expect(newest.locator(".add").filter(has_text="never npm")).to_have_count(2)
        expect(newest.locator(".del").filter(has_text="not npm")).to_have_count(2)
        expect(
            newest.locator(".add").filter(has_text="description: Use pnpm (never")
        ).to_have_count(1)
        page.screenshot(path=shots / "memory.png", full_page=True)
        assert mem.get("use-pnpm").statement == "Use pnpm (never npm) in JS projects"
        assert mem.get("use-pnpm").description == "Use pnpm (never npm) in JS projects"
        page.locator(".notice").get_by_role("button", name="Undo").click()
        expect(page.locator(".notice")).to_contain_text("undid change")
        assert mem.get("use-pnpm").statement == "Use pnpm, not npm, in JS projects"

        # the entity graph: linked by the shared tag, drawn and listed
        page.get_by_role("link", name="Memories linked by shared tags and files").click()
        expect(page.locator("figure.graph svg")).to_be_visible()
        expect(page.locator("figure.graph svg a")).to_have_count(1)  # prettier, by the file
        expect(page.locator("ul.entities")).to_contain_text("prettier")
        page.screenshot(path=shots / "graph.png", full_page=True)
        page.locator("p.meta").get_by_role("link", name="use-pnpm").click()

        # forget, and undo that
        page.get_by_role("button", name="Forget this memory").click()
        expect(page.locator(".notice")).to_contain_text("forgot use-pnpm")
        assert "use-pnpm" not in mem.names()
        page.locator(".notice").get_by_role("button", name="Undo").click()
        expect(page.locator(".notice")).to_contain_text("undid change")
        assert "use-pnpm" in mem.names()

        # confirm a tentative memory
        page.goto(f"{info.base}/ui/?state=tentative")
        page.get_by_role("link", name="orders-db").click()
        page.get_by_role("button", name="Confirm").click()
        expect(page.locator(".notice")).to_contain_text("confirmed")
        assert mem.get("orders-db").confidence == "confirmed"

        # review the sleep plan, apply one step, undo the run
        page.get_by_role("link", name="Sleep").click()
        step = page.locator("ol.steps li").filter(has_text="deploy-fridays-2")
        expect(step).to_contain_text("merge")
        page.screenshot(path=shots / "sleep.png", full_page=True)
        step.get_by_role("checkbox").check()
        page.get_by_role("button", name="Apply the ticked steps").click()
        expect(page.locator(".notice")).to_contain_text("sleep applied")
        assert "deploy-fridays-2" not in mem.names()  # merged into deploy-fridays, archived
        page.locator(".notice").get_by_role("button", name="Undo").click()
        expect(page.locator(".notice")).to_contain_text("undid run")
        assert "deploy-fridays-2" in mem.names()

        # read the session: the secret is never shown
        page.get_by_role("link", name="Sessions").click()
        page.get_by_role("link", name=session_id).click()
        expect(page.locator("ol.turns")).to_contain_text("db-stage-2")
        expect(page.locator("ol.turns")).to_contain_text("[REDACTED:github-token]")
        assert SECRET not in page.content()
        page.screenshot(path=shots / "session.png", full_page=True)
        page.get_by_role("link", name="What the model was sent for this reply").first.click()
        expect(page.locator("main pre")).to_contain_text("Remember that staging is db-stage-2")
        expect(page.locator("main pre")).not_to_contain_text("Noted: staging")  # the reply itself
        assert SECRET not in page.content()
        page.get_by_role("link", name="Timeline").click()
        page.screenshot(path=shots / "timeline.png", full_page=True)


def test_hostile_memories_run_nothing_in_a_browser(mem: Memory, browser: Browser) -> None:
    names = hostile_store(mem)
    with local_page(mem) as info:
        page = _open(browser, info)
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        for path in ["/ui/", "/ui/search?q=hostile&min_score=0"] + [
            f"/ui/m/project/{n}{graph}" for n in names for graph in ("", "/graph")
        ]:
            page.goto(f"{info.base}{path}")
            for link in page.locator("main a").all()[:40]:
                link.focus()  # an onfocus handler, if one had survived, would fire here
            assert page.evaluate("window.__xss") is None, path
        assert dialogs == []


def test_reads_without_javascript_on_a_phone_with_a_keyboard(mem: Memory, browser: Browser,
                                                             shots: Path) -> None:  # fmt: skip
    _store(mem)
    with local_page(mem) as info:
        page = _open(browser, info, java_script_enabled=False,
                     viewport={"width": 375, "height": 740})  # fmt: skip
        expect(page.locator("ul.memories")).to_contain_text("use-pnpm")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 376, f"the list is {width}px wide on a 375px screen"
        page.screenshot(path=shots / "phone.png", full_page=True)
        page.goto(f"{info.base}/ui/m/user/use-pnpm")
        expect(page.locator(".body")).to_contain_text("Use pnpm")
        assert page.evaluate("document.documentElement.scrollWidth") <= 376
        page.keyboard.press("Tab")
        expect(page.locator(":focus")).to_have_text("Skip to content")
