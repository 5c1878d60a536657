"""One policy for a damaged SQLite file, shared by the embedding cache and the results index.

Both hold only what can be recomputed (embeddings; summaries of result files), so damage never
fails a command: the damaged file (with SQLite's side files) is moved aside to
``<name>.corrupt-<ns>``, named once on stderr, and the caller starts afresh. Only damage is treated
so (``SQLITE_CORRUPT``, ``SQLITE_NOTADB``, or a failed ``PRAGMA quick_check``): a busy, locked,
read-only or missing file says nothing about the data and is the caller's to report.
"""

from __future__ import annotations

import sqlite3
import sys
import time
from pathlib import Path

_DAMAGED = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB (primary result codes)
SIDE_FILES = ("-journal", "-wal", "-shm")


class Damaged(sqlite3.DatabaseError):
    """``quick_check`` found damage (SQLite itself raised nothing)."""


def is_damage(exc: BaseException) -> bool:
    """A damaged file, as opposed to a busy, locked, read-only or missing one."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    if isinstance(exc, Damaged):
        return True
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:  # an SQLite build that does not say
        return not isinstance(exc, sqlite3.OperationalError)
    return code & 0xFF in _DAMAGED


def quick_check(db: sqlite3.Connection) -> None:
    """Raise ``Damaged`` unless ``PRAGMA quick_check`` (every page of every table and index) says ok.

    ``integrity_check`` also cross-checks index entries against rows, and is much slower.
    """
    problems = [row[0] for row in db.execute("PRAGMA quick_check")]
    if problems != ["ok"]:
        raise Damaged("; ".join(str(p) for p in problems[:3]))


def move_aside(path: Path, exc: BaseException, what: str, consequence: str) -> Path | None:
    """Move a damaged database file aside and say so once on stderr; None when another process moved it first.

    ``what`` names the file's role ("the embedding cache"), ``consequence`` what starting afresh costs.
    """
    path = Path(path)
    target = path.with_name(f"{path.name}.corrupt-{time.time_ns()}")
    try:
        path.rename(target)
    except FileNotFoundError:
        return None
    for suffix in SIDE_FILES:  # SQLite's side files belong to the damaged database
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    print(f"Warning: {what} {path} is damaged ({exc}); moved it to {target} and started afresh ({consequence}).",
          file=sys.stderr)  # fmt: skip
    return target
