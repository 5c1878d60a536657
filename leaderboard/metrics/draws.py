"""The random draws behind every bootstrap and sign-flip test, generated once per (seed, sizes) and kept.

A seeded resampling draws the same counts (``bootstrap.draw_counts``) and the same sign patterns
(``significance.sign_flip_test``) every time it is asked for the same sizes: the board's cell
intervals draw them for every page of a column (one size per column), and a comparison's subsets
draw those of the board's subset columns again. Generating them costs more than using them (a
random integer per item and resample, and a scatter to count them), so they are kept here, packed
(a count of one item in one resample is rarely above 15: four bits; a sign: one bit), in a cache
bounded by ``BUDGET`` bytes that drops the least recently used. Callers get exactly the float64
arrays a fresh generation gives.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable

import numpy as np

BUDGET = 192 * 2**20  # bytes kept: ComLQ's board columns and every subset a comparison tests (about 115 MB)
_lock = threading.Lock()
_kept: OrderedDict[Hashable, list[Packed]] = OrderedDict()
_size = 0


class Packed:
    """One chunk of draws (resamples x items), stored in as few bits as its values need."""

    def __init__(self, array: np.ndarray, signs: bool):
        self.shape = array.shape
        self.data: np.ndarray
        if signs:  # -1.0 / 1.0
            self.kind, self.data = "bits", np.packbits(array > 0, axis=1)
        elif array.size and array.min() >= 0 and array.max() <= 15:  # counts: two per byte
            if array.shape[1] % 2:
                array = np.pad(array, ((0, 0), (0, 1)))
            self.kind, self.data = "nibbles", (array[:, 0::2].astype(np.uint8) << 4) | array[:, 1::2].astype(np.uint8)
        else:
            self.kind, self.data = "counts", array.astype(np.min_scalar_type(int(array.max()) if array.size else 0))

    @property
    def nbytes(self) -> int:
        return int(self.data.nbytes)

    def array(self) -> np.ndarray:
        """The chunk as float64, exactly as generated."""
        rows, items = self.shape
        if self.kind == "bits":
            return np.unpackbits(self.data, axis=1, count=items).astype(np.float64) * 2.0 - 1.0
        if self.kind == "nibbles":
            full = np.empty((rows, 2 * self.data.shape[1]), dtype=np.uint8)
            full[:, 0::2] = self.data >> 4
            full[:, 1::2] = self.data & 15
            return full[:, :items].astype(np.float64)
        return self.data.astype(np.float64)

    def dot(self, vector: np.ndarray) -> np.ndarray:
        """``self.array() @ vector`` for one vector. Signs are read from the packed bytes: each byte's share
        of the product (8 signs) is looked up in a table of its 256 values, a third of the time of unpacking
        every sign to float64 (a comparison's subsets flip 175 million); counts are unpacked."""
        if self.kind != "bits":
            product: np.ndarray = self.array() @ vector
            return product
        groups = self.data.shape[1]
        padded = np.zeros(groups * 8)
        padded[: self.shape[1]] = vector  # padding bits carry 0: they add nothing
        lookup = padded.reshape(groups, 8) @ _SIGN_TABLE.T  # groups x 256: each byte value's share
        return np.asarray(lookup[np.arange(groups), self.data].sum(axis=1))


_SIGN_TABLE = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).astype(np.float64) * 2.0 - 1.0


def kept(key: Hashable, make: Callable[[], Iterable[np.ndarray]], signs: bool = False) -> list[Packed]:
    """The chunks stored under ``key`` (``Packed``: ``array()`` or ``dot(v)``), made (and stored, within the
    budget) on first use.

    ``make`` yields the chunks one by one: each is packed before the next is drawn (bounded memory).
    ``signs``: the chunks hold -1.0 and 1.0 only (else: counts, non-negative integers)."""
    with _lock:
        found = _kept.get(key)
        if found is not None:
            _kept.move_to_end(key)
    if found is None:
        found = [Packed(chunk, signs) for chunk in make()]  # outside the lock: other draws stay available
        _store(key, found)
    return found


def _store(key: Hashable, chunks: list[Packed]) -> None:
    global _size
    nbytes = sum(chunk.nbytes for chunk in chunks)
    with _lock:
        if key in _kept or nbytes > BUDGET:
            return
        _kept[key] = chunks
        _size += nbytes
        while _size > BUDGET:
            _, dropped = _kept.popitem(last=False)
            _size -= sum(chunk.nbytes for chunk in dropped)


def clear() -> None:
    global _size
    with _lock:
        _kept.clear()
        _size = 0
