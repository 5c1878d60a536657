"""A benchmark's board as an HTML table, sorted and paged on the server over ALL its rows.

The browser never holds more than one page: a header click asks the server for the table sorted by
that column (``sort``), and the pager for another page, so "best on column X" is read over every
model, not over the rows that happen to be on screen. Ranked models, unranked ones and scores
reported in papers are three tiers, sorted each on its own and never mixed. Score cells carry a
colour scale (direction-aware: the better, the darker), and the metric named once in each header.
"""

from __future__ import annotations

import urllib.parse
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from leaderboard.app.data.filters import MODEL_COLUMNS, MODEL_FACTS, Filters, metadata_value, model_fact
from leaderboard.app.data.ranking import Line, Ranking, aggregate_title, table_columns
from leaderboard.app.data.reported_tier import ReportedLine
from leaderboard.app.data.sorting import PAGE_SIZE, page_slice, reported_sort_value, sort_lines, sort_value
from leaderboard.app.data.values import MISSING, finite
from leaderboard.app.views import protocol_variants
from leaderboard.app.views.compare import p_text
from leaderboard.app.views.render import (
    ARROW,
    ZERO_WIDTH_RULE,
    Cell,
    empty,
    esc,
    model_cell,
    pager,
    parameters,
    safe_url,
    score,
    span,
)
from leaderboard.metrics.bootstrap import N_RESAMPLES

# Columns a reader can add; the model's metadata fills Dimension and Max tokens where the plugin records them,
# and an imported mteb result's model_meta.json fills License, Open weights and Released (the model's release date).
EXTRA_COLUMNS: tuple[str, ...] = ("Coverage", "Parameters", "Dimension", "Max tokens", *MODEL_FACTS, "Kind")
EXTRA_COLUMNS += ("Instructions", "Revision", "Harness", "Updated")
_ARROWS = " ↑↓"
SHOWN_COPIES = 3  # models named under a row whose source file others share (the rest counted)
TITLED_COPIES = 10  # and in its tooltip


@dataclass(frozen=True)
class TableRequest:
    filters: Filters = Filters()
    columns: tuple[str, ...] = ()  # optional columns shown (EXTRA_COLUMNS and "Missing")
    sort: tuple[str, str] | None = None  # (column key, "asc" | "desc"); None: by rank
    page: int = 1


def strip_arrow(label: str) -> str:
    """A label without a trailing ↑/↓ (the header adds the direction once)."""
    return label.rstrip(_ARROWS) or label


def shown_columns(ranking: Ranking) -> list[Any]:
    """The task columns; a one-task aggregate's own column is the Score column, so it is not repeated."""
    return table_columns(ranking)


def heat(value: float | None, low: float | None, high: float | None, direction: str) -> str:
    """The colour-scale strength of a cell (CSS custom property), 0 for a missing value or a flat column."""
    if value is None or low is None or high is None or high <= low:
        return ""
    t = (value - low) / (high - low)
    t = 1 - t if direction == "lower" else t
    return f"--heat: {0.03 + 0.22 * t:.3f}"


def _bounds(values: Iterable[float | None]) -> tuple[float | None, float | None]:
    present = [v for v in values if v is not None]
    return (min(present), max(present)) if present else (None, None)


def _header(header: tuple[str, str, str, str, str], index: int, sort: tuple[str, str] | None) -> str:
    """A column's header cell from its (key, label, sub-label, title, class) (``_headers``), sortable on the server."""
    key, label, sub, title, cls = header
    attrs = f' data-col="{index}" data-key="{esc(key)}" scope="col"'
    if cls:
        attrs += f' class="{cls}"'
    if title:
        attrs += f' title="{esc(title)}"'
    if sort and sort[0] == key:
        attrs += f' aria-sort="{"ascending" if sort[1] == "asc" else "descending"}"'
    sub_html = f'<span class="m">{esc(sub)}</span>' if sub else ""
    return f'<th{attrs}><span class="h">{esc(label)}</span>{sub_html}</th>'


