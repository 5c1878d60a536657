"""Dense retrieval for bi-encoders: a corpus planned, encoded into the corpus store, then searched.

Three modules with one job each do the work: ``engine.corpus_store`` (the plan: dedup + one global
longest-first order; the shards on disk, checksummed and locked), ``engine.encoding`` (texts to
embeddings) and ``engine.search`` (exact top-k). This module joins them: ``dense_search`` streams a
corpus into a plan, fills the store, encodes the queries and searches shard by shard. Peak memory is
one shard plus the top-k state plus a few bytes per document, whatever the corpus size.

The names callers of dense retrieval use from those modules (``EmbeddingMemo``, ``EncodeStats``,
``encode_unique``, ``ShardJob``, ``encode_shard``, ``exact_top_k``, ``search_store``) are importable
from here, so they import one module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from leaderboard.contract.model import DenseModel, Run
from leaderboard.engine.corpus_store import SHARD_ROWS, DocumentTexts, ShardStore, make_plan
from leaderboard.engine.encoding import (
    EmbeddingMemo,
    EncodeStats,
    ShardJob,
    ShardPool,
    encode_corpus,
    encode_shard,
    encode_unique,
)
from leaderboard.engine.search import _prepare, exact_top_k, expand_to_documents, model_device, search_store
from leaderboard.progress import step

__all__ = [
    "STORAGE_DTYPES",
    "EmbeddingMemo",
    "EncodeStats",
    "SearchOptions",
    "ShardJob",
    "dense_pair_scores",
    "dense_search",
    "encode_shard",
    "encode_unique",
    "exact_top_k",
    "search_store",
]

STORAGE_DTYPES = {"float16": "float16"}  # --dtype -> shard dtype; anything else is stored as float32


@dataclass
class SearchOptions:
    """How a corpus's embeddings are stored and searched (``RunOptions`` fills it in)."""

    shard_rows: int = SHARD_ROWS
    shard_dir: Path | None = None  # None: LEADERBOARD_SHARD_DIR or ~/.cache/retrieval-leaderboard/shards
    dtype: str | None = None  # the run's --dtype; float16 stores float16 shards
    keep_shards: bool = False  # keep the shard files after the search (they are work files otherwise)
    store_key: dict[str, Any] | None = None  # model identity for the shard folder's name
    pool: ShardPool | None = None  # encodes shards elsewhere (Ray actors); None: in this process
    always_on_disk: bool = False  # even a one-shard corpus goes to disk (Ray workers share it)
    # Shard folders a search kept (keep_shards): a Ray job keeps its shards, and the driver removes them
    # only once the result is written, so a run that dies before that (its cluster lost) leaves them.
    kept: list[str] = field(default_factory=list)

    @property
    def storage_dtype(self) -> str:
        return STORAGE_DTYPES.get(self.dtype or "", "float32")


def dense_search(
    model: DenseModel,
    corpus: Mapping[str, str],
    queries: Mapping[str, str],
    top_k: int,
    batch_size: int,
    stats: EncodeStats | None = None,
    *,
    memo: EmbeddingMemo | None = None,
    document_prompt: str = "",
    options: SearchOptions | None = None,
) -> Run:
    """Each query's top-k documents. ``document_prompt`` is prepended to every document as it is read."""
    options = options or SearchOptions()
    similarity = model.metadata.similarity or "cosine"
    query_ids = list(queries)
    documents = DocumentTexts(corpus, document_prompt)
    if not len(documents) or not query_ids:
        return {qid: {} for qid in query_ids}
    with step("hashing corpus"):
        plan = make_plan(documents)
    in_memory = plan.n_unique <= options.shard_rows and not options.always_on_disk
    key = options.store_key or {
        "model": model.metadata.name,
        "revision": model.metadata.revision,
        "settings": model.settings(),
    }
    key = key | {"similarity": similarity, "document_prompt": document_prompt, "dtype": options.dtype}
    store = ShardStore.open(key, plan, options.shard_rows, options.storage_dtype, options.shard_dir, in_memory)
    try:  # the store is locked for this run until it is removed or closed
        encode_corpus(model, documents, plan, store, batch_size, stats=stats, memo=memo, pool=options.pool)
        query_emb = encode_unique(
            model, [queries[q] for q in query_ids], "query", batch_size, stats, "encoding queries", memo=memo
        )
        positions, scores = search_store(query_emb, store, top_k, similarity, model_device(model))
        ranked = expand_to_documents(positions, scores, plan, top_k)
        if not options.keep_shards:
            store.remove()
        elif store.folder is not None:
            options.kept.append(str(store.folder))
    finally:
        store.close()
    needed = sorted({row for query in ranked for row, _ in query})
    id_of = dict(zip(needed, documents.ids(needed)))
    return {qid: {id_of[row]: score for row, score in query} for qid, query in zip(query_ids, ranked)}


def dense_pair_scores(
    model: DenseModel,
    queries: Sequence[str],
    documents: Sequence[str],
    batch_size: int,
    stats: EncodeStats | None = None,
    memo: EmbeddingMemo | None = None,
) -> np.ndarray:
    """Similarity of each (queries[i], documents[i]) pair, each distinct text encoded once."""
    similarity = model.metadata.similarity or "cosine"
    q = _prepare(encode_unique(model, queries, "query", batch_size, stats, "encoding queries", memo=memo), similarity)
    d = _prepare(
        encode_unique(model, documents, "document", batch_size, stats, "encoding documents", memo=memo), similarity
    )
    scores: np.ndarray = (q * d).sum(axis=1)
    return scores
