"""On-disk embedding cache, shared across tasks and runs.

One SQLite file per (model name, revision, settings); a row per (role, sha256 of the exact text
the model saw). Each row stores its vector's byte length and sha256, so a corrupt or truncated
entry is detected on read and recomputed, never used. A database file that SQLite cannot open
is moved aside and started afresh. SQLite (stdlib) gives atomic, concurrent-safe writes for free.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from leaderboard.fileio import cache_home

CACHE_ENV = "LEADERBOARD_CACHE_DIR"


def cache_dir() -> Path:
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    return cache_home() / "embeddings"


def text_key(role: str, text: str) -> str:
    return hashlib.sha256(f"{role}\0{text}".encode()).hexdigest()


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0
    corrupt: int = 0


class EmbeddingCache:
    def __init__(self, model_name: str, revision: str | None, settings: dict, root: Path | None = None):
        identity = json.dumps(
            {"model": model_name, "revision": revision, "settings": settings}, sort_keys=True, default=str
        )
        self.key = hashlib.sha256(identity.encode()).hexdigest()[:24]
        self.path = (root or cache_dir()) / f"{self.key}.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.stats = CacheStats()
        self._db = self._open()
        self._db.execute("INSERT OR REPLACE INTO meta VALUES ('identity', ?)", (identity,))
        self._db.commit()

    def _open(self) -> sqlite3.Connection:
        try:
            db = sqlite3.connect(self.path)
            db.execute(
                "CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, dim INTEGER, checksum TEXT, data BLOB)"
            )
            db.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT)")
            db.execute("SELECT count(*) FROM vectors").fetchone()
            return db
        except sqlite3.DatabaseError:
            self.path.rename(self.path.with_suffix(f".corrupt-{int(time.time())}"))
            return self._open()

    def get_many(self, role: str, texts: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        keys = {text_key(role, t): t for t in texts}
        items = list(keys.items())
        for start in range(0, len(items), 500):  # stay under SQLite's bound-parameter limit
            chunk = dict(items[start : start + 500])
            marks = ",".join("?" * len(chunk))
            for key, dim, checksum, data in self._db.execute(
                f"SELECT key, dim, checksum, data FROM vectors WHERE key IN ({marks})", list(chunk)
            ):
                if data is None or len(data) != dim * 4 or hashlib.sha256(data).hexdigest() != checksum:
                    self.stats.corrupt += 1  # detected: recomputed by the caller, overwritten on put
                    continue
                found[chunk[key]] = np.frombuffer(data, dtype=np.float32).copy()
        self.stats.hits += len(found)
        self.stats.misses += len(keys) - len(found)
        return found

    def put_many(self, role: str, texts: Sequence[str], vectors: np.ndarray) -> None:
        rows = []
        for text, vector in zip(texts, np.asarray(vectors, dtype=np.float32)):
            data = vector.tobytes()
            rows.append((text_key(role, text), vector.shape[0], hashlib.sha256(data).hexdigest(), data))
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)", rows)

    def close(self) -> None:
        self._db.close()
