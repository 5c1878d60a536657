"""Scores reported in papers, as a tier of their own below a benchmark's reproduced runs.

A reported score is a number copied from a paper's table (``leaderboard.records.reported``): it is
never ranked among reproduced runs and has no interval. Each (model, paper) becomes one row marked
"reported in <paper>, Table N" (or "Tables 1, 2, 18" when its cells come from several of the paper's
tables; each cell names its own table); its cells are the reported values of the benchmark's columns
(matched by task, metric and subset). Two tables that print the same column for one model are kept
apart (a row of its own for the later table), never silently overwritten. Where the same model
also has a reproduced run on the board (same name, compared case-insensitively: papers print "BM25"
for the harness's "bm25"), the row shows the reproduced score beside the reported one and their
difference (reproduced − reported).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from leaderboard.app.data.board import Board
    from leaderboard.app.data.ranking import Line, Ranking
    from leaderboard.records.reported import ReportedScore

_CACHE = "_reported_scores"  # attribute on a Board: loaded once per board (a new revision is a new board)


@dataclass
class ReportedLine:
    model: str
    paper: str
    table: str
    cells: dict[str, ReportedScore] = field(default_factory=dict)  # column key -> the reported cell
    aggregate: ReportedScore | None = None  # the paper's own aggregate cell, when it prints one
    sides: dict[str, ReportedScore] = field(default_factory=dict)  # the benchmark's other means it prints, by label
    aggregate_value: float | None = None  # that cell's value, or the benchmark's mean of the reported columns
    reproduced: Line | None = None  # the board's run of the same model, when there is one

    @property
    def tables(self) -> list[str]:
        """The paper's tables this row's cells come from, in the order first met."""
        found = [self.aggregate.table] if self.aggregate is not None else []
        found += [cell.table for cell in self.cells.values()]
        return list(dict.fromkeys(found or [self.table]))

    @property
    def source(self) -> str:
        return f"reported in {self.paper}, {tables_text(self.tables)}"

    def cell_source(self, key: str | None) -> str:
        """Where one cell comes from ("reported in <paper>, Table N"); the row's source for the aggregate."""
        cell = self.aggregate if key is None else self.cells.get(key)
        return f"reported in {self.paper}, {cell.table}" if cell is not None else self.source

    @property
    def difference(self) -> float | None:
        """Reproduced − reported on the benchmark's score (None unless both exist)."""
        if self.reproduced is None or self.reproduced.aggregate is None or self.aggregate_value is None:
            return None
        return self.reproduced.aggregate - self.aggregate_value

    def column_difference(self, key: str) -> float | None:
        cell = self.cells.get(key)
        value = self.reproduced.values.get(key) if self.reproduced is not None else None
        return None if cell is None or value is None else value - cell.value

    @property
    def notes(self) -> list[str]:
        """The paper rows' own notes behind this row (which model it is, what was checked), each once."""
        cells = [self.aggregate, *self.cells.values()] if self.aggregate is not None else list(self.cells.values())
        return list(dict.fromkeys(str(c.row_notes) for c in cells if getattr(c, "row_notes", None)))

    @property
    def info(self) -> dict[str, Any]:
        """The model block the filters read: the reproduced run's when there is one."""
        return self.reproduced.info if self.reproduced is not None else {"name": self.model}


def tables_text(tables: list[str]) -> str:
    """'Table 3'; several: 'Tables 1, 2, 18' (their own names when they are not all 'Table N')."""
    if len(tables) == 1:
        return tables[0]
    if all(t.startswith("Table ") for t in tables):
        return "Tables " + ", ".join(t.removeprefix("Table ") for t in tables)
    return ", ".join(tables)


def reported_scores(board: Board) -> tuple[list[ReportedScore], list[str]]:
    """The board's reported scores (``<results root>/reported/*.json``) and the files skipped, read once per board."""
    cached = board.__dict__.get(_CACHE)
    if cached is None:
        try:
            from leaderboard.records.reported import load_reported
        except ImportError:  # a harness without reported records: no tier
            cached = ([], [])
        else:
            cached = load_reported(board.root)
        board.__dict__[_CACHE] = cached
    return cached


