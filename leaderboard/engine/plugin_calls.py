"""The engine's work a plugin may call through ``leaderboard.toolkit``: encode, retrieve, rerank, build a judge.

Another framework's evaluation loop (the mteb bridge) and a task that uses a judge call these, so
their texts are encoded, searched and scored exactly as a run of this harness does it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from leaderboard.contract.judge import Judge
    from leaderboard.contract.model import DenseModel, Model, Reranker, Role, Run


def encode_texts(model: DenseModel, texts: Sequence[str], role: Role, batch_size: int) -> np.ndarray:
    """Embeddings of ``texts`` (a numpy array, rows in order), each distinct text encoded once."""
    from leaderboard.engine.dense import encode_unique

    return encode_unique(model, texts, role, batch_size)


def retrieve(model: Model, corpus: Mapping[str, str], queries: Mapping[str, str], top_k: int, batch_size: int) -> Run:
    """Top-``top_k`` documents per query, exactly as a ``RetrievalTask`` run gets them (pipelines included)."""
    from leaderboard.engine.evaluation import Context
    from leaderboard.engine.evaluation import retrieve as engine_retrieve

    return engine_retrieve(model, corpus, queries, top_k, Context(batch_size))


def rerank(model: Reranker, pairs: list[tuple[str, str]], batch_size: int) -> list[float]:
    """The reranker's score of each (query text, document text) pair, each distinct pair scored once."""
    from leaderboard.engine.evaluation import Context, rerank_pairs

    return rerank_pairs(model, pairs, Context(batch_size))


def build_judge(spec: str) -> Judge:
    """The judge registered under ``spec`` (a name, or a prefix plus its argument), built now."""
    from leaderboard.contract.judge import Judge, JudgeRequest
    from leaderboard.errors import LeaderboardError
    from leaderboard.registry import get_registry

    resolved = get_registry().resolve("judge", spec)
    judge = resolved.registration.factory(JudgeRequest(spec, resolved.argument))
    if not isinstance(judge, Judge):
        raise LeaderboardError(
            f"judge plugin {resolved.registration.plugin!r} returned {type(judge).__name__} for {spec!r}, "
            "not a leaderboard.contract.judge.Judge"
        )
    return judge
