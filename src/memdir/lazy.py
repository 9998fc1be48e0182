"""Public names imported on first use (PEP 562), for a package's ``__init__``.

``import memdir.errors`` — what `memdir --version` needs — must not load the whole library, and
recall needs ``providers.embeddings`` without the LLM providers' HTTP clients. So a package lists
where each public name lives and lets ``exports`` build its module ``__getattr__``. ``defer``
goes further for a whole third-party module (numpy), for the CLI commands that never use it."""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import sys
import threading
import types
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


class _Deferred(types.ModuleType):
    """What ``import numpy`` binds until numpy is first used: every attribute read imports the
    real module (once, under a lock) and reads it there; later imports get the real module."""

    def __init__(self, name: str, spec: importlib.machinery.ModuleSpec) -> None:
        super().__init__(name)
        self.__spec__ = spec  # what the import system checks on ``import name``: no load

    def __getattr__(self, attr: str) -> Any:
        with _LOCK:
            real = _REAL.get(self.__name__)
            if real is None:
                if sys.modules.get(self.__name__) is self:
                    del sys.modules[self.__name__]
                real = _REAL[self.__name__] = importlib.import_module(self.__name__)
        return getattr(real, attr)


_LOCK = threading.Lock()
_REAL: dict[str, types.ModuleType] = {}


def defer(name: str) -> None:
    """Let ``import name`` (a top-level module not imported yet) bind a stand-in that imports
    the module the first time one of its attributes is read — for a command that may never
    use it (``memdir remember`` and numpy: ~0.1 s of CPU). Nothing changes but when the import
    happens; a module already imported, or not installed, is left alone."""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is not None:
        sys.modules[name] = _Deferred(name, spec)
