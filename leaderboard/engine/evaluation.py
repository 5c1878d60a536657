"""The evaluation kinds: how the runner asks each kind of model for a task's work.

Instructions and prompts are applied here, once, for every kind, so the strings a model sees
are exactly those the result records.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from leaderboard.contract.model import DenseModel, Model, Reranker, Run, SparseModel
from leaderboard.contract.task import CandidateSet
from leaderboard.engine.dense import EmbeddingMemo, EncodeStats, dense_pair_scores, dense_search
from leaderboard.engine.instructions import format_document, format_query
from leaderboard.engine.pipeline import FirstStageRuns, Pipeline
from leaderboard.errors import BadInput
from leaderboard.metrics.retrieval import trec_order
from leaderboard.progress import step


@dataclass
class Context:
    """Per-run state the runner hands to every evaluation: batch size, counters, shared memo."""

    batch_size: int = 32
    instruction: str | None = None
    stats: EncodeStats = field(default_factory=EncodeStats)
    memo: EmbeddingMemo = field(default_factory=EmbeddingMemo)
    pairs_scored: int = 0
    first_stage: FirstStageRuns = field(default_factory=FirstStageRuns)
    task_key: tuple = ()  # (task name, data hash): identifies first-stage runs that can be shared
    first_stage_reused: bool | None = None


def retrieve(model: Model, corpus: dict[str, str], queries: dict[str, str], top_k: int, ctx: Context) -> Run:
    """Top-k retrieval from a corpus (EvaluationKind.RETRIEVAL)."""
    if isinstance(model, Pipeline):
        return pipeline_retrieve(model, corpus, queries, ctx)
    queries = {qid: format_query(model, text, ctx.instruction) for qid, text in queries.items()}
    corpus = {did: format_document(model, text) for did, text in corpus.items()}
    if isinstance(model, DenseModel):
        return dense_search(model, corpus, queries, top_k, ctx.batch_size, ctx.stats, ctx.memo)
    if isinstance(model, SparseModel):
        return model.search(corpus, queries, top_k)
    if isinstance(model, Reranker):
        raise BadInput(
            f"Model {model.metadata.name!r} is a reranker: it scores given candidates and cannot search a corpus "
            f'on its own. Put a first-stage retriever in front of it, e.g. --model "bm25 >> {model.metadata.name}".'
        )
    search = getattr(model, "search", None)
    if callable(search):
        return search(corpus, queries, top_k)
    raise BadInput(f"Model {model.metadata.name!r} ({type(model).__name__}) implements no retrieval method.")


def score_candidates(model: Model, sets: list[CandidateSet], ctx: Context) -> dict[str, list[float]]:
    """Score each query against its own small candidate set (EvaluationKind.CANDIDATES)."""
    queries = [format_query(model, s.query, ctx.instruction) for s in sets]
    documents = [[format_document(model, d) for d in s.candidates] for s in sets]
    flat_q = [q for q, docs in zip(queries, documents) for _ in docs]
    flat_d = [d for docs in documents for d in docs]
    ctx.pairs_scored += len(flat_d)
    if isinstance(model, Pipeline):  # the candidates are given: only the reranker has work to do
        model = model.reranker
    if isinstance(model, DenseModel):
        flat = dense_pair_scores(model, flat_q, flat_d, ctx.batch_size, ctx.stats, ctx.memo).tolist()
    elif isinstance(model, Reranker):
        flat = rerank_pairs(model, list(zip(flat_q, flat_d)), ctx)
    elif isinstance(model, SparseModel):
        flat = []
        with step("scoring candidate sets", total=len(sets)) as bar:
            for query, docs in zip(queries, documents):
                flat.extend(model.score(query, docs))
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


def pipeline_retrieve(model: Pipeline, corpus: dict[str, str], queries: dict[str, str], ctx: Context) -> Run:
    """First stage (shared across pipelines within the run), then the reranker on its top-k."""
    depth = model.spec.depth
    key = (model.first.metadata.name, model.first.metadata.revision, *ctx.task_key, depth, ctx.instruction)
    first_ctx = Context(ctx.batch_size, ctx.instruction, ctx.stats, ctx.memo)
    first_run, ctx.first_stage_reused = ctx.first_stage.get(
        key, lambda: retrieve(model.first, corpus, queries, depth, first_ctx)
    )
    formatted_q = {qid: format_query(model.reranker, text, ctx.instruction) for qid, text in queries.items()}
    pairs, owners = [], []
    for qid, ranking in first_run.items():
        for doc_id, _ in trec_order(ranking)[:depth]:
            pairs.append((formatted_q[qid], format_document(model.reranker, corpus[doc_id])))
            owners.append((qid, doc_id))
    ctx.pairs_scored += len(pairs)
    scores = rerank_pairs(model.reranker, pairs, ctx)
    run: Run = {qid: {} for qid in queries}
    for (qid, doc_id), score in zip(owners, scores):
        run[qid][doc_id] = score
    return run
