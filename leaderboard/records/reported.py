"""Scores reported in papers: what a paper printed, where, and the harness task and metric it maps to.

A reported score is a claim copied from a paper, never a reproduced run: it has no interval, no
per-query values and no data hash, and the board shows it in its own tier ("reported in <paper>,
Table N"). One file per paper, ``<root>/reported/<paper>.json``, holds that paper's result tables
as printed (a grid of printed numbers under the column labels, one row per model), because a grid
is what can be checked against the paper line by line; ``load_reported`` expands it into one
``ReportedScore`` per cell. The JSON Schema ``schema/reported-1.json`` is generated from
``ReportedFile`` (``python -m leaderboard.records.reported``) and a test fails when it is stale.

Values a paper prints x100 (nDCG 50.5) are stored on the harness's 0-1 scale (0.505) with the
printed text kept beside them; a column whose metric the harness stores on another scale (or
that the harness does not have) keeps scale 1 and says so in its notes.

Names: task, subset and metric are the harness's where it has them (so a reported cell meets the
reproduced one: ComLQ's BM25 total is ("comlq", "default", "ndcg_at_10")); otherwise the paper's
label, said in the notes. A benchmark aggregate the paper prints (FollowIR's score, BRIGHT's mean)
is marked ``aggregate``: its task is the benchmark's name and its metric the benchmark's
``aggregate_label`` (or a side aggregate's label, "mean p-MRR").
"""

from __future__ import annotations

import math
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from leaderboard.errors import shorten

SCHEMA_VERSION = "1"
FOLDER = "reported"  # beside results/ in a results root (the pulled dataset) and in submissions/
MAX_FILE_BYTES = 4 * 2**20  # a paper's tables are tens of kilobytes
MAX_FILES = 1000

# A number as papers print it: "50.5", "-3.2", "−3.2" (a Unicode minus), "+1.9"; nothing else.
PRINTED_NUMBER = r"^[-+−]?(\d+(\.\d*)?|\.\d+)$"

Text = Annotated[str, Field(min_length=1, max_length=2000)]
Finite = Annotated[float, Field(allow_inf_nan=False)]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ReportedScore(_Record):
    """One cell of a paper's result table, mapped to the harness's names (the paper's label where it has none)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: Text
    benchmark: str | None = Field(description="the harness benchmark the cell belongs to (None: no such benchmark)")
    task: Text = Field(description="harness task name, or the paper's label when the harness has no such task")
    aggregate: bool = Field(default=False, description="the cell is a benchmark aggregate (task names the benchmark)")
    subset: str = "default"
    metric: Text = Field(description="harness metric name, or the paper's label when the harness has none")
    value: Finite = Field(description="the printed number divided by the table's scale (0-1 for x100 tables)")
    printed: Text = Field(description="the number exactly as printed in the paper")
    paper: Text = Field(description="short name, e.g. 'ComLQ'")
    paper_file: Text = Field(description="the paper's text file id in ../shared/papers, e.g. '004_3c5dcdfc67fe6c3c'")
    table: Text = Field(description="as the paper names it, e.g. 'Table 3'")
    row: Text = Field(description="the row label as printed (see ReportedRow.label)")
    column: Text = Field(description="the column label as printed (with its group, e.g. 'Robust04 / p-MRR')")
    notes: str | None = None
    row_notes: str | None = Field(default=None, description="the row's own note (its model, what was checked)")

    @property
    def source(self) -> str:
        """'reported in ComLQ, Table 3': how the board and `show` mark the row."""
        return f"reported in {self.paper}, {self.table}"


def cell_value(printed: str, scale: int) -> float:
    """A printed number on the harness's scale: Decimal, so 50.5/100 is exactly 0.505 (inf when it overflows)."""
    return float(Decimal(printed.replace("−", "-")) / scale)


class ReportedColumn(_Record):
    label: Text = Field(description="the column header as printed (group / header for two-level headers)")
    task: Text
    metric: Text
    aggregate: bool = Field(default=False, description="a benchmark aggregate: task is then the benchmark's name")
    subset: str = "default"
    benchmark: str | None = Field(default=None, description="overrides the table's benchmark")
    scale: Literal[1, 100] | None = Field(default=None, description="overrides the table's scale")
    notes: str | None = None


class ReportedRow(_Record):
    label: Text = Field(
        description="the row label as printed. 'A | B': the row's first printed cells are A and B (e.g. method and "
        "Q/Doc); 'A / B': the row printed B under an earlier row printed A (e.g. '+InF-Embed' under its base model)"
    )
    model: Text = Field(description="the model's name (the harness's name where the harness runs it)")
    values: list[Annotated[str, Field(pattern=PRINTED_NUMBER)] | None] = Field(
        description="one printed number per column, as printed; null where the paper prints none ('-')"
    )
    notes: str | None = None


