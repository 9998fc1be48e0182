"""The REST API: memdir for apps, one isolated memory per user (SPEC I4; docs/http.md).

``app.py`` assembles ``models`` (requests, responses, the OpenAPI schema), ``edge`` (keys,
per-user workers, the status table, the guard), ``users`` and ``routes`` into
``create_app(data_dir)``; ``keys.py`` holds the API keys. The names below are imported on first
use (PEP 562, as ``memdir`` does), so ``memdir keys`` — which needs only ``http.keys`` — does
not load FastAPI.
"""

import typing as _typing

from ..lazy import exports as _exports

if _typing.TYPE_CHECKING:
    from .app import create_app
    from .edge import MAX_BODY
    from .users import Users

__all__ = ["MAX_BODY", "Users", "create_app"]

__getattr__ = _exports(__name__, __all__, {"MAX_BODY": "edge", "Users": "users"}, "app")
