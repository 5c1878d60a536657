"""MultiConIR as its paper ran it: every model scores each row's own candidates, with no first stage.

The authors' code (github.com/EIT-NLP/MultiConIR ``evaluation/models``): BM25 is rank_bm25 0.2.2
``BM25Okapi`` over ``text.lower().split()`` with the row's 2 (Task 1) or 11 (Tasks 2-4) candidates as the
corpus (``bm25-okapi``, checked score for score in test_bm25_okapi.py); a reranker such as
bge-reranker-v2-m3 scores every (query, candidate) pair of the row. Here: a reranker, alone or as the
second stage of a pipeline, scores exactly the row's candidates, and the first stage is never asked.
"""

from __future__ import annotations

from collections.abc import Sequence

from leaderboard import Pipeline
from leaderboard.contract.model import ModelKind, ModelMetadata, Reranker, Run, SparseModel
from leaderboard.engine.evaluation import Context, score_candidates


class WordOverlap(Reranker):
    """Scores a pair by the words query and document share; records every pair it is given."""

    def __init__(self) -> None:
        self.metadata = ModelMetadata(name="overlap", kind=ModelKind.RERANKER)
        self.pairs: list[tuple[str, str]] = []

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        self.pairs += pairs
        return [float(len(set(q.lower().split()) & set(d.lower().split()))) for q, d in pairs]


class NeverAsked(SparseModel):
    def __init__(self) -> None:
        self.metadata = ModelMetadata(name="never", kind=ModelKind.SPARSE)

    def search(self, corpus: dict[str, str], queries: dict[str, str], top_k: int) -> Run:
        raise AssertionError("a first stage on a candidate task")

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        raise AssertionError("a first stage on a candidate task")


def test_rerankers_score_every_candidate_of_each_row_with_no_first_stage(tmp_path):
    from leaderboard_tasks.multiconir import DemoMultiConIRTask

    for variant, size in (("task1", 2), ("task2", 11)):
        data = DemoMultiConIRTask(variant, data_dir=str(tmp_path)).load()
        for model in (WordOverlap(), Pipeline(NeverAsked(), WordOverlap(), depth=1)):
            reranker = model if isinstance(model, WordOverlap) else model.reranker
            scores = score_candidates(model, data.sets, Context(batch_size=8))
            expected = {(s.query, d) for s in data.sets for d in s.candidates}
            assert set(reranker.pairs) == expected  # each row's own candidates, all of them (depth 1 or not)
            for s in data.sets:
                assert len(s.candidates) == size
                words = set(s.query.lower().split())
                assert scores[s.key] == [float(len(words & set(d.lower().split()))) for d in s.candidates]
