"""On-disk embedding cache, shared across tasks and runs.

One SQLite file per (model name, revision, settings); a row per (role, sha256 of the exact text
the model saw). Each row stores its vector's byte length and sha256, so a corrupt or truncated
entry is detected on read and recomputed, never used; so is a row whose width is not the model's
(stored in ``meta`` from the first fresh embedding). SQLite (stdlib) gives atomic,
concurrent-safe writes for free.

A damaged database file (one that fails ``PRAGMA quick_check`` on open, which reads every page of
every table and index, or that raises a database error later) is handled by the policy the results
index shares (``leaderboard.sqlite_damage``): moved aside, named once on stderr, and the cache
starts afresh: the run recomputes what it needs and never fails for it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from leaderboard.errors import LeaderboardError
from leaderboard.fileio import cache_home
from leaderboard.sqlite_damage import is_damage, move_aside, quick_check

CACHE_ENV = "LEADERBOARD_CACHE_DIR"
T = TypeVar("T")


def cache_dir() -> Path:
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    return cache_home() / "embeddings"


def text_key(role: str, text: str) -> str:
    # surrogatepass: a lone surrogate ("\ud800", valid in a JSON string) still gets a key of its own.
    return hashlib.sha256(f"{role}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0
    corrupt: int = 0


class EmbeddingCache:
    def __init__(self, model_name: str, revision: str | None, settings: dict[str, Any], root: Path | None = None):
        self.identity = json.dumps(
            {"model": model_name, "revision": revision, "settings": settings}, sort_keys=True, default=str
        )
        self.key = hashlib.sha256(self.identity.encode("utf-8", "surrogatepass")).hexdigest()[:24]
        self.path = (root or cache_dir()) / f"{self.key}.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.stats = CacheStats()
        self.moved_aside: list[Path] = []
        self.dim: int | None = None  # the model's embedding width, once known
        self._db = self._open()

    # -- opening and recovery -----------------------------------------------------------------
    def _open(self) -> sqlite3.Connection:
        try:
            return self._connect()
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):
                raise self._failure(exc) from None
            self._move_aside(exc)
        try:
            return self._connect()
        except sqlite3.DatabaseError as exc:  # a fresh file that fails is not damage: say which file
            raise self._failure(exc) from None

    def _failure(self, exc: sqlite3.DatabaseError) -> LeaderboardError:
        return LeaderboardError(
            f"the embedding cache {self.path} cannot be used ({type(exc).__name__}: {exc}); run with --no-cache, "
            f"or point {CACHE_ENV} at another folder"
        )

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path)
        try:
            db.execute(
                "CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, dim INTEGER, checksum TEXT, data BLOB)"
            )
            db.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT)")
            quick_check(db)  # any damage shows here, before a vector is read
            with db:
                db.execute("INSERT OR REPLACE INTO meta VALUES ('identity', ?)", (self.identity,))
            self.dim = self._stored_dim(db)
        except BaseException:
            db.close()
            raise
        return db

    @staticmethod
    def _stored_dim(db: sqlite3.Connection) -> int | None:
        row = db.execute("SELECT value FROM meta WHERE name = 'dim'").fetchone()
        if row is not None and str(row[0]).isdigit():
            return int(row[0])
        # A cache written before the width was stored: the width most rows have.
        row = db.execute("SELECT dim FROM vectors GROUP BY dim ORDER BY count(*) DESC LIMIT 1").fetchone()
        return row[0] if row is not None and isinstance(row[0], int) else None

    def _move_aside(self, exc: BaseException) -> None:
        target = move_aside(self.path, exc, "the embedding cache", "embeddings are recomputed")
        if target is not None:
            self.moved_aside.append(target)

    def _guarded(self, operation: Callable[[], T], fallback: T) -> T:
        """Run a database operation; on a database error move the file aside, reopen, and return ``fallback``."""
        try:
            return operation()
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):
                raise self._failure(exc) from None
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._move_aside(exc)
            self.dim = None
            self._db = self._open()
            return fallback

    # -- reading and writing ------------------------------------------------------------------
    def get_many(self, role: str, texts: Sequence[str]) -> dict[str, np.ndarray]:
        keys = {text_key(role, t): t for t in texts}
        empty: dict[str, np.ndarray] = {}
        found = self._guarded(lambda: self._read(keys), empty)
        self.stats.hits += len(found)
        self.stats.misses += len(keys) - len(found)
        return found

    def _read(self, keys: dict[str, str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        items = list(keys.items())
        for start in range(0, len(items), 500):  # stay under SQLite's bound-parameter limit
            chunk = dict(items[start : start + 500])
            marks = ",".join("?" * len(chunk))
            for key, dim, checksum, data in self._db.execute(
                f"SELECT key, dim, checksum, data FROM vectors WHERE key IN ({marks})", list(chunk)
            ):
                if (
                    not isinstance(data, bytes)
                    or not isinstance(dim, int)
                    or (self.dim is not None and dim != self.dim)
                    or len(data) != dim * 4
                    or hashlib.sha256(data).hexdigest() != checksum
                ):
                    self.stats.corrupt += 1  # detected: recomputed by the caller, overwritten on put
                    continue
                found[chunk[key]] = np.frombuffer(data, dtype=np.float32).copy()
        return found

    def put_many(self, role: str, texts: Sequence[str], vectors: np.ndarray) -> None:
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim != 2 or not len(matrix):
            return
        rows = []
        for text, vector in zip(texts, matrix):
            data = vector.tobytes()
            rows.append((text_key(role, text), vector.shape[0], hashlib.sha256(data).hexdigest(), data))
        width = int(matrix.shape[1])

        def write() -> bool:
            with self._db:
                if self.dim != width:
                    # Fresh embeddings define the model's width; rows of any other width are stale.
                    self._db.execute("INSERT OR REPLACE INTO meta VALUES ('dim', ?)", (str(width),))
                    self._db.execute("DELETE FROM vectors WHERE dim IS NOT ?", (width,))
                self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)", rows)
            self.dim = width
            return True

        if not self._guarded(write, False):
            self._guarded(write, False)  # once more, into the fresh file
