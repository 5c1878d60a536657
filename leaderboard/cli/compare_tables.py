"""What ``leaderboard compare --per-subset`` and ``--queries N`` print, in every format of ``compare``.

Rows come from ``analysis.comparison.compare_subsets`` (the app's per-subset comparison: one metric
on one subset each, named as the task's views name them) and ``analysis.query_differences``. The
terminal tables go through rich, Markdown and LaTeX through ``paper_tables.render``, and every
p-value through ``analysis.p_value_text.format_p``, as the task rows and the app.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from leaderboard.analysis.p_value_text import at_floor, format_p
from leaderboard.analysis.subset_text import subset_text
from leaderboard.cli.console import escape, out

SUBSET_HEADERS = ["Subset", "Metric", "Queries", "A", "B", "A − B [95% CI]", "p", "p (Holm)"]
TEXT_WIDTH = 160  # characters of a query's text shown in a table (JSON has all of it)


def subset_json(row: Any, labels: tuple[str, str]) -> dict[str, Any]:
    return {**row.to_json(), "subset_label": labels[0], "metric_label": labels[1]}


def _queries(row: Any) -> str:
    if (row.queries_a, row.queries_b) not in ((row.queries, row.queries), (None, None)):
        return f"{row.queries} (of A {row.queries_a}, B {row.queries_b})"
    return str(row.queries)


def subset_cells(row: Any, labels: tuple[str, str]) -> list[str]:
    floor = at_floor(row.p_value, row.resamples, row.exact)
    metric = labels[1] + (" ↓" if row.direction == "lower" else "")
    subset = subset_text(labels[0], row.subset)
    return [
        subset,
        metric,
        _queries(row),
        f"{row.mean_a:.4f}",
        f"{row.mean_b:.4f}",
        f"{row.difference:+.4f} [{row.ci_low:+.4f}, {row.ci_high:+.4f}]",
        format_p(row.p_value, floor),
        format_p(row.p_holm, floor),
    ]


SUBSET_NOTE = (
    "Each row: one metric on one subset's queries, paired as the task rows (paired bootstrap interval, sign-flip "
    "p); Holm across the task's subset rows. Queries: those both results have the metric on (LSNC: the negation "
    "queries both judges labelled; 'of A n, B m' where each result's own score covers more). ≤: the smallest p "
    "the sampled sign flips can give was reached."
)


def subset_table(
    task: str, model_a: str, model_b: str, rows: Sequence[Any], labels: Mapping[Any, tuple[str, str]], fmt: str
) -> str | None:
    """One task's per-subset comparison: Markdown or LaTeX text, or None after printing the terminal table."""
    if fmt == "latex":
        return "\n".join(subset_latex(task, model_a, model_b, rows, labels))
    cells = [subset_cells(row, labels[(row.subset, row.metric)]) for row in rows]
    title = f"{task}: {model_a} (A) vs {model_b} (B) per subset"
    if fmt == "markdown":
        from leaderboard.cli.paper_tables import render

        return render(SUBSET_HEADERS, [[(c, False) for c in row] for row in cells], fmt, title, [SUBSET_NOTE], 2)
    _rich(title, SUBSET_HEADERS, cells, left=2)
    return None


SUBSET_LATEX_NOTE = (
    "Each row: one metric on one subset's queries, paired as the task rows: A − B with its paired bootstrap 95% "
    "interval below it, p the sign-flip p-value Holm-adjusted across the task's subset rows (≤: the smallest p the "
    "sampled sign flips can give was reached). Queries: those both results have the metric on (LSNC: the negation "
    "queries both judges labelled), with how many each result's own score covers below it where that is more"
)


def subset_latex(
    task: str, model_a: str, model_b: str, rows: Sequence[Any], labels: Mapping[Any, tuple[str, str]]
) -> list[str]:
    """One task's per-subset comparison as LaTeX tables a page holds: a block of subset rows per metric, the
    subset's own name and each interval below its line (``cli.paper_pages``)."""
    from leaderboard.cli.paper_pages import Part, latex_parts, paginate, slug, subset_cell
    from leaderboard.cli.paper_tables import Cell

    blocks: dict[str, list[list[Any]]] = {}
    for row in rows:
        subset_label, metric_label = labels[(row.subset, row.metric)]
        heading = metric_label + (" ↓" if row.direction == "lower" else "")
        floor = at_floor(row.p_value, row.resamples, row.exact)
        own = (row.queries_a, row.queries_b) not in ((row.queries, row.queries), (None, None))
        blocks.setdefault(heading, []).append(
            [
                subset_cell(subset_label, row.subset),
                Cell(f"{row.queries:,}", below=f"A {row.queries_a:,}, B {row.queries_b:,}" if own else ""),
                Cell(f"{row.mean_a:.4f}"),
                Cell(f"{row.mean_b:.4f}"),
                Cell(f"{row.difference:+.4f}", below=f"[{row.ci_low:+.4f}, {row.ci_high:+.4f}]"),
                Cell(format_p(row.p_holm, floor)),
            ]
        )
    headers, subheaders = ["Subset", "Queries", "A", "B", "A − B", "p"], ["", "", "", "", "95% CI", "Holm"]
    pages = paginate(list(blocks.items()))
    caption = f"{task}: A = {model_a} vs B = {model_b}, per subset"
    notes = [SUBSET_LATEX_NOTE]
    return latex_parts(
        [Part(headers, page, subheaders=subheaders) for page in pages],
        caption,
        notes,
        f"tab:leaderboard-compare-{slug(task)}",
    )


QUERY_HEADERS = ["Query", "Subsets", "A", "B", "A − B", "Text"]


def query_cells(row: Any, width: int | None = TEXT_WIDTH) -> list[str]:
    text = row.text or ""
    if width is not None and len(text) > width:
        text = text[: width - 1] + "…"
    return [
        row.query_id,
        ", ".join(row.subsets),
        f"{row.value_a:.4f}",
        f"{row.value_b:.4f}",
        f"{row.difference:+.4f}",
        text,
    ]


def query_tables(
    task: str, metric: str, model_a: str, model_b: str, found: tuple[Sequence[Any], Sequence[Any]], fmt: str
) -> str | None:
    """The queries where A, then B, is better by most: Markdown or LaTeX text, or None after printing."""
    parts = []
    for rows, who in zip(found, (model_a, model_b)):
        title = f"{task}: the {len(rows)} queries where {who} is better by most ({metric})"
        cells = [query_cells(row) for row in rows]
        if fmt in ("markdown", "latex"):
            from leaderboard.cli.paper_tables import render

            note = "A − B: the per-query difference of the metric; subsets: those the result puts the query in."
            parts.append(render(QUERY_HEADERS, [[(c, False) for c in row] for row in cells], fmt, title, [note], 2))
        else:
            _rich(title, QUERY_HEADERS, cells, left=2)
    return "\n".join(parts) if parts else None


def _rich(title: str, headers: Sequence[str], rows: Sequence[Sequence[str]], left: int) -> None:
    from rich.table import Table

    table = Table(title=escape(title))
    for i, header in enumerate(headers):
        table.add_column(escape(header), overflow="fold", justify="left" if i < left or header == "Text" else "right")
    for row in rows:
        table.add_row(*(escape(cell) for cell in row))
    out().print(table)
