"""A small registry of named factories: the one door through which memdir's storage backends,
embedders and LLM providers are chosen by name (``MEMDIR_BACKEND``, ``MEMDIR_EMBEDDER``,
``llm.provider``). The built-ins register themselves through it, as a plugin would, so nothing
above a registry asks ``if name == …``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, TypeVar

from .errors import ConfigError

__all__ = ["Registry"]

F = TypeVar("F")


class Registry(Generic[F]):
    """Names → factories of one kind of thing. ``kind`` names it in messages ("embedder");
    ``how`` says how a person chooses one ("set MEMDIR_EMBEDDER to one of them")."""

    def __init__(
        self, kind: str, how: str, *, first: str | None = None, article: str = "a"
    ) -> None:
        self.kind, self.how, self.first, self.article = kind, how, first, article
        self._factories: dict[str, F] = {}

    def register(self, name: str, factory: F) -> None:
        """Make ``name`` choosable. A name is registered once: a second, different registration
        is a mistake worth hearing about (the same one again is harmless)."""
        if not name or not name.replace("-", "_").isidentifier():
            raise ConfigError(
                f"{self.article} {self.kind} name is a word such as 'file' (got {name!r})"
            )
        if self._factories.get(name, factory) is not factory:
            raise ConfigError(
                f"{self.article} {self.kind} named {name!r} is already registered: choose another"
            )
        self._factories[name] = factory

    def names(self) -> list[str]:
        """The registered names, the default one (``first``) first, then alphabetical."""
        return sorted(self._factories, key=lambda n: (n != self.first, n))

    def get(self, name: str) -> F:
        """The factory of ``name``; ``ConfigError`` listing the choices when there is none."""
        found = self._factories.get(name)
        if found is None:
            raise ConfigError(
                f"no {self.kind} named {name!r}: the {self.kind}s are "
                f"{', '.join(self.names())} ({self.how})"
            )
        return found

    def __contains__(self, name: object) -> bool:
        return name in self._factories

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())
