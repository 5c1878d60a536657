"""Statistics for the rows on screen only: a board of thousands of models stays fast and small.

``statistics.add_statistics`` computes every cell's bootstrap interval and every model's test
against #1 for a whole ranking: its CPU time and the memory of its resamples grow with the number
of models, too much for a board of thousands of them (docs/development/perf.md). A reader
sees one page (100 rows), so the app ranks without statistics and computes them here for the rows
it is about to show, once per row (in chunks, under one lock per ranking). The numbers are the
same as for the whole ranking: each row's resamples depend on the seed and its own values only
(``metrics.bootstrap`` draws one count matrix per stratum for all rows;
``significance.sign_flip_test`` one set of flips), and the test always pairs a row with the
ranking's #1, which every chunk includes.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING

from leaderboard.app.data.ranking import Line, Ranking
from leaderboard.app.data.statistics import add_statistics
from leaderboard.app.data.values import ModelKey

if TYPE_CHECKING:
    from leaderboard.app.data.board import Board

CHUNK = 200  # rows per computation: bounds the resample matrices (rows x 10,000 floats each)
CSV_ROWS = 1000  # rows of a CSV whose intervals and tests are computed for it (the app's download)
_DONE = "_statistics_done"
_LOCK = threading.Lock()


def with_statistics(board: Board, ranking: Ranking, lines: Iterable[Line]) -> None:
    """Give ``lines`` (rows of ``ranking``) their intervals and test against #1, if they do not have them yet.

    Rows already computed need no lock (a page's rows are usually computed ahead); the others are
    computed one chunk at a time under the ranking's lock, so a page waits for one chunk of another
    page's (or a CSV's) rows at most, never for all of them.
    """
    with _LOCK:
        state = ranking.memo.setdefault(_DONE, {"keys": set(), "lock": threading.Lock()})
    done: set[ModelKey] = state["keys"]
    best = ranking.ranked[0] if ranking.ranked else None
    todo = list({line.key: line for line in lines if line.key not in done}.values())
    if best is not None and best.key not in done and best not in todo:
        todo.insert(0, best)
    ranked_keys = {line.key for line in ranking.ranked}
    for start in range(0, len(todo), CHUNK):
        with state["lock"]:
            chunk = [line for line in todo[start : start + CHUNK] if line.key not in done]
            if not chunk:
                continue
            ranked = [line for line in chunk if line.key in ranked_keys and line is not best]
            unranked = [line for line in chunk if line.key not in ranked_keys]
            part = Ranking(
                ranking.benchmark,
                ranking.columns,
                ([best] if best is not None else []) + ranked,
                unranked,
                ranking.aggregated,
            )
            add_statistics(board, part)
            ranking.interval_note, ranking.test_note = part.interval_note, part.test_note
            done.update(line.key for line in chunk)


def first_pages(board: Board, names: Iterable[str], rows: int = 100) -> None:
    """Rank each benchmark and give its first page its statistics (the background warm-up after a load)."""
    for name in names:
        ranking = board.ranking(name, with_stats=False)
        if ranking is not None:
            with_statistics(board, ranking, ranking.lines[:rows])
