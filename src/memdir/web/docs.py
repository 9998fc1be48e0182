"""``/docs`` that works offline: FastAPI's Swagger UI page, but with its script and stylesheet
served by memdir from the ``fastapi-offline`` wheel (MIT; it ships Swagger UI's
``swagger-ui-bundle.js`` and ``swagger-ui.css``, Apache-2.0) instead of a CDN."""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from starlette.routing import Route

__all__ = ["ASSETS", "offline_docs"]

ASSETS = Path(fastapi_offline.__file__).parent / "static"


def offline_docs(app: FastAPI, path: str = "/docs") -> None:
    """Replace ``app``'s ``/docs`` and ``/redoc`` (CDN assets) with pages whose assets come
    from memdir."""
    app.router.routes[:] = [
        r for r in app.router.routes if not (isinstance(r, Route) and r.path in (path, "/redoc"))
    ]
    app.mount("/docs-assets", StaticFiles(directory=ASSETS), name="docs-assets")

    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title} — API",
            swagger_js_url="/docs-assets/swagger-ui-bundle.js",
            swagger_css_url="/docs-assets/swagger-ui.css",
            swagger_favicon_url="/docs-assets/favicon.png",
        )

    async def redoc() -> HTMLResponse:
        return get_redoc_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title} — API",
            redoc_js_url="/docs-assets/redoc.standalone.js",
            redoc_favicon_url="/docs-assets/favicon.png",
            with_google_fonts=False,
        )

    app.add_api_route(path, docs, methods=["GET"], include_in_schema=False)
    app.add_api_route("/redoc", redoc, methods=["GET"], include_in_schema=False)
