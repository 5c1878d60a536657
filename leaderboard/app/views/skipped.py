"""The Skipped tab: every result file or declaration the board could not use, with its reason in full.

A file that is skipped is never shown elsewhere, so the reason is the only place a submitter learns why.
"""

from __future__ import annotations

from leaderboard.app.data.board import Board
from leaderboard.app.views.render import Cell, esc, table


def skipped_html(board: Board) -> str:
    from leaderboard.app.data.reported_tier import reported_scores

    skipped = list(board.skipped) + [_reported_skip(reason) for reason in reported_scores(board)[1]]
    if not skipped:
        return '<div class="empty">No file was skipped: every result file is valid.</div>'
    rows = [[Cell(esc(path), path, "c-file"), Cell(esc(reason), reason, "c-reason")] for path, reason in skipped]
    intro = (
        f"<p>{len(skipped)} file(s) or declarations could not be used and are never shown elsewhere. Paths are "
        "relative to the results dataset; reasons are given in full.</p>"
    )
    return intro + table([("File", "", "c-file"), ("Reason", "", "c-reason")], [("rows", "", rows)], "skipped-table")


def _reported_skip(reason: str) -> tuple[str, str]:
    """A reported-scores file's skip reason ('path: why') as (file, reason), the path made relative."""
    path, _, why = reason.partition(": ")
    return (path.rsplit("/reported/", 1)[-1] and "reported/" + path.rsplit("/reported/", 1)[-1], why or reason)
