"""Real servers for the web page's tests: uvicorn on a free loopback port, in a thread of the
test process (the page's own threads, sockets and SQLite files are all real). ``started`` is
an event set by the server itself once it listens, so no test waits on a clock."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI

from memdir import Memory
from memdir.http import create_app
from memdir.http.keys import open_keys
from memdir.web import LocalBackend, local_app, mount_keys


class _Server(uvicorn.Server):
    def __init__(self, app: FastAPI) -> None:
        super().__init__(uvicorn.Config(app, log_level="warning", lifespan="off"))
        self.listening = threading.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        self.listening.set()


@contextmanager
def serving(app: FastAPI) -> Iterator[tuple[str, int]]:
    """``app`` served on 127.0.0.1:<free port> until the block ends: (base URL, port)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = _Server(app)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    assert server.listening.wait(60), "the server did not start"
    try:
        yield f"http://127.0.0.1:{port}", port
    finally:
        server.should_exit = True
        thread.join(60)


@dataclass
class LocalPage:
    base: str
    login_url: str  # the one-time URL `memdir ui` prints
    memory: Memory
    backend: LocalBackend


@contextmanager
def local_page(memory: Memory, token: str = "one-time-token") -> Iterator[LocalPage]:
    # the page's own Memory (as `memdir ui` has): its SQLite connections live on the page's
    # thread, while the test reads and writes through the one it was given
    app, backend = local_app(memory.as_actor("user"), token)
    # bind first so the Host check knows the port (as `memdir ui` does)
    with serving(app) as (base, port):
        backend.hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
        yield LocalPage(base, f"{base}/ui/login?token={token}", memory, backend)
    backend.close()


@dataclass
class TeamPage:
    base: str
    data: Path
    keys: dict[str, str]  # user → API key


@contextmanager
def team_page(
    data: Path, users: tuple[str, ...] = ("alice", "bob"), backend: str | None = None
) -> Iterator[TeamPage]:
    """``memdir serve --http``'s app with the page mounted; ``backend``: every user's storage
    (a PostgreSQL DSN: each user opens it as their own owner; ``None``: the file backend)."""
    ring = open_keys(data, backend or "file")  # on PostgreSQL the keys are rows of its own
    keys = {u: ring.create(u)[1] for u in users}
    app = create_app(data, embedder=None, backend=backend)
    mount_keys(app)
    with serving(app) as (base, _):
        yield TeamPage(base, data, keys)
    app.state.users.close()


@contextmanager
def team_login(base: str, key: str) -> Iterator[httpx.Client]:
    """A browser-like client logged in to the team page with ``key``."""
    with httpx.Client(base_url=base, follow_redirects=True, timeout=120) as client:
        page = client.post("/ui/login", data={"key": key}, headers={"Origin": base})
        assert page.status_code == 200 and "Memories" in page.text
        yield client


# the entity graph's own drawing (web/templates/graph.html): the one SVG a page may hold, and
# only these elements inside it
GRAPH_SVG = ("aria-labelledby", "graph-t")
SVG_PARTS = {"g", "line", "circle", "text", "title", "a"}


class Markup(HTMLParser):
    """Every element and attribute of a page, to check that nothing a memory holds became
    markup: no script element, no ``on*`` handler, no ``javascript:`` (or other script) URL.
    ``graph``: the page is the entity graph, whose own SVG (exactly one) is allowed."""

    def __init__(self, graph: bool = False) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.graph = graph
        self._in_svg = 0  # depth inside the graph's own SVG
        self.strays: list[str] = []  # elements in it that the template never writes

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))
        if self._in_svg and tag not in SVG_PARTS:
            self.strays.append(tag)
        if self._in_svg or (tag == "svg" and GRAPH_SVG in attrs):
            self._in_svg += tag not in ("line", "circle")  # (void in the template)

    def handle_endtag(self, tag: str) -> None:
        if self._in_svg and tag not in ("line", "circle"):
            self._in_svg -= 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))
        if self._in_svg and tag not in SVG_PARTS:
            self.strays.append(tag)

    def live(self) -> list[Any]:
        """What would run in a browser: script/iframe/object elements, handlers, script URLs;
        on the graph page, a second SVG or anything in ours the template does not write."""
        found: list[Any] = list(self.strays)
        own = [i for i, (t, a) in enumerate(self.tags) if t == "svg" and GRAPH_SVG in a]
        allowed = own[:1] if self.graph else []
        for i, (tag, attrs) in enumerate(self.tags):
            refresh = tag == "meta" and any(k == "http-equiv" for k, _ in attrs)
            dangerous = ("script", "iframe", "object", "embed", "svg", "math", "base")
            if refresh or (tag in dangerous and i not in allowed):
                found.append(tag)
            for key, value in attrs:
                url = "".join((value or "").split()).lower()
                if key.startswith("on") or (
                    key in ("href", "src", "action", "formaction", "srcdoc", "style")
                    and url.startswith(("javascript:", "vbscript:", "data:text", "expression"))
                ):
                    found.append((tag, key, value))
        return found


def live_markup(html: str, *, graph: bool = False) -> list[Any]:
    parser = Markup(graph)
    parser.feed(html)
    return parser.live()