def _td(cell: Cell, style: str = "") -> str:
    number = finite(cell.sort)
    value = repr(number) if number is not None else ("" if cell.sort is None else esc(cell.sort))
    attrs = f' data-v="{value}"'
    if cell.classes:
        attrs += f' class="{cell.classes}"'
    if cell.title:
        attrs += f' title="{esc(cell.title)}"'
    if style:
        attrs += f' style="{style}"'
    return f"<td{attrs}>{cell.text}</td>"


def interval_text(ci: tuple[float, float] | None) -> str:
    """'0.384–0.521'; with a negative end '−8.333 to −5.542' (a dash between two minus signs reads badly)."""
    return span(ci)


def _value(
    value: float | None, ci: tuple[float, float] | None, best: float | None, cls: str = "", why: str = ""
) -> Cell:
    classes = " ".join(c for c in (cls, "best" if value is not None and value == best else "") if c)
    interval = f'<span class="ci">{interval_text(ci)}</span>' if ci else ""
    title = f"no interval: {why}" if why and not ci and value is not None else ""
    if title:  # on the page, not only in the tooltip and the CSV's ci_note; the notes say why
        interval = '<span class="ci nci">no interval</span>'
    elif ci and not ci[1] > ci[0]:
        title = ZERO_WIDTH_RULE
    return Cell(f'<span class="v">{score(value)}</span>{interval}', value, classes, title)


def board_html(
    ranking: Ranking,
    request: TableRequest,
    reported: Sequence[ReportedLine] = (),
    prepare: Callable[[list[Line]], None] | None = None,
    ahead: Callable[[list[Line]], None] | None = None,
) -> str:
    """The table of one page of the board, sorted as asked, with its pager.

    The rows come in three tiers, each drawn by its own function: ranked runs (``ranked_rows_html``), runs
    not ranked (``unranked_rows_html``) and numbers reported in papers (``reported_rows_html``, on the last
    page). ``prepare`` is called with the page's rows before they are drawn (the app computes their
    statistics), ``ahead`` with the next page's rows once this page is ready (the app computes theirs in the
    background).
    """
    ranked, unranked, papers = _shown(ranking, request, reported)
    if not ranked and not unranked and not papers:
        return empty("No results yet for this benchmark" + (" matching the filters." if ranking.lines else "."))
    # One page over the two tiers of runs (ranked first); reported rows follow on the last page.
    total = len(ranked) + len(unranked)
    page, pages, start, stop = page_slice(total, request.page, PAGE_SIZE)
    page_ranked = ranked[start:stop]
    page_unranked = unranked[max(0, start - len(ranked)) : max(0, stop - len(ranked))]
    if prepare is not None:
        prepare(page_ranked + page_unranked)
    if ahead is not None and stop < total:
        following = (ranked + unranked)[stop : stop + PAGE_SIZE]
        ahead(following)
    layout = _layout(ranking, request, unranked)
    headers = _headers(layout)
    head = "".join(_header(header, i, request.sort) for i, header in enumerate(headers))
    width = len(headers)
    bodies = [ranked_rows_html(layout, page_ranked), unranked_rows_html(layout, page_unranked, len(unranked), width)]
    if page == pages:
        bodies.append(reported_rows_html(layout, papers, width))
    else:  # the papers' tier follows the last page of runs: every other page says where, one click away
        bodies.append(reported_link_html(len(papers), pages, width))
    table = (
        f'<div class="lb-scroll"><table class="lb" id="board-table" data-server-sort>'
        f"<thead><tr>{head}</tr></thead>{''.join(bodies)}</table></div>"
    )
    first, last = (start + 1, min(stop, total)) if total else (0, 0)
    return table + pager(
        page, pages, first, last, total, noun="models", element_id="board-pager", box="page-state", go="board-go"
    )


