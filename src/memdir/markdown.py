"""Lossless Markdown + YAML frontmatter: parse, edit one key, dump — byte-identical elsewhere.

Memory files belong to people, who write them with any editor: a UTF-8 BOM, CRLF line ends,
YAML comments, quoting styles, key order and keys memdir has never heard of must all survive a
rewrite. A YAML round-trip library re-serialises the whole mapping and loses some of that, so this
module never re-serialises what it did not change. It keeps the raw text, finds the *span* of
lines that holds one top-level key, and swaps only that span (``set_fields``). PyYAML is used to
read values and to write the new value of a changed key; the result is parsed again before it
is returned, so an edit can never produce a file memdir itself cannot read.

The body is kept as raw text too. ``split_body`` reads the statement and the ``**Why:**`` /
``**How to apply:**`` lines; ``set_body_parts`` replaces just the part that changed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import yaml

__all__ = [
    "HASH_PREFIX",
    "Document",
    "FormatError",
    "content_hash",
    "parse",
    "render_new",
    "set_body_parts",
    "set_fields",
    "split_body",
]

BOM = "\ufeff"
HASH_PREFIX = "sha256:"  # version of the hash format: change the prefix if the algorithm changes
WHY = "**Why:**"
HOW = "**How to apply:**"
_DELIMS = ("---", "...")


class FormatError(ValueError):
    """The text is not a memory file; ``str(error)`` says why in words a person can act on."""


# libyaml's parser when PyYAML has it (~10x faster: `memdir list` parses every file), with the
# same Python constructor and resolvers, so values come out the same
_SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_SafeLoader):  # type: ignore[valid-type,misc]
    """SafeLoader that keeps timestamps as the strings the person wrote."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class _Dumper(yaml.SafeDumper):
    """SafeDumper that writes multi-line strings as ``|`` blocks and times unquoted."""


_Dumper.yaml_implicit_resolvers = _Loader.yaml_implicit_resolvers


