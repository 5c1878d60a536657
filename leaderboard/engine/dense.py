"""Search and candidate scoring for bi-encoders, built on a model's ``encode`` alone.

Queries and candidate sets are small: their distinct texts are encoded in memory (``encode_unique``).
A corpus is not: it streams from its source into an ``EncodePlan`` (dedup + one global longest-first
order), is encoded shard by shard into a ``ShardStore`` (memory-mapped ``.npy`` files, resumable)
and searched shard by shard with a running top-k, on the model's device (torch on a GPU, NumPy on
CPU; torch is imported only then). Peak memory is one shard plus the top-k state plus a few bytes
per document (``engine.shards``), whatever the corpus size.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from leaderboard.contract.model import DenseModel, Role, Run
from leaderboard.engine.shards import SHARD_ROWS, DocumentTexts, EncodePlan, ShardStore, make_plan
from leaderboard.progress import step

# Query rows x corpus columns scored at once: 256 x 8192 float32 = 8 MiB, plus argpartition's
# int64 indices (16 MiB): the largest temporaries of a search, whatever the corpus size.
QUERY_CHUNK = 256
CORPUS_CHUNK = 8192
STORAGE_DTYPES = {"float16": "float16"}  # --dtype -> shard dtype; anything else is stored as float32


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

    def __init__(self, disk=None) -> None:
        self._rows: dict[tuple[str, str], np.ndarray] = {}
        self.disk = disk

    def get(self, role: str, text: str) -> np.ndarray | None:
        return self._rows.get((role, text))

    def put(self, role: str, texts: Sequence[str], embeddings: Sequence[np.ndarray] | np.ndarray) -> None:
        for text, row in zip(texts, embeddings):
            self._rows[(role, text)] = row


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

    @property
    def storage_dtype(self) -> str:
        return STORAGE_DTYPES.get(self.dtype or "", "float32")


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
    for start in range(0, len(texts), span):
        block = list(texts[start : start + span])
        chunks.append(np.asarray(model.encode(block, role), dtype=np.float32))
        if advance is not None:
            advance(len(block))
    return np.concatenate(chunks, axis=0)


def encode_shard(model: DenseModel, job: ShardJob, store: ShardStore, role: Role, batch_size: int, advance=None) -> int:
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
    stats: EncodeStats | None,
    memo: EmbeddingMemo | None,
    pool: ShardPool | None = None,
) -> None:
    """Fill every unfinished shard of ``store`` (finished ones, from an interrupted run, are kept)."""
    pending = store.pending()
    if stats is not None:
        stats.requested += len(plan.doc_position)
    in_memory = store.folder is None

    def jobs():
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


# -- search -------------------------------------------------------------------------------------


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


def dense_search(
    model: DenseModel,
    corpus: Mapping[str, str],
    queries: Mapping[str, str],
    top_k: int,
    batch_size: int,
    stats: EncodeStats | None = None,
    memo: EmbeddingMemo | None = None,
    *,
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
    encode_corpus(model, documents, plan, store, batch_size, stats, memo, options.pool)
    query_emb = encode_unique(
        model, [queries[q] for q in query_ids], "query", batch_size, stats, "encoding queries", memo
    )
    positions, scores = search_store(query_emb, store, top_k, similarity, model_device(model))
    ranked = expand_to_documents(positions, scores, plan, top_k)
    if not options.keep_shards:
        store.remove()
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
    q = _prepare(encode_unique(model, queries, "query", batch_size, stats, "encoding queries", memo), similarity)
    d = _prepare(encode_unique(model, documents, "document", batch_size, stats, "encoding documents", memo), similarity)
    return (q * d).sum(axis=1)