def _shown(
    ranking: Ranking, request: TableRequest, reported: Sequence[ReportedLine]
) -> tuple[list[Line], list[Line], list[ReportedLine]]:
    """The rows of each tier the reader's filters keep, each tier sorted on its own as asked."""
    filters = request.filters
    ranked = [line for line in ranking.ranked if filters.keep(line.info)]
    unranked = [line for line in ranking.unranked if filters.keep(line.info)]
    # search and source apply; the model filters need metadata the papers do not give
    papers = [row for row in reported if _named(row, filters)] if filters.shows_reported else []
    sort = request.sort
    if sort is not None:
        value = sort_value(ranking, sort[0])
        ranked, unranked = sort_lines(ranked, value, sort[1]), sort_lines(unranked, value, sort[1])
        papers = sort_lines(papers, reported_sort_value(sort[0]), sort[1])  # the reported tier follows the sort
    return ranked, unranked, papers


@dataclass(frozen=True)
class _Layout:
    """What every row of a page shares: the ranking, the columns shown and the facts their cells are read against."""

    ranking: Ranking
    columns: list[Any]  # the task columns (``shown_columns``)
    sides: list[Any]  # the benchmark's other declared means, each a column that is not ranked
    extra: list[str]  # the optional columns the reader ticked that some row can fill
    missing: bool  # the "Missing" column: ticked, and some unranked row on the board misses something
    facts: _Facts
    best_aggregate: float | None  # #1's score (the best of the Score column)


def _layout(ranking: Ranking, request: TableRequest, unranked: list[Line]) -> _Layout:
    shown = set(request.columns)
    # Dimension and Max tokens only where some model's metadata has them (not a column of dashes).
    facts = _facts(ranking)
    optional = (*MODEL_COLUMNS, *MODEL_FACTS)
    extra = [
        c
        for c in EXTRA_COLUMNS
        if c in shown and (c in ("Coverage", "Parameters") or c not in optional or c in facts.metadata)
    ]
    return _Layout(
        ranking=ranking,
        columns=shown_columns(ranking),
        sides=list(getattr(ranking.benchmark, "also", ()) or ()),
        extra=extra,
        missing="Missing" in shown and any(line.missing for line in unranked),
        facts=facts,
        best_aggregate=ranking.ranked[0].aggregate if ranking.ranked else None,
    )


def _headers(layout: _Layout) -> list[tuple[str, str, str, str, str]]:
    """Each column's (key, label, metric line, tooltip, class), in the order the cells of a row follow."""
    ranking = layout.ranking
    headers = [
        ("rank", "Rank", "", "Rank by the score; ≈ and † are explained below the table", "c-rank"),
        ("model", "Model", "", "Model name (opens its page; ↗ its reference when it has one)", "c-model"),
        # ranked by another declared mean (``aggregates``): no interval to announce
        (
            "agg",
            "Score",
            f"{aggregate_title(ranking)}{'' if ranking.by_direction else ' · 95% CI'} {ARROW[ranking.direction]}",
            "",
            "c-agg",
        ),
    ]
    for side in layout.sides:
        arrow = ARROW[side.tasks[0].direction] if side.tasks else ""
        headers.append((f"side:{side.label}", strip_arrow(side.label), f"mean {arrow} · not ranked", side.formula, ""))
    for column in layout.columns:
        metric = strip_arrow(column.metric_label)
        label = strip_arrow(column.label)
        sub = (metric if metric != label else "") + f" {ARROW[column.direction]}"
        sub += "" if column.spec.in_aggregate else " · not ranked"
        headers.append((column.key, label, sub.strip(), f"{column.spec.metric}: {column.description}".strip(": "), ""))
    headers += [(c, c, "", "", "") for c in layout.extra]
    if layout.missing:
        headers.append(("Missing", "Missing", "", "What keeps the model off the ranking", "c-missing"))
    return headers


