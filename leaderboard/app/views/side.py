"""The side-by-side view's HTML: per benchmark a table (columns x picks, score and 95% interval), the pairwise
tests, and the profile chart (Vega-Lite through altair: one panel per benchmark, its columns on the x axis).

Why a profile (parallel-coordinates) chart and not a radar: a benchmark's columns share one metric
scale, so a panel per benchmark reads values and intervals (error bars) directly on one y axis; a
radar's area depends on the axis order and shrinks to a line with two or three subsets, has no
readable intervals, and over benchmarks would put different metrics on one scale.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Any

from leaderboard.app.data.many_models import (
    IMPORTED,
    MAX_PICKS,
    MIN_PICKS,
    Cell,
    PairRow,
    Part,
    Picked,
    Row,
    table_rows,
)
from leaderboard.app.data.values import MISSING
from leaderboard.app.views.board import strip_arrow
from leaderboard.app.views.charts import SOURCE_HERE, SOURCE_IMPORTED
from leaderboard.app.views.compare import p_texts
from leaderboard.app.views.model import column_name, page_link
from leaderboard.app.views.render import ARROW, esc, header_cells, score, span

if TYPE_CHECKING:
    import altair as alt
    import pandas as pd

    from leaderboard.app.data.ranking import Column

NAMED = 10  # unknown names a note lists (a hand-made link may hold thousands), then counts


def notes_html(picks: Picked) -> str:
    notes = []
    if picks.unknown:
        named = ", ".join(esc(n) for n in picks.unknown[:NAMED])
        more = len(picks.unknown) - NAMED
        notes.append(f"No model named {named}{f' and {more:,} more' if more > 0 else ''} on this board.")
    if picks.dropped:
        notes.append(f"At most {MAX_PICKS} models: left out " + ", ".join(esc(n) for n in picks.dropped) + ".")
    return "".join(f'<p class="note warn side-note">{n}</p>' for n in notes)


def side_html(picks: Picked) -> str:
    """Every shared benchmark's table; a clear line while fewer than two picks are known."""
    notes = notes_html(picks)
    if len(picks.picks) < MIN_PICKS:
        return notes + f'<div class="empty" id="side-empty">Pick {MIN_PICKS} to {MAX_PICKS} models to compare.</div>'
    thin = thin_html(picks)
    if not picks.parts:
        return (
            notes + '<div class="empty" id="side-empty">No benchmark has results of two of these models.</div>' + thin
        )
    intro = (
        '<p class="note">Each benchmark where two or more of the picks have a result: its aggregates, then every '
        "column (task or subset) with each model's score and 95% interval; the best of the picks in bold. Model "
        "names open their page.</p>"
    )
    tables = "".join(_part_html(picks, part) for part in picks.parts)
    return f'<div id="side-tables">{notes}{intro}{tables}{thin}</div>'


def thin_html(picks: Picked) -> str:
    """One line naming the benchmarks (tasks) where fewer than two of the picks have a result: not drawn."""
    if not picks.thin:
        return ""
    named = ", ".join(esc(name) for name in picks.thin[:NAMED])
    more = len(picks.thin) - NAMED
    return (
        f'<p class="note" id="side-thin">Not drawn, fewer than two of the picks have a result on it: {named}'
        f"{f' and {more:,} more' if more > 0 else ''}.</p>"
    )


def row_label(row: Row) -> str:
    """How a row of a benchmark's table is named, in the table and on the chart's axis."""
    if row.column is not None:
        return _column_name(row.column)
    name = f"{row.label} {ARROW.get(row.direction, '')}".strip()
    return f"Score: {name}" if row.default else f"{name} (not the default ranking)"


def _part_html(picks: Picked, part: Part) -> str:
    links = [f'<a class="to-model" href="{esc(page_link(name))}">{esc(name)}</a>' for name in picks.picks]
    heads = "".join(f'<th scope="col">{link}</th>' for link in links)
    ranks = "".join(
        f"<td>{esc(f'#{line.rank}' if line and line.rank else ('not ranked' if line else 'no results'))}</td>"
        for line in part.lines
    )
    rows = [f'<tr class="side-rank"><td class="c-text">Rank on the board</td>{ranks}</tr>']
    rows += [_row(row) for row in table_rows(part)]
    return (
        f'<section class="side-part" data-benchmark="{esc(part.benchmark)}"><h3>{esc(part.benchmark)}</h3>'
        f'<div class="lb-scroll"><table class="lb side-table" data-benchmark="{esc(part.benchmark)}">'
        f'<thead><tr><th scope="col" class="c-text">Column</th>{heads}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div></section>"
    )


def _column_name(column: Column) -> str:
    name = f"{column_name(column)} {ARROW.get(column.direction, '')}".strip()
    return name + ("" if column.spec.in_aggregate else " (not ranked)")


