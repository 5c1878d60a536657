"""The plugin: one model class and one hook. Only the harness's public contract is used."""

from __future__ import annotations

from collections.abc import Sequence

from leaderboard_plugins.bm25 import BM25
from leaderboard_plugins.sentence_transformers import minilm

from leaderboard import hookimpl
from leaderboard.contract.model import ModelKind, ModelMetadata, ModelRequest, Run, SparseModel
from leaderboard.engine.dense import dense_search

from .fusion import RRF_K, rrf

DEPTH = 100  # how deep each retriever's list goes before fusion


class HybridRRF(SparseModel):
    """Retrieves with BM25 and with a bi-encoder, then fuses the two rankings by RRF.

    Declared as a 'sparse' kind because it implements search() and score() itself (the harness's
    dense path needs only encode(); this model does its own fusion).
    """

    def __init__(self, request: ModelRequest):
        self.bm25 = BM25()
        self.dense = minilm(request)
        self.batch_size = request.batch_size
        self.metadata = ModelMetadata(
            name="hybrid-rrf-bm25-minilm",
            kind=ModelKind.SPARSE,
            revision=f"{self.bm25.metadata.revision}+{self.dense.metadata.revision}",
            n_parameters=self.dense.metadata.n_parameters,
            max_length=self.dense.metadata.max_length,
            similarity="rrf",
            license="apache-2.0",
            reference="https://plg.uwaterloo.ca/~gvcormac/cormacksigir09-rrf.pdf",
        )

    def settings(self) -> dict:
        return {"rrf_k": RRF_K, "depth": DEPTH, "bm25": self.bm25.settings(), "dense": self.dense.settings()}

    def search(self, corpus: dict[str, str], queries: dict[str, str], top_k: int) -> Run:
        lexical = self.bm25.search(corpus, queries, DEPTH)
        semantic = dense_search(self.dense, corpus, queries, DEPTH, self.batch_size)
        return {qid: rrf([lexical.get(qid, {}), semantic.get(qid, {})], top_k=top_k) for qid in queries}

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        ids = [str(i) for i in range(len(documents))]
        corpus = dict(zip(ids, documents))
        lexical = dict(zip(ids, self.bm25.score(query, documents)))
        semantic = dense_search(self.dense, corpus, {"q": query}, len(ids), self.batch_size)["q"]
        fused = rrf([lexical, semantic])
        return [fused.get(i, 0.0) for i in ids]


@hookimpl
def register_models(register):
    register(
        "hybrid-rrf", HybridRRF, description="BM25 + all-MiniLM-L6-v2 fused by reciprocal rank fusion (example plugin)"
    )