def ranked_rows_html(layout: _Layout, lines: list[Line]) -> str:
    """The ranked tier: the page's models with complete results on every task of the aggregate, by rank (or as
    sorted); each row's rank, its score with its interval, and the colour scale."""
    return f'<tbody class="ranked">{"".join(_run_row(layout, line) for line in lines)}</tbody>'


def _unranked_heading(count: int) -> str:
    return (
        f"Not ranked: incomplete coverage ({count} model{'s' if count != 1 else ''}). "
        "Only complete results of every task in the aggregate are ranked; partial (--limit) results never are."
    )


def unranked_rows_html(layout: _Layout, lines: list[Line], count: int, width: int) -> str:
    """The tier of runs that are not ranked (incomplete coverage, other data, `external` numbers), under a heading
    that counts all ``count`` of them; drawn as the ranked rows are, with a dash for a rank. Empty on a page
    without such rows."""
    if not lines:
        return ""
    return (
        f'<tbody class="unranked">{_section(_unranked_heading(count), width)}'
        + "".join(_run_row(layout, line) for line in lines)
        + "</tbody>"
    )


REPORTED_HEADING = (
    "Reported in papers (copied; never ranked, no interval; Δ = the board's run − reported, where the run "
    "is reproduced by this harness or run by mteb and imported)"
)


def reported_rows_html(layout: _Layout, items: list[ReportedLine], width: int) -> str:
    """The tier of numbers reported in papers (``reported_tier``): never ranked, no interval, each cell beside the
    board's own run of the model where it has one. Empty when no paper reports a model the filters keep."""
    if not items:
        return ""
    return (
        f'<tbody class="reported">{_section(REPORTED_HEADING, width)}'
        + "".join(_reported_row(layout, item) for item in items)
        + "</tbody>"
    )


def reported_link_html(count: int, last: int, width: int) -> str:
    """On a page before the last: a line saying that ``count`` rows reported in papers follow the runs on page
    ``last``, with a button to it (the pager's: the page goes into the URL). Empty without reported rows."""
    if not count:
        return ""
    rows = f"{count} row{'s' if count != 1 else ''}"
    text = f"Reported in papers: {rows} (copied, never ranked), after the runs on page {last}."
    button = f'<button type="button" data-page="{last}">Show them (page {last})</button>'
    pager = 'class="section-text pager reported-link" data-box="page-state" data-go="board-go"'
    inner = f"<div {pager}>{esc(text)} {button}</div>"
    return f'<tbody class="reported-link"><tr class="section"><td colspan="{width}">{inner}</td></tr></tbody>'


def _section(heading: str, width: int) -> str:
    """A tier's heading: one row across the whole table."""
    return f'<tr class="section"><td colspan="{width}"><div class="section-text">{esc(heading)}</div></td></tr>'


def _run_row(layout: _Layout, line: Line) -> str:
    """One run's row (ranked or not): rank, model, score, the other declared means, each task column, the extras."""
    ranking, facts = layout.ranking, layout.facts
    parts = [_td(_rank_cell(line)), _td(_model_cell(line, ranking, facts.shared))]
    aggregate = _value(line.aggregate, line.aggregate_interval, layout.best_aggregate, "c-agg")
    parts.append(_styled(facts, _with_mteb(aggregate, line, "agg"), "agg", line.aggregate, ranking.direction))
    for side in layout.sides:
        value = line.side.get(side.label)
        side_direction = side.tasks[0].direction if side.tasks else "higher"
        cell = _value(value, None, facts.side_best.get(side.label))
        parts.append(_styled(facts, cell, f"side:{side.label}", value, side_direction))
    parts += [_task_cell(facts, line, column) for column in layout.columns]
    cells = _extra_cells(line, ranking)
    parts += [_td(cells[c]) for c in layout.extra]
    if layout.missing:
        parts.append(_td(Cell(esc("; ".join(line.missing)), "; ".join(line.missing), "c-missing")))
    return "<tr>" + "".join(parts) + "</tr>"


