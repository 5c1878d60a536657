"""Is model A better than model B on these tasks? Paired tests over the same queries, Holm across tasks.

For each task the two results' per-query values of the task's main score (stored in the result's
``per_query`` field) are paired by query id. The difference is mean(A - B) with a 95% percentile
bootstrap interval over queries resampled as pairs (``significance.paired_bootstrap``), and its
two-sided p-value is a paired randomization (sign-flip) test (``significance.randomization_test``);
both are scipy's (``stats.bootstrap`` / ``stats.permutation_test``). The p-values of all tasks are
then Holm-adjusted (family-wise error over the tasks compared).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from leaderboard.errors import BadInput
from leaderboard.metrics.significance import N_RESAMPLES, holm, paired_arrays, paired_bootstrap, randomization_test
from leaderboard.records.result import Result, decode_per_query


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
    """One task's paired comparison (p_holm is filled in by ``compare``)."""
    metric = a.task.main_score
    if b.task.main_score != metric:
        raise BadInput(f"{where_a} and {where_b} have different main scores ({metric} vs {b.task.main_score}).")
    values_a, values_b = per_query_values(a, metric, where_a), per_query_values(b, metric, where_b)
    if set(values_a) != set(values_b):
        only = sorted(set(values_a) ^ set(values_b))
        raise BadInput(
            f"{task}: the two results were scored on different queries ({len(only)} differ, e.g. {only[:3]}); "
            "compare results on the same data."
        )
    x, y = paired_arrays(values_a, values_b)
    interval = paired_bootstrap(values_a, values_b, n_resamples=n_resamples, seed=seed)
    test = randomization_test(values_a, values_b, n_resamples=n_resamples, seed=seed)
    return TaskComparison(
        task=task,
        metric=metric,
        direction=a.direction,
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
    )


def with_holm(comparisons: list[TaskComparison]) -> list[TaskComparison]:
    """Holm-adjust the p-values across the tasks (each task compared once)."""
    adjusted = holm({c.task: c.p_value for c in comparisons})
    for comparison in comparisons:
        comparison.p_holm = adjusted[comparison.task]
    return comparisons
