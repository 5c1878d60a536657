"""Metrics over groups of query variants, per group, exactly as their mteb tasks define them.

Both group queries by the part of their id before the first "_" (mteb's ``key.split("_")[0]``):

* robustness@10 (InstructIR, Oh et al. 2024, arXiv:2402.14334; mteb ``robustness_at_10``): a base query is asked
  with several instructions (``<base>_<i>``); its value is the lowest nDCG@10 over them, and the
  task's score is the mean over base queries.
* paired accuracy (NevIR, Weller et al. 2023, arXiv:2305.07614; mteb ``paired_accuracy``): a pair ``<key>_q1`` /
  ``<key>_q2`` of contrasting questions over the same two passages scores 1 only when both rank their
  own passage first (Recall@1 = 1 for both), else 0; the task's score is the mean over pairs.

The per-query nDCG@10 and Recall@1 come from pytrec_eval (``metrics.retrieval.per_query_scores``),
as mteb's come from pytrec_eval too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def group_of(query_id: str) -> str:
    return query_id.split("_")[0]


def robustness_per_query(ndcg_at_10: Mapping[str, float], query_ids: Iterable[str]) -> dict[str, float]:
    """base query -> min nDCG@10 over its instruction variants (the judged ``query_ids``)."""
    groups: dict[str, list[float]] = {}
    for qid in query_ids:
        groups.setdefault(group_of(qid), []).append(ndcg_at_10[qid])
    return {base: min(values) for base, values in groups.items()}


def paired_accuracy_per_pair(recall_at_1: Mapping[str, float], query_ids: Iterable[str]) -> dict[str, float]:
    """pair key -> 1.0 when both ``<key>_q1`` and ``<key>_q2`` have Recall@1 = 1, else 0.0."""
    keys = dict.fromkeys(group_of(q) for q in query_ids)
    return {key: 1.0 if recall_at_1[f"{key}_q1"] == 1 and recall_at_1[f"{key}_q2"] == 1 else 0.0 for key in keys}
