"""HTML pieces of the board's tables (escaping, numbers, cells, a plain table), and the CSV of the view on screen.

Every text that comes from a result or a declaration goes through ``esc`` (HTML-escaped, and the
characters Gradio's templates treat specially made inert), so a model named
``<img src=x onerror=alert(1)>`` is shown as text. Cells carry their number in ``data-v`` so the
page sorts numerically on a header click (negative values included); missing values sort last.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from leaderboard.app.data.filters import Filters, size_bucket
from leaderboard.app.data.ranking import Ranking
from leaderboard.app.data.values import MISSING, finite

ARROW = {"higher": "↑", "lower": "↓"}
_INERT = str.maketrans({"$": "&#36;", "`": "&#96;", "{": "&#123;", "}": "&#125;"})
_SAFE_URL = re.compile(r"^https?://[^\s<>\"'`]+$")


def esc(text: Any) -> str:
    return html.escape(str(text), quote=True).translate(_INERT)


def safe_url(url: Any) -> str | None:
    return url if isinstance(url, str) and _SAFE_URL.match(url) else None


MINUS = "\u2212"  # the true minus sign, on every number the page shows (the data-v attributes stay ASCII)


def score(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return MISSING
    return (f"{value:.4f}" if abs(value) < 100 else f"{value:.1f}").replace("-", MINUS)


ZERO_WIDTH = "no interval (zero width)"
ZERO_WIDTH_RULE = (
    "An interval of zero width (every bootstrap resample gave the same mean, to six decimals: too few "
    "queries, or their values all equal) says nothing about uncertainty and is shown as “no interval (zero width)”."
)


def span(ci: tuple[float, float] | None) -> str:
    """'0.384–0.521'; a zero-width interval is no interval (``ZERO_WIDTH_RULE``)."""
    if ci is None:
        return ""
    if not ci[1] > ci[0]:
        return ZERO_WIDTH
    digits = 3 if max(abs(ci[0]), abs(ci[1])) < 100 else 1
    while f"{ci[0]:.{digits}f}" == f"{ci[1]:.{digits}f}" and digits < 6:  # narrow, not zero: show the width
        digits += 1
    if f"{ci[0]:.{digits}f}" == f"{ci[1]:.{digits}f}":  # equal to 6 decimals: rounding noise of equal means
        return ZERO_WIDTH
    low, high = f"{ci[0]:.{digits}f}", f"{ci[1]:.{digits}f}"
    if min(ci) < 0:  # '−8.333 to −5.542': a dash between two minus signs reads badly
        return f"{low} to {high}".replace("-", MINUS)
    return f"{low}–{high}"


def parameters(count: Any) -> str:
    """22.7M, 7.6B, 350K; missing or zero counts show as —."""
    value = finite(count)
    if value is None or value <= 0:
        return MISSING
    for scale, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "K")):
        if value >= scale:
            return f"{value / scale:.1f}{suffix}"
    return f"{value:.0f}"


def data_value(value: Any) -> str:
    number = finite(value)
    if number is not None:
        return repr(number)
    return "" if value is None else esc(value)


@dataclass
class Cell:
    text: str  # already HTML
    sort: Any = None  # the number (or text) the column sorts by; None sorts last
    classes: str = ""
    title: str = ""


def _cell(cell: Cell, tag: str = "td") -> str:
    attrs = f' data-v="{data_value(cell.sort)}"'
    if cell.classes:
        attrs += f' class="{cell.classes}"'
    if cell.title:
        attrs += f' title="{esc(cell.title)}"'
    return f"<{tag}{attrs}>{cell.text}</{tag}>"


def table(
    headers: Sequence[tuple[str, str, str]],
    bodies: Sequence[tuple[str, str, list[list[Cell]]]],
    table_id: str,
    caption: str = "",
) -> str:
    """headers: (html, title, classes); bodies: (class, section heading html, rows)."""
    head = "".join(
        f'<th data-col="{i}" scope="col"{f" class={chr(34)}{cls}{chr(34)}" if cls else ""}'
        f"{f' title={chr(34)}{esc(title)}{chr(34)}' if title else ''}>{text}</th>"
        for i, (text, title, cls) in enumerate(headers)
    )
    parts = [f'<div class="lb-scroll"><table class="lb" id="{table_id}">']
    if caption:
        parts.append(f"<caption>{caption}</caption>")
    parts.append(f"<thead><tr>{head}</tr></thead>")
    for cls, heading, rows in bodies:
        parts.append(f'<tbody class="{cls}">')
        if heading:
            parts.append(f'<tr class="section"><td colspan="{len(headers)}">{heading}</td></tr>')
        parts.extend("<tr>" + "".join(_cell(c) for c in row) + "</tr>" for row in rows)
        parts.append("</tbody>")
    parts.append("</table></div>")
    return "".join(parts)


def header_cells(columns: Sequence[tuple[str, str]]) -> str:
    """A table's header cells from (text, class) pairs: the text escaped, each cell a column header."""
    return "".join(f'<th scope="col" class="{cls}">{esc(text)}</th>' for text, cls in columns)