def _styled(facts: _Facts, cell: Cell, key: str, value: float | None, direction: str) -> str:
    """A score cell with its colour-scale strength (over every ranked model of the board, not only this page)."""
    low, high = facts.bounds.get(key, (None, None))
    style = heat(value, low, high, direction)
    if style:
        cell.classes = f"{cell.classes} heat".strip()
    return _td(cell, style)


def _rank_cell(line: Line) -> Cell:
    """The rank with ≈ or † (a dash when not ranked), the test against #1 in its tooltip."""
    rank = Cell(esc(f"{line.rank}{(' ' + line.marker) if line.marker else ''}") if line.rank else MISSING)
    rank.sort, rank.classes = line.rank, "c-rank"
    if line.p_value is not None:
        rank.title = f"paired randomization test against #1: p = {p_text(line.p_value, N_RESAMPLES)}"
    return rank


def _model_cell(line: Line, ranking: Ranking, shared: frozenset[str]) -> Cell:
    """The model's name with what the row is: its revision (two rows of one name), a paper's protocol of a model,
    evaluated by the queue, run by mteb and imported, or a byte-identical copy of another model's files."""
    model = model_cell(line.info)
    if line.name in shared:  # two rows of one name: each says which revision it is
        model.text += f'<span class="rev">revision {esc(line.key[1] or MISSING)}</span>'
    variant, variant_title = protocol_variants.note(line, ranking.lines, ranking.benchmark.name)  # a paper's protocol
    if variant:
        model.text += variant
        model.title += f" · {variant_title}"
    if line.attested:  # the queue's worker computed every result behind the row, and signed them
        model.text += f'<span class="src attested">{esc(line.attested)}</span>'
        model.title += " · evaluated by the queue: each result's attestation verifies with the queue's public key"
    if line.imported:  # a run made by mteb (or an `external` number), with a link to its file
        model.text += source_span(line.imported, next(iter(line.sources.values()), None))
        model.title += f" · {line.imported}: no per-query values, so no interval and no significance test (†)"
    if line.copies:  # one row for byte-identical files: every name it stands for, each linked to its page
        pages = {name: "?" + urllib.parse.urlencode({"model": name}) for name in line.copies}
        others = ", ".join(f'<a class="to-model" href="{esc(page)}">{esc(name)}</a>' for name, page in pages.items())
        model.text += f'<span class="src dup copies">= {others}: byte-identical result files, one row</span>'
        model.title += f" · also {', '.join(line.copies)}: their result files are byte-identical (one row, one rank)"
    elif line.identical:
        model.text += identical_span(line, ranking)
    return model


def _task_cell(facts: _Facts, line: Line, column: Any) -> str:
    """One task column's cell: the value, its interval (or why none), mteb's run of it, or greyed other data."""
    value = line.values.get(column.key)
    why = getattr(line, "interval_notes", {}).get(column.key, "")
    if line.imported:  # the row says it once (†, under the name): not "no interval" in every cell
        why = ""
    cell = _value(value, line.intervals.get(column.key), facts.best[column.key] if line.rank else None, "", why)
    if line.imported and value is not None:
        cell.title = f"no interval: {line.imported} (mteb's files hold no per-query values)"
    data = line.other_data.get(column.key)
    if data is not None:  # readable, greyed, with the data it ran on; never ranked nor coloured
        cell.text += f'<span class="od">{esc(data)}</span>'
        cell.classes = f"{cell.classes} other-data".strip()
        cell.title = f"computed on {data}, not the data of the ranked results: shown, not comparable, not ranked"
        return _td(cell)
    if column.key in line.identical:  # ⚠ after the value; the models are named once, under the row's name
        cell.classes = f"{cell.classes} dup".strip()
    return _styled(facts, _with_mteb(cell, line, column.key), column.key, value, column.direction)


