"""Atomic file writes and the project's cache folder: shared by every module that writes files."""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import IO, Any

# What atomic_open's temporary files look like: "." + target name + "." + mkstemp's 8 random chars + ".tmp".
_TEMPORARY = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")
# A temporary file is stale when it was last written this long before this process started: a
# writer that is still alive (another run into the same folder) renames its file within seconds.
STALE_GRACE_S = 60.0


@contextlib.contextmanager
def atomic_open(path: Path, mode: str = "w", durable: bool = True) -> Iterator[IO[Any]]:
    """Write to a temporary file beside ``path``; on success fsync and rename over it.

    An interrupted write leaves the old file (or no file), no temporary and no folder it created.
    The file gets the permissions the umask gives a new file (mkstemp alone would give 0600).
    ``durable=False`` skips the fsync (a process crash still leaves the old or the new file; a power
    loss may leave an empty one): for writers of thousands of files that check them on the next run.
    """
    import tempfile  # only writers need it (~6 ms to import): `show` does not

    path = Path(path)
    created = _make_parents(path.parent)
    try:
        remove_stale_temporaries(path.parent)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except BaseException:
        _remove_empty(created)
        raise
    try:
        os.chmod(tmp, 0o666 & ~current_umask())
        text = {} if "b" in mode else {"encoding": "utf-8", "newline": ""}
        with os.fdopen(fd, mode, **text) as handle:  # type: ignore[call-overload]
            yield handle
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        _remove_empty(created)
        raise


def write_bytes_atomic(path: Path, data: bytes, durable: bool = True) -> None:
    with atomic_open(path, "wb", durable) as handle:
        handle.write(data)


def cache_home() -> Path:
    """This platform's user cache folder for the harness (platformdirs): ~/.cache/retrieval-leaderboard on
    Linux, under XDG_CACHE_HOME when set; ~/Library/Caches/retrieval-leaderboard on macOS."""
    from platformdirs import user_cache_path  # ~7 ms: only when a command needs the cache

    return user_cache_path("retrieval-leaderboard", appauthor=False)


def unwritable(folder: Path) -> str | None:
    """Why files cannot be written into ``folder`` (None: they can), found by writing a probe file there.

    Leaves nothing behind: the probe and any folder made for it are removed. A run checks its output
    folder with this before any work, so a folder it cannot write fails at once, not after the run."""
    import tempfile

    folder = Path(folder)
    missing = [f for f in [folder, *folder.parents] if not f.exists()]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".write-probe.", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    finally:
        for made in missing:  # deepest first
            with contextlib.suppress(OSError):
                made.rmdir()
    return None


def _make_parents(folder: Path) -> list[Path]:
    """mkdir -p, returning the folders it created (deepest last) so a failed write can remove them."""
    missing = []
    for candidate in [folder, *folder.parents]:
        if candidate.exists():
            break
        missing.append(candidate)
    folder.mkdir(parents=True, exist_ok=True)
    return list(reversed(missing))


def _remove_empty(created: list[Path]) -> None:
    for folder in reversed(created):
        try:
            folder.rmdir()  # only succeeds while empty: a concurrent writer's files are never removed
        except OSError:
            return


def current_umask() -> int:
    """The process umask. Linux shows it in /proc; elsewhere os.umask must set it to read it (briefly)."""
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@cache
def process_start_time() -> float:
    """When this process started (epoch seconds); the import time of this module where /proc is absent."""
    try:
        ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        boot = next(
            float(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines() if line.startswith("btime")
        )
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return _IMPORTED_AT


_IMPORTED_AT = time.time()


def remove_stale_temporaries(folder: Path) -> list[Path]:
    """Delete temporaries that an interrupted write (kill -9) left in ``folder``; return what was removed.

    Only files named like atomic_open's temporaries and last written well before this process
    started: a live writer in another process is never disturbed.
    """
    cutoff = process_start_time() - STALE_GRACE_S
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        if not _TEMPORARY.match(entry.name):
            continue
        try:
            if entry.is_file(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_mtime < cutoff:
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:
            continue  # removed meanwhile by another process, or not ours to remove
    return removed
