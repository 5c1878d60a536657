"""The board table's order and pages: the value each column sorts by (missing values last, whichever the
direction), and the rows of a page.

The table is sorted and paged on the server over all its rows (``views.board`` draws one page); the warm-up
computes ahead the first page each column's sort shows (``first_sorted``, ``server.live``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from leaderboard.app.data.filters import MODEL_COLUMNS, MODEL_FACTS, metadata_value, model_fact
from leaderboard.app.data.ranking import Line, Ranking
from leaderboard.app.data.reported_tier import ReportedLine

PAGE_SIZE = 100  # rows of a page of a server-paged table (the board, provenance)


def page_slice(total: int, page: int, size: int = PAGE_SIZE) -> tuple[int, int, int, int]:
    """(page, pages, start, stop) of ``total`` rows, ``size`` a page, ``page`` clamped to the pages there are."""
    pages = max(1, math.ceil(total / size))
    page = min(max(1, page), pages)
    return page, pages, (page - 1) * size, min(page * size, total)


def sort_value(ranking: Ranking, key: str) -> Callable[[Line], Any]:
    """The value a column sorts by, for one line; None sorts last in both directions."""
    if key == "rank":
        return lambda line: line.rank
    if key == "model":
        return lambda line: line.name.casefold()
    if key == "agg":
        return lambda line: line.aggregate
    if key.startswith("side:"):
        label = key[5:]
        return lambda line: line.side.get(label)
    if key in {c.key for c in ranking.columns}:
        return lambda line: line.values.get(key)
    if key in MODEL_COLUMNS:
        return lambda line: metadata_value(line.info, key)
    if key in MODEL_FACTS:
        return lambda line: model_fact(line.info, key)
    other: dict[str, Callable[[Line], Any]] = {
        "Coverage": lambda line: line.covered,
        "Kind": lambda line: str(line.info.get("kind") or ""),
        "Instructions": lambda line: int(bool(line.info.get("takes_instructions"))),
        "Revision": lambda line: line.key[1],
        "Harness": lambda line: line.harness,
        "Updated": lambda line: line.updated,
        "Missing": lambda line: "; ".join(line.missing),
    }
    return other.get(key, lambda line: line.rank)


def reported_sort_value(key: str) -> Callable[[ReportedLine], Any]:
    """A reported row's value in a column (its reported number; its name for Model); None: last."""
    if key == "model":
        return lambda row: row.model.casefold()
    if key in ("agg", "rank"):
        return lambda row: row.aggregate_value if key == "agg" else None
    return lambda row: row.cells[key].value if key in row.cells else None


def first_sorted(ranking: Ranking, key: str, direction: str, rows: int) -> list[Line]:
    """The first ``rows`` of the table sorted by column ``key`` (unfiltered): the page such a sort shows."""
    value = sort_value(ranking, key)
    return (sort_lines(ranking.ranked, value, direction) + sort_lines(ranking.unranked, value, direction))[:rows]


def sort_lines(lines: Iterable[Any], value: Callable[[Any], Any], direction: str) -> list[Any]:
    """Stable sort by ``value``, missing values (None, NaN) last whichever the direction."""
    present: list[tuple[Any, Any]] = []
    absent: list[tuple[Any, Any]] = []
    for line in lines:
        v = value(line)
        (absent if v is None or (isinstance(v, float) and math.isnan(v)) else present).append((v, line))
    present.sort(key=lambda pair: pair[0], reverse=direction == "desc")
    return [line for _, line in present] + [line for _, line in absent]
