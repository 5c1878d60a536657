"""Query-complexity strata of a retrieval result (seed paper: "Complexity-Aware Training").

Each query's complexity is its content-word count CW (``leaderboard.metrics.complexity``) on the
raw query text, before any instruction or prompt is added. Queries fall into quantile buckets of
CW; the main metric is averaged per bucket and reported as subsets ``cw=<low>-<high>`` of the main
split, and the Pearson r between per-query CW and per-query main score goes to
``task_details["complexity"]`` with the exact definition of CW.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from leaderboard.contract.task import COMPLEXITY_VIEW_TITLE, ScoreReport, View

N_BUCKETS = 4  # quartiles, as quantile buckets with few distinct CW values degrade gracefully


def add_complexity_strata(
    report: ScoreReport, queries: Mapping[str, str], metric: str, split: str, n_buckets: int = N_BUCKETS
) -> None:
    """Add per-CW-bucket means of ``metric`` and CW's correlation with it to ``report`` (in place).

    Uses the queries that have a per-query value of ``metric``; does nothing when there are none.
    """
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
        buckets.append({"subset": label, "low": low, "high": high, "queries": len(qids), metric: mean})
    correlation = complexity.cw_correlation(cw, scores)
    details: dict[str, Any] = {
        "definition": complexity.describe(),
        "metric": metric,
        "split": split,
        "n_buckets": n_buckets,
        "queries": len(scores),
        "buckets": buckets,
        "pearson_r": correlation[0] if correlation else None,
        "pearson_p": correlation[1] if correlation else None,
    }
    report.details["complexity"] = details


def complexity_view(details: dict[str, Any]) -> dict[str, Any]:
    """The curve the app draws: the main metric over the CW buckets, in increasing CW."""
    subsets = [b["subset"] for b in details["buckets"]]
    return asdict(
        View(
            kind="curve",
            title=COMPLEXITY_VIEW_TITLE,
            subsets=tuple(subsets),
            metrics=(details["metric"],),
            split=details["split"],
            labels={
                b["subset"]: f"CW {b['low']}-{b['high']}" if b["low"] != b["high"] else f"CW {b['low']}"
                for b in details["buckets"]
            },
            description="Mean main score per quartile of query content words (non-stopword tokens of the raw "
            "query); Pearson r of CW vs score is in each result's task_details.complexity.",
        )
    )
