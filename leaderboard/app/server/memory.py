"""Keep a long-running board server's memory close to what it holds (glibc's allocator, Linux), and its
garbage collector off what lives as long as a board.

The board computes its statistics in numpy arrays of tens of megabytes (resamples of a page, a
comparison's draws), from several threads (the server's workers, the warm-up, the next page computed
ahead). glibc gives each thread its own arena and, once a large block has been freed, serves later
ones from the arenas rather than the operating system; freed memory then stays in the process, and
a real-size board's server held far more than it used (docs/development/perf.md). So, before
the server starts its threads: at most two arenas, and blocks of a megabyte or more always mapped on
their own (returned to the system when freed). Elsewhere (another libc, another system) nothing is done.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import sys

_M_MMAP_THRESHOLD = -3  # mallopt's parameter numbers (glibc malloc.h)
_M_ARENA_MAX = -8
ARENAS = 2
MAPPED_FROM = 1 << 20  # bytes


def limit_fragmentation() -> bool:
    """Set glibc's allocator as above; True when it was done (glibc on Linux)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    return bool(mallopt(_M_ARENA_MAX, ARENAS)) and bool(mallopt(_M_MMAP_THRESHOLD, MAPPED_FROM))


def keep_out_of_collections() -> None:
    """Exempt every object alive now (a board loaded, its rankings computed) from the collector's full passes.

    Python's full collection walks every container object: at 100,000 imported results (580,000 of them)
    a pass took 0.38 s, and passes come whenever enough new objects have piled up, in the middle of a
    reader's click. ``gc.freeze`` (the standard library's own answer) moves them to a generation that no pass
    walks; they are still freed when nothing refers to them. Called again for each new board: what was
    frozen is first unfrozen and collected, so a replaced board's cycles do not stay behind."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
