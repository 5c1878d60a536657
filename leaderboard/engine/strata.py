"""Query complexity (CW) of a retrieval result: the paper's mean CW and this project's CW strata.

CW is eq. 1 of "Complexity-Aware Training" (``leaderboard.metrics.complexity``), counted on the raw
query text, before any instruction or prompt is added. ``task_details["complexity"]`` holds:

* ``mean_cw`` and ``queries``: the mean CW of the task's evaluated queries, the number the paper
  reports per benchmark (its Table 19), with ``definition`` (tokeniser and stopword list);
* ``strata``: this project's own analysis, not the paper's: quantile buckets of per-query CW,
  reported as subsets ``cw=<low>-<high>`` of the main split (main metric, with their member queries
  in ``ScoreReport.subset_queries``), and the Pearson r of per-query CW vs per-query main score
  within this task. The paper's r >= 0.95 is a correlation across benchmarks and training conditions;
  a per-query r is a different statistic and is never presented as the paper's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from leaderboard.contract.task import COMPLEXITY_VIEW_TITLE, ScoreReport, View

N_BUCKETS = 4  # quartiles, as quantile buckets with few distinct CW values degrade gracefully
STATISTIC = (
    "Pearson r of per-query CW and per-query {metric} over the {n} queries of this task: this project's own "
    "analysis, not the paper's r (a correlation across benchmarks and training conditions, its Table 8)"
)


def add_complexity_strata(
    report: ScoreReport, queries: Mapping[str, str], metric: str, split: str, n_buckets: int = N_BUCKETS
) -> None:
    """Add the mean CW, per-CW-bucket means of ``metric`` and CW's per-query correlation with it to
    ``report`` (in place). Uses the queries that have a per-query value of ``metric``; does nothing when
    there are none."""
    from leaderboard.metrics import complexity

    scores = {q: row[metric] for q, row in report.per_query.items() if metric in row and q in queries}
    if not scores:
        return
    cw = {q: complexity.content_words(queries[q]) for q in scores}
    label_of, boundaries = complexity.cw_buckets(cw, n_buckets)
    members: dict[str, list[str]] = {}
    for qid, label in label_of.items():
        members.setdefault(label, []).append(qid)
    buckets = []
    split_scores = report.scores.setdefault(split, {})
    sizes = report.subset_sizes.setdefault(split, {})
    for low, high in boundaries:
        label = f"cw={low}" if low == high else f"cw={low}-{high}"
        qids = members[label]
        mean = sum(scores[q] for q in qids) / len(qids)
        split_scores[label] = {metric: mean}
        sizes[label] = len(qids)
        report.subset_queries[label] = sorted(qids)  # the stratum's own queries give its interval
        buckets.append({"subset": label, "low": low, "high": high, "queries": len(qids), metric: mean})
    correlation = complexity.cw_correlation(cw, scores)
    report.details["complexity"] = {
        "mean_cw": complexity.mean_cw(queries[q] for q in scores),
        "queries": len(scores),
        "definition": complexity.describe(),
        "strata": {
            "analysis": "this project's own, not the paper's",
            "method": complexity.describe_strata(),
            "metric": metric,
            "split": split,
            "n_buckets": n_buckets,
            "buckets": buckets,
            "statistic": STATISTIC.format(metric=metric, n=len(scores)),
            "per_query_pearson_r": correlation[0] if correlation else None,
            "per_query_pearson_p": correlation[1] if correlation else None,
        },
    }


def complexity_view(details: dict[str, Any]) -> dict[str, Any]:
    """The curve the app draws: the main metric over the CW buckets, in increasing CW."""
    strata = details["strata"]
    return asdict(
        View(
            kind="curve",
            title=COMPLEXITY_VIEW_TITLE,
            subsets=tuple(b["subset"] for b in strata["buckets"]),
            metrics=(strata["metric"],),
            split=strata["split"],
            labels={
                b["subset"]: f"CW {b['low']}-{b['high']}" if b["low"] != b["high"] else f"CW {b['low']}"
                for b in strata["buckets"]
            },
            description="This project's analysis: mean main score per quartile of query CW (unique non-stopword "
            "tokens longer than one character, eq. 1 of Complexity-Aware Training). The task's mean CW and the "
            "per-query Pearson r are in task_details.complexity; that r is not the paper's, which is computed "
            "across benchmarks.",
        )
    )
