"""``--format table|json|csv`` for every listing command: one row type, three renderings.

Every cell goes through ``cli.sanitize`` (text from plugins and result files is never markup, and
no control or bidi character reaches the terminal). JSON is the rows as objects; CSV has one header
line and lists joined by "; ". A table is drawn by rich, at most $COLUMNS or ``PIPED_WIDTH`` columns
wide when its output is not a terminal, with lists cut to their first ``LIST_ITEMS`` items (JSON and CSV keep
every item); a table of more than ``RICH_ROWS`` rows is printed as plain aligned columns, because
rich lays out every row of a table before printing it, which a listing of a whole import cannot wait for.
"""

from __future__ import annotations

import csv
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

import click

from leaderboard.analysis import p_value_text
from leaderboard.cli import sanitize
from leaderboard.cli.console import out

FORMATS = ("table", "json", "csv")
PIPED_WIDTH = 160  # a table piped to a file or a pager: cells wrap instead of lines of thousands of characters
LIST_ITEMS = 12  # a list in a table cell shows this many items, then how many more
RICH_ROWS = 1000
PLAIN_CELL = 80  # in the plain layout a longer cell is cut, with "…"
PAPER_FORMATS = ("markdown", "latex")  # paper-ready tables (``leaderboard.cli.paper_tables``)


def format_option(function: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(FORMATS, case_sensitive=False),
        default="table",
        show_default=True,
        help="Output as a table, JSON (a list of objects) or CSV.",
    )(function)


def paper_format_option(function: Callable[..., Any]) -> Callable[..., Any]:
    """``--format`` with the paper-ready Markdown and LaTeX tables besides the listing formats."""
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(FORMATS + PAPER_FORMATS, case_sensitive=False),
        default="table",
        show_default=True,
        help="Output as a table, JSON (a list of objects), CSV, or a paper-ready Markdown or LaTeX table "
        "(scores with 95% intervals, the best bold, ≈ not significantly different from it).",
    )(function)


def columns_option(available: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--columns a,b,...`` for the paper formats: which columns, in which order (``available`` says which)."""
    return click.option(
        "--columns",
        "columns",
        multiple=True,
        metavar="NAME,...",
        help=f"With --format markdown|latex: the columns to print, in order (comma-separated, repeatable): "
        f"{available}.",
    )


def check_columns(columns: Sequence[str], fmt: str) -> None:
    if columns and fmt.lower() not in PAPER_FORMATS:
        from leaderboard.errors import BadInput

        raise BadInput(f"--columns chooses the columns of --format markdown or latex, not of --format {fmt}.")


def _lines(value: Any) -> str:
    """A list as one item a line (the first ``LIST_ITEMS``, then how many more); anything else as ``_cell``."""
    if not isinstance(value, (list, tuple)):
        return _cell(value)
    shown = [_cell(v) for v in value[:LIST_ITEMS]]
    more = len(value) - len(shown)
    return "\n".join(shown + ([f"… and {more} more"] if more else []))


def _cell(value: Any, items: int | None = None) -> str:
    """A value as cell text; ``items``: show at most that many items of a list (then "… and N more")."""
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        shown = [_cell(v) for v in (value if items is None else value[:items])]
        more = len(value) - len(shown)
        return "; ".join(shown) + (f"; … and {more} more (--format json lists all)" if more else "")
    if isinstance(value, dict):  # e.g. task -> mean CW
        return _cell([f"{k}: {_cell(v)}" for k, v in value.items()], items)
    if isinstance(value, float):
        return f"{value:.2e}" if 0 < abs(value) < 1e-3 else f"{value:.4f}"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def emit(
    rows: Sequence[dict[str, Any]],
    fmt: str,
    title: str,
    columns: Sequence[str],
    styles: dict[str, str] | None = None,
    whole: Sequence[str] = (),
) -> None:
    """Print rows (dicts) in the chosen format; ``columns`` are the table's and the CSV's, in order.

    In a table, a ``whole`` column lists one item a line and is as wide as its longest item: names in it
    wrap between names, never inside one."""
    fmt = fmt.lower()
    if fmt == "json":
        click.echo(sanitize.json_text(list(rows)))
        return
    if fmt == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow([sanitize.plain(_cell(row.get(c))) for c in columns])
        return
    if len(rows) > RICH_ROWS:
        _plain_table(rows, title, columns)
        return
    from rich.table import Table

    table = Table(title=sanitize.terminal(title))
    cells = [
        [sanitize.terminal(_lines(row.get(c)) if c in whole else _cell(row.get(c), LIST_ITEMS)) for c in columns]
        for row in rows
    ]
    for i, column in enumerate(columns):
        widest = max((len(line) for row in cells for line in row[i].splitlines()), default=0) if column in whole else 0
        table.add_column(
            column.replace("_", " "), overflow="fold", style=(styles or {}).get(column), min_width=widest or None
        )
    for row_cells in cells:
        table.add_row(*row_cells)
    console = out()
    console.print(table, width=None if console.is_terminal else piped_width())


def piped_width() -> int:
    """How wide a table is drawn when its output is not a terminal: $COLUMNS when set, else ``PIPED_WIDTH``."""
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) > 20 else PIPED_WIDTH


def _plain_table(rows: Sequence[dict[str, Any]], title: str, columns: Sequence[str]) -> None:
    """Every row as aligned plain text (the title, a header, a rule, one line a row), written as it goes."""
    from rich.cells import cell_len

    def fit(text: str) -> str:
        if not (text.isascii() and text.isprintable()):
            text = " ".join(sanitize.plain(text).split())
        return text if len(text) <= PLAIN_CELL else text[: PLAIN_CELL - 1] + "…"

    def width(text: str) -> int:
        return len(text) if text.isascii() else cell_len(text)  # wide (CJK) characters take two columns

    cells = [[fit(_cell(row.get(c), LIST_ITEMS)) for c in columns] for row in rows]
    headers = [c.replace("_", " ") for c in columns]
    widths = [max([width(h)] + [width(r[i]) for r in cells]) for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v + " " * (w - width(v)) for v, w in zip(values, widths)).rstrip()

    write = sys.stdout.write
    write(f"{' '.join(sanitize.plain(title).split())} ({len(rows):,} rows; --format csv or json for a file)\n")
    write(line(headers) + "\n" + line(["-" * w for w in widths]) + "\n")
    for start in range(0, len(cells), 1000):
        write("".join(line(r) + "\n" for r in cells[start : start + 1000]))
    sys.stdout.flush()


def at_floor(comparison, resamples: int) -> bool:
    """A sampled test's smallest p, 2 / (resamples + 1) two-sided: the true p may be smaller."""
    return p_value_text.at_floor(comparison.p_value, resamples, comparison.exact)


format_p = p_value_text.format_p  # the one writing of a p-value, the app's comparison view's too


# The readers' option for the queue's keyring (security/attestation.py; here so that --help imports nothing more).
QUEUE_KEY_HELP = (
    "The evaluation queue's keys, to tell results the queue evaluated (attested) from pushed ones: a keyring "
    "(JSON) or PEM file, or hf://ORG/NAME of the requests dataset (default: $LEADERBOARD_QUEUE_PUBLIC_KEY)."
)