class ReportedTable(_Record):
    table: Text = Field(description="as the paper names it, e.g. 'Table 3'")
    caption: str = ""
    benchmark: str | None = None
    scale: Literal[1, 100] = Field(description="100 when the paper prints the metric x100 (stored /100)")
    printed_offset: Annotated[int, Field(ge=0)] = Field(
        default=0,
        description="how many printed value cells precede this table's first column in each row (when one "
        "printed table, e.g. two models side by side, is entered as several tables)",
    )
    transposed: bool = Field(
        default=False,
        description="the paper prints models as columns and datasets as rows: here rows are still models, and "
        "each column's label is the row label printed in the paper",
    )
    columns: Annotated[list[ReportedColumn], Field(min_length=1)]
    rows: Annotated[list[ReportedRow], Field(min_length=1)]
    notes: str | None = None

    @model_validator(mode="after")
    def _grid(self) -> ReportedTable:
        width = len(self.columns)
        for row in self.rows:
            if len(row.values) != width:
                raise ValueError(
                    f"{self.table}, row {row.label!r}: {len(row.values)} values for {width} columns "
                    f"({', '.join(c.label for c in self.columns)})"
                )
        labels = [c.label for c in self.columns]
        if len(set(labels)) != len(labels):
            raise ValueError(f"{self.table}: two columns share a label")
        rows = [r.label for r in self.rows]
        if len(set(rows)) != len(rows):
            raise ValueError(f"{self.table}: two rows share a label")
        for row in self.rows:  # what every reader would store: a finite number (400 printed nines divide to inf)
            for column, printed in zip(self.columns, row.values, strict=True):
                scale = column.scale or self.scale
                if printed is not None and not math.isfinite(cell_value(printed, scale)):
                    raise ValueError(
                        f"{self.table}, row {row.label!r}, column {column.label!r}: the printed value "
                        f"{shorten(printed, 40)} is not a finite number once divided by its scale {scale}"
                    )
        return self


class ReportedFile(_Record):
    """One paper: its identity, how to cite it, and its result tables as printed."""

    schema_version: Literal["1"]
    kind: Literal["reported"]
    paper: Text = Field(description="short name shown on the board, e.g. 'ComLQ'")
    title: Text
    paper_file: Text = Field(description="the paper's text file id in ../shared/papers")
    url: str | None = None
    bibtex: Text
    tables: Annotated[list[ReportedTable], Field(min_length=1)]

    @model_validator(mode="after")
    def _unique_tables(self) -> ReportedFile:
        names = [t.table for t in self.tables]
        if len(set(names)) != len(names):
            raise ValueError("two tables share a name")
        return self

    def scores(self) -> list[ReportedScore]:
        """Every printed cell as a ReportedScore; cells the paper leaves empty are not scores."""
        out = []
        for table in self.tables:
            for row in table.rows:
                for column, printed in zip(table.columns, row.values, strict=True):
                    if printed is None:
                        continue
                    value = cell_value(printed, column.scale or table.scale)
                    notes = "; ".join(n for n in (table.notes, column.notes, row.notes) if n) or None
                    out.append(
                        ReportedScore(
                            model=row.model,
                            benchmark=column.benchmark or table.benchmark,
                            task=column.task,
                            aggregate=column.aggregate,
                            subset=column.subset,
                            metric=column.metric,
                            value=value,
                            printed=printed,
                            paper=self.paper,
                            paper_file=self.paper_file,
                            table=table.table,
                            row=row.label,
                            column=column.label,
                            notes=notes,
                            row_notes=row.notes,
                        )
                    )
        return out


def _message(error: Any) -> str:
    where = "/".join(str(p) for p in error["loc"])
    message = error["msg"].removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


def read_reported_file(path: Path) -> ReportedFile:
    """A validated reported file, or BadInput naming the file and every problem (at most five shown)."""
    from leaderboard import safe_json
    from leaderboard.errors import BadInput
    from leaderboard.records.files import read_result_text

    # The result reader's checks (regular file, size, UTF-8, no blocking on a FIFO); its text names "a result file".
    try:
        text = read_result_text(path, MAX_FILE_BYTES)
    except BadInput as exc:
        raise BadInput(str(exc).replace("a result file", "a reported-scores file")) from None
    try:
        data = safe_json.loads(text, finite=True)
    except safe_json.UnsafeJSON as exc:
        raise BadInput(f"{path}: {exc}; expected a reported-scores file.") from None
    if not isinstance(data, dict):
        raise BadInput(f"{path}: expected a JSON object (a reported-scores file).")
    if str(data.get("schema_version")) != SCHEMA_VERSION:
        raise BadInput(f"{path}: schema_version {data.get('schema_version')!r}; this harness reads {SCHEMA_VERSION!r}.")
    try:
        return ReportedFile.model_validate(data)
    except ValidationError as exc:
        errors = [_message(e) for e in exc.errors()]
        raise BadInput(f"{path}: " + "; ".join(errors[:5]) + (" ..." if len(errors) > 5 else "")) from None
    except RecursionError:  # unreachable below safe_json.MAX_DEPTH; a reader must still never crash
        raise BadInput(f"{path}: nested too deeply; expected a reported-scores file.") from None


