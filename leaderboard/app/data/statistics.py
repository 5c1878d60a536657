"""Board statistics from per-query scores: each cell's and aggregate's bootstrap interval, the paired test vs #1.

Every interval is a claim about the number in its own cell, so it comes from the queries behind
that very cell: a subset column (a query type, a domain, a content-word stratum) resamples only
the queries of that subset, which the result names (``ScoreReport.subset_queries``, stored with
the per-query values), and a metric computed on some queries only (ComLQ's LSNC on the negation
queries its judge labelled, ``ScoreReport.metric_queries``) only those (``records.per_query_columns``);
where the result does not name them, the cell has no interval and says why (``Line.interval_notes``).
A cell whose task stored its own interval (MultiConIR's, stratified by domain) keeps it. Per-query
values that do not average to the cell's score are not used; a score that is a macro mean over
subsets (MultiConIR's over domains) resamples each subset on its own.
All resampling is ``leaderboard.metrics.bootstrap.stratified_bootstrap``, the harness's one bootstrap.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from leaderboard.app.data.ranking import SIGNIFICANCE_LEVEL, Column, Line, Ranking
from leaderboard.app.data.values import ModelKey
from leaderboard.metrics.bootstrap import N_RESAMPLES, stratified_bootstrap
from leaderboard.metrics.significance import sign_flip_test
from leaderboard.records.per_query_columns import Stratum, mean, query_ids, strata


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
    cells = {column.key: column_strata(board, ranking, column, decoded) for column in ranking.columns}
    _cell_intervals(ranking, cells)
    vectors = {column.key: aligned(ranking, column, cells[column.key]) for column in ranking.columns}
    _aggregate_intervals(ranking, aggregated, vectors)
    _side_intervals(ranking, vectors)
    _significance(ranking, aggregated, vectors)


def _main_split(board: QuerySource, task: str) -> str | None:
    splits = board.tasks.get(task, {}).get("splits")
    return str(splits[0]) if isinstance(splits, list) and splits else None


def column_strata(
    board: QuerySource, ranking: Ranking, column: Column, decoded: dict[str, dict[str, Any] | None]
) -> dict[ModelKey, list[Stratum]]:
    """Each line's per-query values behind its cell in ``column`` (``per_query_columns.strata``): the queries
    of the cell's subset that have its metric, one stratum per subset a macro-averaged score averages.

    Lines without them get a reason in ``line.interval_notes`` (used when the cell has no other interval).
    """
    spec = column.spec
    found: dict[ModelKey, list[Stratum]] = {}
    for line in ranking.lines:
        path = line.paths.get(spec.task)
        value = line.values.get(column.key)
        if path is None or value is None:
            continue
        if spec.split != _main_split(board, spec.task):
            line.interval_notes[column.key] = f"per-query values are stored for the main split only, not {spec.split}"
            continue
        got = strata(decoded.get(path), spec.metric, spec.subset)
        if isinstance(got, str):
            line.interval_notes[column.key] = got
            continue
        if abs(mean(got) - value) > MEAN_TOLERANCE * max(1.0, abs(value)):
            line.interval_notes[column.key] = "the per-query values do not average to the score"
            continue
        found[line.key] = got
    return found


def aligned(ranking: Ranking, column: Column, found: dict[ModelKey, list[Stratum]]) -> dict[ModelKey, list[Stratum]]:
    """The lines scored on the query ids most of them share: what an aggregate or a paired test can pair."""
    if not found:
        return {}
    ids = Counter(query_ids(parts) for parts in found.values()).most_common(1)[0][0]
    return {key: parts for key, parts in found.items() if query_ids(parts) == ids}


def _cell_intervals(ranking: Ranking, cells: dict[str, dict[ModelKey, list[Stratum]]]) -> None:
    """A cell keeps the interval its task stored; otherwise the bootstrap of its own queries; otherwise none.

    Lines scored on the same queries share one resampling (one matrix product); a line scored on other
    queries (an LLM judge labels other negation queries for each model's run) gets its own."""
    for column in ranking.columns:
        have = cells.get(column.key, {})
        todo = [line for line in ranking.lines if line.intervals.get(column.key) is None and line.key in have]
        groups: dict[tuple[tuple[str, ...], ...], list[Line]] = {}
        for line in todo:
            groups.setdefault(query_ids(have[line.key]), []).append(line)
        for group in groups.values():
            count = len(have[group[0].key])  # strata: one, or the subsets a macro-averaged score averages
            parts = [np.stack([np.asarray(have[line.key][i][1]) for line in group]) for i in range(count)]
            low, high = stratified_bootstrap(parts)
            for line, lo, hi in zip(group, low, high):
                line.intervals[column.key] = (float(lo), float(hi))
        for line in ranking.lines:
            if line.intervals.get(column.key) is not None or line.values.get(column.key) is None:
                line.interval_notes.pop(column.key, None)
            else:
                line.interval_notes.setdefault(column.key, "the result has no per-query values")


def _pooled(
    aggregated: list[Column], vectors: dict[str, dict[ModelKey, list[Stratum]]], lines: list[Line]
) -> tuple[list[np.ndarray], list[float]]:
    """(lines x queries) per stratum over the aggregated columns, and each stratum's share of the aggregate:
    1/tasks for a task, split evenly over the subsets a macro-averaged task score averages."""
    parts, shares = [], []
    for column in aggregated:
        first = vectors[column.key][lines[0].key]
        for i in range(len(first)):
            parts.append(np.stack([np.asarray(vectors[column.key][line.key][i][1]) for line in lines]))
            shares.append(1 / (len(aggregated) * len(first)))
    return parts, shares


def _aggregate_intervals(
    ranking: Ranking, aggregated: list[Column], vectors: dict[str, dict[ModelKey, list[Stratum]]]
) -> None:
    with_queries = [line for line in ranking.ranked if all(line.key in vectors.get(c.key, {}) for c in aggregated)]
    if with_queries and len(aggregated) > 1:  # one task: its column's interval (below) is the same bootstrap
        parts, shares = _pooled(aggregated, vectors, with_queries)
        low, high = stratified_bootstrap(parts, weights=shares)
        for line, lo, hi in zip(with_queries, low, high):
            line.aggregate_interval = (float(lo), float(hi))
    if len(aggregated) == 1:  # one task: its own interval is the aggregate's
        for line in ranking.ranked:
            if line.aggregate_interval is None:
                line.aggregate_interval = line.intervals.get(aggregated[0].key)
    ranking.interval_note = (
        f"95% intervals: percentile bootstrap over queries ({N_RESAMPLES:,} resamples; each task's queries "
        "resampled on their own). A task column's interval comes from the queries behind that cell: a subset "
        "column (type, domain, stratum) resamples only that subset's queries, as the result names them, and a metric "
        "computed on some queries only (LSNC: those its judge labelled) only those; where a "
        "result does not name them, or has no per-query values, the cell says 'no interval' "
        "(the notes and the CSV say why). "
        "A task that computes its own interval (stored in the result) keeps it."
    )


def side_columns(ranking: Ranking, side: Any) -> list[Column] | None:
    """The ranking's columns a declared side mean (``Benchmark.also``) averages, matched by task, metric, split and
    subset; None when one of them is not a column of the board (its values then have no per-query source here)."""
    by_spec = {(c.spec.task, c.spec.metric, c.spec.split, c.spec.subset): c for c in ranking.columns}
    found = [by_spec.get((t.task, t.metric, t.split, t.subset)) for t in side.tasks]
    return None if not found or any(c is None for c in found) else found  # type: ignore[return-value]


def _side_intervals(ranking: Ranking, vectors: dict[str, dict[ModelKey, list[Stratum]]]) -> None:
    """Each side mean's interval, pooled over its tasks' queries as the aggregate's is, for the lines with per-query
    values on every task it averages (``Line.side_intervals``; the others have none)."""
    for side in getattr(ranking.benchmark, "also", ()) or ():
        columns = side_columns(ranking, side)
        if columns is None:
            continue
        lines = [
            line
            for line in ranking.lines
            if line.side.get(side.label) is not None and all(line.key in vectors.get(c.key, {}) for c in columns)
        ]
        if not lines:
            continue
        parts, shares = _pooled(columns, vectors, lines)
        low, high = stratified_bootstrap(parts, weights=shares)
        for line, lo, hi in zip(lines, low, high):
            line.side_intervals[side.label] = (float(lo), float(hi))


@dataclass(frozen=True)
class PairedMean:
    """Two models' difference on a mean over tasks (an aggregate), paired over the queries both score."""

    difference: float
    low: float
    high: float
    p_value: float
    queries: int


def paired_mean(
    board: QuerySource, ranking: Ranking, columns: list[Column], a: Line, b: Line, seed: int = 0
) -> PairedMean | str:
    """A − B on the mean of ``columns`` (each task weighed as the aggregate weighs it), with its paired percentile
    bootstrap interval and two-sided sign-flip p over the queries both rows score; or why there is none."""
    if a.imported or b.imported:
        return f"no interval: {(a.imported or b.imported)}"
    pair = Ranking(ranking.benchmark, ranking.columns, [a, b], [], ranking.aggregated)
    paths = [line.paths[c.spec.task] for line in (a, b) for c in columns if c.spec.task in line.paths]
    decoded = board.per_query(paths)
    vectors = {}
    for column in columns:
        found = column_strata(board, pair, column, decoded)
        if a.key not in found or b.key not in found:
            return "no interval: per-query values missing"
        if query_ids(found[a.key]) != query_ids(found[b.key]):
            return "no interval: the two results score other queries"
        vectors[column.key] = found
    parts, shares = _pooled(columns, vectors, [a, b])
    if not parts:
        return "no interval: no queries"
    differences = [part[0] - part[1] for part in parts]
    weights = np.asarray(shares)
    observed = float(sum(w * d.mean() for w, d in zip(weights, differences)) / weights.sum())
    low, high = stratified_bootstrap([d[None, :] for d in differences], weights=shares, seed=seed)
    p = sign_flip_test(
        [part[0] for part in parts], [part[1][None, :] for part in parts], seed=seed, screen=0.0, weights=shares
    )[0]
    return PairedMean(observed, float(low[0]), float(high[0]), float(p), sum(d.size for d in differences))


def score_intervals(
    board: QuerySource, task: str, split: str, cells: dict[Any, tuple[str, str, str, float]]
) -> dict[Any, tuple[float, float]]:
    """The bootstrap interval of each score ``cells`` names (key -> (result path, subset, metric, score)) from the
    queries behind it, as a board cell's (``column_strata``): none where the result has no per-query values of it,
    where they do not average to the score, or off the task's main split (per-query values are stored for it only).
    Scores on the same queries share one resampling."""
    if split != _main_split(board, task):
        return {}
    decoded = board.per_query(path for path, _, _, _ in cells.values())
    groups: dict[tuple[Any, ...], list[tuple[Any, list[Stratum]]]] = {}
    for key, (path, subset, metric, value) in cells.items():
        got = strata(decoded.get(path), metric, subset)
        if isinstance(got, str) or abs(mean(got) - value) > MEAN_TOLERANCE * max(1.0, abs(value)):
            continue
        groups.setdefault((subset, metric, query_ids(got)), []).append((key, got))
    found: dict[Any, tuple[float, float]] = {}
    for members in groups.values():
        count = len(members[0][1])
        parts = [np.stack([np.asarray(got[i][1]) for _, got in members]) for i in range(count)]
        low, high = stratified_bootstrap(parts)
        for (key, _), lo, hi in zip(members, low, high):
            found[key] = (float(lo), float(hi))
    return found


def _significance(
    ranking: Ranking, aggregated: list[Column], vectors: dict[str, dict[ModelKey, list[Stratum]]]
) -> None:
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
    parts, shares = _pooled(aggregated, vectors, [best, *others])
    p_values = sign_flip_test([part[0] for part in parts], [part[1:] for part in parts], weights=shares)
    for line, p in zip(others, p_values):
        line.p_value = float(p)
