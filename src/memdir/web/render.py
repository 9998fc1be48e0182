"""How the page turns what the facade returned into HTML: the Jinja2 environment (autoescape
on for everything), Markdown for memory bodies, and diffs between two versions of a file.

**A memory is untrusted text.** Whatever a memory holds — a body with ``<script>``, an
``onerror=`` attribute, a ``[link](javascript:…)``, HTML in frontmatter — reaches the page
either escaped by Jinja2 or through ``markdown_html``, which parses with raw HTML switched off
(every ``<`` in the text becomes ``&lt;``) and markdown-it's link check, which drops
``javascript:``, ``vbscript:``, ``file:`` and ``data:`` targets. The response's
Content-Security-Policy (``auth.SECURITY_HEADERS``) forbids inline script on top, so even a
mistake here would not run.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markdown_it import MarkdownIt
from markupsafe import Markup

__all__ = ["DiffLine", "diff_lines", "markdown_html", "templates"]

HERE = Path(__file__).parent

# "js-default": CommonMark with raw HTML off and links limited by markdown-it's validateLink
_markdown = MarkdownIt("js-default", {"linkify": False, "typographer": False})


def markdown_html(text: str) -> Markup:
    """``text`` as HTML that cannot carry markup of its own (see the module docstring)."""
    return Markup(_markdown.render(text))


@dataclass(frozen=True)
class DiffLine:
    kind: str  # "add" | "del" | "ctx" | "hunk"
    text: str


def diff_lines(before: bytes | None, after: bytes | None) -> list[DiffLine]:
    """The unified diff from ``before`` to ``after`` (either may be missing: a create or a
    delete), as lines the template colours by kind."""
    old = (before or b"").decode("utf-8", errors="replace").splitlines()
    new = (after or b"").decode("utf-8", errors="replace").splitlines()
    out: list[DiffLine] = []
    for line in difflib.unified_diff(old, new, lineterm="", n=2):
        if line.startswith(("---", "+++")):
            continue
        kind = {"@": "hunk", "+": "add", "-": "del"}.get(line[:1], "ctx")
        out.append(DiffLine(kind, line))
    return out


def _short(value: Any, width: int = 80) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= width else text[: width - 1] + "…"


templates = Environment(
    loader=FileSystemLoader(HERE / "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
)
templates.filters["markdown"] = markdown_html
templates.filters["short"] = _short
