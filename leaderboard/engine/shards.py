"""Corpus embeddings as shards: the plan (dedup + global length order) and the on-disk store.

**Plan.** Every document text is hashed once while the corpus streams by (8 bytes and a length per
document, never the texts). Identical texts are encoded once (equal hashes are confirmed by
comparing the texts, so a collision cannot merge two documents). The distinct texts are encoded
in one global order, longest first, exactly the order sentence-transformers sorts a single call
into, so every batch holds texts of similar length over the whole corpus, not within a block.

**Store.** Position ``p`` of that order is row ``p % rows`` of shard ``p // rows``. A shard is a
``.npy`` file written through a memory map and renamed into place when complete, then described
by a small JSON manifest: a shard with a manifest is finished and is never encoded again (a re-run
after a crash resumes; a retried worker rewrites only unfinished shards, so no row is duplicated
or missing). A corpus that fits in one shard stays in memory. Shards hold float32, or float16
when the run asks for float16.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from leaderboard.fileio import cache_home

SHARD_ROWS = 16384  # 16384 x 1024 dims x 4 bytes = 64 MiB per float32 shard
SHARD_DIR_ENV = "LEADERBOARD_SHARD_DIR"


def shard_root() -> Path:
    return Path(os.environ[SHARD_DIR_ENV]) if os.environ.get(SHARD_DIR_ENV) else cache_home() / "shards"


def text_hash(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")


class DocumentTexts:
    """A corpus's documents as the model sees them (document prompt added), by row."""

    def __init__(self, corpus: Mapping[str, str], prompt: str = ""):
        from leaderboard.data.corpus import JsonlCorpus

        self.corpus, self.prompt = corpus, prompt
        self.on_disk = isinstance(corpus, JsonlCorpus)
        self._ids: list[str] | None = None if self.on_disk else list(corpus)

    def __len__(self) -> int:
        return len(self.corpus)

    def stream(self) -> Iterator[str]:
        """Every document's text in row order (sequential reads for a corpus on disk)."""
        source = self.corpus.values() if self.on_disk else (self.corpus[i] for i in self._ids or [])
        return (self.prompt + text for text in source)

    def texts(self, rows: Sequence[int] | np.ndarray) -> list[str]:
        if self.on_disk:
            return [self.prompt + t for t in self.corpus.texts_at(rows)]  # type: ignore[attr-defined]
        ids = self._ids or []
        return [self.prompt + self.corpus[ids[int(r)]] for r in rows]

    def ids(self, rows: Iterable[int]) -> list[str]:
        if self.on_disk:
            return [self.corpus.id_at(int(r)) for r in rows]  # type: ignore[attr-defined]
        ids = self._ids or []
        return [ids[int(r)] for r in rows]