def _str_presenter(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(str, _str_presenter)


def content_hash(data: bytes) -> str:
    import hashlib

    return HASH_PREFIX + hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Document:
    """A memory file split into raw parts. ``dump()`` joins them back to the original bytes."""

    bom: bool
    newline: str
    opening: str  # the opening delimiter line, newline included
    frontmatter: str  # raw YAML between the delimiter lines
    closing: str  # the closing delimiter line, newline included (may lack one at EOF)
    body: str
    meta: Mapping[str, Any]

    def dump(self) -> bytes:
        text = self.opening + self.frontmatter + self.closing + self.body
        return ((BOM if self.bom else "") + text).encode("utf-8")


def _load_yaml(text: str) -> dict[str, Any]:
    try:
        value = yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (frontmatter line {mark.line + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise FormatError(f"invalid YAML in frontmatter{where}: {problem}") from None
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise FormatError("frontmatter must be a YAML mapping of 'key: value' lines")
    return value


def parse(data: bytes) -> Document:
    """Split file bytes into a ``Document``; ``FormatError`` if it is not a memory file."""
    if b"\x00" in data:
        raise FormatError("binary data (NUL bytes): not a text file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FormatError(f"not UTF-8 text (bad byte at offset {exc.start})") from None
    bom = text.startswith(BOM)
    if bom:
        text = text[1:]
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != "---":
        raise FormatError("no frontmatter: the file must start with a '---' line")
    newline = "\r\n" if lines[0].endswith("\r\n") else "\n"
    for i in range(1, len(lines)):
        if lines[i].rstrip() in _DELIMS:
            frontmatter = "".join(lines[1:i])
            meta = _load_yaml(frontmatter)
            body = "".join(lines[i + 1 :])
            return Document(bom, newline, lines[0], frontmatter, lines[i], body, meta)
    raise FormatError("frontmatter is not closed: add a '---' line after the last key")


def _is_continuation(line: str) -> bool:
    return line[:1] in (" ", "\t") or (line.startswith("-") and not line.startswith("---"))


def _key_span(lines: list[str], key: str) -> tuple[int, int] | None:
    """Lines ``[start, end)`` holding top-level ``key`` and its value (block scalars, lists)."""
    pattern = re.compile(rf"^(?:{re.escape(key)}|'{re.escape(key)}'|\"{re.escape(key)}\")\s*:")
    for start, line in enumerate(lines):
        if not pattern.match(line):
            continue
        end = start + 1
        probe = end
        while probe < len(lines):
            if _is_continuation(lines[probe]):
                end = probe = probe + 1
            elif not lines[probe].strip():
                probe += 1  # a blank line belongs to the value only if the value goes on after it
            else:
                break
        return start, end
    return None


# what the emitter below writes unquoted and reads back as the same string: ``_plain`` writes
# these itself (a memory's frontmatter is mostly such values, and PyYAML's pure-Python emitter is
# most of the cost of writing a memory); tests/test_markdown.py checks it against ``yaml.dump``
_CJK = "\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3\uff01-\uff5e"
_PLAIN_BLOCK = re.compile(rf"[A-Za-z{_CJK}](?:[A-Za-z0-9_.,()/+\-{_CJK}]| (?! |$))*")
_PLAIN_FLOW = re.compile(rf"[A-Za-z{_CJK}](?:[A-Za-z0-9_.()/+\-{_CJK}]| (?! |$))*")
_STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?")
_NOT_STR = frozenset("y n yes no true false on off null".split())  # resolved as bool or null
_KEY = re.compile(r"[a-z_]+")
_PLAIN_MAX = 1000  # longer lines: the emitter's own judgement


def _plain(value: Any, pattern: re.Pattern[str]) -> str | None:
    """``value`` as the dumper would write it unquoted, or ``None`` to let the dumper decide."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if not isinstance(value, str) or len(value) > _PLAIN_MAX or value.casefold() in _NOT_STR:
        return None
    if pattern.fullmatch(value) or (pattern is _PLAIN_BLOCK and _STAMP.fullmatch(value)):
        return value
    return None


def _dump_fast(key: str, value: Any) -> str | None:
    if not _KEY.fullmatch(key):
        return None
    if isinstance(value, list):
        items = [_plain(v, _PLAIN_FLOW) for v in value]
        if any(i is None or isinstance(v, bool | int) for i, v in zip(items, value, strict=True)):
            return None
        return f"{key}: [{', '.join(items)}]\n"  # type: ignore[arg-type]
    text = _plain(value, _PLAIN_BLOCK)
    return None if text is None else f"{key}: {text}\n"


def _dump_key(key: str, value: Any, newline: str) -> str:
    fast = _dump_fast(key, value)
    if fast is not None:
        return fast.replace("\n", newline)
    # lists of plain values read best in flow style (``tags: [a, b]``); everything else in block
    flow = isinstance(value, list) and not any(isinstance(v, dict | list) for v in value)
    text: str = yaml.dump(
        {key: value},
        Dumper=_Dumper,
        allow_unicode=True,
        sort_keys=False,
        default_flow_style=False,
        width=10_000,
    )
    if flow:
        inline = yaml.dump(
            value, Dumper=_Dumper, allow_unicode=True, default_flow_style=True, width=10_000
        )
        text = yaml.dump({key: None}, Dumper=_Dumper).replace("null", inline.strip(), 1)
    return text.replace("\n", newline)


def _keep_trailing_comment(old_line: str, new_text: str, newline: str) -> str:
    """Carry a ``# comment`` at the end of a one-line value over to its new value."""
    match = re.search(r"\s+#[^'\"\n]*$", old_line.rstrip("\r\n"))
    if not match or new_text.count(newline) != 1:
        return new_text
    full = old_line.rstrip("\r\n")
    try:
        same = yaml.load(full, Loader=_Loader) == yaml.load(full[: match.start()], Loader=_Loader)
    except yaml.YAMLError:
        return new_text
    return new_text[: -len(newline)] + match.group(0) + newline if same else new_text


def set_fields(doc: Document, updates: Mapping[str, Any]) -> Document:
    """Set (or, with value ``None``, remove) top-level keys; every other byte stays as it was."""
    lines = doc.frontmatter.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += doc.newline
    for key, value in updates.items():
        span = _key_span(lines, key)
        new = [] if value is None else [_dump_key(key, value, doc.newline)]
        if span is None:
            lines.extend(new)
            continue
        start, end = span
        if new and end - start == 1:
            new = [_keep_trailing_comment(lines[start], new[0], doc.newline)]
        lines[start:end] = new
    frontmatter = "".join(lines)
    meta = _load_yaml(frontmatter)
    for key, value in updates.items():
        if value is not None and meta.get(key) != value:
            raise FormatError(f"could not write {key!r} so that it reads back the same")
    return replace(doc, frontmatter=frontmatter, meta=meta)


def render_new(meta: Mapping[str, Any], body: str) -> bytes:
    """Bytes of a brand-new memory file (LF line ends, no BOM)."""
    frontmatter = "".join(_dump_key(k, v, "\n") for k, v in meta.items() if v is not None)
    doc = Document(False, "\n", "---\n", frontmatter, "---\n", body, _load_yaml(frontmatter))
    return doc.dump()


def compose_body(statement: str, why: str | None, how: str | None, newline: str = "\n") -> str:
    """The body of a new memory: the statement, then the Why and How to apply lines."""
    parts = [statement.strip(), ""]
    if why:
        parts.append(f"{WHY} {why}")
    if how:
        parts.append(f"{HOW} {how}")
    if not why and not how:
        parts.pop()
    return newline.join(parts) + newline


def _marker_span(lines: list[str], marker: str) -> tuple[int, int] | None:
    """The marker line and the non-blank, unmarked lines that continue it."""
    for start, line in enumerate(lines):
        if line.lstrip().lower().startswith(marker.lower()):
            end = start + 1
            while end < len(lines) and lines[end].strip() and not _is_marker(lines[end]):
                end += 1
            return start, end
    return None


def _is_marker(line: str) -> bool:
    head = line.lstrip().lower()
    return head.startswith(WHY.lower()) or head.startswith(HOW.lower())


def _marker_text(lines: list[str], span: tuple[int, int] | None, marker: str) -> str | None:
    if span is None:
        return None
    start, end = span
    first = lines[start].lstrip()[len(marker) :]
    text = " ".join(part.strip() for part in [first, *lines[start + 1 : end]]).strip()
    return text or None


def split_body(body: str) -> tuple[str, str | None, str | None]:
    """``(statement, why, how_to_apply)`` read from a body."""
    lines = body.splitlines(keepends=True)
    why_span = _marker_span(lines, WHY)
    how_span = _marker_span(lines, HOW)
    first_marker = min((s[0] for s in (why_span, how_span) if s), default=len(lines))
    statement = "".join(lines[:first_marker]).strip()
    return statement, _marker_text(lines, why_span, WHY), _marker_text(lines, how_span, HOW)


def set_body_parts(
    body: str,
    newline: str,
    *,
    statement: str | None = None,
    why: str | None = None,
    how: str | None = None,
) -> str:
    """Replace the statement, Why or How to apply part of ``body``; leave the rest as it is."""
    lines = body.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += newline
    for marker, text in ((WHY, why), (HOW, how)):
        if text is None:
            continue
        span = _marker_span(lines, marker)
        new_line = [f"{marker} {text}{newline}"]
        if span is not None:
            lines[span[0] : span[1]] = new_line
        elif marker == WHY and (how_span := _marker_span(lines, HOW)) is not None:
            lines[how_span[0] : how_span[0]] = new_line
        else:
            if lines and lines[-1].strip() and not _is_marker(lines[-1]):
                lines.append(newline)
            lines.extend(new_line)
    if statement is not None:
        spans = [s for s in (_marker_span(lines, WHY), _marker_span(lines, HOW)) if s]
        first = min((s[0] for s in spans), default=len(lines))
        # keep whatever blank line separated the old statement from the markers
        tail = first
        while tail > 0 and not lines[tail - 1].strip():
            tail -= 1
        gap = lines[tail:first] if first < len(lines) else []
        if first < len(lines) and not gap:
            gap = [newline]
        lines[:first] = [statement.strip() + newline, *gap]
    return "".join(lines)
