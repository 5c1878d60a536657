"""``--corpus-sample N``: a smaller corpus for smoke tests (the result is partial by construction).

The sample keeps every document the kept queries judge (so each query can still find its answers)
and fills up to N documents with a seeded uniform sample (``--seed``) of the others. Scores on a
sample are higher than on the full corpus (fewer distractors): never compare them with full runs.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from leaderboard.contract.task import RetrievalData
from leaderboard.data.corpus import JsonlCorpus


def sample_corpus(data: RetrievalData, size: int, seed: int) -> int:
    """Replace ``data.corpus`` by its sample of ``size`` documents (in place); returns the full size."""
    corpus = data.corpus
    total = len(corpus)
    if size >= total:
        return total
    ids = None if isinstance(corpus, JsonlCorpus) else list(corpus)
    row_of = corpus.row_of if isinstance(corpus, JsonlCorpus) else {d: i for i, d in enumerate(ids or [])}.get
    judged_rows = sorted({r for judged in data.qrels.values() for d in judged if (r := row_of(d)) is not None})
    others = np.setdiff1d(np.arange(total), np.asarray(judged_rows, dtype=np.int64), assume_unique=True)
    extra = max(size - len(judged_rows), 0)
    chosen = np.random.default_rng(seed).choice(others, size=min(extra, len(others)), replace=False)
    rows = np.sort(np.concatenate([np.asarray(judged_rows, dtype=np.int64), chosen]))
    data.corpus = _subset(corpus, ids, rows)
    return total


def _subset(corpus: Mapping[str, str], ids: list[str] | None, rows: np.ndarray) -> Mapping[str, str]:
    if isinstance(corpus, JsonlCorpus):
        return corpus.subset(rows)
    assert ids is not None
    return {ids[int(r)]: corpus[ids[int(r)]] for r in rows}
