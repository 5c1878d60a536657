"""Each score's 95% interval from the queries behind it, as the board computes it, for readers outside the app.

A score keeps the interval its result stored (MultiConIR's, stratified by domain); otherwise it
gets the percentile bootstrap of its own per-query values (``per_query_columns.strata``: the
subset's queries that have the metric, one stratum per subset a macro-averaged score averages),
with the harness's one bootstrap (``metrics.bootstrap.stratified_bootstrap``, seed 0,
``N_RESAMPLES``), exactly as the board's cells (``app.statistics``): the same numbers in ``show
--subsets``, the flat table (``data/results.parquet``) and the app. Per-query values that do not
average to the score give no interval, and the reason says so.

Scores over the same queries share one resampling (one matrix product for all their metrics), so a
result's every interval costs one bootstrap per distinct set of queries.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from leaderboard.records.per_query_columns import Stratum, mean, of_result, query_ids, strata

MEAN_TOLERANCE = 1e-9  # how far the per-query values' mean may be from the score (summation order only)


@dataclass(frozen=True)
class CellInterval:
    low: float | None
    high: float | None
    source: str | None  # "result" (stored by the task), "bootstrap" (of the per-query values), None (none)
    queries: int | None  # the queries behind the score, where the per-query values say
    note: str = ""  # why there is no interval


def intervals(result: Any, cells: Iterable[tuple[str, str]]) -> dict[tuple[str, str], CellInterval]:
    """(subset, metric) -> its interval, for the main split of a ``Result`` (cells without a score: no entry)."""
    import numpy as np

    from leaderboard.metrics.bootstrap import stratified_bootstrap

    split = result.task.main_split
    scores = result.scores.get(split, {})
    stored_ci = result.confidence_intervals.get(split, {})
    columns = of_result(result)
    found: dict[tuple[str, str], CellInterval] = {}
    todo: dict[tuple[tuple[str, ...], ...], list[tuple[tuple[str, str], list[Stratum]]]] = {}
    for subset, metric in dict.fromkeys(cells):
        value = scores.get(subset, {}).get(metric)
        if value is None:
            continue
        stored = stored_ci.get(subset, {}).get(metric)
        parts = score_strata(columns, metric, subset, value)
        queries = None if isinstance(parts, str) else sum(len(ids) for ids, _ in parts)
        if stored:
            found[(subset, metric)] = CellInterval(float(stored[0]), float(stored[1]), "result", queries)
        elif isinstance(parts, str):
            found[(subset, metric)] = CellInterval(None, None, None, queries, parts)
        else:
            todo.setdefault(query_ids(parts), []).append(((subset, metric), parts))
    for group in todo.values():
        count = len(group[0][1])
        stacked = [np.stack([np.asarray(parts[i][1], dtype=float) for _, parts in group]) for i in range(count)]
        low, high = stratified_bootstrap(stacked)
        for (cell, parts), lo, hi in zip(group, low, high):
            found[cell] = CellInterval(float(lo), float(hi), "bootstrap", sum(len(ids) for ids, _ in parts))
    return found


def score_strata(columns: Mapping[str, Any] | None, metric: str, subset: str, value: float) -> list[Stratum] | str:
    """The per-query values behind a score (``per_query_columns.strata``), or why none: also when they do not
    average to the score, as the board refuses them (``app.statistics``)."""
    parts = strata(columns, metric, subset)
    if isinstance(parts, str):
        return parts
    if abs(mean(parts) - value) > MEAN_TOLERANCE * max(1.0, abs(value)):
        return "the per-query values do not average to the score"
    return parts


def interval_of(
    stored: Any, columns: Mapping[str, Any] | None, metric: str, value: float, subset: str = "default"
) -> tuple[float, float] | None:
    """One score's interval, as ``intervals`` gives it, from a results index's columns: the interval the result
    stored, else the bootstrap of the per-query values behind the score (each stratum of a macro mean
    resampled on its own), else None."""
    if stored:
        return float(stored[0]), float(stored[1])
    parts = score_strata(columns, metric, subset, value)
    if isinstance(parts, str):
        return None
    import numpy as np

    from leaderboard.metrics.bootstrap import stratified_bootstrap

    low, high = stratified_bootstrap([np.asarray([values], dtype=float) for _, values in parts])
    return float(low[0]), float(high[0])


def every_cell(result: Any) -> list[tuple[str, str]]:
    """Every (subset, metric) score of the result's main split."""
    return [(s, m) for s, values in result.scores.get(result.task.main_split, {}).items() for m in values]