def _comparable(cell: Cell | None) -> float | None:
    return cell.value if cell is not None and not cell.other_data else None


def _row(row: Row) -> str:
    present = [v for cell in row.cells if (v := _comparable(cell)) is not None]
    best = (min(present) if row.direction == "lower" else max(present)) if present else None
    cells = []
    for cell in row.cells:
        if cell is None:
            cells.append(f"<td>{MISSING}</td>")
            continue
        if cell.other_data:
            interval = f"on other data ({cell.other_data}): not compared"
        elif cell.interval:
            interval = span(cell.interval)
        else:
            interval = IMPORTED if cell.imported else "no interval"
        bold = cell.value == best and len(present) > 1 and not cell.other_data
        text = f"<b>{score(cell.value)}</b>" if bold else score(cell.value)
        rank = ""
        if row.column is None and not row.default:  # the board's own rank is the first row
            rank = f"#{cell.rank} of {cell.ranked}" if cell.rank is not None else "not ranked by it"
            rank = f'<span class="ci rank">{esc(rank)}</span>'
        classes = ' class="other-data"' if cell.other_data else ""
        shown = f'<span class="v">{text}</span><span class="ci">{esc(interval)}</span>{rank}'
        cells.append(f'<td data-v="{cell.value!r}"{classes}>{shown}</td>')
    kind = ("side-score" if row.default else "side-aggregate") if row.column is None else "side-column"
    label = row_label(row)
    return f'<tr class="{kind}" data-row="{esc(label)}"><td class="c-text">{esc(label)}</td>{"".join(cells)}</tr>'


def _signed(value: float | None) -> str:
    return MISSING if value is None else ("+" if value >= 0 else "") + score(value)


