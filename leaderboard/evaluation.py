"""The evaluation kinds: how the runner asks each kind of model for a task's work."""

from __future__ import annotations

from .dense import EncodeStats, dense_search
from .errors import BadInput
from .model import DenseModel, Model, Reranker, Run, SparseModel


def retrieve(model: Model, corpus: dict[str, str], queries: dict[str, str], top_k: int, batch_size: int, stats: EncodeStats) -> Run:
    """Top-k retrieval from a corpus (EvaluationKind.RETRIEVAL)."""
    if isinstance(model, DenseModel):
        return dense_search(model, corpus, queries, top_k, batch_size, stats)
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
