"""The Provenance tab: every result behind a benchmark's view, with the file, data hash and harness that made it.

Paged on the server (``PAGE_SIZE`` rows), so a board of thousands of results sends one page at a time.
"""

from __future__ import annotations

from typing import Any

from leaderboard.app.data.board import Board
from leaderboard.app.data.filters import Filters
from leaderboard.app.data.sorting import PAGE_SIZE, page_slice
from leaderboard.app.data.values import MISSING, finite, model_key
from leaderboard.app.views.render import (
    Cell,
    esc,
    link,
    model_cell,
    pager,
    safe_url,
    score,
    span,
    table,
)
from leaderboard.mteb.imported import source_label


def provenance_html(board: Board, tasks: list[str], search: str = "", page: int = 1) -> str:
    """Every result behind the view, one page (``PAGE_SIZE`` rows) at a time, with a pager to the others."""
    wanted = set(tasks)
    rows = [r for r in board.shown_rows if r["task"]["name"] in wanted]
    if search:
        rows = [r for r in rows if Filters(search=search).keep(r["model"])]
    rows.sort(key=lambda r: (r["task"]["name"], model_key(r)))
    if not rows:
        return '<div class="empty">No results yet.</div>'
    headers = [
        ("Model", "", "c-name"),
        ("Task", "", "c-text"),
        ("File", "relative to the results dataset", "c-file"),
        ("Main score", "the task's main metric", "c-text"),
        ("Value", "", ""),
        ("Stored 95% CI", "an interval the file itself stores; the board computes its own from per-query values", ""),
        ("Coverage", "complete results only are ranked", "c-text"),
        ("Queries", "", ""),
        ("Data hash", "sha256 over the data files actually loaded", "c-text"),
        ("Data revision", "", "c-text"),
        ("Harness", "", "c-text"),
        ("Date", "", "c-text"),
        ("Source", "", "c-text"),
    ]
    page, pages, start, stop = page_slice(len(rows), page, PAGE_SIZE)
    body = []
    for r in rows[start:stop]:
        task, digest = r["task"], r["task"].get("content_hash") or ""
        complete = "complete" if r["complete"] else f"partial ({r.get('coverage_reason') or 'subset'})"
        harness = f"{r.get('harness') or ''} {(r.get('harness_commit') or '')[:8]}".strip()
        ci = r.get("main_ci")
        body.append(
            [
                model_cell(r["model"], "c-name"),
                Cell(esc(task["name"]), task["name"], "c-text"),
                Cell(esc(r["_path"]), r["_path"], "c-file"),
                Cell(esc(task["main_score"]), task["main_score"], "c-text"),
                Cell(score(finite(r["main_score"])), finite(r["main_score"])),
                Cell(span(tuple(ci)) if isinstance(ci, list) and len(ci) == 2 else "none stored", None),
                Cell(esc(complete), int(bool(r["complete"])), "c-text"),
                Cell(esc(r.get("queries") if r.get("queries") is not None else MISSING), finite(r.get("queries"))),
                Cell(esc(digest[:19] or MISSING), digest, "c-text", digest),
                Cell(esc(task.get("data_revision") or MISSING), task.get("data_revision"), "c-text"),
                Cell(esc(harness or MISSING), harness, "c-text"),
                Cell(esc(str(r["created_at"])[:19] or "none in the file"), r["created_at"], "c-text"),
                _source_cell(r),
            ]
        )
    more = pager(
        page,
        pages,
        start + 1,
        stop,
        len(rows),
        noun="results",
        element_id="provenance-pager",
        box="provenance-page",
        go="provenance-go",
    )
    return table(headers, [("rows", "", body)], "provenance-table") + more


def _source_cell(row: dict[str, Any]) -> Cell:
    """Who made the result: "run here", or "run by mteb X.Y, imported" linked to the imported file."""
    label = source_label(row)
    if not label:
        return Cell("run here", 0, "c-text")
    found = row.get("imported_from") or {}
    url = safe_url(found.get("url"))
    text = link(url, label) if url else esc(label)
    return Cell(text, 1, "c-text", str(found.get("file") or ""))
