"""The vector matrix of a large index kept in a file beside it, so a new process maps it in
instead of reading every vector blob out of SQLite.

A CLI recall is a new process each time, and on a store of 10k memories reading the matrix
(20 MB of blobs, joined row by row with the context vectors) was a large part of it
(``bench/cli.py``). So past ``SNAPSHOT_MIN`` memories the matrix, once read, is also written to
``.index/matrix-<context>.bin`` (the derived-table format of ``derived.py``: whole or rebuilt,
written atomically). Its key is a digest of what the matrix is made of — each row's rowid,
name, embedded text's hash and context hash, the embedder and the context share — read with
one query that touches the docs table and the vectors' primary key, not the blobs. A file whose
key differs (any write, another embedder) is not used and is replaced by the next full read.
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
from pathlib import Path

import numpy as np

from ..derived import read_table, write_table
from ..providers.embeddings import Vectors

__all__ = ["SNAPSHOT_MIN", "Row", "key_of", "load", "path_of", "save", "signature"]

SNAPSHOT_MIN = 2000  # memories; below it SQLite reads the matrix in a few milliseconds

Row = tuple[int, str, str, str | None]  # rowid, name, embed hash, context hash (with a vector)

_SIGNATURE = (
    "SELECT d.rowid, d.name, d.embed_hash, "
    "CASE WHEN c.embed_hash IS NULL THEN NULL ELSE d.context_hash END FROM docs d "
    "JOIN vectors v ON v.embed_hash = d.embed_hash AND v.model = ?1 "
    "LEFT JOIN vectors c ON c.embed_hash = d.context_hash AND c.model = ?1 ORDER BY d.rowid"
)


def path_of(folder: Path, context: float) -> Path:
    return folder / f"matrix-{context:g}.bin"


def signature(db: sqlite3.Connection, model: str) -> list[Row]:
    """What the matrix of ``model`` is made of, row by row, without reading a vector."""
    return db.execute(_SIGNATURE, (model,)).fetchall()


def key_of(rows: list[Row], model: str, dim: int, context: float) -> str:
    digest = hashlib.blake2b(f"{model}\0{dim}\0{context!r}\n".encode(), digest_size=16)
    text = "\n".join(f"{r[0]}\0{r[1]}\0{r[2]}\0{r[3] or ''}" for r in rows)
    digest.update(text.encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def load(path: Path, key: str, count: int, dim: int) -> Vectors | None:
    """The matrix saved under ``key`` (a writable copy: a sync patches it), or None."""
    table = read_table(path, key)
    if table is None:
        return None
    matrix = np.frombuffer(table.sections["matrix"], dtype=np.float32)
    if matrix.size != count * dim:
        return None
    return matrix.reshape(count, dim).copy()


def save(path: Path, key: str, matrix: Vectors) -> None:
    """Keep ``matrix`` under ``key``; a folder that cannot be written costs only the speed."""
    data = np.ascontiguousarray(matrix, dtype=np.float32)
    with contextlib.suppress(OSError):
        write_table(path, key, {"shape": list(data.shape)}, {"matrix": data.data})
