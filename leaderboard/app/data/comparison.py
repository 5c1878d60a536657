"""The two-model comparison view's numbers: per task and per subset, ``leaderboard compare``'s statistics.

Nothing is computed here: each row is ``analysis.comparison.compare_cell`` (the function behind
``leaderboard compare``) on the per-query values the board's index holds for the two models'
results, and the task rows are Holm-adjusted together by ``with_holm``, as ``compare`` does. Subset
rows (``compare_cells``, what ``compare --per-subset`` prints) each compare one metric on one
subset's queries, as both results name them (LSNC on the negation queries both judges labelled),
and are Holm-adjusted as one family per task; ``ModelComparison.labels`` names each row's subset
and metric as the task's views do. ``Board.comparison`` caches them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from leaderboard.analysis.comparison import (
    TaskComparison,
    cell_labels,
    compare_cell,
    compare_cells,
    skipped_text,
    with_holm,
)
from leaderboard.analysis.subset_text import subset_text
from leaderboard.app.data.ranking import Line, Ranking
from leaderboard.app.data.statistics import PairedMean
from leaderboard.app.data.values import ModelKey
from leaderboard.errors import BadInput
from leaderboard.metrics.bootstrap import N_RESAMPLES


class ComparisonSource(Protocol):
    """What a comparison reads of a board (``board.Board`` is one): rankings, result rows, declarations, per-query
    values."""

    def ranking(self, name: str, with_stats: bool = True, all_revisions: bool = False) -> Ranking | None: ...

    def results_of(self, task: str) -> list[dict[str, Any]]: ...

    def per_query(self, paths: Iterable[str]) -> dict[str, dict[str, Any] | None]: ...

    @property
    def tasks(self) -> dict[str, dict[str, Any]]: ...


@dataclass
class ModelComparison:
    a: ModelKey
    b: ModelKey
    tasks: list[TaskComparison] = field(default_factory=list)  # all queries, Holm across these tasks
    subsets: dict[str, list[TaskComparison]] = field(default_factory=dict)  # task -> its subsets, Holm per task
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (task, why it could not be compared)
    declarations: dict[str, dict[str, Any]] = field(default_factory=dict)  # task -> as its results declare it
    subset_skipped: dict[str, str] = field(default_factory=dict)  # task -> the subset rows left out, and why

    def problems(self) -> list[str]:
        """What could not be compared, one line per task (the task rows', then the subset rows')."""
        found = [f"{task}: {why}" for task, why in self.skipped]
        return found + [f"{task}: not compared per subset: {why}" for task, why in self.subset_skipped.items()]

    def rows(self) -> list[TaskComparison]:
        """Each task's row, then its subset rows (in ``analysis.comparison.comparison_cells``' order)."""
        out = []
        for task_row in self.tasks:
            out += [task_row, *self.subsets.get(task_row.task, [])]
        return out

    def ordered(self, ranking: Ranking | None = None) -> list[TaskComparison]:
        """``rows`` with each task's subset rows in the order the board shows their columns (the ranking's), the
        others after them in ``comparison_cells``' order (declared subsets, then strata by number)."""
        order: dict[tuple[str, str, str], int] = {}
        for column in ranking.columns if ranking else []:
            order.setdefault((column.spec.task, column.spec.subset, column.spec.metric), len(order))
        out = []
        for task_row in self.tasks:
            subsets = self.subsets.get(task_row.task, [])  # a stable sort keeps their own order among the rest
            out += [task_row, *sorted(subsets, key=lambda r: order.get((r.task, r.subset, r.metric), len(order)))]
        return out

    def labels(self) -> dict[tuple[str, str, str], tuple[str, str]]:
        """(task, subset, metric) -> how the task's views name the row's subset (with the subset's own name where the
        label hides it: "#1 (evidence=1)") and its metric."""
        found = {}
        for row in self.rows():
            subset, metric = cell_labels(self.declarations.get(row.task, {}), row.subset, row.metric)
            found[(row.task, row.subset, row.metric)] = (subset_text(subset, row.subset), metric)
        return found


