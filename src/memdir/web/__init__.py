"""The web page: see, search, fix and forget memories in a browser (SPEC I6, issue 23).

Server-rendered HTML from Jinja2 templates, on the same FastAPI stack as the REST API, with no
JavaScript at all: every read view is a plain page, every change a plain form, so the page
works with scripts off, from the keyboard, and on a phone (``static/web.css``). Every asset is
served by memdir itself — the page's stylesheet and, for ``/docs``, Swagger UI's files from the
``fastapi-offline`` wheel — so nothing is fetched at run time and both work offline.

The package: ``auth`` (the two doors, cookies, Origin and CSRF checks), ``site`` (what every
handler shares), ``pages`` (the read views), ``actions`` (the forms' POSTs), ``sleep_view`` and
``transcript`` (the sleep review and the session reader), ``graph`` (the entity graph, an
inline SVG), ``render`` (templates, Markdown, diffs), ``docs`` (offline Swagger UI).

It is an adapter on the facade like the REST API: every handler runs one ``Memory`` call on
the viewer's worker and renders the records it got with the REST API's serializers
(``http.models``), so there is no second way to read a memory and it works on any backend
the facade runs on.

Two ways in: ``mount_keys(app)`` adds the page to the REST app of ``memdir serve --http`` (a
login with an API key, each user seeing only their own memories, exactly the 404s of REST), and
``local_app(memory, token)`` is the app of ``memdir ui`` (loopback, one-time token).
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import RedirectResponse, Response
from fastapi.staticfiles import StaticFiles

from ..http.edge import Guard
from ..memory import Memory
from ..observe.otel import RequestSpans
from . import actions, graph, pages, stats
from .auth import KeysBackend, LocalBackend, Sessions
from .docs import offline_docs
from .render import HERE
from .site import PREFIX, WebState

__all__ = ["LocalBackend", "local_app", "mount_keys"]


def _mount(app: FastAPI, web: WebState) -> None:
    app.state.web = web
    app.include_router(pages.router)
    app.include_router(actions.router)
    app.include_router(stats.router)
    app.include_router(graph.router)
    app.mount(f"{PREFIX}/static", StaticFiles(directory=HERE / "static"), name="web-static")

    async def to_page() -> Response:
        return RedirectResponse(f"{PREFIX}/", status_code=307)

    app.add_api_route(PREFIX, to_page, methods=["GET"], include_in_schema=False)


def mount_keys(app: FastAPI) -> None:
    """The page on the REST app (``http.create_app``), behind its users' API keys; ``/docs``
    is served from memdir's own copy of Swagger UI."""
    _mount(app, WebState(KeysBackend(app.state.users, app.state.keys), Sessions()))
    offline_docs(app)


def local_app(memory: Memory, token: str) -> tuple[FastAPI, LocalBackend]:
    """The app of ``memdir ui``: the page on ``memory``, opened once with ``token``."""
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    backend = LocalBackend(memory, token)
    _mount(app, WebState(backend, Sessions()))

    async def root() -> Response:
        return RedirectResponse(f"{PREFIX}/", status_code=307)

    app.add_api_route("/", root, methods=["GET"], include_in_schema=False)
    app.add_middleware(Guard)
    app.add_middleware(RequestSpans)  # outermost: a refused request is a span too
    return app, backend
