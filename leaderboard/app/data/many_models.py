"""Many models side by side: 2 to 8 picks, per benchmark and per column (task or subset), with intervals.

The rows are the board's own (``model_index``: each pick's row on each benchmark, the revision the
board shows by default), intervals computed for the picks' rows only. The pairwise tests reuse the
Compare tab's: ``Board.comparison`` (``leaderboard compare``'s paired difference, interval and
randomization p per task), for every pair of picks with per-query values, Holm-adjusted together
across the benchmark's pairs and tasks (one family per benchmark). A pair where a row is imported
(no per-query values) gets the plain difference of the two scores, marked "no interval: imported".
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from leaderboard.app.data.aggregates import aggregate_values, choices
from leaderboard.app.data.model_index import model_index
from leaderboard.app.data.page_statistics import with_statistics

if TYPE_CHECKING:
    from leaderboard.analysis.comparison import TaskComparison
    from leaderboard.app.data.board import Board
    from leaderboard.app.data.ranking import Column, Line, Ranking

MIN_PICKS, MAX_PICKS = 2, 8
IMPORTED = "no interval: imported"


@dataclass
class Part:
    """One benchmark with the picks that are on it (None where a pick is not)."""

    benchmark: str
    ranking: Ranking
    lines: list[Line | None]

    @property
    def present(self) -> list[Line]:
        return [line for line in self.lines if line is not None]


@dataclass
class Picked:
    picks: list[str]  # the resolved names, in the reader's order
    unknown: list[str]  # names in the link that no model of the board has
    dropped: list[str]  # picks beyond MAX_PICKS
    parts: list[Part] = field(default_factory=list)  # benchmarks where at least two of the picks have a result
    thin: list[str] = field(default_factory=list)  # benchmarks some pick is on, where fewer than two have a result


def has_result(line: Line) -> bool:
    """The row holds a number: its aggregate, or a value in some column (a table of dashes compares nothing)."""
    return line.aggregate is not None or any(value is not None for value in line.values.values())


def picked(board: Board, names: list[str]) -> Picked:
    """The picks (resolved as a model page resolves a name, duplicates dropped) and the benchmarks two share."""
    index = model_index(board)
    resolved, unknown = [], []
    for name in names:
        found = index.resolve(name)
        if found is None:
            unknown.append(name)
        elif found not in resolved:
            resolved.append(found)
    out = Picked(resolved[:MAX_PICKS], unknown, resolved[MAX_PICKS:])
    by_benchmark: dict[str, dict[str, Line]] = {}
    rankings: dict[str, Ranking] = {}
    for name in out.picks:
        for entry in index.of(name):
            by_benchmark.setdefault(entry.benchmark, {})[name] = entry.line
            rankings[entry.benchmark] = entry.ranking
    for benchmark in (b.name for b in board.benchmarks):
        lines = by_benchmark.get(benchmark, {})
        if sum(has_result(line) for line in lines.values()) < MIN_PICKS:
            if lines:
                out.thin.append(benchmark)
            continue
        part = Part(benchmark, rankings[benchmark], [lines.get(name) for name in out.picks])
        with_statistics(board, part.ranking, part.present)  # the picks' rows only
        out.parts.append(part)
    return out


def shown_columns(part: Part) -> list[Column]:
    """The benchmark's columns that some pick has a value in (the board's order)."""
    return [c for c in part.ranking.columns if any(line.values.get(c.key) is not None for line in part.present)]


@dataclass(frozen=True)
class Cell:
    """One pick's number in one row of a benchmark's side-by-side table (what the table shows, and the chart)."""

    value: float
    interval: tuple[float, float] | None
    imported: str | None  # the row's source when mteb ran it (no per-query values: no interval)
    other_data: str = ""  # the data it was computed on, where not the ranked results' (shown, never compared)
    rank: int | None = None  # an aggregate's rank of the pick among the models ranked by it
    ranked: int = 0


@dataclass(frozen=True)
class Row:
    """A row of a benchmark's side-by-side table: one of its declared aggregates, or one of its columns."""

    label: str  # the aggregate's label, or the column's key
    direction: str
    column: Column | None  # None: an aggregate
    default: bool  # the aggregate the board ranks by
    metric: str  # what the row measures, for the chart's panels (the column's metric, an aggregate's own)
    cells: list[Cell | None]  # per pick, in the picks' order (None: no number shown)


