"""Ranked-retrieval metrics, computed by pytrec_eval (the reference trec_eval code).

* nDCG@k, MAP@k, Recall@k, P@k for k in K_VALUES: pytrec_eval's ndcg_cut, map_cut, recall, P.
* MRR@10: pytrec_eval's recip_rank on the run truncated to its top 10, in trec_eval's own
  order (score descending, ties broken by document id descending).
* A judged query that the run left empty scores 0 on every metric (as ``trec_eval -c``);
  pytrec_eval alone would silently drop it from the average.
* ``relevance_level``: the lowest qrels grade the binary metrics (MAP, Recall, P, MRR) count as
  relevant, passed to pytrec_eval's ``RelevanceEvaluator`` (TREC-DL counts grade >= 2). nDCG uses
  the graded gains whatever the level (trec_eval does the same).
* ``drop_identical_ids``: BEIR's evaluator removes a retrieved document whose id equals the query
  id before scoring (its ``ignore_identical_ids``, on by default; mteb sets it for ArguAna, Quora, ...).
"""

from __future__ import annotations

from collections.abc import Iterable

import pytrec_eval

from leaderboard.contract.model import Run
from leaderboard.contract.task import Metric
from leaderboard.metrics.labels import RETRIEVAL_LABELS

K_VALUES = (1, 3, 5, 10, 100)
MRR_CUTOFF = 10
_MEASURES = {
    "ndcg": "ndcg_cut",
    "map": "map_cut",
    "recall": "recall",
    "precision": "P",
}


def metric_names(k_values: Iterable[int] = K_VALUES) -> list[str]:
    """The names per_query_scores returns: ndcg/map/recall/precision at each k, and mrr_at_10."""
    names = [f"{name}_at_{k}" for name in _MEASURES for k in k_values]
    return names + [f"mrr_at_{MRR_CUTOFF}"]


HEADLINE = ("ndcg_at_10", "map_at_100", "recall_at_100", f"mrr_at_{MRR_CUTOFF}")  # kept per query in results


def metric_definitions(k_values: Iterable[int] = K_VALUES) -> list[Metric]:
    """Every metric in [0, 1], higher is better; descriptions say what pytrec_eval computes."""
    out = []
    for name, trec in _MEASURES.items():
        for k in k_values:
            label = f"{RETRIEVAL_LABELS[name]}@{k}"
            description = f"{label} (pytrec_eval {trec}), mean over judged queries"
            out.append(Metric(f"{name}_at_{k}", "higher", description, label=label))
    out.append(
        Metric(
            f"mrr_at_{MRR_CUTOFF}",
            "higher",
            f"MRR@{MRR_CUTOFF} (pytrec_eval recip_rank on the top {MRR_CUTOFF}), mean over judged queries",
            label=f"MRR@{MRR_CUTOFF}",
        )
    )
    return out


def drop_identical_ids(run: Run) -> tuple[Run, int]:
    """The run without documents whose id equals their query's id, and how many were dropped (BEIR's rule)."""
    dropped = sum(1 for qid, ranking in run.items() if qid in ranking)
    if not dropped:
        return run, 0
    return {qid: {d: s for d, s in ranking.items() if d != qid} for qid, ranking in run.items()}, dropped


def trec_order(ranking: dict[str, float]) -> list[tuple[str, float]]:
    """trec_eval's ranking order: score descending, then document id descending."""
    return sorted(ranking.items(), key=lambda item: (item[1], item[0]), reverse=True)


def truncate(run: Run, depth: int) -> Run:
    """Each query's first ``depth`` documents, in trec_eval's order."""
    return {qid: dict(trec_order(ranking)[:depth]) for qid, ranking in run.items()}


def per_query_scores(
    qrels: dict[str, dict[str, int]], run: Run, k_values: Iterable[int] = K_VALUES, relevance_level: int = 1
) -> dict[str, dict[str, float]]:
    """query id -> metric -> value, for every judged query."""
    k_values = tuple(k_values)
    cut = ",".join(str(k) for k in k_values)
    measures = {f"{trec}.{cut}" for trec in _MEASURES.values()}
    run = {
        qid: {doc: float(score) for doc, score in ranking.items()}
        for qid, ranking in run.items()
        if qid in qrels and ranking
    }
    evaluated = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=relevance_level).evaluate(run)
    mrr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}, relevance_level=relevance_level).evaluate(
        truncate(run, MRR_CUTOFF)
    )
    names = metric_names(k_values)
    out: dict[str, dict[str, float]] = {}
    for qid in qrels:
        values = evaluated.get(qid)
        if values is None:
            out[qid] = dict.fromkeys(names, 0.0)
            continue
        row = {f"{name}_at_{k}": float(values[f"{trec}_{k}"]) for name, trec in _MEASURES.items() for k in k_values}
        row[f"mrr_at_{MRR_CUTOFF}"] = float(mrr[qid]["recip_rank"])
        out[qid] = row
    return out


def mean_scores(per_query: dict[str, dict[str, float]], query_ids: Iterable[str] | None = None) -> dict[str, float]:
    """Each metric's mean over the queries (all, or those of ``query_ids`` that have values)."""
    ids = list(per_query) if query_ids is None else [q for q in query_ids if q in per_query]
    if not ids:
        return {}
    names = next(iter(per_query.values())).keys()
    return {name: sum(per_query[q][name] for q in ids) / len(ids) for name in names}


def select(per_query: dict[str, dict[str, float]], names: Iterable[str]) -> dict[str, dict[str, float]]:
    """Only the named metrics of each query (those it has): what a result keeps per query."""
    names = tuple(names)
    return {qid: {n: values[n] for n in names if n in values} for qid, values in per_query.items()}
