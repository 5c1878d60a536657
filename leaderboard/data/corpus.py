"""A corpus that stays on disk: a read-only ``Mapping[str, str]`` over a JSONL file.

Sparse models and tasks use it like a dict; the dense path streams it. Memory is a few fixed-size
numbers per document whatever the text sizes: each line's byte offset, a 64-bit hash of each id
(sorted, for lookups) and the sort order. Texts and ids are read from the file on demand; a lookup verifies the
id it read, so a hash collision or a file changed under us cannot return the wrong text.

NumPy arrays instead of a dict of ids: a dict holds Python objects per entry, several times the
memory of these arrays on a corpus of millions of documents.
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np

from leaderboard import safe_json
from leaderboard.data.jsonl import read_jsonl, require_file
from leaderboard.errors import BadInput


def id_hash(doc_id: str) -> int:
    """A stable 64-bit hash (Python's own ``hash`` is salted per process; workers must agree)."""
    return int.from_bytes(hashlib.blake2b(doc_id.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")


class JsonlCorpus(Mapping[str, str]):
    """Documents of a JSONL file, keyed by ``id_field``; ``text_of(record)`` gives a document's text."""

    def __init__(
        self, path: Path, id_field: str, text_of: Callable[[dict[str, Any]], str], required: tuple[str, ...], what: str
    ):
        self.path, self.id_field, self.text_of, self.what = Path(path), id_field, text_of, what
        offsets, hashes = array("q"), array("Q")
        with open(require_file(self.path, what), "rb") as raw:
            position, raw_line = 0, 0
            # read_jsonl validates each record (and owns the hostile-input checks); the binary reader
            # only follows along to learn each record's byte offset.
            for line_no, record in read_jsonl(self.path, required, what):
                while raw_line < line_no:
                    start = position
                    position += len(raw.readline())
                    raw_line += 1
                offsets.append(start)
                hashes.append(id_hash(str(record[id_field])))
        self.offsets = np.frombuffer(offsets, dtype=np.int64) if offsets else np.zeros(0, np.int64)
        unsorted = np.frombuffer(hashes, dtype=np.uint64) if hashes else np.zeros(0, np.uint64)
        order = np.argsort(unsorted, kind="stable")
        self.order = order.astype(np.int32 if len(order) < 2**31 else np.int64)
        self.hashes = unsorted[order]
        del offsets, hashes, unsorted, order
        self._handle: IO[bytes] | None = None
        self._check_duplicates()

    def subset(self, rows: np.ndarray) -> JsonlCorpus:
        """The documents at ``rows`` (ascending), as a corpus over the same file (for --corpus-sample)."""
        by_row = np.empty_like(self.hashes)
        by_row[self.order] = self.hashes
        part = object.__new__(JsonlCorpus)
        part.__dict__.update(self.__getstate__())
        part.offsets = self.offsets[rows]
        order = np.argsort(by_row[rows], kind="stable")
        part.order, part.hashes = order.astype(self.order.dtype), by_row[rows][order]
        return part

    # -- pickling (Ray workers get the arrays, then reopen the file) ------------------------------
    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_handle"} | {"_handle": None}

    def _file(self) -> IO[bytes]:
        if self._handle is None or self._handle.closed:
            self._handle = open(self.path, "rb")  # noqa: SIM115  # kept open for many random reads
        return self._handle

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()

    # -- rows ----------------------------------------------------------------------------------
    def _record(self, row: int) -> dict[str, Any]:
        handle = self._file()
        handle.seek(int(self.offsets[row]))
        try:
            record = safe_json.loads(handle.readline().decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise BadInput(f"{self.path} changed while it was being read ({exc}); run again.") from None
        if not isinstance(record, dict) or self.id_field not in record:
            raise BadInput(f"{self.path} changed while it was being read; run again.")
        return record

    def id_at(self, row: int) -> str:
        return str(self._record(row)[self.id_field])

    def text_at(self, row: int) -> str:
        return self.text_of(self._record(row))

    def texts_at(self, rows: Sequence[int] | np.ndarray) -> list[str]:
        """Texts of many rows, read in file order (fewer seeks), returned in the given order."""
        rows = np.asarray(rows, dtype=np.int64)
        out: list[str] = [""] * len(rows)
        for i in np.argsort(rows, kind="stable"):
            out[i] = self.text_at(int(rows[i]))
        return out

    def row_of(self, doc_id: str) -> int | None:
        h = np.uint64(id_hash(doc_id))
        i = int(np.searchsorted(self.hashes, h, side="left"))
        while i < len(self.hashes) and self.hashes[i] == h:
            row = int(self.order[i])
            if self.id_at(row) == doc_id:
                return row
            i += 1
        return None

    def scan(self) -> Iterator[tuple[str, str]]:
        """(id, text) for every document in file order, read sequentially."""
        with open(self.path, "rb") as handle:
            for start in self.offsets:
                handle.seek(int(start))
                record = safe_json.loads(handle.readline().decode("utf-8"))
                yield str(record[self.id_field]), self.text_of(record)

    def _check_duplicates(self) -> None:
        same = np.flatnonzero(self.hashes[1:] == self.hashes[:-1])
        for i in same:  # equal hashes: equal ids, or (rarely) a collision
            first, second = sorted((int(self.order[i]), int(self.order[i + 1])))
            doc_id = self.id_at(second)
            if self.id_at(first) == doc_id:
                raise BadInput(f"{self.path}, line {self._line_of(second)}: duplicate {self.id_field!r} {doc_id!r}.")

    def _line_of(self, row: int) -> int:
        with open(self.path, "rb") as handle:
            return handle.read(int(self.offsets[row])).count(b"\n") + 1

    # -- Mapping ---------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.offsets)

    def __getitem__(self, doc_id: str) -> str:
        row = self.row_of(doc_id) if isinstance(doc_id, str) else None
        if row is None:
            raise KeyError(doc_id)
        return self.text_at(row)

    def __contains__(self, doc_id: object) -> bool:
        return isinstance(doc_id, str) and self.row_of(doc_id) is not None

    def __iter__(self) -> Iterator[str]:
        return (doc_id for doc_id, _ in self.scan())

    def items(self) -> _Items:  # type: ignore[override]  # sequential reads instead of one lookup per key
        return _Items(self)

    def values(self) -> _Values:  # type: ignore[override]
        return _Values(self)


class _Items:
    def __init__(self, corpus: JsonlCorpus):
        self.corpus = corpus

    def __len__(self) -> int:
        return len(self.corpus)

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return self.corpus.scan()


class _Values(_Items):
    def __iter__(self) -> Iterator[str]:  # type: ignore[override]
        return (text for _, text in self.corpus.scan())


def texts_of_rows(corpus: Mapping[str, str], ids: Sequence[str], rows: np.ndarray) -> list[str]:
    """Texts of corpus rows (positions in ``ids``): by offset for a JsonlCorpus, by key otherwise."""
    if isinstance(corpus, JsonlCorpus):
        return corpus.texts_at(rows)
    return [corpus[ids[int(r)]] for r in rows]
