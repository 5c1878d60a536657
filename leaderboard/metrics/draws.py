"""The random draws behind every bootstrap and sign-flip test, generated once per (seed, sizes) and kept.

A seeded resampling draws the same counts (``bootstrap.draw_counts``) and the same sign patterns
(``significance.sign_flip_test``) every time it is asked for the same sizes: the board's cell
intervals draw them for every page of a column (one size per column), and a comparison's subsets
draw those of the board's subset columns again. Generating them costs more than using them (a
random integer and a scattered count per item and resample), so they are kept here, compactly
(counts as uint8 when they fit, signs as int8), in a cache bounded by ``BUDGET`` bytes that drops
the least recently used. Callers get exactly the arrays a fresh generation gives, in float64.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable

import numpy as np

BUDGET = 160 * 2**20  # bytes of draws kept (a column of 2,909 queries: 29 MB of counts at 10,000 resamples)
_lock = threading.Lock()
_kept: OrderedDict[Hashable, list[np.ndarray]] = OrderedDict()
_size = 0


def compact(array: np.ndarray) -> np.ndarray:
    """The same integers in the smallest dtype that holds them (counts of one item in a resample are small)."""
    if array.size == 0:
        return array.astype(np.int8)
    low, high = int(array.min()), int(array.max())
    for dtype in (np.int8, np.uint8, np.int16, np.uint16, np.int32):
        info = np.iinfo(dtype)
        if info.min <= low and high <= info.max:
            return array.astype(dtype)
    return array


def kept(key: Hashable, make: Callable[[], Iterable[np.ndarray]]) -> list[np.ndarray]:
    """The compact chunks stored under ``key``, made (and stored, within the budget) on first use.

    ``make`` yields the chunks one by one: each is compacted before the next is drawn (bounded memory)."""
    global _size
    with _lock:
        found = _kept.get(key)
        if found is not None:
            _kept.move_to_end(key)
            return found
    chunks = [compact(chunk) for chunk in make()]  # outside the lock: other draws stay available meanwhile
    nbytes = sum(chunk.nbytes for chunk in chunks)
    with _lock:
        if key not in _kept and nbytes <= BUDGET:
            _kept[key] = chunks
            _size += nbytes
            while _size > BUDGET:
                _, dropped = _kept.popitem(last=False)
                _size -= sum(chunk.nbytes for chunk in dropped)
    return chunks


def clear() -> None:
    global _size
    with _lock:
        _kept.clear()
        _size = 0