def _extra_cells(line: Line, ranking: Ranking) -> dict[str, Cell]:
    """The optional columns' cells of a run's row (``EXTRA_COLUMNS``), by column."""
    info = line.info
    return {
        "Coverage": Cell(f"{line.covered}/{ranking.aggregated}", line.covered / max(ranking.aggregated, 1)),
        "Parameters": Cell(parameters(info.get("n_parameters")), metadata_value(info, "Parameters")),
        "Dimension": _count(metadata_value(info, "Dimension")),
        "Max tokens": _count(metadata_value(info, "Max tokens")),
        "Kind": Cell(esc(info.get("kind", "")), info.get("kind")),
        **{c: _fact(model_fact(info, c)) for c in MODEL_FACTS},
        "Instructions": Cell("yes" if info.get("takes_instructions") else "no", bool(info.get("takes_instructions"))),
        "Revision": Cell(esc(line.key[1] or MISSING), line.key[1]),
        "Harness": Cell(esc(line.harness), line.harness),
        "Updated": Cell(esc(line.updated[:10] or MISSING), line.updated or None),  # an undated import: —
    }


def _reported_row(layout: _Layout, item: ReportedLine) -> str:
    """One paper's numbers for one model: "rep." for a rank, the paper and table under the name, a dash in the
    columns a paper does not report (the other means, the extras)."""
    rank = Cell("rep.", None, "c-rank", item.source)
    model = Cell(
        f'{esc(item.model)}<span class="src">{esc(item.source)}</span>',
        item.model,
        "c-model",
        f"{item.model}: {item.source} (copied from the paper; not reproduced here, never ranked, no interval)",
    )
    if item.notes:  # the row's note (which model, what was checked against the paper), one click away
        note = " ".join(item.notes)
        model.text += f'<details class="note"><summary>note</summary>{esc(note)}</details>'
        model.title += f" · note: {note}"
    parts = [_td(rank), _td(model), _td(_reported_cell(item.aggregate_value, item.difference, item, "c-agg"))]
    for side in layout.sides:  # the paper's own value of another declared mean, when it prints one
        printed = item.sides.get(side.label)
        parts.append(_td(_reported_cell(printed.value, None, item, "") if printed else Cell(MISSING)))
    for column in layout.columns:
        cell = item.cells.get(column.key)
        value = cell.value if cell else None
        parts.append(_td(_reported_cell(value, item.column_difference(column.key), item, "", column.key)))
    parts += [_td(Cell(MISSING)) for _ in layout.extra]
    if layout.missing:
        parts.append(_td(Cell("")))
    return "<tr>" + "".join(parts) + "</tr>"


@dataclass(frozen=True)
class _Facts:
    """What every page of a ranking's table shares, read from all its rows once (not on each sort or page)."""

    metadata: frozenset[str]  # the model columns some model's metadata fills
    bounds: dict[str, tuple[float | None, float | None]]  # the colour scale of each score column
    best: dict[str, float | None]  # each task column's best value among ranked models
    side_best: dict[str, float | None]
    shared: frozenset[str]  # names of two or more rows (each says its revision)


def _facts(ranking: Ranking) -> _Facts:
    found = ranking.memo.get("table_facts")
    if found is None:
        found = ranking.memo["table_facts"] = _compute_facts(ranking)
    return found


def _compute_facts(ranking: Ranking) -> _Facts:
    # Colour scale and best values over every ranked model (not only this page).
    columns = shown_columns(ranking)
    scale_rows = ranking.ranked or ranking.unranked
    bounds = {c.key: _bounds(line.values.get(c.key) for line in scale_rows) for c in columns}
    bounds["agg"] = _bounds(line.aggregate for line in ranking.ranked)
    side_best: dict[str, float | None] = {}
    for side in getattr(ranking.benchmark, "also", ()) or ():
        low, high = _bounds(line.side.get(side.label) for line in ranking.ranked)
        bounds[f"side:{side.label}"] = (low, high)
        lower = bool(side.tasks) and side.tasks[0].direction == "lower"
        side_best[side.label] = low if lower else high
    metadata = frozenset(
        [c for c in MODEL_COLUMNS if any(metadata_value(line.info, c) is not None for line in ranking.lines)]
        + [c for c in MODEL_FACTS if any(model_fact(line.info, c) is not None for line in ranking.lines)]
    )
    return _Facts(
        metadata=metadata,
        bounds=bounds,
        best={c.key: ranking.best(c.key) for c in columns},
        side_best=side_best,
        shared=frozenset(n for n, times in Counter(line.name for line in ranking.lines).items() if times > 1),
    )


