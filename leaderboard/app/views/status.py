"""The status line above the tabs: which results revision the board shows, since when, and how much it holds."""

from __future__ import annotations

from leaderboard.app.data.board import Board
from leaderboard.app.views.render import esc, plural


def status_line(board: Board) -> str:
    revision = f"results revision {esc(board.revision[:12])}" if board.revision else "results from a local folder"
    shown = board.loaded_at.strftime("%Y-%m-%d %H:%M UTC")
    newest = board.last_result
    counts = board.counts()
    parts = [
        revision,
        f"shown since {shown}",
        f"newest result {esc(newest[:10])}" if newest else "no results yet",
        f"{plural(counts['models'], 'model')}, {plural(counts['results'], 'result')}",
    ]
    return f'<div class="status" id="status">{" · ".join(parts)}</div>'
