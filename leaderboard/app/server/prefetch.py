"""The statistics of the page a reader is likely to ask for next, computed while they read this one.

A board page's intervals and tests take a time a reader notices at real size (thousands of queries,
many columns, ``N_RESAMPLES`` resamples each; ``page_statistics``). After a page is drawn, the next page of the same
view is computed in one background thread, so "next page" finds it ready. The background gives way:
it works in small batches and waits while a reader's own page is being computed (``now``), so it never
holds a ranking's lock when a page is asked for; only the newest request is kept (a reader paging fast
skips the pages they passed). A page computed ahead is exactly the page computed on demand
(``with_statistics``: once per row). Each batch also waits until no reader has been served for a moment
(``foreground.wait_for_readers``): the page that asked for it is sent and drawn first.
"""

from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING

from leaderboard.app.server import background
from leaderboard.app.server.foreground import wait_for_readers

if TYPE_CHECKING:
    from leaderboard.app.data.board import Board
    from leaderboard.app.data.ranking import Line, Ranking

BATCH = 50  # rows computed ahead between two looks at the reader's requests (each costs a pass over the draws)
_state = threading.Condition()
_next: tuple[Board, Ranking, list[Line]] | None = None
_foreground = 0  # pages being computed for a reader now
_worker: threading.Thread | None = None
# From a page asked for ahead until nothing more is: the server's own work is not idle (``background``).
_asked = False


def now(board: Board, ranking: Ranking, lines: list[Line]) -> None:
    """``with_statistics`` for a page a reader waits for: the background gives way meanwhile."""
    global _foreground
    from leaderboard.app.data.page_statistics import with_statistics

    with _state:
        _foreground += 1
    try:
        with_statistics(board, ranking, lines)
    finally:
        with _state:
            _foreground -= 1
            _state.notify_all()


def ahead(board: Board, ranking: Ranking, lines: list[Line]) -> None:
    """Compute ``lines``' statistics in the background (replacing any request not started yet)."""
    global _next, _worker
    if not lines:
        return
    with _state:
        if not _asked:
            _asked_now()
        _next = (board, ranking, list(lines))
        if _worker is None:
            _worker = threading.Thread(target=_run, name="leaderboard-prefetch", daemon=True)
            _worker.start()
        _state.notify_all()


def quietly(board: Board, ranking: Ranking, lines: list[Line], passed: bool = False) -> bool:
    """``with_statistics`` of ``lines`` in this thread, in batches, each once no reader's page is being
    computed; False when stopped early (``passed``: as soon as a newer view is asked for ahead)."""
    from leaderboard.app.data.page_statistics import with_statistics

    for start in range(0, len(lines), BATCH):
        wait_for_readers()  # any reader's request or event first (``foreground``)
        with _state:
            while _foreground and not (passed and _next is not None):  # a reader's page first
                _state.wait()
            if passed and _next is not None:  # a newer view: this one is passed
                return False
        with_statistics(board, ranking, lines[start : start + BATCH])
    return True


def _run() -> None:
    global _next
    while True:
        with _state:
            while _next is None:
                _state.wait()
            board, ranking, lines = _next
            _next = None
        try:
            quietly(board, ranking, lines, passed=True)
        except Exception as exc:  # computed again, visibly, when the page is asked for
            print(f"leaderboard: could not compute the next page ahead: {exc}", file=sys.stderr)
        finally:
            with _state:
                if _next is None and _asked:  # nothing more asked for meanwhile: the work is done
                    _done()


def _asked_now() -> None:
    global _asked
    _asked = True
    background.begin("next page ahead")


def _done() -> None:
    global _asked
    _asked = False
    background.end("next page ahead")