def compare_models(
    board: ComparisonSource,
    benchmark: str,
    a: ModelKey,
    b: ModelKey,
    *,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
    subsets: bool = True,
) -> ModelComparison:
    """Models ``a`` and ``b`` ((name, revision)) on each task of ``benchmark``, with the results its ranking uses.

    Both must have a row in the benchmark's ranking with every revision shown (``all_revisions``), so
    any revision can be picked. A task where either lacks per-query values for one of them is listed
    in ``skipped`` with the reason, never compared on fewer queries. ``subsets=False``: the task rows
    only (what ``leaderboard compare`` prints; a task with many subsets costs one test per subset).
    Subset rows are ``analysis.comparison.compare_cells``: one metric on one subset each, as labelled.
    """
    ranking = board.ranking(benchmark, with_stats=False, all_revisions=True)
    if ranking is None:
        raise BadInput(f"no benchmark named {benchmark!r} on this board")
    lines = {line.key: line for line in ranking.lines}
    for key in (a, b):
        if key not in lines:
            raise BadInput(f"{key[0]} (revision {key[1] or 'none'}) has no results on {benchmark}")
    out = ModelComparison(a, b)
    for task in dict.fromkeys(column.spec.task for column in ranking.columns):
        paths = lines[a].paths.get(task), lines[b].paths.get(task)
        _compare_task(board, out, task, paths, n_resamples=n_resamples, seed=seed, subsets=subsets)
    with_holm(out.tasks)
    return out


def _compare_task(
    board: ComparisonSource,
    out: ModelComparison,
    task: str,
    paths: tuple[str | None, str | None],
    *,
    n_resamples: int,
    seed: int,
    subsets: bool,
) -> None:
    """One task of ``compare_models``: its row (and its subsets' rows) in ``out``, or why it was skipped."""
    path_a, path_b = paths
    if path_a is None or path_b is None:
        out.skipped.append((task, "no complete result of both models"))
        return
    row = next(r for r in board.results_of(task) if r["_path"] == path_a)
    other = next(r for r in board.results_of(task) if r["_path"] == path_b)
    why = _not_comparable(row["task"], other["task"])
    if why:
        out.skipped.append((task, why))
        return
    metric, direction = str(row["task"]["main_score"]), str(row["task"]["direction"])  # as compare: A's task
    stored = board.per_query([path_a, path_b])
    got = compare_cell(
        task, metric, direction, stored[path_a], stored[path_b], subset="default", n_resamples=n_resamples, seed=seed
    )
    if isinstance(got, str):
        out.skipped.append((task, got))
        return
    out.tasks.append(got)
    out.declarations[task] = board.tasks.get(task, {})
    if subsets:
        rows, left_out = compare_cells(task, out.declarations[task], stored[path_a], stored[path_b], n_resamples, seed)
        if rows:
            out.subsets[task] = rows
        if left_out:
            out.subset_skipped[task] = skipped_text(left_out)


def _not_comparable(task_a: dict[str, Any], task_b: dict[str, Any]) -> str:
    """Why two results of a task are not compared ("": they are): another main score, another task version."""
    metric = str(task_a["main_score"])
    if task_b["main_score"] != metric:
        return f"different main scores ({metric} vs {task_b['main_score']})"
    if task_b.get("version") != task_a.get("version"):
        versions = f"{task_a.get('version')!r} vs {task_b.get('version')!r}"
        return f"different task versions ({versions}): not comparable"
    return ""


@dataclass(frozen=True)
class AggregateDifference:
    """Two models on one of the benchmark's declared aggregates: A − B with its paired interval and p where both rows
    have per-query values on every task it averages, else the plain difference and why it has no interval."""

    label: str
    direction: str
    default: bool  # the aggregate the board ranks by
    mean_a: float | None
    mean_b: float | None
    test: PairedMean | None
    why: str = ""

    @property
    def difference(self) -> float | None:
        if self.test is not None:
            return self.test.difference
        return None if self.mean_a is None or self.mean_b is None else self.mean_a - self.mean_b


def aggregate_differences(board: ComparisonSource, ranking: Ranking, a: Line, b: Line) -> list[AggregateDifference]:
    """Each declared aggregate of the benchmark (``ranking``: every revision's rows, as the pickers list them) for
    rows ``a`` and ``b``: the default one first, each a paired test of its own (not part of the tasks' Holm family)."""
    from leaderboard.app.data.aggregates import choices
    from leaderboard.app.data.statistics import paired_mean, side_columns

    found = []
    sides = {side.label: side for side in getattr(ranking.benchmark, "also", ()) or ()}
    for index, label in enumerate(choices(ranking)):
        if index == 0:
            columns: list[Any] | None = [c for c in ranking.columns if c.spec.in_aggregate]
            values, direction = (a.aggregate, b.aggregate), ranking.direction
        else:
            side = sides[label]
            columns = side_columns(ranking, side)
            values = (a.side.get(label), b.side.get(label))
            direction = side.tasks[0].direction if side.tasks else "higher"
        if values[0] is None or values[1] is None:
            continue
        test: PairedMean | str = "no interval: its tasks are not columns of the board"
        if columns:
            test = paired_mean(board, ranking, columns, a, b)
        if isinstance(test, str):
            found.append(AggregateDifference(label, direction, index == 0, values[0], values[1], None, test))
        else:
            found.append(AggregateDifference(label, direction, index == 0, values[0], values[1], test))
    return found
