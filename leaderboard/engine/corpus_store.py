"""The corpus store: a corpus's embeddings as shards, planned once and kept on disk until searched.

**Plan.** Every document text is hashed once while the corpus streams by (8 bytes and a length per
document, never the texts). Identical texts are encoded once (equal hashes are confirmed by
comparing the texts, so a collision cannot merge two documents). The distinct texts are encoded
in one global order, longest first, exactly the order sentence-transformers sorts a single call
into, so every batch holds texts of similar length over the whole corpus, not within a block.

**Store.** Position ``p`` of that order is row ``p % rows`` of shard ``p // rows``. A shard is a
``.npy`` file written through a memory map and renamed into place when complete, then described
by a small JSON manifest. A corpus that fits in one shard stays in memory. Shards hold float32, or
float16 when the run asks for float16.

**Reuse is proven, never assumed:**

* The folder is named by, and its ``store.json`` holds, the store's key: the corpus content (the
  plan's fingerprint over every distinct text's hash and length), the model, its revision and
  settings, the document prompt, dtype and shard size. A folder whose ``store.json`` says anything
  else is not reused: its shards are removed and encoded again.
* Each shard's manifest holds its rows, width, byte size, the corpus fingerprint and the sha256
  of the ``.npy`` file; a shard is finished, and reused, only when all of them match the file
  (checked once per open). A damaged shard of the right size is encoded again.
* One run at a time writes a folder: ``open`` takes a lock on ``<folder>/.lock`` (``filelock``,
  released on ``close`` or when the process dies) and waits up to ``LEADERBOARD_SHARD_LOCK_TIMEOUT``
  seconds (default 3600) for another run to finish; the second run then reuses what the first wrote.
  Encoder processes (Ray actors) write shards for the run that holds the lock and take none.
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

from leaderboard.errors import BadInput
from leaderboard.fileio import cache_home

SHARD_ROWS_ENV = "LEADERBOARD_SHARD_ROWS"
# 16384 x 1024 dims x 4 bytes = 64 MiB per float32 shard; the variable sets another default (tests, small disks).


def _default_rows() -> int:
    raw = os.environ.get(SHARD_ROWS_ENV) or "16384"
    if not raw.isdigit() or int(raw) < 1:
        raise BadInput(f"{SHARD_ROWS_ENV}={raw[:40]!r}: expected a positive number of rows per shard.")
    return int(raw)


SHARD_ROWS = _default_rows()
SHARD_DIR_ENV = "LEADERBOARD_SHARD_DIR"
LOCK_TIMEOUT_ENV = "LEADERBOARD_SHARD_LOCK_TIMEOUT"
STORE_FORMAT = "leaderboard-shards/2"


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

    def __init__(
        self,
        folder: Path | None,
        n_rows: int,
        shard_rows: int,
        dtype: str,
        meta: dict[str, Any],
        fingerprint: str = "",
    ):
        self.folder, self.n_rows, self.shard_rows, self.dtype = folder, n_rows, shard_rows, np.dtype(dtype)
        self.fingerprint = fingerprint
        self.count = -(-n_rows // shard_rows) if n_rows else 0
        self._memory: dict[int, np.ndarray] = {}
        self._verified: set[int] = set()  # shards whose files were checked against their manifests here
        self._lock: Any = None
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
            self.identity = {
                "format": STORE_FORMAT,
                "key": json.loads(json.dumps(meta, sort_keys=True, default=str)),
                "corpus": fingerprint,
                "rows": n_rows,
                "shard_rows": shard_rows,
                "dtype": self.dtype.name,
            }

    @classmethod
    def open(
        cls, key: dict[str, Any], plan: EncodePlan, shard_rows: int, dtype: str, root: Path | None, memory: bool
    ) -> ShardStore:
        """The store for ``key`` (model, revision, settings, prompt, dtype) over ``plan``'s corpus; on disk it is
        locked for this run (``close`` releases it) and any folder content it cannot prove its own is cleared."""
        if memory:
            return cls(None, plan.n_unique, shard_rows, dtype, {}, plan.fingerprint)
        name = hashlib.sha256(
            json.dumps(
                key | {"corpus": plan.fingerprint, "shard_rows": shard_rows, "dtype": dtype},
                sort_keys=True,
                default=str,
            ).encode()
        ).hexdigest()[:32]
        store = cls(Path(root or shard_root()) / name, plan.n_unique, shard_rows, dtype, key, plan.fingerprint)
        store.lock()
        try:
            store._claim()
        except BaseException:
            store.close()
            raise
        return store

    # -- one writer per folder ---------------------------------------------------------------------
    def lock(self) -> None:
        assert self.folder is not None
        self._lock = _acquire(self.folder / ".lock", f"the shard folder {self.folder}")

    def close(self) -> None:
        """Release the folder's lock (the shards stay for a later run unless ``remove`` was called)."""
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def __getstate__(self) -> dict[str, Any]:  # sent to encoder processes, which write shards but hold no lock
        state = self.__dict__.copy()
        state["_lock"] = None
        return state

    def _claim(self) -> None:
        """Keep the folder's shards only when its store.json describes this very store."""
        assert self.folder is not None
        identity = self.folder / "store.json"
        try:
            found = json.loads(identity.read_text("utf-8"))
        except FileNotFoundError:
            found = None
        except (OSError, ValueError):
            found = {}
        if found != self.identity:
            if found is not None:  # another corpus, model or format: nothing here is ours to reuse
                for path in self.folder.glob("shard-*"):
                    path.unlink(missing_ok=True)
            _write_json(identity, self.identity)

    # -- shards ------------------------------------------------------------------------------------
    def bounds(self, shard: int) -> tuple[int, int]:
        return shard * self.shard_rows, min((shard + 1) * self.shard_rows, self.n_rows)

    def _paths(self, shard: int) -> tuple[Path, Path]:
        assert self.folder is not None
        return self.folder / f"shard-{shard:06d}.npy", self.folder / f"shard-{shard:06d}.json"

    def finished(self, shard: int) -> bool:
        """Is the shard written whole: its manifest matches this store and the file's size and sha256?"""
        if self.folder is None:
            return shard in self._memory
        if shard in self._verified:
            return True
        data, manifest = self._paths(shard)
        start, end = self.bounds(shard)
        try:
            info = json.loads(manifest.read_text("utf-8"))
            ok = (
                isinstance(info, dict)
                and info.get("shard") == shard
                and info.get("rows") == end - start
                and info.get("corpus") == self.fingerprint
                and info.get("dtype") == self.dtype.name
                and data.stat().st_size == info.get("bytes")
                and _file_sha256(data) == info.get("sha256")
            )
        except (OSError, ValueError):
            return False
        if ok:
            self._verified.add(shard)
        return ok

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
        manifest.unlink(missing_ok=True)  # the old manifest never describes the new file
        fd, tmp = tempfile.mkstemp(prefix=f".{data.name}.", suffix=".tmp", dir=self.folder)
        os.close(fd)
        try:
            mapped = np.lib.format.open_memmap(tmp, mode="w+", dtype=self.dtype, shape=(end - start, dim))
            yield mapped
            mapped.flush()
            del mapped
            digest = _file_sha256(Path(tmp))
            os.replace(tmp, data)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        info = {
            "shard": shard,
            "rows": end - start,
            "dim": dim,
            "dtype": self.dtype.name,
            "corpus": self.fingerprint,
            "bytes": data.stat().st_size,
            "sha256": digest,
        }
        _write_json(manifest, info)

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
        """Delete the shards (work files) and release the lock.

        The lock file stays: deleting it while another run waits on it would let a third run lock a new
        file of the same name, and two runs would write the folder."""
        self._memory.clear()
        if self.folder is not None:
            _clear(self.folder)
            self.close()


