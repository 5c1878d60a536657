"""Board statistics from per-query scores: each cell's and aggregate's bootstrap interval, the paired test vs #1.

Every interval is a claim about the number in its own cell, so it comes from the queries behind
that very cell: a subset column (a query type, a domain, a content-word stratum) resamples only
the queries of that subset, which the result names (``ScoreReport.subset_queries``, stored with
the per-query values); where the result does not name them, the cell has no interval and says why
(``Line.interval_notes``). A cell whose task stored its own interval (MultiConIR's, stratified by
domain) keeps it. Per-query values that do not average to the cell's score are not used.
All resampling is ``leaderboard.metrics.bootstrap.stratified_bootstrap``, the harness's one bootstrap.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any, Protocol

import numpy as np

from leaderboard.app.ranking import SIGNIFICANCE_LEVEL, Column, Ranking
from leaderboard.app.values import ModelKey
from leaderboard.metrics.bootstrap import N_RESAMPLES, stratified_bootstrap
from leaderboard.metrics.significance import sign_flip_test


class QuerySource(Protocol):
    """What the statistics read of a board (``board.Board`` is one): declarations and per-query values."""

    @property
    def tasks(self) -> dict[str, dict[str, Any]]: ...

    def per_query(self, paths: Iterable[str]) -> dict[str, dict[str, Any] | None]: ...


# How far the mean of a cell's per-query values may be from the cell's score (summation order only).
MEAN_TOLERANCE = 1e-9


def add_statistics(board: QuerySource, ranking: Ranking) -> None:
    """Bootstrap intervals from per-query scores, and the paired test of each ranked model against #1."""
    aggregated = [c for c in ranking.columns if c.spec.in_aggregate]
    paths = [line.paths[c.spec.task] for line in ranking.lines for c in ranking.columns if c.spec.task in line.paths]
    decoded = board.per_query(paths)
    vectors = {column.key: column_vectors(board, ranking, column, decoded) for column in ranking.columns}
    _cell_intervals(ranking, vectors)
    _aggregate_intervals(ranking, aggregated, vectors)
    _significance(ranking, aggregated, vectors)


def cell_queries(stored: dict[str, Any] | None, metric: str, subset: str) -> tuple[tuple[str, ...], list[float]] | str:
    """One result's per-query values of ``metric`` on ``subset``'s queries (main split): (ids, values), or why not.

    ``stored`` is the index's per-query record: {"ids", "values": {metric: [...]}, "subsets": {name: [positions]}}.
    """
    if not stored:
        return "the result has no per-query values"
    ids, values = stored.get("ids"), (stored.get("values") or {}).get(metric)
    if not isinstance(ids, list) or not isinstance(values, list) or not values or len(values) != len(ids):
        return f"the result has no per-query values of {metric}"
    if subset == "default":
        return tuple(ids), values
    positions = (stored.get("subsets") or {}).get(subset)
    if not isinstance(positions, list) or not positions:
        return f"the result does not say which queries form {subset}"
    if not all(isinstance(p, int) and not isinstance(p, bool) and 0 <= p < len(ids) for p in positions):
        return f"the result's membership of {subset} is damaged"
    return tuple(ids[p] for p in positions), [values[p] for p in positions]


def _main_split(board: QuerySource, task: str) -> str | None:
    splits = board.tasks.get(task, {}).get("splits")
    return str(splits[0]) if isinstance(splits, list) and splits else None


def column_vectors(
    board: QuerySource, ranking: Ranking, column: Column, decoded: dict[str, dict[str, Any] | None]
) -> dict[ModelKey, np.ndarray]:
    """Each line's per-query values behind its cell in ``column``, on the query ids most results share.

    Lines without them get a reason in ``line.interval_notes`` (used when the cell has no other interval).
    """
    spec = column.spec
    found: dict[ModelKey, tuple[tuple[str, ...], list[float]]] = {}
    for line in ranking.lines:
        path = line.paths.get(spec.task)
        value = line.values.get(column.key)
        if path is None or value is None:
            continue
        if spec.split != _main_split(board, spec.task):
            line.interval_notes[column.key] = f"per-query values are stored for the main split only, not {spec.split}"
            continue
        got = cell_queries(decoded.get(path), spec.metric, spec.subset)
        if isinstance(got, str):
            line.interval_notes[column.key] = got
            continue
        if abs(float(np.mean(got[1])) - value) > MEAN_TOLERANCE * max(1.0, abs(value)):
            line.interval_notes[column.key] = "the per-query values do not average to the score"
            continue
        found[line.key] = got
    if not found:
        return {}
    ids = Counter(i for i, _ in found.values()).most_common(1)[0][0]  # aligned: ids are sorted in the index
    vectors = {}
    for key, (got_ids, values) in found.items():
        if got_ids == ids:
            vectors[key] = np.asarray(values, dtype=float)
        else:
            line = next(line for line in ranking.lines if line.key == key)
            line.interval_notes[column.key] = "scored on other queries than the other models"
    return vectors