def table_rows(part: Part) -> list[Row]:
    """Every row the side-by-side table of ``part`` draws, in its order: each declared aggregate (the board's first),
    then each column the board shows that some pick has a value in. The chart draws these same cells."""
    from leaderboard.app.data.ranking import table_columns
    from leaderboard.app.data.statistics import side_columns

    ranking = part.ranking
    rows: list[Row] = []
    values = [aggregate_values(ranking, line) if line is not None else None for line in part.lines]
    sides = {side.label: side for side in getattr(ranking.benchmark, "also", ()) or ()}
    for index, label in enumerate(choices(ranking)):
        cells: list[Cell | None] = []
        for line, found in zip(part.lines, values):
            got = found[index] if found is not None else None
            if line is None or got is None or got.value is None:
                cells.append(None)
                continue
            cells.append(Cell(got.value, got.interval, line.imported, "", got.rank, got.ranked))
        if index == 0:
            columns = [c for c in ranking.columns if c.spec.in_aggregate]
            direction = ranking.direction
        else:
            columns = side_columns(ranking, sides[label]) or []
            direction = sides[label].tasks[0].direction if sides[label].tasks else "higher"
        metrics = {c.metric_label for c in columns}
        metric = metrics.pop() if len(metrics) == 1 else label
        rows.append(Row(label, direction, None, index == 0, metric, cells))
    for column in table_columns(ranking):
        cells = []
        for line in part.lines:
            value = line.values.get(column.key) if line is not None else None
            if line is None or value is None:
                cells.append(None)
                continue
            other = line.other_data.get(column.key, "")
            cells.append(Cell(value, None if other else line.intervals.get(column.key), line.imported, other))
        if any(cells):
            rows.append(Row(column.key, column.direction, column, False, column.metric_label, cells))
    return rows


# -- pairwise tests -----------------------------------------------------------------------------------


@dataclass
class PairRow:
    """One pair of picks on one task of a benchmark: the paired test (``test``), or the plain difference."""

    benchmark: str
    a: str
    b: str
    task: str
    column_label: str
    direction: str
    mean_a: float | None
    mean_b: float | None
    test: TaskComparison | None = None  # a copy, Holm-adjusted across the benchmark's pairs and tasks
    why: str = ""  # why there is no test (IMPORTED, or the comparison's reason)

    @property
    def difference(self) -> float | None:
        if self.test is not None:
            return self.test.difference
        return None if self.mean_a is None or self.mean_b is None else self.mean_a - self.mean_b


def pairwise(board: Board, picks: Picked) -> list[PairRow]:
    """Every pair of picks on every aggregated task of each benchmark they share; tests Holm-adjusted per benchmark."""
    from leaderboard.errors import BadInput
    from leaderboard.metrics.significance import holm

    out: list[PairRow] = []
    for part in picks.parts:
        tasks = {c.spec.task: c for c in part.ranking.columns if c.spec.in_aggregate and c.spec.subset == "default"}
        family: list[PairRow] = []
        named = [(name, line) for name, line in zip(picks.picks, part.lines) if line is not None]
        for (name_a, a), (name_b, b) in itertools.combinations(named, 2):
            found: dict[str, TaskComparison] = {}
            skipped: dict[str, str] = {}
            if not (a.imported or b.imported):
                try:
                    comparison = board.comparison(part.benchmark, a.key, b.key, subsets=False)
                except BadInput as exc:
                    skipped = {task: str(exc) for task in tasks}
                else:
                    found = {row.task: row for row in comparison.tasks}
                    skipped = dict(comparison.skipped)
            for task, column in tasks.items():
                row = PairRow(
                    part.benchmark,
                    name_a,
                    name_b,
                    task,
                    column.label,
                    column.direction,
                    a.values.get(column.key),
                    b.values.get(column.key),
                )
                if task in found:  # a copy: the cached comparison keeps its own (per pair) Holm
                    row.test = dataclasses.replace(found[task])
                    family.append(row)
                else:
                    row.why = IMPORTED if (a.imported or b.imported) else skipped.get(task, "not compared")
                out.append(row)
        if family:
            adjusted = holm({str(i): row.test.p_value for i, row in enumerate(family)})  # type: ignore[union-attr]
            for i, row in enumerate(family):
                row.test.p_holm = adjusted[str(i)]  # type: ignore[union-attr]
    return out
