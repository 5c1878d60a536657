"""Search: exact top-k over embeddings, in memory or shard by shard from the corpus store.

Query rows x corpus columns are scored in bounded blocks with a running top-k, on the model's
device (torch on a GPU, NumPy on CPU; torch is imported only then). Peak memory is one block of
scores plus the top-k state, whatever the corpus size.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from leaderboard.contract.model import DenseModel
from leaderboard.engine.corpus_store import EncodePlan, ShardStore
from leaderboard.progress import step

# Query rows x corpus columns scored at once: 256 x 8192 float32 = 8 MiB, plus argpartition's
# int64 indices (16 MiB): the largest temporaries of a search, whatever the corpus size.
QUERY_CHUNK = 256
CORPUS_CHUNK = 8192


def _prepare(embeddings: np.ndarray, similarity: str) -> np.ndarray:
    matrix = np.ascontiguousarray(embeddings, dtype=np.float32)
    if similarity == "cosine":
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        matrix = matrix / np.maximum(norms, 1e-12)  # as torch.nn.functional.normalize
    elif similarity != "dot":
        raise ValueError(f"unsupported similarity {similarity!r}: expected 'cosine' or 'dot'")
    return matrix


def _top_k_rows(scores: np.ndarray, k: int) -> np.ndarray:
    """Column indices of each row's k highest scores, best first (argpartition, then sort the k)."""
    if k < scores.shape[1]:
        part = np.argpartition(-scores, k - 1, axis=1)[:, :k]
    else:
        part = np.tile(np.arange(scores.shape[1]), (scores.shape[0], 1))
    order = np.argsort(-np.take_along_axis(scores, part, axis=1), axis=1, kind="stable")
    return np.take_along_axis(part, order, axis=1)


class TopK:
    """The running top-k of every query over column blocks, on CPU (NumPy).

    Each block is cut to its own top-k first (argpartition), then merged with the state: the large
    temporaries are those of one block. Ties at equal scores may resolve either way.
    """

    def __init__(self, n_queries: int, k: int):
        self.scores = np.full((n_queries, k), -np.inf, dtype=np.float32)
        self.columns = np.full((n_queries, k), -1, dtype=np.int64)

    def add(self, rows: slice, scores: np.ndarray, first_column: int) -> None:
        k = self.scores.shape[1]
        if k < scores.shape[1]:
            part = np.argpartition(-scores, k - 1, axis=1)[:, :k].copy()  # copy: let the block's indices go
            scores = np.take_along_axis(scores, part, axis=1)
        else:
            part = np.broadcast_to(np.arange(scores.shape[1]), scores.shape)
        merged_scores = np.concatenate([self.scores[rows], scores], axis=1)
        merged_columns = np.concatenate([self.columns[rows], part + first_column], axis=1)
        keep = _top_k_rows(merged_scores, k)
        self.scores[rows] = np.take_along_axis(merged_scores, keep, axis=1)
        self.columns[rows] = np.take_along_axis(merged_columns, keep, axis=1)


def exact_top_k(query_emb: np.ndarray, doc_emb: np.ndarray, k: int, similarity: str) -> tuple[np.ndarray, np.ndarray]:
    """Top-k document rows and scores per query, scanning the corpus chunk by chunk with a running top-k."""
    queries, docs = _prepare(query_emb, similarity), _prepare(doc_emb, similarity)
    k = min(k, docs.shape[0])
    state = TopK(queries.shape[0], k)
    with step("searching", total=queries.shape[0]) as bar:
        for q0 in range(0, queries.shape[0], QUERY_CHUNK):
            rows = slice(q0, q0 + QUERY_CHUNK)
            for d0 in range(0, docs.shape[0], CORPUS_CHUNK):
                state.add(rows, queries[rows] @ docs[d0 : d0 + CORPUS_CHUNK].T, d0)
            bar.advance(queries[rows].shape[0])
    return state.columns, state.scores