def read_reported_cells(path: Path) -> list[ReportedScore]:
    """Every cell of a reported file, or BadInput naming the file (and table, row and column) and what is wrong.

    The one verdict on a reported file: ``push --reported``, ``show --reported`` and the board all call it,
    so a file one of them accepts the others do not skip.
    """
    from leaderboard.errors import BadInput

    reported = read_reported_file(path)
    try:
        return reported.scores()
    except ValidationError as exc:  # a cell the file's own checks let through: named, never raised past here
        errors = [_message(e) for e in exc.errors()]
        raise BadInput(f"{path}: a cell is not a reported score: " + "; ".join(errors[:3])) from None


def reported_files(folder: Path) -> list[Path]:
    """The ``*.json`` entries directly in ``folder`` (whatever they are: the reader refuses non-files), sorted."""
    try:
        return sorted(p for p in Path(folder).iterdir() if p.name.endswith(".json") and not p.name.startswith("."))
    except OSError:  # no folder (a board without reported scores), or not a folder
        return []


def load_reported(root: Path) -> tuple[list[ReportedScore], list[str]]:
    """Every reported score under ``<root>/reported/``, and 'file: reason' for each file skipped. Never raises."""
    scores, skipped, _ = read_reported_folder(Path(root) / FOLDER)
    return scores, skipped


def read_reported_folder(folder: Path) -> tuple[list[ReportedScore], list[str], list[Path]]:
    """The reported files in ``folder``: their cells, 'file: reason' for each skipped, and the files taken.

    The one verdict every reader and ``push --reported`` share. A file is taken whole or not at all
    (``read_reported_cells``); a cell that another file already gave (same paper, table, row, column)
    is skipped with its reason, so a copied file cannot double a paper's rows. Never raises.
    """
    from leaderboard.errors import BadInput

    scores: list[ReportedScore] = []
    skipped: list[str] = []
    taken: list[Path] = []
    seen: set[tuple[str, str, str, str]] = set()
    files = reported_files(folder)
    if len(files) > MAX_FILES:
        skipped.append(f"{folder}: {len(files)} files; only the first {MAX_FILES} are read")
        files = files[:MAX_FILES]
    for path in files:
        try:
            cells = read_reported_cells(path)
        except BadInput as exc:
            skipped.append(str(exc))
            continue
        except Exception as exc:  # a reader never crashes the board: the file is named and skipped
            skipped.append(f"{path}: unreadable ({type(exc).__name__})")
            continue
        keys = {(c.paper, c.table, c.row, c.column) for c in cells}
        if keys & seen:
            skipped.append(f"{path}: repeats cells another reported file already gives ({sorted(keys & seen)[0]})")
            continue
        seen |= keys
        scores += cells
        taken.append(path)
    return scores, skipped, taken


# `leaderboard show --reported`: the columns of the reported table, each row marked by its source.
LISTING_COLUMNS = ["source", "model", "benchmark", "task", "subset", "metric", "value", "printed", "row", "column"]


def listing_rows(scores: list[ReportedScore]) -> list[dict[str, Any]]:
    """One row per reported score for `show`, its source first ('reported in ComLQ, Table 3')."""
    return [{"source": s.source, **s.model_dump()} for s in scores]


PAPER_COLUMNS = ["model", "source", "task", "subset", "metric", "value"]  # markdown/LaTeX: text, then the value
PAPER_NOTE = (
    "Copied from the papers (the printed number over its scale): claims, not runs of this harness; no interval."
)


def reported_uploads(folder: Path) -> list[tuple[str, bytes]]:
    """(path in the results dataset, bytes) for each reported file in ``folder``; BadInput naming every bad one.

    A push publishes them all or none, like results: a file the board would skip (``read_reported_folder``,
    the readers' own verdict) is refused here.
    """
    from leaderboard.errors import BadInput

    _, problems, taken = read_reported_folder(folder)
    if problems:
        raise BadInput(f"Refusing to push: {len(problems)} bad reported file(s): " + " | ".join(problems))
    return [(f"{FOLDER}/{path.name}", path.read_bytes()) for path in taken]


def json_schema() -> dict[str, Any]:
    from leaderboard.records.result import model_schema

    title = f"retrieval-leaderboard reported scores (one paper), schema version {SCHEMA_VERSION}"
    return model_schema(ReportedFile, title)


def schema_text() -> str:
    from leaderboard.records.result import schema_text as text

    return text(json_schema())


if __name__ == "__main__":  # regenerate the checked-in schema
    from importlib import resources

    target = resources.files("leaderboard.records").joinpath("schema", f"reported-{SCHEMA_VERSION}.json")
    with open(str(target), "w", encoding="utf-8") as handle:
        handle.write(schema_text())
    print(f"wrote {target}")
