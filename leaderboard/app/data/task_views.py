"""A task's declared views (``task.views`` in its results) -> the numbers a table or chart shows.

A view (the contract's ``View``: one class for tasks, results and the app) names a split, subsets
and metrics; exactly one of subsets and metrics is the axis (the one with several entries), in the
declared order, with display labels. Nothing here knows any
particular task: a third-party task declares its views and gets them drawn.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pandas as pd

from leaderboard.app.data.board import Board
from leaderboard.app.data.values import ModelKey, finite, interval
from leaderboard.contract.task import COMPLEXITY_VIEW_TITLE, View

KINDS = ("table", "curve", "bars")


def parse_view(raw: Any, main_score: str) -> View | None:
    """The contract's ``View`` from a result's stored declaration, or None when it is not one."""
    if not isinstance(raw, dict) or raw.get("kind") not in KINDS:
        return None

    def strings(value: Any) -> tuple[str, ...]:
        return tuple(v for v in value if isinstance(v, str)) if isinstance(value, (list, tuple)) else ()

    subsets = strings(raw.get("subsets")) or ("default",)
    metrics = strings(raw.get("metrics")) or (main_score,)
    labels: dict[Any, Any] = raw["labels"] if isinstance(raw.get("labels"), dict) else {}
    y_range = raw.get("y_range")
    bounds = (
        (finite(y_range[0]), finite(y_range[1])) if isinstance(y_range, (list, tuple)) and len(y_range) == 2 else None
    )
    return View(
        kind=raw["kind"],
        title=str(raw.get("title") or ""),
        subsets=subsets,
        metrics=metrics,
        split=str(raw.get("split") or "test"),
        labels={str(k): str(v) for k, v in labels.items()},
        description=str(raw.get("description") or ""),
        y_range=bounds if bounds and None not in bounds else None,  # type: ignore[arg-type]
    )


def views_of(board: Board, task: str) -> list[View]:
    declared = board.tasks.get(task, {})
    main = str(declared.get("main_score") or "")
    raw: list[Any] = declared["views"] if isinstance(declared.get("views"), list) else []
    return [v for v in (parse_view(r, main) for r in raw) if v is not None]


def benchmark_views(board: Board, benchmark: Any) -> list[tuple[str, list[View]]]:
    """(task, views) drawn with a benchmark: those it names (``Benchmark.views``: task and title, in its
    order), else every view its tasks declare."""
    tasks = dict.fromkeys(t.task for t in benchmark.tasks)
    named = [(v.task, v.title) for v in getattr(benchmark, "views", ()) or ()]
    if not named:
        return [(task, views_of(board, task)) for task in tasks]
    out: list[tuple[str, list[View]]] = []
    for task, title in named:
        found = [v for v in views_of(board, task) if v.title == title]
        if found:
            out.append((task, found))
    # the engine's query-complexity curve goes with every benchmark, whatever views it names
    for task in tasks:
        found = [v for v in views_of(board, task) if v.title == COMPLEXITY_VIEW_TITLE]
        if found:
            out.append((task, found))
    return out


def direction_of(board: Board, task: str, metric: str) -> str:
    for m in board.tasks.get(task, {}).get("metrics", []):
        if isinstance(m, dict) and m.get("name") == metric:
            return "lower" if m.get("direction") == "lower" else "higher"
    return "higher"


def model_labels(keys: list[ModelKey]) -> dict[ModelKey, str]:
    """A model's name, with its revision only where two revisions of one model are shown."""
    times = Counter(k[0] for k in keys)
    return {k: (f"{k[0]} @ {k[1]}" if times[k[0]] > 1 else k[0]) for k in keys}


def view_frame(board: Board, view: View, task_paths: dict[ModelKey, str], task: str = "") -> pd.DataFrame:
    """Long form: one row per (model, axis entry) with its value (NaN when the result lacks it) and its 95% interval
    (``low``, ``high``; NaN where there is none): the one the result stored for that score, else, given the
    ``task``, the bootstrap of the queries behind it (``statistics.score_intervals``, as a board cell's).

    ``task_paths``: the result file to read per model, in the order models are shown.
    """
    from leaderboard.app.data.statistics import score_intervals

    details = board.details(task_paths.values())
    labels = model_labels(list(task_paths))
    rows: list[dict[str, Any]] = []
    wanted: dict[int, tuple[str, str, str, float]] = {}
    for key, path in task_paths.items():
        detail = details.get(path) or {}
        scores = detail.get("scores") or {}
        subsets = scores.get(view.split) if isinstance(scores, dict) else None
        stored = (detail.get("confidence_intervals") or {}).get(view.split)
        for position, (subset, metric) in enumerate(view.axis):
            values = (subsets or {}).get(subset) if isinstance(subsets, dict) else None
            value = finite(values.get(metric)) if isinstance(values, dict) else None
            found = ((stored or {}).get(subset) or {}).get(metric) if isinstance(stored, dict) else None
            ci = interval(found) if value is not None else None
            if value is not None and ci is None:
                wanted[len(rows)] = (path, subset, metric, value)
            rows.append(
                {
                    "model": labels[key],
                    "entry": view.label(subset, metric),
                    "order": position,
                    "metric": metric,
                    "value": float("nan") if value is None else value,
                    "low": ci[0] if ci else float("nan"),
                    "high": ci[1] if ci else float("nan"),
                }
            )
    if task and wanted:
        for index, (low, high) in score_intervals(board, task, view.split, wanted).items():
            rows[index]["low"], rows[index]["high"] = low, high
    return pd.DataFrame(rows, columns=["model", "entry", "order", "metric", "value", "low", "high"])


def view_table(frame: pd.DataFrame, view: View) -> pd.DataFrame:
    """Wide form for a table: one row per model, one column per axis entry in the declared order."""
    entries = [view.label(s, m) for s, m in view.axis]
    if frame.empty:
        return pd.DataFrame(columns=["model", *entries])
    wide = frame.pivot_table(index="model", columns="entry", values="value", aggfunc="first", sort=False, dropna=False)
    wide = wide.reindex(columns=entries).reindex(list(dict.fromkeys(frame["model"])))
    return wide.reset_index()
