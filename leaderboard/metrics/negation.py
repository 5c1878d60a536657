"""Negation metrics: LSNC@K and the paired constraint win rate.

LSNC@K (Log-Scaled Negation Consistency, ComLQ paper):
    LSNC@K = -log((V + 1) / (K + 1)) / log(K + 1)
where V is the number of passages among the top K retrieved that violate the query's negated
condition. V = 0 gives 1.0 (fully consistent), V = K gives 0.0. "Top K" is the run in
trec_eval order (score descending, ties by id descending), the same order every metric uses.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from leaderboard.contract.model import Run
from leaderboard.metrics.retrieval import trec_order


def lsnc(violations: int, k: int) -> float:
    """LSNC@K of one query with V violating documents in its top K: -log((V+1)/(K+1)) / log(K+1)."""
    if not 0 <= violations <= k:
        raise ValueError(f"V must be between 0 and K={k}, got {violations}")
    return -math.log((violations + 1) / (k + 1)) / math.log(k + 1)


def top_k_ids(ranking: dict[str, float], k: int) -> list[str]:
    """The ids of a ranking's first k documents, in trec_eval's order (score descending, ties by id descending)."""
    return [doc for doc, _ in trec_order(ranking)[:k]]


def lsnc_per_query(run: Run, violating: dict[str, set[str]], k: int) -> dict[str, float]:
    """LSNC@k for each query that has a violation judgment (an empty set is a judgment: none violate)."""
    return {qid: lsnc(len(set(top_k_ids(run.get(qid, {}), k)) & bad), k) for qid, bad in violating.items()}


def rank_of(ranking: dict[str, float], doc_id: str) -> float:
    """1-based rank in trec order; a document the run did not return ranks below everything."""
    for position, doc in enumerate(top_k_ids(ranking, len(ranking)), start=1):
        if doc == doc_id:
            return position
    return math.inf


def paired_wins(run: Run, pairs: dict[str, tuple[Iterable[str], Iterable[str]]]) -> dict[str, float]:
    """1.0 where the best satisfying passage ranks strictly above the best violating one, else 0.0.

    Both passages missing from the run is a tie, and a tie counts as a loss.
    """
    wins = {}
    for qid, (satisfying, violating) in pairs.items():
        ranking = run.get(qid, {})
        best_sat = min((rank_of(ranking, d) for d in satisfying), default=math.inf)
        best_bad = min((rank_of(ranking, d) for d in violating), default=math.inf)
        wins[qid] = 1.0 if best_sat < best_bad else 0.0
    return wins