def pairwise_html(rows: list[PairRow]) -> str:
    """The pairs' table: the paired difference with its interval and p (Holm per benchmark), else the plain
    difference, marked."""
    if not rows:
        return '<div class="empty" id="side-pairs-empty">No pair of the picks shares a benchmark.</div>'
    body = []
    for row in rows:
        test = row.test
        if test is not None:
            low, high = test.ci_low, test.ci_high
            p_raw, p_holm = p_texts(test)  # as the Compare tab writes them (≤ at the sampled test's floor)
            significant = low > 0 or high < 0
            better = ""
            if significant:
                a_better = (test.difference > 0) == (row.direction == "higher")
                better = " a-better" if a_better else " b-better"
            cells = (
                f'<td class="c-agg{better}" data-v="{test.difference!r}">{_signed(test.difference)}</td>'
                f"<td>{esc(span((low, high)))}</td>"
                f"<td>{esc(p_raw)}</td><td data-v='{test.p_holm!r}'>{esc(p_holm)}</td>"
            )
        else:
            cells = (
                f'<td class="c-agg" data-v="{row.difference!r}">{_signed(row.difference)}</td>'
                f'<td class="c-text" colspan="3">{esc(row.why or IMPORTED)}</td>'
            )
        body.append(
            f'<tr data-benchmark="{esc(row.benchmark)}" data-tested="{int(test is not None)}">'
            f'<td class="c-text">{esc(row.benchmark)}</td><td class="c-text">{esc(row.column_label)}</td>'
            f'<td class="c-text">{esc(row.a)}</td><td class="c-text">{esc(row.b)}</td>{cells}</tr>'
        )
    headers = header_cells(
        (
            ("Benchmark", "c-text"),
            ("Task", "c-text"),
            ("A", "c-text"),
            ("B", "c-text"),
            ("A − B", ""),
            ("95% CI", ""),
            ("p", ""),
            ("p (Holm)", ""),
        )
    )
    caption = (
        "Every pair of the picks on each task of a benchmark they share: the paired difference over the queries both "
        "score, its 95% bootstrap interval and the two-sided randomization p (as <code>leaderboard compare</code>), "
        "Holm-adjusted across all pairs and tasks of the benchmark (≤: the smallest p the sampled sign flips can "
        "give). Shaded: the interval excludes 0 (A better in "
        f"green, B in red). Where a row is imported (no per-query values): the plain difference, “{IMPORTED}”."
    )
    return (
        f'<div class="lb-scroll"><table class="lb" id="side-pairs-table"><caption>{caption}</caption>'
        f"<thead><tr>{headers}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def chart_frame(picks: Picked) -> pd.DataFrame:
    """The chart's data: one row per number the tables show (other data left out: never compared), each with its
    table row's label (``row_label``), the metric it measures (a panel each), its interval and where it comes from."""
    import pandas as pd

    found: list[dict[str, Any]] = []
    for part in picks.parts:
        for order, row in enumerate(table_rows(part)):
            for name, cell in zip(picks.picks, row.cells):
                if cell is None or cell.other_data:
                    continue
                low, high = cell.interval if cell.interval else (None, None)
                found.append(
                    {
                        "benchmark": part.benchmark,
                        "panel": f"{part.benchmark} · {strip_arrow(row.metric)} {ARROW.get(row.direction, '')}".strip(),
                        "row": row_label(row),
                        "order": order,
                        "model": name,
                        "value": cell.value,
                        "low": low,
                        "high": high,
                        "source": SOURCE_IMPORTED if cell.imported else SOURCE_HERE,
                    }
                )
    columns = ["benchmark", "panel", "row", "order", "model", "value", "low", "high", "source"]
    return pd.DataFrame(found, columns=columns)


ROW_HEIGHT = 9  # pixels per pick in a row of the chart


def profile_chart(picks: Picked, width: int) -> alt.VConcatChart | None:
    """Each benchmark's rows as categories, one panel per metric (its own scale): each pick's score a point, its 95%
    interval a whisker, an imported score (no interval) a hollow diamond. No line joins two rows: they are not a
    sequence."""
    import altair as alt

    frame = chart_frame(picks)
    if frame.empty:
        return None
    # The rows' names wrap on the axis (never cut): a line holds ``chars`` characters, the plot takes the rest.
    chars = max(12, min(36, width // 16))
    label_width = int(chars * 6.5) + 8  # every panel's names take this room: their plots line up, none cut
    plot_width = max(120, width - label_width)
    frame["label"] = [textwrap.fill(row, chars, break_long_words=True) for row in frame["row"]]
    narrow = width < 400  # a phone: one legend entry a line, as wide as the chart
    color = alt.Color(
        "model:N",
        scale=alt.Scale(domain=picks.picks, scheme="tableau10"),  # 8 picks at most: 10 distinct colours
        legend=alt.Legend(orient="bottom", columns=1 if narrow else 2, symbolLimit=0, labelLimit=width, title=None),
    )
    shape = alt.Shape(
        "source:N",
        scale=alt.Scale(domain=[SOURCE_HERE, SOURCE_IMPORTED], range=["circle", "diamond"]),
        # above the panels, one entry a line: beside the colours it made the chart wider than a phone
        legend=alt.Legend(orient="top", direction="vertical", title=None, labelLimit=width),
    )
    tooltip = [
        alt.Tooltip("model:N"),
        alt.Tooltip("row:N", title="row"),
        alt.Tooltip("value:Q", format=".4f"),
        alt.Tooltip("low:Q", format=".4f", title="95% CI low"),
        alt.Tooltip("high:Q", format=".4f", title="95% CI high"),
        alt.Tooltip("source:N"),
    ]
    panels = []
    for panel in dict.fromkeys(frame["panel"]):
        data = frame[frame["panel"] == panel]
        order = list(dict.fromkeys(data.sort_values("order")["label"]))
        lines = max(label.count("\n") + 1 for label in order)
        axis = alt.Axis(
            labelLimit=0,
            labelExpr="split(datum.label, '\\n')",
            labelPadding=4,
            minExtent=label_width,
            maxExtent=label_width,
        )
        y = alt.Y("label:N", sort=order, title=None, axis=axis)
        offset = alt.YOffset("model:N", sort=picks.picks)  # each pick its own lane: equal scores never hide
        # few ticks, never overlapping: a panel's range may be a few thousandths wide
        ticks = alt.Axis(tickCount=4 if narrow else 5, labelOverlap="greedy", labelFlush=True)
        x = alt.X("value:Q", title=None, scale=alt.Scale(zero=False), axis=ticks)
        title = alt.Title(textwrap.wrap(panel, max(20, width // 7)), anchor="start", fontSize=13)
        base = alt.Chart(data, title=title)
        whiskers = (
            base.transform_filter("isValid(datum.low)")
            .mark_rule(strokeWidth=2, opacity=0.7)
            .encode(y=y, yOffset=offset, x="low:Q", x2="high:Q", color=color)
        )
        points = base.mark_point(filled=True, size=45, opacity=0.95).encode(
            y=y, yOffset=offset, x=x, color=color, shape=shape, tooltip=tooltip
        )
        hollow = (
            base.transform_filter(f"datum.source === '{SOURCE_IMPORTED}'")
            .mark_point(filled=False, size=90, strokeWidth=1.5)
            .encode(y=y, yOffset=offset, x=x, color=color, shape=shape)
        )
        band = max(len(picks.picks) * ROW_HEIGHT + 6, lines * 13 + 4)  # a row's lane, or its wrapped name
        panels.append((whiskers + points + hollow).properties(width=plot_width, height=max(40, len(order) * band)))
    chart: alt.VConcatChart = alt.vconcat(*panels, spacing=18).resolve_scale(
        color="shared", shape="shared", x="independent"
    )
    return chart
