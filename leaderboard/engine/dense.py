"""Search and candidate scoring for bi-encoders, built on a model's ``encode`` alone.

Each unique text is encoded once per call, in batches; exact top-k search walks the corpus
in chunks and keeps a running top-k, so memory is bounded by the chunk size, not the corpus.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from leaderboard.contract.model import DenseModel, Role, Run
from leaderboard.progress import step

# Query rows x corpus columns scored at once: 1024 x 16384 float32 = 64 MiB.
QUERY_CHUNK = 1024
CORPUS_CHUNK = 16384


@dataclass
class EncodeStats:
    requested: int = 0  # texts asked for (with repeats)
    unique: int = 0  # distinct texts encoded or looked up


class EmbeddingMemo:
    """Embeddings already computed in this run, keyed by (role, text): shared across a model's tasks.

    With ``disk`` (an EmbeddingCache) it also reads and writes the on-disk cache shared across runs.
    """

    def __init__(self, disk=None) -> None:
        self._rows: dict[tuple[str, str], np.ndarray] = {}
        self.disk = disk

    def get(self, role: str, text: str) -> np.ndarray | None:
        return self._rows.get((role, text))

    def put(self, role: str, texts: Sequence[str], embeddings: np.ndarray) -> None:
        for text, row in zip(texts, embeddings):
            self._rows[(role, text)] = row


def encode_unique(
    model: DenseModel,
    texts: Sequence[str],
    role: Role,
    batch_size: int,
    stats: EncodeStats | None = None,
    label: str = "",
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
    known = {t: v for t in unique if memo is not None and (v := memo.get(role, t)) is not None}
    if memo is not None and memo.disk is not None:
        from_disk = memo.disk.get_many(role, [t for t in unique if t not in known])
        memo.put(role, list(from_disk), list(from_disk.values()))
        known.update(from_disk)
    missing = [t for t in unique if t not in known]
    if stats is not None:
        stats.requested += len(texts)
        stats.unique += len(missing)
    fresh = _encode_in_batches(model, missing, role, batch_size, label or f"encoding {role}s")
    if memo is not None and len(missing):
        memo.put(role, missing, fresh)
        if memo.disk is not None:
            memo.disk.put_many(role, missing, fresh)
    if not known:
        return fresh[rows]
    lookup = dict(zip(missing, fresh))
    lookup.update(known)
    return np.stack([lookup[t] for t in unique])[rows]


def _encode_in_batches(model: DenseModel, texts: list[str], role: Role, batch_size: int, label: str) -> np.ndarray:
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    chunks = []
    # Hand the model several batches at a time: fewer Python round trips, live progress.
    span = max(batch_size, 1) * 8
    with step(label, total=len(texts)) as bar:
        for start in range(0, len(texts), span):
            block = texts[start : start + span]
            chunks.append(np.asarray(model.encode(block, role), dtype=np.float32))
            bar.advance(len(block))
    return np.concatenate(chunks, axis=0)


def _prepare(embeddings: np.ndarray, similarity: str) -> np.ndarray:
    matrix = np.ascontiguousarray(embeddings, dtype=np.float32)
    if similarity == "cosine":
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        matrix = matrix / np.maximum(norms, 1e-12)  # as torch.nn.functional.normalize
    elif similarity != "dot":
        raise ValueError(f"unsupported similarity {similarity!r}: expected 'cosine' or 'dot'")
    return matrix


def similarity_scores(query: np.ndarray, documents: np.ndarray, similarity: str) -> np.ndarray:
    """[n_queries, n_documents] similarity matrix for small candidate sets."""
    return _prepare(query, similarity) @ _prepare(documents, similarity).T


def _top_k_rows(scores: np.ndarray, k: int) -> np.ndarray:
    """Column indices of each row's k highest scores, best first (argpartition, then sort the k)."""
    if k < scores.shape[1]:
        part = np.argpartition(-scores, k - 1, axis=1)[:, :k]
    else:
        part = np.tile(np.arange(scores.shape[1]), (scores.shape[0], 1))
    order = np.argsort(-np.take_along_axis(scores, part, axis=1), axis=1, kind="stable")
    return np.take_along_axis(part, order, axis=1)


def exact_top_k(query_emb: np.ndarray, doc_emb: np.ndarray, k: int, similarity: str) -> tuple[np.ndarray, np.ndarray]:
    """Top-k document rows and scores per query, scanning the corpus chunk by chunk with a running top-k."""
    queries, docs = _prepare(query_emb, similarity), _prepare(doc_emb, similarity)
    k = min(k, docs.shape[0])
    all_scores, all_rows = [], []
    with step("searching", total=queries.shape[0]) as bar:
        for q0 in range(0, queries.shape[0], QUERY_CHUNK):
            block = queries[q0 : q0 + QUERY_CHUNK]
            best_scores = np.full((block.shape[0], 0), -np.inf, dtype=np.float32)
            best_rows = np.zeros((block.shape[0], 0), dtype=np.int64)
            for d0 in range(0, docs.shape[0], CORPUS_CHUNK):
                scores = block @ docs[d0 : d0 + CORPUS_CHUNK].T
                columns = np.broadcast_to(np.arange(d0, d0 + scores.shape[1]), scores.shape)
                merged_scores = np.concatenate([best_scores, scores], axis=1)
                merged_rows = np.concatenate([best_rows, columns], axis=1)
                keep = _top_k_rows(merged_scores, min(k, merged_scores.shape[1]))
                best_scores = np.take_along_axis(merged_scores, keep, axis=1)
                best_rows = np.take_along_axis(merged_rows, keep, axis=1)
            all_scores.append(best_scores)
            all_rows.append(best_rows)
            bar.advance(block.shape[0])
    return np.concatenate(all_rows), np.concatenate(all_scores)


def dense_search(
    model: DenseModel,
    corpus: dict[str, str],
    queries: dict[str, str],
    top_k: int,
    batch_size: int,
    stats: EncodeStats | None = None,
    memo: EmbeddingMemo | None = None,
) -> Run:
    similarity = model.metadata.similarity or "cosine"
    doc_ids, query_ids = list(corpus), list(queries)
    doc_emb = encode_unique(model, [corpus[d] for d in doc_ids], "document", batch_size, stats, "encoding corpus", memo)
    query_emb = encode_unique(
        model, [queries[q] for q in query_ids], "query", batch_size, stats, "encoding queries", memo
    )
    rows, scores = exact_top_k(query_emb, doc_emb, top_k, similarity)
    return {qid: {doc_ids[r]: float(s) for r, s in zip(rows[i], scores[i])} for i, qid in enumerate(query_ids)}


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
    q = _prepare(encode_unique(model, queries, "query", batch_size, stats, "encoding queries", memo), similarity)
    d = _prepare(encode_unique(model, documents, "document", batch_size, stats, "encoding documents", memo), similarity)
    return (q * d).sum(axis=1)