def reported_lines(board: Board, ranking: Ranking) -> list[ReportedLine]:
    """The reported rows of a benchmark, best reported score first."""
    scores, _ = reported_scores(board)
    if not scores:
        return []
    benchmark = ranking.benchmark.name
    # A paper may print several of the benchmark's aggregates (FollowIR's score and its mean p-MRR): the one the
    # ranking is ranked by is the row's score, each other declared mean goes to its own column.
    ranked_by = ranking.aggregate_label
    side_labels = {side.label for side in getattr(ranking.benchmark, "also", ()) or ()}
    by_spec = {(c.spec.task, c.spec.metric, c.spec.subset): c.key for c in ranking.columns}
    aggregated = [c for c in ranking.columns if c.spec.in_aggregate]
    reproduced: dict[str, Line] = {}
    for line in ranking.ranked + ranking.unranked:  # the newest ranked run of a name wins
        reproduced.setdefault(line.name.casefold(), line)
    rows: dict[tuple[str, str, str], ReportedLine] = {}
    for cell in scores:
        slot = _slot(cell, benchmark, ranked_by, side_labels, by_spec)
        if slot is None:
            continue
        # One row per (model, paper); a column another table of the same paper already filled opens a
        # row for this table (two printed values of one cell are both shown, neither overwritten).
        row_key = (cell.model, cell.paper, "")
        taken = rows.get(row_key)
        if taken is not None and slot.filled(taken):
            row_key = (cell.model, cell.paper, cell.table)
        row = rows.setdefault(
            row_key,
            ReportedLine(cell.model, cell.paper, cell.table, reproduced=reproduced.get(cell.model.casefold())),
        )
        slot.put(row, cell)
    for row in rows.values():
        if row.aggregate is not None:
            row.aggregate_value = row.aggregate.value
        elif aggregated and all(c.key in row.cells for c in aggregated):
            row.aggregate_value = sum(row.cells[c.key].value for c in aggregated) / len(aggregated)
    lower = ranking.direction == "lower" if aggregated else False
    return sorted(
        rows.values(),
        key=lambda r: (
            r.aggregate_value is None,
            (r.aggregate_value or 0.0) if lower else -(r.aggregate_value or 0.0),
            r.model,
        ),
    )


@dataclass(frozen=True)
class _Slot:
    """Where a reported cell goes in its row: one of the benchmark's other means (``side``, its label), the
    aggregate, or a column (``key``)."""

    side: str | None
    aggregate: bool
    key: str | None

    def filled(self, row: ReportedLine) -> bool:
        if self.side is not None:
            return self.side in row.sides
        return row.aggregate is not None if self.aggregate else self.key in row.cells

    def put(self, row: ReportedLine, cell: ReportedScore) -> None:
        if self.side is not None:
            row.sides[self.side] = cell
        elif self.aggregate:
            row.aggregate = cell
        elif self.key is not None:
            row.cells[self.key] = cell


def _slot(
    cell: ReportedScore,
    benchmark: str,
    ranked_by: str,
    side_labels: set[str],
    by_spec: dict[tuple[str, str, str], str],
) -> _Slot | None:
    """Where ``cell`` goes on ``benchmark``'s board (None: nowhere): an aggregate the benchmark declares, or a
    column of the board (matched by task, metric and subset) of this benchmark's paper or of none."""
    aggregate = bool(getattr(cell, "aggregate", False)) and cell.task == benchmark
    side = cell.metric if aggregate and cell.metric in side_labels and cell.metric != ranked_by else None
    if aggregate and side is None and cell.metric not in (ranked_by, "", None) and side_labels:
        return None  # an aggregate of another name than the benchmark's declared ones
    key = by_spec.get((cell.task, cell.metric, cell.subset))
    if not aggregate and key is None:
        return None
    if cell.benchmark not in (None, benchmark) and not aggregate:
        return None
    return _Slot(side, aggregate, key)