def _named(row: ReportedLine, filters: Filters) -> bool:
    return not filters.search or filters.search.casefold() in row.model.casefold()


def _count(value: float | None) -> Cell:
    return Cell(MISSING if value is None else f"{value:,.0f}", value)


def _with_mteb(cell: Cell, line: Line, key: str) -> Cell:
    """This harness's run of a cell with mteb's run of it (``imported_runs.add_comparisons``): both, and Δ."""
    mteb = line.mteb.get(key)
    if mteb is not None:
        cell.text += f'<span class="delta">mteb {score(mteb.value)} · Δ {signed(mteb.difference)}</span>'
        cell.title = f"{cell.title} {mteb.label}: {mteb.value:.6g}; Δ = this harness − mteb".strip()
    return cell


def identical_span(line: Line, ranking: Ranking) -> str:
    """ "⚠ same source file as intfloat/e5-mistral-7b-instruct (7 of 7 tasks)" under a model's name."""
    others = sorted({name for names in line.identical.values() for name in names})
    total = len(ranking.columns)
    columns = f"{len(line.identical)} of {total} column{'s' if total != 1 else ''}"
    shown = ", ".join(others[:SHOWN_COPIES]) + (
        f" and {len(others) - SHOWN_COPIES} more" if len(others) > SHOWN_COPIES else ""
    )
    text = f"⚠ same source file as {shown} ({columns})"
    named = ", ".join(others[:TITLED_COPIES]) + (
        f" and {len(others) - TITLED_COPIES} more" if len(others) > TITLED_COPIES else ""
    )
    title = f"byte-identical imported result files (one git blob) of {named}: an upstream copy, not a tie"
    return f'<span class="src dup" title="{esc(title)}">{esc(text)}</span>'


def _fact(text: str | None) -> Cell:
    return Cell(MISSING if text is None else esc(text), text, "c-text")


def source_span(label: str, url: str | None) -> str:
    """ "run by mteb 2.18, imported †" under a model's name, linked to its file when the file has an address."""
    text = f"{esc(label)} †"
    link = safe_url(url)
    if link:
        text = f'<a href="{esc(link)}" target="_blank" rel="noopener noreferrer">{text}</a>'
    return f'<span class="src imported">{text}</span>'


def _reported_cell(
    value: float | None, difference: float | None, item: ReportedLine, cls: str, key: str | None = None
) -> Cell:
    if value is None:
        return Cell(MISSING, None, cls)
    text = f'<span class="v">{score(value)}</span>'
    if difference is not None:
        reproduced = value + difference
        text += f'<span class="delta">{esc(run_label(item))} {score(reproduced)} · Δ {signed(difference)}</span>'
    source = item.cell_source(key)
    if len(item.tables) > 1 and key is not None:  # a merged row: each cell names its table
        text += f'<span class="src">{esc(source.rpartition(", ")[2])}</span>'
    return Cell(text, value, cls, source)


def run_label(item: ReportedLine) -> str:
    """Whose run a reported number is set against: "reproduced" only for this harness's own run; an imported
    one says it was mteb's ("run by mteb 1.38"), as the board's row does."""
    imported = item.reproduced.imported if item.reproduced is not None else None
    if not imported:
        return "reproduced"
    return imported.removesuffix(", imported")


def signed(value: float) -> str:
    """'+0.1857', '−0.0312': the true minus sign, as everywhere on the board."""
    return f"{value:+.4f}".replace("-", "−")
