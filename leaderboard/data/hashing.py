"""Content hashes of the files a task actually loaded."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

from leaderboard.errors import BadInput


def sha256_file(path: Path) -> str:
    """The file's sha256; BadInput naming the file when it cannot be read (gone, a folder, no permission)."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        raise BadInput(f"{path}: cannot be read ({exc.strerror or exc}).") from None
    return digest.hexdigest()


def content_hash(files: Iterable[Path], root: Path) -> str:
    """One sha256 over (relative path, file hash) pairs, independent of where the data lives."""
    digest = hashlib.sha256()
    for path in sorted(files, key=lambda p: p.relative_to(root).as_posix()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(sha256_file(path).encode() + b"\n")
    return "sha256:" + digest.hexdigest()
