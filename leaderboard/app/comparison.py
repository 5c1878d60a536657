"""The two-model comparison view's numbers: per task and per subset, ``leaderboard compare``'s statistics.

Nothing is computed here: each row is ``records.comparison.compare_values`` (the function behind
``leaderboard compare``) on the per-query values the board's index holds for the two models'
results, and the task rows are Holm-adjusted together by ``with_holm``, as ``compare`` does. Subset
rows (a query type, a domain, a content-word stratum) compare that subset's own queries, as both
results name them, and are Holm-adjusted as one family per task. ``Board.comparison`` caches them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from leaderboard.app.ranking import Ranking
from leaderboard.app.values import ModelKey
from leaderboard.errors import BadInput
from leaderboard.metrics.bootstrap import N_RESAMPLES
from leaderboard.records.comparison import TaskComparison, compare_values, with_holm


class ComparisonSource(Protocol):
    """What a comparison reads of a board (``board.Board`` is one): rankings, result rows, per-query values."""

    def ranking(self, name: str, with_stats: bool = True, all_revisions: bool = False) -> Ranking | None: ...

    def results_of(self, task: str) -> list[dict[str, Any]]: ...

    def per_query(self, paths: Iterable[str]) -> dict[str, dict[str, Any] | None]: ...


@dataclass
class ModelComparison:
    a: ModelKey
    b: ModelKey
    tasks: list[TaskComparison] = field(default_factory=list)  # all queries, Holm across these tasks
    subsets: dict[str, list[TaskComparison]] = field(default_factory=dict)  # task -> its subsets, Holm per task
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (task, why it could not be compared)


def _values(stored: dict[str, Any] | None, metric: str) -> dict[str, float] | None:
    if not stored:
        return None
    ids, values = stored.get("ids"), (stored.get("values") or {}).get(metric)
    if not isinstance(ids, list) or not isinstance(values, list) or len(ids) != len(values) or not ids:
        return None
    return dict(zip(ids, values))


def _members(stored: dict[str, Any], ids: list[str]) -> dict[str, list[str]]:
    found = {}
    for subset, positions in (stored.get("subsets") or {}).items():
        if (
            isinstance(positions, list)
            and positions
            and all(isinstance(p, int) and 0 <= p < len(ids) for p in positions)
        ):
            found[subset] = sorted(ids[p] for p in positions)
    return found


def compare_models(
    board: ComparisonSource,
    benchmark: str,
    a: ModelKey,
    b: ModelKey,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
    subsets: bool = True,
) -> ModelComparison:
    """Models ``a`` and ``b`` ((name, revision)) on each task of ``benchmark``, with the results its ranking uses.

    Both must have a row in the benchmark's ranking with every revision shown (``all_revisions``), so
    any revision can be picked. A task where either lacks per-query values for one of them is listed
    in ``skipped`` with the reason, never compared on fewer queries. ``subsets=False``: the task rows
    only (what ``leaderboard compare`` prints; a task with many subsets costs one test per subset).
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
        path_a, path_b = lines[a].paths.get(task), lines[b].paths.get(task)
        if path_a is None or path_b is None:
            out.skipped.append((task, "no complete result of both models"))
            continue
        row = next(r for r in board.results_of(task) if r["_path"] == path_a)
        metric, direction = str(row["task"]["main_score"]), str(row["task"]["direction"])  # as compare: A's task
        other = next(r for r in board.results_of(task) if r["_path"] == path_b)
        if other["task"]["main_score"] != metric:
            out.skipped.append((task, f"different main scores ({metric} vs {other['task']['main_score']})"))
            continue
        stored = board.per_query([path_a, path_b])
        values_a, values_b = _values(stored[path_a], metric), _values(stored[path_b], metric)
        if values_a is None or values_b is None:
            out.skipped.append((task, f"no per-query values of {metric} for both models"))
            continue
        try:
            out.tasks.append(
                compare_values(task, metric, direction, values_a, values_b, n_resamples=n_resamples, seed=seed)
            )
        except BadInput as exc:
            out.skipped.append((task, str(exc)))
            continue
        if not subsets:
            continue
        members_a = _members(stored[path_a] or {}, list(values_a))
        members_b = _members(stored[path_b] or {}, list(values_b))
        rows = []
        for subset in sorted(set(members_a) & set(members_b)):
            ids = members_a[subset]
            if ids != members_b[subset]:
                continue  # the two results disagree on what the subset is: nothing to pair
            pair = ({q: values_a[q] for q in ids}, {q: values_b[q] for q in ids})
            rows.append(
                compare_values(task, metric, direction, *pair, subset=subset, n_resamples=n_resamples, seed=seed)
            )
        if rows:
            out.subsets[task] = with_holm(rows)
    with_holm(out.tasks)
    return out
