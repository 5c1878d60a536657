"""Each task's numbers below its main score, per subset, with intervals: ``leaderboard show --subsets``.

For one result: a row per (subset, metric) the task's views show (``TaskMetadata.views``: ComLQ per
query type with LSNC on its negation types, NegConstraint per category with the violation metrics,
MultiConIR per domain), the whole task first and the main score first, each with the 95% interval
the board shows for it (``analysis.cell_intervals``: the result's own, else the bootstrap of the
per-query values behind the score) and the number of queries behind it. Subsets and metrics are
named as the views name them (``analysis.comparison.cell_labels``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from leaderboard.analysis.cell_intervals import intervals

COLUMNS = (
    "model",
    "revision",
    "task",
    "complete",
    "subset",
    "subset_label",
    "metric",
    "metric_label",
    "direction",
    "value",
    "ci_low",
    "ci_high",
    "ci_source",
    "queries",
    "ci_note",
    "file",
)


def table_axes(declaration: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """(subsets, metrics) a task's views show: "default" and the main score first, then in declared order."""
    subsets, metrics = ["default"], [str(declaration.get("main_score"))]
    for view in declaration.get("views") or []:
        for subset in view.get("subsets") or ("default",):
            if subset not in subsets:
                subsets.append(str(subset))
        for metric in view.get("metrics") or ():
            if metric not in metrics:
                metrics.append(str(metric))
    return subsets, metrics


def subset_rows(result: Any, where: str = "") -> list[dict[str, Any]]:
    """One row per (subset, metric) of ``table_axes`` that the result has a score for (main split)."""
    from leaderboard.analysis.comparison import cell_labels, direction_of

    declaration = result.task.model_dump(mode="json")
    subsets, metrics = table_axes(declaration)
    scores = result.scores.get(result.task.main_split, {})
    cells = [(s, m) for s in subsets for m in metrics if m in scores.get(s, {})]
    found = intervals(result, cells)
    rows = []
    for subset, metric in cells:
        interval = found[(subset, metric)]
        subset_label, metric_label = cell_labels(declaration, subset, metric)
        rows.append(
            {
                "model": result.model.name,
                "revision": result.model.revision,
                "task": result.task.name,
                "complete": result.is_complete,
                "subset": subset,
                "subset_label": subset_label,
                "metric": metric,
                "metric_label": metric_label,
                "direction": direction_of(declaration, metric),
                "value": float(scores[subset][metric]),
                "ci_low": interval.low,
                "ci_high": interval.high,
                "ci_source": interval.source,
                "queries": interval.queries
                if interval.queries is not None
                else result.subset_sizes.get(result.task.main_split, {}).get(subset),
                "ci_note": interval.note,
                "file": where,
            }
        )
    return rows