def _cell_intervals(ranking: Ranking, vectors: dict[str, dict[ModelKey, np.ndarray]]) -> None:
    """A cell keeps the interval its task stored; otherwise the bootstrap of its own queries; otherwise none."""
    for column in ranking.columns:
        have = vectors.get(column.key, {})
        todo = [line for line in ranking.lines if line.intervals.get(column.key) is None and line.key in have]
        if todo:
            low, high = stratified_bootstrap([np.stack([have[line.key] for line in todo])])
            for line, lo, hi in zip(todo, low, high):
                line.intervals[column.key] = (float(lo), float(hi))
        for line in ranking.lines:
            if line.intervals.get(column.key) is not None or line.values.get(column.key) is None:
                line.interval_notes.pop(column.key, None)
            else:
                line.interval_notes.setdefault(column.key, "the result has no per-query values")


def _aggregate_intervals(
    ranking: Ranking, aggregated: list[Column], vectors: dict[str, dict[ModelKey, np.ndarray]]
) -> None:
    with_queries = [line for line in ranking.ranked if all(line.key in vectors.get(c.key, {}) for c in aggregated)]
    if with_queries and len(aggregated) > 1:  # one task: its column's interval (below) is the same bootstrap
        strata = [np.stack([vectors[c.key][line.key] for line in with_queries]) for c in aggregated]
        low, high = stratified_bootstrap(strata)
        for line, lo, hi in zip(with_queries, low, high):
            line.aggregate_interval = (float(lo), float(hi))
    if len(aggregated) == 1:  # one task: its own interval is the aggregate's
        for line in ranking.ranked:
            if line.aggregate_interval is None:
                line.aggregate_interval = line.intervals.get(aggregated[0].key)
    ranking.interval_note = (
        f"95% intervals: percentile bootstrap over queries ({N_RESAMPLES:,} resamples; each task's queries "
        "resampled on their own). A task column's interval comes from the queries behind that cell: a subset "
        "column (type, domain, stratum) resamples only that subset's queries, as the result names them; where a "
        "result does not name them, or has no per-query values, the cell says 'no interval' "
        "(the notes and the CSV say why). "
        "A task that computes its own interval (stored in the result) keeps it."
    )


def _significance(ranking: Ranking, aggregated: list[Column], vectors: dict[str, dict[ModelKey, np.ndarray]]) -> None:
    ranking.test_note = (
        f"≈ (beside the rank) is about the {ranking.aggregate_label} column only: not significantly different "
        "from #1 there, by a two-sided paired randomization (sign-flip) test of the difference on the queries "
        f"both share, {N_RESAMPLES:,} sign flips (every flip when there are fewer), p ≥ {SIGNIFICANCE_LEVEL}, "
        "each model against #1 without correction for multiple comparisons. † not tested (per-query scores "
        "missing). No mark: significantly different from #1."
    )
    if not ranking.ranked:
        return
    best = ranking.ranked[0]
    if not all(best.key in vectors.get(c.key, {}) for c in aggregated):
        return
    others = [
        line
        for line in ranking.ranked[1:]
        if line.rank != 1 and all(line.key in vectors.get(c.key, {}) for c in aggregated)
    ]
    if not others:
        return
    p_values = sign_flip_test(
        [vectors[c.key][best.key] for c in aggregated],
        [np.stack([vectors[c.key][line.key] for line in others]) for c in aggregated],
    )
    for line, p in zip(others, p_values):
        line.p_value = float(p)
