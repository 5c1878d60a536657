"""The evaluation kinds: how the runner asks each kind of model for a task's work.

Instructions and prompts are applied here, once, for every kind, so the strings a model sees
are exactly those the result records.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from leaderboard.contract.model import DenseModel, Model, Reranker, Run, SparseModel
from leaderboard.contract.task import CandidateSet
from leaderboard.engine.contract_checks import check_run, check_scores
from leaderboard.engine.dense import EmbeddingMemo, EncodeStats, SearchOptions, dense_pair_scores, dense_search
from leaderboard.engine.instructions import format_document, format_query
from leaderboard.engine.pipeline import FirstStageRuns, Pipeline
from leaderboard.errors import BadInput
from leaderboard.metrics.retrieval import trec_order
from leaderboard.progress import step


@dataclass
class Context:
    """Per-run state the runner hands to every evaluation: batch size, counters, shared memo."""

    batch_size: int  # RunOptions.batch_size: the default is declared there only
    instruction: str | None = None
    stats: EncodeStats = field(default_factory=EncodeStats)
    memo: EmbeddingMemo = field(default_factory=EmbeddingMemo)
    pairs_scored: int = 0
    first_stage: FirstStageRuns = field(default_factory=FirstStageRuns)
    task_key: tuple[Any, ...] = ()  # (task name, data hash): identifies first-stage runs that can be shared
    first_stage_reused: bool | None = None
    search: SearchOptions = field(default_factory=SearchOptions)  # corpus embeddings: shards, dtype, pool
    # Per-query instructions from the data (RetrievalData.query_instructions); a query's own wins.
    query_instructions: Mapping[str, str] = field(default_factory=dict)

    def instruction_for(self, qid: str) -> str | None:
        return self.query_instructions.get(qid, self.instruction)


class PromptedCorpus(Mapping[str, str]):
    """A corpus as a model sees it (its document prompt prepended), computed per read, never copied."""

    def __init__(self, corpus: Mapping[str, str], prompt: str):
        self.corpus, self.prompt = corpus, prompt

    def __getitem__(self, doc_id: str) -> str:
        return self.prompt + self.corpus[doc_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self.corpus)

    def __len__(self) -> int:
        return len(self.corpus)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self.corpus


def _as_seen_by(model: Model, corpus: Mapping[str, str]) -> Any:
    # Sparse models' contract names dict; they only read it, and a Mapping on disk reads like one.
    prompt = model.metadata.document_prompt
    return PromptedCorpus(corpus, prompt) if prompt else corpus


def retrieve(model: Model, corpus: Mapping[str, str], queries: Mapping[str, str], top_k: int, ctx: Context) -> Run:
    """Top-k retrieval from a corpus (EvaluationKind.RETRIEVAL)."""
    if isinstance(model, Pipeline):
        return pipeline_retrieve(model, corpus, queries, ctx)
    queries = {qid: format_query(model, text, ctx.instruction_for(qid)) for qid, text in queries.items()}
    if isinstance(model, DenseModel):
        return dense_search(
            model,
            corpus,
            queries,
            top_k,
            ctx.batch_size,
            ctx.stats,
            memo=ctx.memo,
            document_prompt=model.metadata.document_prompt,
            options=ctx.search,
        )
    seen = _as_seen_by(model, corpus)
    if isinstance(model, SparseModel):
        return checked_run(model, model.search(seen, queries, top_k), queries, corpus)
    if isinstance(model, Reranker):
        raise BadInput(
            f"Model {model.metadata.name!r} is a reranker: it scores given candidates and cannot search a corpus "
            f'on its own. Put a first-stage retriever in front of it, e.g. --model "bm25 >> {model.metadata.name}".'
        )
    search = getattr(model, "search", None)
    if callable(search):
        return checked_run(model, search(seen, queries, top_k), queries, corpus)
    raise BadInput(f"Model {model.metadata.name!r} ({type(model).__name__}) implements no retrieval method.")


def checked_run(model: Model, run: Run, queries: Mapping[str, str], corpus: Mapping[str, str]) -> Run:
    check_run(model, run, queries, corpus)
    return run


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
                scores = model.score(query, docs)
                check_scores(model, "score()", scores, len(docs), "documents")
                flat.extend(scores)
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
            given = model.score_pairs(block)
            check_scores(model, "score_pairs()", given, len(block), "pairs")
            scores.update(zip(block, (float(x) for x in given)))
            bar.advance(len(block))
    return [scores[p] for p in pairs]


def pipeline_retrieve(model: Pipeline, corpus: Mapping[str, str], queries: Mapping[str, str], ctx: Context) -> Run:
    """First stage (shared across pipelines within the run), then the reranker on its top-k."""
    depth = model.spec.depth
    key = (model.first.metadata.name, model.first.metadata.revision, *ctx.task_key, depth, ctx.instruction)
    first_ctx = Context(
        ctx.batch_size,
        ctx.instruction,
        ctx.stats,
        ctx.memo,
        search=ctx.search,
        query_instructions=ctx.query_instructions,
    )
    first_run, ctx.first_stage_reused = ctx.first_stage.get(
        key, lambda: retrieve(model.first, corpus, queries, depth, first_ctx)
    )
    formatted_q = {qid: format_query(model.reranker, text, ctx.instruction_for(qid)) for qid, text in queries.items()}
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
