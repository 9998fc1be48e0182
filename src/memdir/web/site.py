"""What every page handler shares: the state mounted on the app, running a facade call for the
viewer, rendering a template, and turning a refusal or a library error into an HTML answer
with the same status the REST API gives (``http.edge.STATUS``: 404 for a name this user does
not have, whoever else may have it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import parse_qsl

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ..errors import MemdirError
from ..http.edge import STATUS
from ..memory import Memory
from .auth import SECURITY_HEADERS, Backend, Refused, Sessions, Viewer, check_post, viewer_of
from .render import templates

__all__ = ["PREFIX", "WebState", "answer_error", "form_of", "html", "redirect", "run", "state"]

PREFIX = "/ui"
T = TypeVar("T")


@dataclass
class WebState:
    backend: Backend
    sessions: Sessions


def state(request: Request) -> WebState:
    found: WebState = request.app.state.web
    return found


def viewer(request: Request) -> Viewer:
    web = state(request)
    return viewer_of(request, web.backend, web.sessions)


async def run(request: Request, who: Viewer, fn: Callable[[Memory], T]) -> T:
    return await state(request).backend.call(who.user, fn)


async def form_of(request: Request, who: Viewer) -> dict[str, str]:
    """The POSTed form (url-encoded), after the Origin and CSRF checks."""
    raw = (await request.body()).decode("utf-8")
    form = dict(parse_qsl(raw, keep_blank_values=True))
    check_post(request, who, form)
    return form


def html(
    request: Request, template: str, who: Viewer | None, status: int = 200, **context: Any
) -> HTMLResponse:
    body = templates.get_template(template).render(
        prefix=PREFIX,
        viewer=who,
        mode=state(request).backend.mode,
        notice=request.query_params.get("notice"),
        undo_id=request.query_params.get("undo"),
        undo_run_id=request.query_params.get("run"),
        **context,
    )
    return HTMLResponse(body, status_code=status, headers=SECURITY_HEADERS)


def redirect(url: str) -> Response:
    return RedirectResponse(url, status_code=303, headers=SECURITY_HEADERS)


def _status(exc: MemdirError) -> int:
    return next(status for kind, status, _ in STATUS if isinstance(exc, kind))


def answer_error(request: Request, exc: Exception, who: Viewer | None = None) -> Response:
    """A refusal or a ``MemdirError`` as a page (the message says what to do)."""
    if isinstance(exc, Refused):
        if exc.login and request.method == "GET":
            return redirect(f"{PREFIX}/login")
        return html(request, "error.html", None, exc.status, message=exc.message)
    assert isinstance(exc, MemdirError)
    message = str(exc)
    home = getattr(getattr(request.app.state, "users", None), "root", None)
    if home is not None and who is not None:
        message = message.replace(str(home / who.user), "~")  # no server paths for a team
    return html(request, "error.html", who, _status(exc), message=message)