@dataclass
class EncodePlan:
    """Which distinct text each document has, and the global encoding order of the distinct texts."""

    doc_position: np.ndarray  # [n_docs] -> position of the document's text in the encoding order
    position_row: np.ndarray  # [n_unique] -> a document row holding that text (the first one)
    fingerprint: str  # sha256 over the distinct texts' hashes and lengths, in encoding order

    @property
    def n_unique(self) -> int:
        return len(self.position_row)

    def shard_count(self, rows: int) -> int:
        return -(-self.n_unique // rows)


def make_plan(texts: DocumentTexts) -> EncodePlan:
    """One streaming pass over the texts; arrays are freed as soon as they are used (peak ~32 bytes/doc)."""
    hashes, lengths = array("Q"), array("i")
    for text in texts.stream():
        hashes.append(text_hash(text))
        lengths.append(len(text))  # characters, as sentence-transformers measures a string
    h = np.frombuffer(hashes, dtype=np.uint64).copy() if hashes else np.zeros(0, np.uint64)
    length = np.frombuffer(lengths, dtype=np.int32).copy() if lengths else np.zeros(0, np.int32)
    del hashes, lengths
    n = len(h)
    index_type = np.int32 if n < 2**31 else np.int64
    by_hash = np.argsort(h, kind="stable").astype(index_type)  # equal texts become neighbours, rows ascending
    sorted_h = h[by_hash]
    starts = np.flatnonzero(np.concatenate([[True], sorted_h[1:] != sorted_h[:-1]])) if n else np.zeros(0, np.int64)
    del sorted_h
    ends = np.append(starts[1:], n)
    representative = np.arange(n, dtype=index_type)  # for each document: the first row with its text
    for start, end in zip(starts[ends - starts > 1], ends[ends - starts > 1]):
        rows = by_hash[start:end]
        first_of: dict[str, int] = {}  # equal hashes: confirmed by the texts, so a collision merges nothing
        for row, text in zip(rows, texts.texts(rows)):
            representative[row] = first_of.setdefault(text, int(row))
    del by_hash, starts, ends
    first_rows = np.flatnonzero(representative == np.arange(n, dtype=index_type)).astype(index_type)
    # the global encoding order over distinct texts: longest first, ties in row order (a stable sort)
    position_row = first_rows[np.argsort(-length[first_rows], kind="stable")]
    del first_rows
    position_of = np.empty(n, dtype=index_type)
    position_of[position_row] = np.arange(len(position_row), dtype=index_type)
    doc_position = position_of[representative]
    del position_of, representative
    digest = hashlib.sha256()
    digest.update(h[position_row].tobytes())
    digest.update(length[position_row].tobytes())
    return EncodePlan(doc_position, position_row, digest.hexdigest())


class ShardStore:
    """Embedding shards for one (model, settings, corpus): on disk (resumable) or in memory (small)."""

    def __init__(self, folder: Path | None, n_rows: int, shard_rows: int, dtype: str, meta: dict[str, Any]):
        self.folder, self.n_rows, self.shard_rows, self.dtype = folder, n_rows, shard_rows, np.dtype(dtype)
        self.count = -(-n_rows // shard_rows) if n_rows else 0
        self._memory: dict[int, np.ndarray] = {}
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
            identity = folder / "store.json"
            if not identity.exists():
                _write_json(identity, meta | {"rows": n_rows, "shard_rows": shard_rows, "dtype": self.dtype.name})

    @classmethod
    def open(
        cls, key: dict[str, Any], plan: EncodePlan, shard_rows: int, dtype: str, root: Path | None, memory: bool
    ) -> ShardStore:
        if memory:
            return cls(None, plan.n_unique, shard_rows, dtype, {})
        name = hashlib.sha256(
            json.dumps(
                key | {"corpus": plan.fingerprint, "shard_rows": shard_rows, "dtype": dtype},
                sort_keys=True,
                default=str,
            ).encode()
        ).hexdigest()[:32]
        return cls(Path(root or shard_root()) / name, plan.n_unique, shard_rows, dtype, key)

    def bounds(self, shard: int) -> tuple[int, int]:
        return shard * self.shard_rows, min((shard + 1) * self.shard_rows, self.n_rows)

    def _paths(self, shard: int) -> tuple[Path, Path]:
        assert self.folder is not None
        return self.folder / f"shard-{shard:06d}.npy", self.folder / f"shard-{shard:06d}.json"

    def finished(self, shard: int) -> bool:
        if self.folder is None:
            return shard in self._memory
        data, manifest = self._paths(shard)
        try:
            info = json.loads(manifest.read_text("utf-8"))
            return data.stat().st_size == info["bytes"]
        except (OSError, ValueError, KeyError, TypeError):
            return False

    def pending(self) -> list[int]:
        return [s for s in range(self.count) if not self.finished(s)]

    @contextlib.contextmanager
    def writer(self, shard: int, dim: int) -> Iterator[np.ndarray]:
        """An array to fill with the shard's rows; on disk a memory map, renamed into place on success.

        Rows go to the file as they are encoded: the shard is never whole in this process's memory.
        """
        start, end = self.bounds(shard)
        if self.folder is None:
            out = np.empty((end - start, dim), dtype=self.dtype)
            yield out
            self._memory[shard] = out
            return
        data, manifest = self._paths(shard)
        fd, tmp = tempfile.mkstemp(prefix=f".{data.name}.", suffix=".tmp", dir=self.folder)
        os.close(fd)
        try:
            mapped = np.lib.format.open_memmap(tmp, mode="w+", dtype=self.dtype, shape=(end - start, dim))
            yield mapped
            mapped.flush()
            del mapped
            os.replace(tmp, data)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        _write_json(manifest, {"rows": end - start, "dim": dim, "bytes": data.stat().st_size})

    def write(self, shard: int, vectors: np.ndarray) -> None:
        with self.writer(shard, vectors.shape[1]) as out:
            out[:] = vectors

    def blocks(self, shard: int, rows: int) -> Iterator[tuple[int, np.ndarray]]:
        """(first row in the shard, float32 copy of up to ``rows`` rows): only one block in memory at a time.

        The memory map is dropped when the shard is done, so its pages leave this process's RSS.
        """
        source = self._memory[shard] if self.folder is None else np.load(self._paths(shard)[0], mmap_mode="r")
        try:
            for first in range(0, source.shape[0], rows):
                yield first, np.array(source[first : first + rows], dtype=np.float32)
        finally:
            del source

    def read_rows(self, shard: int, rows: Sequence[int]) -> np.ndarray:
        """Some rows of a shard as float32."""
        source = self._memory[shard] if self.folder is None else np.load(self._paths(shard)[0], mmap_mode="r")
        try:
            return np.array(source[np.asarray(rows, dtype=np.int64)], dtype=np.float32)
        finally:
            del source

    def remove(self) -> None:
        self._memory.clear()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


def _write_json(path: Path, data: dict) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle, sort_keys=True, default=str)
    os.replace(tmp, path)
