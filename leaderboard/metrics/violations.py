"""NegConstraint violation metrics per query: does a violating passage reach the top K, and how far
does the best violating passage rank from the best satisfying one?

Both read the run in trec_eval order (``leaderboard.metrics.negation``), like every other metric.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from leaderboard.contract.model import Run
from leaderboard.metrics.negation import rank_of, top_k_ids

K_VALUES = (1, 5, 10)


def violation_in_top_k(run: Run, violating: dict[str, set[str]], k: int) -> dict[str, float]:
    """1.0 where any violating passage is among the query's top k, else 0.0 (lower is better).

    Every query with a violation judgment gets a value; an empty set is a judgment (none violate: 0.0).
    """
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    return {qid: 1.0 if set(top_k_ids(run.get(qid, {}), k)) & set(bad) else 0.0 for qid, bad in violating.items()}


def violations_per_query(
    run: Run, violating: dict[str, set[str]], k_values: Iterable[int] = K_VALUES
) -> dict[str, dict[str, float]]:
    """query id -> {"violation_at_1": ..., "violation_at_5": ..., "violation_at_10": ...}."""
    out: dict[str, dict[str, float]] = {qid: {} for qid in violating}
    for k in k_values:
        for qid, value in violation_in_top_k(run, violating, k).items():
            out[qid][f"violation_at_{k}"] = value
    return out


def _finite_rank(ranking: dict[str, float], doc_id: str) -> int:
    # rank_of gives inf to a passage the run did not return; we use one past the last retrieved
    # rank instead, so differences and means stay finite (two unretrieved passages tie at 0).
    rank = rank_of(ranking, doc_id)
    return len(ranking) + 1 if math.isinf(rank) else int(rank)


def violator_relative_rank(
    run: Run, satisfying: dict[str, list[str]], violating: dict[str, list[str]]
) -> dict[str, float]:
    """rank(best violating passage) - rank(best satisfying passage), per query (higher is better).

    Ranks are 1-based in trec order; "best" is the highest-ranked of the query's passages. Positive:
    the satisfying passage ranks above the violator by that many places; 0: both unretrieved;
    negative: the violator ranks higher. A passage not retrieved ranks (number retrieved + 1).
    Only queries with at least one satisfying and one violating passage get a value.
    """
    out = {}
    for qid in satisfying.keys() & violating.keys():
        good, bad = satisfying[qid], violating[qid]
        if not good or not bad:
            continue
        ranking = run.get(qid, {})
        best_good = min(_finite_rank(ranking, d) for d in good)
        best_bad = min(_finite_rank(ranking, d) for d in bad)
        out[qid] = float(best_bad - best_good)
    return {qid: out[qid] for qid in satisfying if qid in out}  # in the caller's query order
