"""Every model of a board and the benchmark rows it has, indexed once per board.

A model page and the side-by-side view ask "where is this model?" on every click: answered from
this index (one pass over the rankings' rows, kept with the board), never by a scan of the results.
Each column's values of the ranked rows are kept sorted, so a model's place on a subset is a binary
search. Keyed by model name: a page shows the revision each benchmark shows by default.

One page per identity (``records.identity``: NFKC, case folded, ``/`` and ``__`` alike): names that a link, a
reader or a file system cannot tell apart open the same page, which shows every spelling's rows and flags the
collision (``collisions``); a dataset holding ``bm25`` and ``BM25`` from two plugins is a dataset someone wrote
an impostor into, and the page says so rather than picking one.
"""

from __future__ import annotations

import bisect
import threading
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from leaderboard.records.identity import identity

if TYPE_CHECKING:
    from leaderboard.app.data.board import Board
    from leaderboard.app.data.ranking import Line, Ranking

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
        # identity -> the names it holds; its page is the name on the most benchmarks (then the first by name)
        spellings: dict[str, list[str]] = {}
        for name in self.entries:
            spellings.setdefault(identity(name), []).append(name)
        self._pages = {key: min(names, key=lambda n: (-len(self.entries[n]), n)) for key, names in spellings.items()}
        self._spellings = spellings

    @cached_property
    def names(self) -> list[str]:
        """One name per identity (its page), most benchmarks first, then by name (the pickers' order; sorted once)."""
        pages = self._pages.values()
        return sorted(pages, key=lambda name: (-len(self.of(name)), name.casefold()))

    @cached_property
    def collisions(self) -> dict[str, list[str]]:
        """page name -> the other spellings of its identity on this board (a collision the dataset holds)."""
        found = {}
        for key, names in self._spellings.items():
            if len(names) > 1:
                page = self._pages[key]
                found[page] = sorted(n for n in names if n != page)
        return found

    def of(self, name: str) -> list[Entry]:
        """The rows of ``name``'s page: every spelling of its identity, the page's own first."""
        key = identity(name)
        page = self._pages.get(key)
        if page is None:
            return []
        return [entry for spelling in (page, *self.collisions.get(page, [])) for entry in self.entries[spelling]]

    def resolve(self, name: str) -> str | None:
        """The page a link names: the page of its identity (exactly, or up to case, width and / for __)."""
        return self._pages.get(identity(name))


def model_index(board: Board) -> ModelIndex:
    """The board's index (built on first use, then kept with the board)."""
    found: ModelIndex | None = board.__dict__.get(_CACHE)
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
