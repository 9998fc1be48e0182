"""Public names imported on first use (PEP 562), for a package's ``__init__``.

``import memdir.errors`` — what `memdir --version` needs — must not load the whole library, and
recall needs ``providers.embeddings`` without the LLM providers' HTTP clients. So a package lists
where each public name lives and lets ``exports`` build its module ``__getattr__``."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Collection, Mapping
from typing import Any


def exports(
    package: str, names: Collection[str], homes: Mapping[str, str], default: str
) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: each of ``names`` is imported from its module in
    ``homes`` (else ``default``) the first time it is asked for, then kept in the package."""

    def __getattr__(name: str) -> Any:
        if name in names:
            module = importlib.import_module(f".{homes.get(name, default)}", package)
            value = getattr(module, name)
            setattr(sys.modules[package], name, value)
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
