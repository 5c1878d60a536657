"""Atomic file writes and the project's cache folder: shared by every module that writes files."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO


@contextlib.contextmanager
def atomic_open(path: Path, mode: str = "w") -> Iterator[IO]:
    """Write to a temporary file beside ``path``; on success fsync and rename over it.

    An interrupted write leaves the old file (or no file) and no temporary behind.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, mode, **({} if "b" in mode else {"encoding": "utf-8", "newline": ""})) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_bytes_atomic(path: Path, data: bytes) -> None:
    with atomic_open(path, "wb") as handle:
        handle.write(data)


def cache_home() -> Path:
    """~/.cache/retrieval-leaderboard, or under XDG_CACHE_HOME when set."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "retrieval-leaderboard"
