"""Encoding: texts to embeddings with a model's ``encode`` alone, each distinct text once per run.

Queries and candidate sets are small: their distinct texts are encoded in memory (``encode_unique``).
A corpus is encoded shard by shard into the corpus store (``engine.corpus_store``), block by block
straight into each shard's memory map, in this process or by a pool of encoders elsewhere
(``ShardPool``, e.g. Ray actors). An ``EmbeddingMemo`` shares embeddings across a model's tasks in
one run and, with an ``EmbeddingCache``, across runs.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from leaderboard.contract.model import DenseModel, Role
from leaderboard.engine.contract_checks import check_vectors
from leaderboard.engine.corpus_store import DocumentTexts, EncodePlan, ShardStore
from leaderboard.progress import step

if TYPE_CHECKING:
    from leaderboard.engine.cache import EmbeddingCache


@dataclass
@dataclass
class EncodeStats:
    requested: int = 0  # texts asked for (with repeats)
    unique: int = 0  # distinct texts encoded (cache hits excluded)


class EmbeddingMemo:
    """Embeddings already computed in this run, keyed by (role, text): shared across a model's tasks.

    With ``disk`` (an EmbeddingCache) it also reads and writes the on-disk cache shared across runs.
    Only small sets live here (queries, candidate sets, corpora that fit in one shard); a large
    corpus goes through the disk cache and its shards, never into this dict.
    """

    def __init__(self, disk: EmbeddingCache | None = None) -> None:
        self._rows: dict[tuple[str, str], np.ndarray] = {}
        self.disk = disk

    def get(self, role: str, text: str) -> np.ndarray | None:
        return self._rows.get((role, text))

    def put(self, role: str, texts: Sequence[str], embeddings: Sequence[np.ndarray] | np.ndarray) -> None:
        for text, row in zip(texts, embeddings):
            self._rows[(role, text)] = row


@dataclass
class ShardJob:
    shard: int
    texts: list[str]  # the shard's distinct texts, in encoding order
    known: dict[int, np.ndarray]  # row in the shard -> vector found in a cache


class ShardPool(Protocol):
    """Something that encodes shard jobs and writes them to a store, e.g. a pool of Ray actors."""

    def run(self, store: ShardStore, jobs: Any, done: Callable[[ShardJob, int], None]) -> None: ...


def encode_unique(
    model: DenseModel,
    texts: Sequence[str],
    role: Role,
    batch_size: int,
    stats: EncodeStats | None = None,
    label: str = "",
    *,
    memo: EmbeddingMemo | None = None,
) -> np.ndarray:
    """Embed ``texts`` (rows in the same order), encoding each distinct text once per run."""
    index: dict[str, int] = {}
    unique: list[str] = []
    rows = np.empty(len(texts), dtype=np.int64)
    for i, text in enumerate(texts):
        j = index.get(text)
        if j is None:
            j = index[text] = len(unique)
            unique.append(text)
        rows[i] = j
    known = _lookup(memo, role, unique)
    missing = [t for t in unique if t not in known]
    if stats is not None:
        stats.requested += len(texts)
        stats.unique += len(missing)
    order = sorted(range(len(missing)), key=lambda i: -len(missing[i]))  # longest first, as one model call would
    fresh = np.empty((len(missing), 0), dtype=np.float32)
    if missing:
        with step(label or f"encoding {role}s", total=len(missing)) as bar:
            in_order = encode_texts(model, [missing[i] for i in order], role, batch_size, bar.advance)
        fresh = np.empty_like(in_order)
        fresh[order] = in_order
        _remember(memo, role, missing, fresh, in_memory=True)
    if not known:
        return fresh[rows]
    lookup = dict(zip(missing, fresh))
    lookup.update(known)
    return np.stack([lookup[t] for t in unique])[rows]


def _lookup(memo: EmbeddingMemo | None, role: str, texts: Sequence[str]) -> dict[str, np.ndarray]:
    if memo is None:
        return {}
    known = {t: v for t in texts if (v := memo.get(role, t)) is not None}
    if memo.disk is not None:
        rest = [t for t in texts if t not in known]
        for start in range(0, len(rest), 4096):  # bounded batches: the cache builds a key per text
            found = memo.disk.get_many(role, rest[start : start + 4096])
            known.update(found)
    return known


def _remember(
    memo: EmbeddingMemo | None, role: str, texts: Sequence[str], vectors: np.ndarray, in_memory: bool
) -> None:
    if memo is None or not len(texts):
        return
    if in_memory:
        memo.put(role, texts, vectors)
    if memo.disk is not None:
        memo.disk.put_many(role, texts, vectors)


def encode_texts(
    model: DenseModel, texts: Sequence[str], role: Role, batch_size: int, advance: Callable[[int], Any] | None = None
) -> np.ndarray:
    """Encode texts in the order given, several batches per model call (fewer round trips, live progress).

    The caller orders them longest first: then each model call's own length sort changes nothing,
    and its batches are the ones a single call over all the texts would make.
    """
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    chunks = []
    span = max(batch_size, 1) * 8
    width = None
    for start in range(0, len(texts), span):
        block = list(texts[start : start + span])
        chunks.append(np.asarray(model.encode(block, role), dtype=np.float32))
        width = check_vectors(model, block, chunks[-1], width)  # from the first batch on: the model is named
        if advance is not None:
            advance(len(block))
    return np.concatenate(chunks, axis=0)


def encode_shard(
    model: DenseModel,
    job: ShardJob,
    store: ShardStore,
    role: Role,
    batch_size: int,
    advance: Callable[[int], Any] | None = None,
) -> int:
    """Write a shard: cached rows copied, the others encoded in the given order, block by block
    straight into the shard (memory holds one block of vectors). Returns how many were encoded."""
    missing = [i for i in range(len(job.texts)) if i not in job.known]
    span = max(batch_size, 1) * 8
    with contextlib.ExitStack() as stack:
        out: np.ndarray | None = None
        if job.known:
            out = stack.enter_context(store.writer(job.shard, len(next(iter(job.known.values())))))
            for i, vector in job.known.items():
                out[i] = vector
        for start in range(0, len(missing), span):
            rows = missing[start : start + span]
            vectors = encode_texts(model, [job.texts[i] for i in rows], role, batch_size, advance)
            if out is None:
                out = stack.enter_context(store.writer(job.shard, vectors.shape[1]))
            out[rows] = vectors
    return len(missing)


def encode_corpus(
    model: DenseModel,
    documents: DocumentTexts,
    plan: EncodePlan,
    store: ShardStore,
    batch_size: int,
    *,
    stats: EncodeStats | None,
    memo: EmbeddingMemo | None,
    pool: ShardPool | None = None,
) -> None:
    """Fill every unfinished shard of ``store`` (finished ones, from an interrupted run, are kept)."""
    pending = store.pending()
    if stats is not None:
        stats.requested += len(plan.doc_position)
    in_memory = store.folder is None

    def jobs() -> Iterator[ShardJob]:
        for shard in pending:
            start, end = store.bounds(shard)
            texts = documents.texts(plan.position_row[start:end])
            known = _lookup(memo, "document", texts)
            yield ShardJob(shard, texts, {i: known[t] for i, t in enumerate(texts) if t in known})

    with step("encoding corpus", total=plan.n_unique) as bar:
        bar.advance(plan.n_unique - sum(store.bounds(s)[1] - store.bounds(s)[0] for s in pending))

        def done(job: ShardJob, encoded: int) -> None:
            if stats is not None:
                stats.unique += encoded
            if encoded and memo is not None and (memo.disk is not None or in_memory):
                missing = [i for i in range(len(job.texts)) if i not in job.known]
                vectors = store.read_rows(job.shard, missing)
                _remember(memo, "document", [job.texts[i] for i in missing], vectors, in_memory)

        if pool is not None:

            def finished(job: ShardJob, encoded: int) -> None:
                done(job, encoded)
                bar.advance(len(job.texts))

            pool.run(store, jobs(), finished)
            return
        for job in jobs():
            if job.known:
                bar.advance(len(job.known))
            done(job, encode_shard(model, job, store, "document", batch_size, bar.advance))
