"""The side-by-side view's pairwise tests, computed ahead in the background while the reader reads the tables.

The tests (``data.many_models.pairwise``) are computed when a reader asks for them; each pair costs a paired
bootstrap per task, so the pairs of the picks on screen are compared ahead, newest picks only, each pair once no
reader is being served (``foreground.wait_for_readers``), as the board's own next page is (``prefetch``).
"""

from __future__ import annotations

import itertools
import threading
from typing import TYPE_CHECKING

from leaderboard.app.server import background
from leaderboard.app.server.foreground import wait_for_readers

if TYPE_CHECKING:
    from leaderboard.app.data.board import Board
    from leaderboard.app.data.many_models import Picked
    from leaderboard.app.data.ranking import Line

AHEAD = "side-by-side tests"  # the background work's name in ``GET /_leaderboard/background``
_ahead = threading.Condition()
_wanted: tuple[Board, Picked] | None = None  # the newest picks whose tests are computed ahead (one at a time)
_worker: threading.Thread | None = None


def tests_ahead(board: Board, picks: Picked) -> None:
    """Compute the picks' pairwise comparisons in the background (``Board.comparison`` keeps them), so that the
    tests a reader asks for next are ready: at real size (ComLQ, 2,909 queries) each pair costs a few tenths of
    a second. Only the newest picks are kept; each pair waits until no reader is being served
    (``foreground.wait_for_readers``), as the board's own look-ahead does (``prefetch``)."""
    global _wanted, _worker
    with _ahead:
        if _wanted is None:  # one ``begin`` per posted picks, ended when the worker is done with them
            background.begin(AHEAD)
        _wanted = (board, picks)
        if _worker is None:
            _worker = threading.Thread(target=_run_ahead, name="leaderboard-side-tests", daemon=True)
            _worker.start()
        _ahead.notify_all()


def _run_ahead() -> None:
    global _wanted
    while True:
        with _ahead:
            while _wanted is None:
                _ahead.wait()
            board, picks = _wanted
            _wanted = None
        try:
            for benchmark, a, b in _pairs(picks):
                if _wanted is not None:  # newer picks: these are no longer on screen
                    break
                wait_for_readers()
                try:
                    board.comparison(benchmark, a.key, b.key, subsets=False)
                except Exception:  # shown (with its reason) when the reader asks for the tests; never a crash
                    continue
        finally:
            background.end(AHEAD)


def _pairs(picks: Picked) -> list[tuple[str, Line, Line]]:
    """Each pair of picks with per-query values on each benchmark they share."""
    found = []
    for part in picks.parts:
        present = [line for line in part.lines if line is not None and not line.imported]
        found += [(part.benchmark, a, b) for a, b in itertools.combinations(present, 2)]
    return found
