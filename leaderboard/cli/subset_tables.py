"""``leaderboard show DIR --subsets``: each task's per-subset table, with intervals, in every format.

The rows are ``records.subset_table.subset_rows`` (the subsets and metrics each task's views show,
each with the interval the board shows). JSON and CSV list them as records (one per result, subset
and metric); the terminal table, Markdown and LaTeX lay out one table per task, a row per model
and subset, a column per metric ("value [low, high]"), through ``formats.emit`` and
``paper_tables.render``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from leaderboard.cli.formats import emit
from leaderboard.records.subset_text import subset_text


def show_subsets(paths: Sequence[Path], fmt: str, title: str) -> None:
    from leaderboard.records.files import read_result
    from leaderboard.records.subset_table import COLUMNS, subset_rows

    rows: list[dict[str, Any]] = []
    for path in paths:
        rows += subset_rows(read_result(path), str(path))
    fmt = fmt.lower()
    if fmt in ("json", "csv"):
        emit(rows, fmt, title, COLUMNS)
        return
    tasks = list(dict.fromkeys(row["task"] for row in rows))
    for number, task in enumerate(tasks):
        headers, body = wide(row for row in rows if row["task"] == task)
        caption = f"{title}: {task} per subset"
        if fmt in ("markdown", "latex"):  # a paper's caption names the task, never a local path
            caption = f"{task}: scores per subset, each with its 95% interval."
            from leaderboard.cli.paper_tables import render

            notes = [NOTE]
            text = render(headers, [[(cell, False) for cell in line] for line in body], fmt, caption, notes, 2)
            click.echo(("\n" if number else "") + text, nl=False)
        else:
            emit([dict(zip(headers, line)) for line in body], "table", caption, headers)
    if fmt == "table" and rows:
        from leaderboard.cli.console import out

        out().print(NOTE, highlight=False)


NOTE = (
    "Each cell: the score over the subset's queries with its 95% interval: the result's own, else the percentile "
    "bootstrap (10,000 resamples) of the per-query values behind it (a metric computed on some queries only, "
    "such as LSNC, over those); '–' no score, no brackets: no interval (the JSON and CSV say why)."
)


def _cell(row: dict[str, Any]) -> str:
    text = f"{row['value']:.4f}"
    if row["ci_low"] is not None:
        text += f" [{row['ci_low']:.4f}, {row['ci_high']:.4f}]"
    return text


def wide(rows: Any) -> tuple[list[str], list[list[str]]]:
    """One task's rows as a table: Model, Subset, then a column per metric (its label, ↓ when lower is better)."""
    rows = list(rows)
    metrics: dict[str, str] = {}
    for row in rows:
        metrics.setdefault(row["metric"], row["metric_label"] + (" ↓" if row["direction"] == "lower" else ""))
    lines: dict[tuple[str, str, str], dict[str, str]] = {}
    for row in rows:
        model = row["model"] + ("" if row["complete"] else " (partial)")
        if row["revision"]:
            model += f" @ {row['revision']}"
        subset = subset_text(row["subset_label"], row["subset"])
        lines.setdefault((row["file"], model, subset), {})[row["metric"]] = _cell(row)
    headers = ["Model", "Subset", *metrics.values()]
    body = [[model, subset, *(cells.get(m, "–") for m in metrics)] for (_, model, subset), cells in lines.items()]
    return headers, body
