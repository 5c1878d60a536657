"""The Task views tab's tables: a task's declared view as a table (the best value of each entry in bold).

The numbers come from ``task_views`` (what the task declared, read from its results); charts are drawn by ``charts``.
"""

from __future__ import annotations

import pandas as pd

from leaderboard.app.data.board import Board
from leaderboard.app.data.task_views import direction_of
from leaderboard.app.data.values import finite
from leaderboard.app.views.render import ARROW, Cell, esc, score, table
from leaderboard.contract.task import View


def view_table_html(board: Board, task: str, view: View, wide: pd.DataFrame, table_id: str) -> str:
    entries = [c for c in wide.columns if c != "model"]
    directions = {view.label(s, m): direction_of(board, task, m) for s, m in view.axis}
    best = {}
    for entry in entries:
        values = [v for v in wide[entry] if finite(v) is not None]
        if values:
            best[entry] = min(values) if directions.get(entry) == "lower" else max(values)
    headers = [("Model", "", "c-name")] + [
        (f'<span class="h">{esc(e)}</span><span class="m">{ARROW[directions.get(e, "higher")]}</span>', "", "")
        for e in entries
    ]
    rows = []
    for _, record in wide.iterrows():
        cells = [Cell(esc(record["model"]), record["model"], "c-name", str(record["model"]))]
        for entry in entries:
            value = finite(record[entry])
            cells.append(Cell(score(value), value, "best" if value is not None and value == best.get(entry) else ""))
        rows.append(cells)
    return table(headers, [("rows", "", rows)], table_id)


def view_heading(task: str, view: View) -> str:
    description = f'<p class="m">{esc(view.description)}</p>' if view.description else ""
    return f'<h3 class="view-title">{esc(task)}: {esc(view.title)}</h3>{description}'