def pager(
    page: int, pages: int, first: int, last: int, total: int, *, noun: str, element_id: str, box: str, go: str
) -> str:
    """Buttons to another page of a server-paged table: a click writes the page into the state box ``box``
    and clicks the hidden button ``go`` (``tabs.assets.SORT_JS``). Empty when everything fits one page."""
    if pages <= 1:
        return ""

    def button(target: int, text: str) -> str:
        disabled = " disabled" if target == page or not 1 <= target <= pages else ""
        return f'<button type="button" data-page="{target}"{disabled}>{text}</button>'

    return (
        f'<div class="pager" id="{element_id}" data-box="{box}" data-go="{go}">'
        f"{button(1, '« first')}{button(page - 1, '‹ previous')}"
        f"<span>{noun} {first}–{last} of {total} · page {page} of {pages}</span>"
        f"{button(page + 1, 'next ›')}{button(pages, 'last »')}</div>"
    )


def model_cell(info: dict[str, Any], cls: str = "c-model", page: str | None = None) -> Cell:
    """The model's name, linking to its page (``?model=NAME``; ``page``: the name to open where the name shown
    carries a revision), then its reference (↗, a new tab) when it has one."""
    import urllib.parse

    name = str(info.get("name", ""))
    url = safe_url(info.get("reference"))
    target = "?" + urllib.parse.urlencode({"model": page if page is not None else name})
    text = f'<a class="to-model" href="{esc(target)}" title="{esc(name)}: its page (every benchmark)">{esc(name)}</a>'
    if url:
        link = f'href="{esc(url)}" target="_blank" rel="noopener noreferrer"'
        text += f' <a class="to-ref" {link} title="reference">↗</a>'
    return Cell(text, name, cls, name + (f" (revision {info.get('revision')})" if info.get("revision") else ""))


# -- the benchmark table ----------------------------------------------------------------------------


def empty(message: str) -> str:
    return f'<div class="empty" id="board-empty">{esc(message)}</div>'


# -- CSV: numbers, not display strings ----------------------------------------------------------------


def plural(count: int, noun: str) -> str:
    """'1 model', '2 models' (the status line said "1 models")."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def link(url: Any, text: str) -> str:
    safe = safe_url(url)
    return f'<a href="{esc(safe)}" target="_blank" rel="noopener noreferrer">{esc(text)}</a>' if safe else esc(text)


def csv_frame(ranking: Ranking, filters: Filters) -> pd.DataFrame:
    records = []
    for line in (line for line in ranking.lines if filters.keep(line.info)):  # ranked, then unranked
        info = line.info
        record: dict[str, Any] = {
            "rank": line.rank,
            "not_significantly_different_from_first": (line.marker == "≈") if line.rank and line.rank > 1 else None,
            "p_value_vs_first": line.p_value,
            "model": info.get("name"),
            "revision": info.get("revision"),
            "score": line.aggregate,
            "score_ci_low": line.aggregate_interval[0] if line.aggregate_interval else None,
            "score_ci_high": line.aggregate_interval[1] if line.aggregate_interval else None,
        } | {f"also:{label}": value for label, value in line.side.items()}
        names = {}
        for column in ranking.columns:
            name = names[column.key] = f"{column.spec.task}:{column.spec.metric}" + (
                f":{column.spec.subset}" if column.spec.subset != "default" else ""
            )
            ci = line.intervals.get(column.key)
            record[name] = line.values.get(column.key)
            record[f"{name}:ci_low"] = ci[0] if ci else None
            record[f"{name}:ci_high"] = ci[1] if ci else None
            record[f"{name}:ci_note"] = line.interval_notes.get(column.key, "") if ci is None else ""  # why none
            other = getattr(line, "other_data", {}).get(column.key)
            if other:  # a value shown greyed on the board: computed on other data, never ranked
                record[f"{name}:ci_note"] = f"computed on {other}, not the ranked results' data (not comparable)"
            if column.key in getattr(line, "identical", {}):
                record[f"{name}:identical_source_of"] = "; ".join(line.identical[column.key])
        record.update(
            tasks_covered=line.covered,
            tasks_in_aggregate=ranking.aggregated,
            missing="; ".join(line.missing),
            parameters=finite(info.get("n_parameters")),
            size=size_bucket(info.get("n_parameters")),
            kind=info.get("kind"),
            takes_instructions=bool(info.get("takes_instructions")),
            harness=line.harness,
            updated=line.updated,
            source=line.imported or "run here",
            source_files=" ".join(line.sources.values()),
            zero_shot=line.zero_shot,
            license=info.get("license"),
            open_weights=info.get("open_weights"),
            release_date=info.get("release_date"),
        )
        for key, mteb in line.mteb.items():  # mteb's run of a cell this harness also ran
            record[f"{names.get(key, 'score')}:mteb"] = mteb.value
            record[f"{names.get(key, 'score')}:minus_mteb"] = mteb.difference
        records.append(record)
    return pd.DataFrame(records)
