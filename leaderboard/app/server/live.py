"""A board that follows its source: poll the revision every N seconds and swap in a new board.

The poll runs in a daemon thread on the server, so new commits to the results dataset appear
without a restart and without anyone keeping a page open. Rebuilding is cheap: the index
re-validates only files whose bytes changed. A failed poll (hub down) keeps the board shown and
is reported on stderr, with any credential redacted.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path

from leaderboard.app.data.board import Board
from leaderboard.app.server import background
from leaderboard.app.server.foreground import wait_for_readers
from leaderboard.app.server.memory import keep_out_of_collections, limit_fragmentation
from leaderboard.app.server.sources import Source

DEFAULT_POLL_SECONDS = 600.0


class LiveBoard:
    def __init__(
        self,
        source: Source,
        make: Callable[[Path, str | None], Board],
        poll_seconds: float | None = None,
        inputs_changed: Callable[[], bool] | None = None,
    ):
        """``inputs_changed``: called at each poll, True when what ``make`` reads besides the results changed
        (the queue's keyring): the board is then rebuilt from the revision shown."""
        limit_fragmentation()  # before the server's threads start (``memory``)
        self.source, self.make, self.poll_seconds = source, make, poll_seconds
        self.inputs_changed = inputs_changed
        self.warming = False  # precompute rankings of each new board (turned on once the server listens)
        # What the tabs draw first (``tabs.base.Tab.warm``), computed after each board's first pages
        self.warmers: list[Callable[[Board], None]] = []
        # A local folder's fingerprint walks every file: only worth it when polling.
        self._shown = source.latest() if source.repo is None and poll_seconds else None
        folder = source.fetch()
        self.board = self._ready(make(folder, source.revision))
        keep_out_of_collections()  # the board (its rankings: at the warm-up's end)
        if source.repo:
            self._shown = source.revision
        self.generation = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def check(self) -> bool:
        """Reload when the source has a newer revision or the other inputs changed; True when the board was replaced."""
        changed = self.inputs_changed() if self.inputs_changed else False  # first: the rebuild reads them
        latest = self.source.latest()
        if latest is None or latest == self._shown:
            if not changed:
                return False
            latest = self._shown
        folder = self.source.fetch(latest if self.source.repo else None)
        self.board = self._ready(self.make(folder, self.source.revision))
        keep_out_of_collections()  # the new board; the one it replaced is collected first
        self._shown = latest
        self.generation += 1
        return True

    def _ready(self, board: Board) -> Board:
        """Rankings are computed in the background, so the first page and each switch find them ready."""
        if self.warming:
            background.begin("warm-up")  # before the thread starts: no moment between looks idle
            threading.Thread(
                target=_warm, args=(board, list(self.warmers)), name="leaderboard-warm", daemon=True
            ).start()
        return board

    def start_warming(self) -> None:
        """Precompute the current board's rankings now, and every later board's when it is loaded.

        Called once the server listens: started earlier, it would compete with the server's start.
        """
        self.warming = True
        self._ready(self.board)

    def start(self) -> None:
        if not self.poll_seconds or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._loop, name="leaderboard-poll", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _loop(self) -> None:
        while not self._stop.wait(self.poll_seconds):
            try:
                self.check()
            except Exception as exc:  # keep showing the last good board
                from leaderboard.security.redaction import redact

                print(f"leaderboard: could not refresh the results: {redact(exc)}", file=sys.stderr)


def _warm(board: Board, warmers: list[Callable[[Board], None]]) -> None:
    """Rank every benchmark and compute its first page's statistics (the page a reader opens), then what the
    tabs draw first (``warmers``: the chart library loaded, Size vs score's charts), then Overall, then what
    the Compare tab opens on: every revision ranked (its model pickers) and #1 against #2, per task and per
    subset (a comparison of ComLQ's 51 subsets takes seconds), then the first page a click on each column's
    header shows (its best first: at most a page per column, fewer as their top rows overlap), then every
    other row's statistics.

    Those are computed a batch of rows at a time (``prefetch.quietly``), each batch once no reader is
    served: all rows at once would hold hundreds of megabytes of resamples at thousands of models, and a
    reader who pages, searches, opens a model's page or picks models side by side before the end gets
    their rows computed first (``page_statistics``).
    """
    try:
        _warm_steps(board, warmers)
        keep_out_of_collections()  # the rankings computed
    finally:
        background.end("warm-up")  # begun by ``LiveBoard._ready``


def _warm_steps(board: Board, warmers: list[Callable[[Board], None]]) -> None:
    from leaderboard.app.data.page_statistics import first_pages
    from leaderboard.app.data.sorting import PAGE_SIZE, first_sorted
    from leaderboard.app.server.prefetch import quietly

    names = [b.name for b in board.benchmarks]
    step = wait_for_readers  # before each step: any reader's request or event first (``foreground``)
    try:
        for name in names:
            step()
            first_pages(board, [name])
        for warm in warmers:
            step()
            warm(board)
        step()
        board.overall_ranking()
        for name in names:
            step()
            board.ranking(name, with_stats=False, all_revisions=True)
        for subsets in (False, True):
            for name in names:
                ranking = board.ranking(name, with_stats=False)
                if ranking is not None and len(ranking.ranked) >= 2:
                    step()
                    board.comparison(name, ranking.ranked[0].key, ranking.ranked[1].key, subsets=subsets)
        for name in names:
            sorted_by = board.ranking(name, with_stats=False)
            if sorted_by is None:
                continue
            for column in sorted_by.columns:  # after a reader's pages (``prefetch.quietly``)
                quietly(board, sorted_by, first_sorted(sorted_by, column.key, "desc", PAGE_SIZE))
        for name in names:  # last, every other row: a model's page, a pick side by side or a search finds it ready
            every = board.ranking(name, with_stats=False)
            if every is not None:
                quietly(board, every, every.lines)
    except Exception as exc:  # a ranking that fails here fails again, visibly, when it is asked for
        print(f"leaderboard: could not precompute the rankings: {exc}", file=sys.stderr)