def _clear(folder: Path) -> None:
    """Delete a shard folder's content but its lock file (see ``ShardStore.remove``)."""
    for path in folder.glob("*"):
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        elif path.name != ".lock":
            path.unlink(missing_ok=True)


def discard(folder: Path) -> bool:
    """Remove a shard folder's work files once its result is written (False: another run holds it; kept).

    A Ray job keeps the shards it searched; the driver calls this after writing the job's result, so
    a run whose cluster dies before that leaves every finished shard for the re-run.
    """
    from filelock import FileLock, Timeout

    lock = FileLock(str(Path(folder) / ".lock"))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        return False
    try:
        _clear(Path(folder))
    finally:
        lock.release()
    return True


def _acquire(path: Path, what: str, waiting_note: str | None = None) -> Any:
    """The held ``filelock`` at ``path``, waiting up to LEADERBOARD_SHARD_LOCK_TIMEOUT; BadInput when it stays held.

    ``waiting_note``: said (a ``Note``) when the lock is held by another run, before this one waits."""
    from filelock import FileLock, Timeout

    timeout = _lock_timeout()
    lock = FileLock(str(path), timeout=timeout)
    try:
        if waiting_note is not None:
            try:
                lock.acquire(timeout=0)
                return lock
            except Timeout:
                import warnings

                from leaderboard.errors import Note

                warnings.warn(Note(f"{waiting_note} (up to {LOCK_TIMEOUT_ENV}={timeout:g} s)"), stacklevel=2)
        lock.acquire()
    except Timeout:
        raise BadInput(
            f"{what} is being written by another run (lock {path} held for more than {LOCK_TIMEOUT_ENV}={timeout:g} "
            "s); wait for it to finish, or give this run its own --shard-dir"
        ) from None
    return lock


@contextlib.contextmanager
def writer_lock(root: Path | None, key: Mapping[str, Any]) -> Iterator[None]:
    """One run at a time for ``key`` (a model and the data it encodes) on a shard folder root, held for the run.

    Taken before the model loads: a second run of the same model on the same data and shard
    folder learns at once that it must wait, instead of after loading the model and hashing the corpus,
    when the store's own lock (``ShardStore.open``, which stays the guarantee) would have told it. It
    waits, as the store's lock does, and then reuses what the first run wrote.
    """
    name = hashlib.sha256(json.dumps(dict(key), sort_keys=True, default=str).encode()).hexdigest()[:32]
    folder = Path(root or shard_root()) / ".runs"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BadInput(f"--shard-dir {folder.parent}: cannot write there ({exc.strerror or exc}).") from None
    what = f"the shard folder {folder.parent} (for {key.get('model')} on this data)"
    note = f"another run is writing shards for {key.get('model')} on this data in {folder.parent}: waiting for it"
    lock = _acquire(folder / f"{name}.lock", what, note)
    try:
        yield
    finally:
        lock.release()


def _lock_timeout() -> float:
    raw = os.environ.get(LOCK_TIMEOUT_ENV, "")
    if not raw:
        return 3600.0
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if value < 0:
        raise BadInput(f"{LOCK_TIMEOUT_ENV}={raw[:40]!r}: expected a number of seconds (0 or more).")
    return value


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(2**20), b""):
            digest.update(block)
    return digest.hexdigest()


def _write_json(path: Path, data: dict[str, Any]) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle, sort_keys=True, default=str)
    os.replace(tmp, path)