def search_store(
    query_emb: np.ndarray, store: ShardStore, k: int, similarity: str, device: str | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Top-k store positions and scores per query, one shard in memory at a time.

    On a torch device other than the CPU (the model's GPU) the matrix products and the top-k run
    there; on the CPU NumPy does them (torch is not imported for that).
    """
    k = min(k, store.n_rows)
    if device and not device.startswith("cpu"):
        return _search_store_torch(query_emb, store, k, similarity, device)
    queries = _prepare(query_emb, similarity)
    state = TopK(queries.shape[0], k)
    with step("searching", total=store.count) as bar:
        for shard in range(store.count):
            start = store.bounds(shard)[0]
            for first, block in store.blocks(shard, CORPUS_CHUNK):
                docs = _prepare(block, similarity)
                for q0 in range(0, queries.shape[0], QUERY_CHUNK):
                    rows = slice(q0, q0 + QUERY_CHUNK)
                    state.add(rows, queries[rows] @ docs.T, start + first)
            bar.advance()
    return state.columns, state.scores


def _search_store_torch(
    query_emb: np.ndarray, store: ShardStore, k: int, similarity: str, device: str
) -> tuple[np.ndarray, np.ndarray]:
    import torch

    def prepare(matrix: np.ndarray) -> Any:
        tensor = torch.from_numpy(np.ascontiguousarray(matrix, dtype=np.float32)).to(device)
        return torch.nn.functional.normalize(tensor, dim=1) if similarity == "cosine" else tensor

    if similarity not in ("cosine", "dot"):
        raise ValueError(f"unsupported similarity {similarity!r}: expected 'cosine' or 'dot'")
    queries = prepare(query_emb)
    best_scores = torch.full((queries.shape[0], 0), -torch.inf, device=device)
    best_columns = torch.zeros((queries.shape[0], 0), dtype=torch.int64, device=device)
    with torch.inference_mode(), step("searching", total=store.count) as bar:
        for shard in range(store.count):
            start = store.bounds(shard)[0]
            for first, block in store.blocks(shard, CORPUS_CHUNK):
                docs = prepare(block)
                scores = torch.cat([best_scores, queries @ docs.T], dim=1)
                columns = torch.arange(start + first, start + first + docs.shape[0], device=device)
                columns = torch.cat([best_columns, columns.expand(queries.shape[0], -1)], dim=1)
                best_scores, keep = torch.topk(scores, min(k, scores.shape[1]), dim=1)
                best_columns = torch.gather(columns, 1, keep)
                del docs, scores, columns
            bar.advance()
    return best_columns.cpu().numpy(), best_scores.cpu().numpy()


def expand_to_documents(
    positions: np.ndarray, scores: np.ndarray, plan: EncodePlan, k: int
) -> list[list[tuple[int, float]]]:
    """Per query, (document row, score) best first: each distinct text stands for every document that has it."""
    wanted = np.unique(positions)
    rows = np.flatnonzero(np.isin(plan.doc_position, wanted))
    by_position = np.argsort(plan.doc_position[rows], kind="stable")
    rows, owner = rows[by_position], plan.doc_position[rows][by_position]
    starts = np.searchsorted(owner, wanted, side="left")
    ends = np.searchsorted(owner, wanted, side="right")
    documents = {int(p): rows[a:b] for p, a, b in zip(wanted, starts, ends)}
    out = []
    for query_positions, query_scores in zip(positions, scores):
        ranked: list[tuple[int, float]] = []
        for position, score in zip(query_positions, query_scores):
            for row in documents[int(position)]:
                ranked.append((int(row), float(score)))
            if len(ranked) >= k:
                break
        out.append(ranked[:k])
    return out


def model_device(model: DenseModel) -> str | None:
    """The torch device a model runs on, when it says (``device`` attribute), for search on it."""
    device = getattr(model, "device", None)
    return str(device) if device else None
