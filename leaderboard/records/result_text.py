"""A result file's text: a regular file, bounded, UTF-8, or BadInput saying why (no pydantic needed)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from leaderboard.errors import BadInput

# A result file is tens of kilobytes (per-query values compressed); anything far larger is not one.
MAX_RESULT_BYTES = 64 * 2**20


def read_result_text(path: Path, max_bytes: int = MAX_RESULT_BYTES) -> str:
    """The text of a result file: a regular file, at most ``max_bytes``, UTF-8; BadInput otherwise."""
    path = Path(path)
    try:
        info = os.stat(path)  # follows links: a broken one is "not found"
    except FileNotFoundError:
        raise BadInput(f"{path}: {'a broken symbolic link' if path.is_symlink() else 'no such file'}.") from None
    except OSError as exc:
        raise BadInput(f"{path}: cannot be read ({exc.strerror or exc}).") from None
    if not stat.S_ISREG(info.st_mode):
        what = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file (a FIFO, socket or device)"
        raise BadInput(f"{path}: {what}; expected a result file.")
    if info.st_size > max_bytes:
        raise BadInput(f"{path}: {info.st_size} bytes; a result file is at most {max_bytes}.")
    try:
        # O_NONBLOCK: should a FIFO replace the file after the stat, opening it must not wait for a writer.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise BadInput(f"{path}: not a regular file; expected a result file.")
            raw = handle.read(max_bytes + 1)
    except OSError as exc:
        raise BadInput(f"{path}: cannot be read ({exc.strerror or exc}).") from None
    if len(raw) > max_bytes:
        raise BadInput(f"{path}: larger than {max_bytes} bytes; a result file is not.")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        byte = f"byte 0x{raw[exc.start]:02x} at offset {exc.start}"
        raise BadInput(f"{path}, line {line}: not UTF-8 ({byte}); expected a result file.") from None
