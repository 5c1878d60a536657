"""``leaderboard show DIR --subsets``: each task's per-subset table, with intervals, in every format.

The rows are ``analysis.subset_table.subset_rows`` (the subsets and metrics each task's views show,
each with the interval the board shows). JSON and CSV list them as records (one per result, subset
and metric); the terminal table and Markdown lay out one table per task, a row per model and
subset, a column per metric ("value [low, high]"), through ``formats.emit`` and
``paper_tables.render``. ``--columns`` (Markdown, LaTeX) picks the metrics.

LaTeX must fit a page of an article, which a row per model and subset with a column per metric
cannot (NegConstraint's 8 metrics, ComLQ's 36 subsets times the models): there the models are the
columns (A, B, ...: the caption names them, a model name would widen its column), at most
``MODELS_PER_TABLE`` per table; each metric heads a block of its subsets' rows, each score with its
interval below it and each subset's label with its own name below it where the label hides it; and
a task's blocks are cut into tables a page holds, each a float of its own ("part 2 of 3",
``paper_pages``). No scaling (``\\resizebox``) and no package beyond booktabs. ``--columns`` picks
the metrics.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from leaderboard.analysis.subset_text import subset_text
from leaderboard.cli.formats import emit

# An article's text is 345pt wide: a subset's column (about 90pt) and three scores of about 83pt each, the widest
# being a negative interval below its score ("[−4.1394, −1.3743]").
MODELS_PER_TABLE = 3


def show_subsets(paths: Sequence[Path], fmt: str, title: str, columns: Sequence[str] = ()) -> None:
    from leaderboard.analysis.subset_table import COLUMNS, subset_rows
    from leaderboard.records.files import read_result

    rows: list[dict[str, Any]] = []
    for path in paths:
        rows += subset_rows(read_result(path), str(path))
    fmt = fmt.lower()
    if fmt in ("json", "csv"):
        emit(rows, fmt, title, COLUMNS)
        return
    if columns:  # --columns: the metrics, by name (as JSON and CSV name them)
        from leaderboard.cli.paper_tables import choose_columns

        chosen = choose_columns(columns, list(dict.fromkeys(row["metric"] for row in rows)), [])
        rows = sorted((row for row in rows if row["metric"] in chosen), key=lambda row: chosen.index(row["metric"]))
    tasks = list(dict.fromkeys(row["task"] for row in rows))
    for number, task in enumerate(tasks):
        task_rows = [row for row in rows if row["task"] == task]
        if fmt == "latex":
            click.echo(("\n" if number else "") + "\n".join(latex_tables(task, task_rows)), nl=False)
            continue
        headers, body = wide(task_rows)
        if fmt == "markdown":  # a paper's caption names the task, never a local path
            from leaderboard.cli.paper_tables import render

            caption = f"{task}: scores per subset, each with its 95% interval."
            text = render(headers, [[(cell, False) for cell in line] for line in body], fmt, caption, [NOTE], 2)
            click.echo(("\n" if number else "") + text, nl=False)
        else:
            emit([dict(zip(headers, line)) for line in body], "table", f"{title}: {task} per subset", headers)
    if fmt == "table" and rows:
        from leaderboard.cli.console import out

        out().print(NOTE, highlight=False)


NOTE = (
    "Each cell: the score over the subset's queries with its 95% interval: the result's own, else the percentile "
    "bootstrap (10,000 resamples) of the per-query values behind it (a metric computed on some queries only, "
    "such as LSNC, over those); '–' no score, no brackets: no interval (the JSON and CSV say why)."
)
LATEX_NOTE = (
    "Each score is over the subset's queries, with its 95% interval below it: the result's own, else the percentile "
    "bootstrap (10,000 resamples) of the per-query values behind it (a metric computed on some queries only, such "
    "as LSNC, over those); –: no score; no interval below a score: none could be computed"
)


def _cell(row: dict[str, Any]) -> str:
    text = f"{row['value']:.4f}"
    if row["ci_low"] is not None:
        text += f" [{row['ci_low']:.4f}, {row['ci_high']:.4f}]"
    return text


def _model(row: dict[str, Any]) -> str:
    model = row["model"] + ("" if row["complete"] else " (partial)")
    return model + (f" @ {row['revision']}" if row["revision"] else "")


def _metric(row: dict[str, Any]) -> str:
    return row["metric_label"] + (" ↓" if row["direction"] == "lower" else "")


def wide(rows: Any) -> tuple[list[str], list[list[str]]]:
    """One task's rows as a table: Model, Subset, then a column per metric (its label, ↓ when lower is better)."""
    rows = list(rows)
    metrics: dict[str, str] = {}
    for row in rows:
        metrics.setdefault(row["metric"], _metric(row))
    lines: dict[tuple[str, str, str], dict[str, str]] = {}
    for row in rows:
        subset = subset_text(row["subset_label"], row["subset"])
        lines.setdefault((row["file"], _model(row), subset), {})[row["metric"]] = _cell(row)
    headers = ["Model", "Subset", *metrics.values()]
    body = [[model, subset, *(cells.get(m, "–") for m in metrics)] for (_, model, subset), cells in lines.items()]
    return headers, body


def latex_tables(task: str, rows: Sequence[dict[str, Any]]) -> list[str]:
    """One task's rows as LaTeX tables that fit an article's page (see the module's docstring)."""
    from leaderboard.cli.paper_pages import Part, latex_parts, paginate, slug, subset_cell
    from leaderboard.cli.paper_tables import Cell, score_cell

    models = list(dict.fromkeys((row["file"], _model(row)) for row in rows))
    metrics = list(dict.fromkeys(row["metric"] for row in rows))
    by_cell = {(row["file"], row["metric"], row["subset"]): row for row in rows}
    parts = []
    for first in range(0, len(models), MODELS_PER_TABLE):
        group = models[first : first + MODELS_PER_TABLE]
        files = {file for file, _ in group}
        letters = [_letter(first + i) for i in range(len(group))]
        blocks = []
        for metric in metrics:
            mine = [row for row in rows if row["metric"] == metric and row["file"] in files]
            lines = []
            for subset, label in dict.fromkeys((row["subset"], row["subset_label"]) for row in mine):
                cells = [by_cell.get((file, metric, subset)) for file, _ in group]
                shown = [score_cell(c["value"], _interval(c)) if c else Cell("–") for c in cells]
                lines.append([subset_cell(label, subset), *shown])
            if mine:
                blocks.append((_metric(mine[0]), lines))
        key = "; ".join(f"{letter} = {name}" for letter, (_, name) in zip(letters, group))
        parts += [Part(["Subset", *letters], page, key) for page in paginate(blocks)]
    return latex_parts(parts, f"{task}: scores per subset", [LATEX_NOTE], f"tab:leaderboard-subsets-{slug(task)}")


def _interval(row: dict[str, Any]) -> tuple[float, float] | None:
    return None if row["ci_low"] is None else (row["ci_low"], row["ci_high"])


def _letter(i: int) -> str:
    """A, B, ..., Z, AA, AB, ...: the column of the i-th model."""
    return _letter(i // 26 - 1) + chr(65 + i % 26) if i >= 26 else chr(65 + i)
