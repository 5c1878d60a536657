"""The evaluation kinds: how the runner asks each kind of model for a task's work.

Instructions and prompts are applied here, once, for every kind, so the strings a model sees
are exactly those the result records.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .dense import EmbeddingMemo, EncodeStats, dense_pair_scores, dense_search
from .errors import BadInput
from .instructions import format_document, format_query
from .model import DenseModel, Model, Reranker, Run, SparseModel
from .progress import step
from .task import CandidateSet


@dataclass
class Context:
    """Per-run state the runner hands to every evaluation: batch size, counters, shared memo."""

    batch_size: int = 32
    instruction: str | None = None
    stats: EncodeStats = field(default_factory=EncodeStats)
    memo: EmbeddingMemo = field(default_factory=EmbeddingMemo)
    pairs_scored: int = 0


def retrieve(model: Model, corpus: dict[str, str], queries: dict[str, str], top_k: int, ctx: Context) -> Run:
    """Top-k retrieval from a corpus (EvaluationKind.RETRIEVAL)."""
    queries = {qid: format_query(model, text, ctx.instruction) for qid, text in queries.items()}
    corpus = {did: format_document(model, text) for did, text in corpus.items()}
    if isinstance(model, DenseModel):
        return dense_search(model, corpus, queries, top_k, ctx.batch_size, ctx.stats, ctx.memo)
    if isinstance(model, SparseModel):
        return model.search(corpus, queries, top_k)
    if isinstance(model, Reranker):
        raise BadInput(
            f"Model {model.metadata.name!r} is a reranker: it scores given candidates and cannot search a corpus "
            f"on its own. Put a first-stage retriever in front of it, e.g. --model \"bm25 >> {model.metadata.name}\"."
        )
    search = getattr(model, "search", None)
    if callable(search):
        return search(corpus, queries, top_k)
    raise BadInput(f"Model {model.metadata.name!r} ({type(model).__name__}) implements no retrieval method.")


def score_candidates(model: Model, sets: list[CandidateSet], ctx: Context) -> dict[str, list[float]]:
    """Score each query against its own small candidate set (EvaluationKind.CANDIDATES)."""
    queries = [format_query(model, s.query, ctx.instruction) for s in sets]
    flat_q = [q for q, s in zip(queries, sets) for _ in s.candidates]
    flat_d = [format_document(model, d) for s in sets for d in s.candidates]
    ctx.pairs_scored += len(flat_d)
    if isinstance(model, DenseModel):
        flat = dense_pair_scores(model, flat_q, flat_d, ctx.batch_size, ctx.stats, ctx.memo).tolist()
    elif isinstance(model, Reranker):
        flat = rerank_pairs(model, list(zip(flat_q, flat_d)), ctx)
    elif isinstance(model, SparseModel):
        flat = []
        with step("scoring candidate sets", total=len(sets)) as bar:
            for query, s in zip(queries, sets):
                flat.extend(model.score(query, [format_document(model, d) for d in s.candidates]))
                bar.advance()
    else:
        raise BadInput(f"Model {model.metadata.name!r} ({type(model).__name__}) cannot score candidates.")
    out, start = {}, 0
    for s in sets:
        out[s.key] = [float(x) for x in flat[start : start + len(s.candidates)]]
        start += len(s.candidates)
    return out


def rerank_pairs(model: Reranker, pairs: list[tuple[str, str]], ctx: Context) -> list[float]:
    """Score (query, document) pairs, each distinct pair once, in batches with progress."""
    unique = list(dict.fromkeys(pairs))
    scores: dict[tuple[str, str], float] = {}
    span = max(ctx.batch_size, 1) * 8
    with step("scoring pairs (reranker)", total=len(unique)) as bar:
        for start in range(0, len(unique), span):
            block = unique[start : start + span]
            scores.update(zip(block, (float(x) for x in model.score_pairs(block))))
            bar.advance(len(block))
    return [scores[p] for p in pairs]
