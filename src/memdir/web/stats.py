"""The stats page: what ``memdir stats`` prints, for the viewer's memory (issue 25).

One facade call (``Memory.stats``) on the viewer's worker, rendered as tables; ``?since=7d``
narrows the window exactly as ``--since`` does, and a bad value is the library's error page
(422, with the message that says how to write one). No JavaScript.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from .auth import Viewer
from .pages import guarded
from .site import PREFIX, html, run

__all__ = ["router"]

router = APIRouter(prefix=PREFIX, include_in_schema=False)


@router.get("/stats")
async def stats_page(request: Request) -> Response:
    since = request.query_params.get("since") or None

    async def build(who: Viewer) -> Response:
        found = await run(request, who, lambda m: m.stats(since=since))
        return html(request, "stats.html", who, stats=found.to_dict(), since=since or "")

    return await guarded(request, build)
