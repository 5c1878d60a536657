"""The side-by-side view's HTML: per benchmark a table (columns x picks, score and 95% interval), the pairwise
tests, and the profile chart (Vega-Lite through altair: one panel per benchmark, its columns on the x axis).

Why a profile (parallel-coordinates) chart and not a radar: a benchmark's columns share one metric
scale, so a panel per benchmark reads values and intervals (error bars) directly on one y axis; a
radar's area depends on the axis order and shrinks to a line with two or three subsets, has no
readable intervals, and over benchmarks would put different metrics on one scale.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from leaderboard.app.many_models import IMPORTED, MAX_PICKS, MIN_PICKS, PairRow, Picked, chart_frame, shown_columns
from leaderboard.app.render import ARROW, esc, header_cells, score, span
from leaderboard.app.values import MISSING
from leaderboard.app.views.board import shown_columns as board_columns
from leaderboard.app.views.compare import _p_cells as p_texts
from leaderboard.app.views.model import column_name, page_link

if TYPE_CHECKING:
    import altair as alt

    from leaderboard.app.many_models import Part


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
    if not picks.parts:
        return notes + '<div class="empty" id="side-empty">No benchmark has results of two of these models.</div>'
    intro = (
        '<p class="note">Each benchmark the picks share (two or more of them): every column (task or subset) with '
        "each model's score and 95% interval; the best of the picks in bold. Model names open their page.</p>"
    )
    tables = "".join(_part_html(picks, part) for part in picks.parts)
    return f'<div id="side-tables">{notes}{intro}{tables}</div>'


def _part_html(picks: Picked, part: Part) -> str:
    ranking = part.ranking
    links = [f'<a class="to-model" href="{esc(page_link(name))}">{esc(name)}</a>' for name in picks.picks]
    heads = "".join(f'<th scope="col">{link}</th>' for link in links)
    rows = [_row(f"Score: {ranking.aggregate_label}", ranking.direction, part, None)]
    own = board_columns(ranking)  # a one-task score's own column is the Score row, not repeated
    rows += [_row(_column_name(c), c.direction, part, c.key) for c in shown_columns(part) if c in own]
    ranks = "".join(
        f"<td>{esc(f'#{line.rank}' if line and line.rank else ('not ranked' if line else 'no results'))}</td>"
        for line in part.lines
    )
    rows.insert(0, f'<tr class="side-rank"><td class="c-text">Rank on the board</td>{ranks}</tr>')
    return (
        f'<section class="side-part" data-benchmark="{esc(part.benchmark)}"><h3>{esc(part.benchmark)}</h3>'
        f'<div class="lb-scroll"><table class="lb side-table" data-benchmark="{esc(part.benchmark)}">'
        f'<thead><tr><th scope="col" class="c-text">Column</th>{heads}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div></section>"
    )


def _column_name(column) -> str:
    name = f"{column_name(column)} {ARROW.get(column.direction, '')}".strip()
    return name + ("" if column.spec.in_aggregate else " (not ranked)")


def _row(label: str, direction: str, part: Part, key: str | None) -> str:
    values = [
        (line.aggregate if key is None else line.values.get(key)) if line is not None else None for line in part.lines
    ]
    present = [v for v in values if v is not None]
    best = (min(present) if direction == "lower" else max(present)) if present else None
    cells = []
    for line, value in zip(part.lines, values):
        if line is None or value is None:
            cells.append(f"<td>{MISSING}</td>")
            continue
        ci = line.aggregate_interval if key is None else line.intervals.get(key)
        interval = span(ci) if ci else ("no interval: imported" if line.imported else "no interval")
        text = f"<b>{score(value)}</b>" if value == best and len(present) > 1 else score(value)
        shown = f'<span class="v">{text}</span><span class="ci">{esc(interval)}</span>'
        cells.append(f'<td data-v="{value!r}">{shown}</td>')
    kind = "side-score" if key is None else "side-column"
    return f'<tr class="{kind}"><td class="c-text">{esc(label)}</td>{"".join(cells)}</tr>'


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


def profile_chart(picks: Picked, width: int) -> alt.Chart | alt.VConcatChart | None:
    """One panel per shared benchmark: each pick's score per column, with its 95% interval as an error bar."""
    import altair as alt

    frame = chart_frame(picks)
    if frame.empty:
        return None
    panels = []
    for benchmark in dict.fromkeys(frame["benchmark"]):
        data = frame[frame["benchmark"] == benchmark]
        order = list(dict.fromkeys(data.sort_values("order")["column"]))
        x = alt.X("column:N", sort=order, title=None, axis=alt.Axis(labelAngle=-30, labelLimit=150))
        color = alt.Color(
            "model:N",
            scale=alt.Scale(domain=picks.picks, scheme="tableau10"),  # 8 picks at most: 10 distinct colours
            legend=alt.Legend(orient="bottom", columns=2, symbolLimit=0, labelLimit=320, title=None),
        )
        tooltip = [
            alt.Tooltip("model:N"),
            alt.Tooltip("column:N"),
            alt.Tooltip("value:Q", format=".4f"),
            alt.Tooltip("low:Q", format=".4f", title="95% CI low"),
            alt.Tooltip("high:Q", format=".4f", title="95% CI high"),
        ]
        base = alt.Chart(data, title=alt.Title(benchmark, anchor="start"))
        y = alt.Y("value:Q", title="score", scale=alt.Scale(zero=False))
        # a small sideways offset per model, so that equal scores and their bars do not hide each other
        offset = alt.XOffset("model:N", sort=picks.picks)
        lines = base.mark_line(point=True, opacity=0.9).encode(x=x, xOffset=offset, y=y, color=color, tooltip=tooltip)
        bars = (
            base.transform_filter("isValid(datum.low)")
            .mark_rule(opacity=0.6)
            .encode(x=x, xOffset=offset, y="low:Q", y2="high:Q", color=color)
        )
        panels.append((bars + lines).properties(width=width, height=240))
    return alt.vconcat(*panels).resolve_scale(color="shared") if len(panels) > 1 else panels[0]


SIDE_CSS = """
#side-tables .side-part h3 { margin: 12px 0 2px 0; font-size: 16px; }
#side-tables td .ci { display: block; font-size: 11px; color: var(--body-text-color-subdued); }
#side-tables th a { color: inherit; }
#side-tables td.c-text { white-space: normal; min-width: 8em; max-width: 14em; text-align: left; }
.side-note { margin: 4px 0; }
"""
