"""Every model of a board and the benchmark rows it has, indexed once per board.

A model page and the side-by-side view ask "where is this model?" on every click: answered from
this index (one pass over the rankings' rows, kept with the board), never by a scan of the results.
Each column's values of the ranked rows are kept sorted, so a model's place on a subset is a binary
search. Keyed by model name: a page shows the revision each benchmark shows by default.
"""

from __future__ import annotations

import bisect
import threading
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from leaderboard.app.board import Board
    from leaderboard.app.ranking import Line, Ranking

_CACHE = "_model_index"  # attribute on a Board: a new revision is a new board, so a new index
_LOCK = threading.Lock()
_ORDER = "model_index_columns"  # Ranking.memo key: each column's ranked values, sorted best first


@dataclass(frozen=True)
class Entry:
    """One model's row on one benchmark (the revision the benchmark shows by default)."""

    benchmark: str
    ranking: Ranking
    line: Line


@dataclass
class ModelIndex:
    entries: dict[str, list[Entry]]  # model name -> its rows, in the board's benchmark order

    def __post_init__(self) -> None:
        # casefolded name -> the names it folds from: a link's name is looked up once, not against every name
        self._folded: dict[str, list[str]] = {}
        for name in self.entries:
            self._folded.setdefault(name.casefold(), []).append(name)

    @cached_property
    def names(self) -> list[str]:
        """Every model name, most benchmarks first, then by name (the pickers' order; sorted once)."""
        return sorted(self.entries, key=lambda name: (-len(self.entries[name]), name.casefold()))

    def of(self, name: str) -> list[Entry]:
        return self.entries.get(name, [])

    def resolve(self, name: str) -> str | None:
        """The model a link names: exactly, else the one name equal ignoring case (None: none or several)."""
        if name in self.entries:
            return name
        folded = self._folded.get(name.strip().casefold(), [])
        return folded[0] if len(folded) == 1 else None


def model_index(board: Board) -> ModelIndex:
    """The board's index (built on first use, then kept with the board)."""
    found = board.__dict__.get(_CACHE)
    if found is not None:
        return found
    with _LOCK:
        found = board.__dict__.get(_CACHE)
        if found is None:
            entries: dict[str, list[Entry]] = {}
            for benchmark in board.benchmarks:
                ranking = board.ranking(benchmark.name, with_stats=False)
                if ranking is None:
                    continue
                for line in ranking.lines:
                    entries.setdefault(line.name, []).append(Entry(benchmark.name, ranking, line))
            found = ModelIndex(entries)
            board.__dict__[_CACHE] = found
    return found


@dataclass(frozen=True)
class Place:
    """Where a value stands among a column's ranked values: ``position`` 1 = best (ties share the better place)."""

    position: int
    of: int
    leader: Line | None


def place(ranking: Ranking, column_key: str, value: float | None) -> Place | None:
    """The place ``value`` would take among the ranked rows' values of a column (None: no value, or none ranked)."""
    if value is None:
        return None
    with _LOCK:
        memo = ranking.memo.get(_ORDER)
        if memo is None:
            memo = ranking.memo[_ORDER] = {}
    found = memo.get(column_key)
    if found is None:  # computed once per column of a ranking (its rows never change once ranked)
        column = next((c for c in ranking.columns if c.key == column_key), None)
        lower = column is not None and column.direction == "lower"
        scored = [(v, line) for line in ranking.ranked if (v := line.values.get(column_key)) is not None]
        # stored as "bigger is better" keys, ascending, so bisect counts the rows strictly better
        keys = sorted(-v if not lower else v for v, _ in scored)
        leader = min(scored, key=lambda item: (item[0] if lower else -item[0], item[1].name))[1] if scored else None
        found = memo[column_key] = (keys, lower, leader)
    keys, lower, leader = found
    if not keys:
        return None
    better = bisect.bisect_left(keys, value if lower else -value)
    return Place(better + 1, len(keys), leader)
