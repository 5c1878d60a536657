"""``--format table|json|csv`` for every listing command: one row type, three renderings.

Tables go through rich with every cell escaped (text from plugins and result files is never
markup); JSON is the rows as objects; CSV has one header line and lists joined by "; ".
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

import click

from leaderboard.cli.console import escape, out
from leaderboard.records import p_value_text

FORMATS = ("table", "json", "csv")
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


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return "; ".join(_cell(v) for v in value)
    if isinstance(value, dict):  # e.g. task -> mean CW
        return "; ".join(f"{k}: {_cell(v)}" for k, v in value.items())
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
) -> None:
    """Print rows (dicts) in the chosen format; ``columns`` are the table's and the CSV's, in order."""
    fmt = fmt.lower()
    if fmt == "json":
        click.echo(json.dumps(list(rows), indent=2, ensure_ascii=False, default=str))
        return
    if fmt == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow([_cell(row.get(c)) for c in columns])
        return
    from rich.table import Table

    table = Table(title=escape(title))
    for column in columns:
        table.add_column(column.replace("_", " "), overflow="fold", style=(styles or {}).get(column))
    for row in rows:
        table.add_row(*(escape(_cell(row.get(c))) for c in columns))
    out().print(table)


def at_floor(comparison, resamples: int) -> bool:
    """A sampled test's smallest p, 2 / (resamples + 1) two-sided: the true p may be smaller."""
    return p_value_text.at_floor(comparison.p_value, resamples, comparison.exact)


format_p = p_value_text.format_p  # the one writing of a p-value, the app's comparison view's too
