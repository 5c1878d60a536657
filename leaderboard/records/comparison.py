"""Is model A better than model B on these tasks? Paired tests over the same queries, Holm across tasks.

For each task the two results' per-query values of the task's main score (stored in the result's
``per_query`` field) are paired by query id. The difference is mean(A - B) with a 95% percentile
bootstrap interval over queries resampled as pairs (``significance.paired_bootstrap``), and its
two-sided p-value is a paired randomization (sign-flip) test (``significance.randomization_test``):
the statistics of scipy's ``stats.bootstrap`` (the same resamples) and ``stats.permutation_test``
(the same test), vectorised (see ``leaderboard.metrics.significance``). The p-values of all tasks
are then Holm-adjusted (family-wise error over the tasks compared).

One implementation for every caller: ``leaderboard compare`` calls ``compare_task`` per task and
``with_holm`` on the list; the app's comparison view calls ``compare_values`` (the same statistics
on query id -> value mappings it reads from its index) and ``with_holm`` the same way, and
``compare_subsets`` / ``compare_values(subset=...)`` compare a subset's own queries (those the
results name in ``ScoreReport.subset_queries``). Signatures are stable; add keywords at the end.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from leaderboard.errors import BadInput
from leaderboard.metrics.bootstrap import N_RESAMPLES
from leaderboard.metrics.significance import holm, paired_arrays, paired_bootstrap, randomization_test
from leaderboard.records.result import Result, decode_per_query, decode_subset_queries


@dataclass
class TaskComparison:
    task: str
    metric: str
    direction: str  # "higher" or "lower" is better, for reading the sign of the difference
    queries: int
    mean_a: float
    mean_b: float
    difference: float  # mean over queries of A - B
    ci_low: float
    ci_high: float
    p_value: float  # randomization test, two-sided
    p_holm: float  # Holm-adjusted across the compared tasks
    exact: bool  # every sign flip enumerated
    resamples: int
    subset: str = "default"  # the queries compared: all ("default") or one subset's (e.g. "type=2p")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def per_query_values(result: Result, metric: str, where: str) -> dict[str, float]:
    """query id -> value of ``metric`` from the result's per-query field; BadInput naming the file otherwise."""
    if result.per_query is None:
        raise BadInput(
            f"{where} has no per-query values (written before they were stored?): re-run it with --overwrite."
        )
    try:
        rows = decode_per_query(result.per_query)
    except ValueError as exc:
        raise BadInput(f"{where}: {exc}") from None
    values = {qid: row[metric] for qid, row in rows.items() if isinstance(row, dict) and metric in row}
    if not values:
        raise BadInput(f"{where}: the per-query values do not include the main score {metric!r}.")
    return values


def compare_task(
    task: str, a: Result, b: Result, where_a: str, where_b: str, n_resamples: int = N_RESAMPLES, seed: int = 0
) -> TaskComparison:
    """One task's paired comparison on its main score, all queries (p_holm is filled in by ``with_holm``)."""
    metric = a.task.main_score
    if b.task.main_score != metric:
        raise BadInput(f"{where_a} and {where_b} have different main scores ({metric} vs {b.task.main_score}).")
    values_a, values_b = per_query_values(a, metric, where_a), per_query_values(b, metric, where_b)
    return compare_values(task, metric, a.direction, values_a, values_b, n_resamples=n_resamples, seed=seed)


def compare_values(
    task: str,
    metric: str,
    direction: str,
    values_a: Mapping[str, float],
    values_b: Mapping[str, float],
    subset: str = "default",
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
) -> TaskComparison:
    """The paired comparison of two systems' per-query values (query id -> value, the same ids).

    The statistics of ``leaderboard compare``: mean(A - B), its paired percentile bootstrap interval
    (``significance.paired_bootstrap``) and the two-sided sign-flip p-value
    (``significance.randomization_test``). ``p_holm`` equals ``p_value`` until ``with_holm``.
    """
    if set(values_a) != set(values_b):
        only = sorted(set(values_a) ^ set(values_b))
        where = task if subset == "default" else f"{task} ({subset})"
        raise BadInput(
            f"{where}: the two results were scored on different queries ({len(only)} differ, e.g. {only[:3]}); "
            "compare results on the same data."
        )
    x, y = paired_arrays(values_a, values_b)
    interval = paired_bootstrap(values_a, values_b, n_resamples=n_resamples, seed=seed)
    test = randomization_test(values_a, values_b, n_resamples=n_resamples, seed=seed)
    return TaskComparison(
        task=task,
        metric=metric,
        direction=direction,
        queries=interval.n,
        mean_a=float(x.mean()),
        mean_b=float(y.mean()),
        difference=interval.estimate,
        ci_low=interval.low,
        ci_high=interval.high,
        p_value=test.p_value,
        p_holm=test.p_value,
        exact=test.exact,
        resamples=test.n_resamples,
        subset=subset,
    )


def subset_queries(result: Result, where: str) -> dict[str, list[str]]:
    """Subset -> its query ids, as the result stores them ({} for results written before membership was stored)."""
    if result.per_query is None:
        return {}
    try:
        return decode_subset_queries(result.per_query)
    except ValueError as exc:
        raise BadInput(f"{where}: {exc}") from None


def compare_subsets(
    task: str, a: Result, b: Result, where_a: str, where_b: str, n_resamples: int = N_RESAMPLES, seed: int = 0
) -> list[TaskComparison]:
    """The paired comparison on each subset both results name the same queries for (sorted by subset name).

    Holm-adjust them as one family per task: ``with_holm(compare_subsets(...))``.
    """
    metric = a.task.main_score
    values_a, values_b = per_query_values(a, metric, where_a), per_query_values(b, metric, where_b)
    members_a, members_b = subset_queries(a, where_a), subset_queries(b, where_b)
    out = []
    for subset in sorted(set(members_a) & set(members_b)):
        ids = members_a[subset]
        if sorted(ids) != sorted(members_b[subset]) or not all(q in values_a and q in values_b for q in ids):
            continue  # the two results disagree on what the subset is: nothing to pair
        out.append(
            compare_values(
                task,
                metric,
                a.direction,
                {q: values_a[q] for q in ids},
                {q: values_b[q] for q in ids},
                subset=subset,
                n_resamples=n_resamples,
                seed=seed,
            )
        )
    return out


def with_holm(comparisons: list[TaskComparison]) -> list[TaskComparison]:
    """Holm-adjust the p-values across the comparisons given (compare: each task once, all queries)."""
    adjusted = holm({f"{c.task}\0{c.subset}": c.p_value for c in comparisons})
    for comparison in comparisons:
        comparison.p_holm = adjusted[f"{comparison.task}\0{comparison.subset}"]
    return comparisons
