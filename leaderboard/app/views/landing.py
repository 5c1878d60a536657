"""The landing page: every benchmark of the board with its top models and their intervals, each linking to its board.

A reader who opens the bare URL sees results whenever any exist: benchmarks with ranked models come
first (most ranked models first), each as a card with its top models, their scores and 95% intervals;
benchmarks without ranked models are listed after them on one line, and a local board's tasks in no
benchmark are folded into one details element (they get cards only when no benchmark ranks a model).
Nothing here names a benchmark.
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass
from typing import TYPE_CHECKING

from leaderboard.app.data.board import STANDALONE
from leaderboard.app.data.page_statistics import with_statistics
from leaderboard.app.data.ranking import aggregate_title
from leaderboard.app.views.render import ARROW, esc, plural, score, span

if TYPE_CHECKING:
    from leaderboard.app.data.board import Board
    from leaderboard.app.data.ranking import Ranking

HOME = "Home: every benchmark"  # the selector's first entry, the view of the bare URL
TOP = 3  # models shown per benchmark card


@dataclass
class Entry:
    name: str
    ranking: Ranking | None

    @property
    def ranked(self) -> int:
        return len(self.ranking.ranked) if self.ranking else 0

    @property
    def listed(self) -> int:
        return len(self.ranking.lines) if self.ranking else 0


def entries(board: Board, names: list[str]) -> list[Entry]:
    """The benchmarks in landing order: most ranked models first (declaration order among equals), then the rest."""
    found = [Entry(name, board.ranking(name, with_stats=False)) for name in names]
    order = {name: position for position, name in enumerate(names)}
    return sorted(found, key=lambda e: (e.ranked == 0, -e.ranked, order[e.name]))


def busiest(board: Board, names: list[str]) -> str | None:
    """The benchmark with the most ranked models (None when no benchmark has one)."""
    first = next(iter(entries(board, names)), None)
    return first.name if first is not None and first.ranked else None


def link(name: str) -> str:
    return "?" + urllib.parse.urlencode({"benchmark": name})


def model_link(name: str) -> str:
    """A model's page (``views.model.page_link``, written here: the landing page imports no other view module)."""
    return "?" + urllib.parse.urlencode({"model": name})


def landing_html(board: Board, names: list[str]) -> str:
    """Cards for benchmarks with ranked models, then one line listing those without, then the folded tasks."""
    found = entries(board, names)
    loose = set(getattr(board, "standalone", ()) or ())  # tasks in no benchmark (a local board's)
    if not any(e.ranked for e in found if e.name not in loose):
        loose = set()  # nothing else to show: the tasks' own boards are the board
    folded = [e for e in found if e.name in loose]
    found = [e for e in found if e.name not in loose]
    with_results = [e for e in found if e.ranked]
    without = [e for e in found if not e.ranked]
    for entry in with_results:
        if entry.ranking is not None:
            with_statistics(board, entry.ranking, entry.ranking.ranked[:TOP])
    if not with_results:
        listed = ", ".join(esc(e.name) for e in found + folded) or "none declared"
        return f'<div class="empty" id="board-empty">No ranked results yet. Benchmarks: {listed}.</div>'
    cards = "".join(_card(e.name, e.ranking) for e in with_results if e.ranking is not None)
    rest = ""
    if without:
        items = "".join(
            f'<li><a href="{esc(link(e.name))}">{esc(e.name)}</a>'
            f"{f' ({e.listed} unranked: incomplete results)' if e.listed else ''}</li>"
            for e in without
        )
        rest = f'<div class="home-empty" id="home-without"><b>No ranked results yet:</b><ul>{items}</ul></div>'
    if folded:
        rest += _folded(folded)
    intro = (
        '<p class="note home-intro">Top models of each benchmark by its own score, with 95% intervals. '
        "Open a benchmark for its full board.</p>"
    )
    return f'<div id="home">{intro}<div class="home-cards">{cards}</div>{rest}</div>'


def _folded(folded: list[Entry]) -> str:
    """Tasks in no benchmark: one closed details element (a local board can have dozens), each linked."""
    items = "".join(
        f'<li><a href="{esc(link(e.name))}">{esc(e.name.removesuffix(STANDALONE))}</a>'
        f"{f' ({e.ranked} ranked)' if e.ranked else f' ({e.listed} unranked)' if e.listed else ''}</li>"
        for e in folded
    )
    ranked = sum(1 for e in folded if e.ranked)
    return (
        f'<details class="home-empty" id="home-tasks"><summary>{len(folded)} task{"s" if len(folded) != 1 else ""} '
        f"in no benchmark ({ranked} with ranked models): each has a board of its own (local view)</summary>"
        f"<ul>{items}</ul></details>"
    )


def _card(name: str, ranking: Ranking) -> str:
    metric = aggregate_title(ranking)
    arrow = ARROW[ranking.direction]
    rows = []
    for line in ranking.ranked[:TOP]:
        mark = f" {line.marker}" if line.marker else ""
        interval = f'<span class="ci">{span(line.aggregate_interval)}</span>' if line.aggregate_interval else ""
        # Whose run an imported row is goes under the name: in the score cell it pushed the score out of the card.
        source = f'<span class="src imported">{esc(line.imported)}</span>' if line.imported else ""
        if line.identical:  # an upstream copy, not a tie: said on the first screen too
            others = sorted({name for names in line.identical.values() for name in names})
            source += f'<span class="src dup">⚠ same source file as {esc(", ".join(others))}</span>'
        revision = f' <span class="rev">@{esc(line.key[1][:12])}</span>' if _shares_name(ranking, line.name) else ""
        rows.append(
            f'<tr><td class="c-rank">{esc(str(line.rank) + mark)}</td>'
            f'<td class="c-model" title="{esc(line.name)}"><span class="name">'
            f'<a class="to-model" href="{esc(model_link(line.name))}">{esc(line.name)}</a>{revision}</span>'
            f"{source}</td>"
            f'<td class="c-agg" data-v="{line.aggregate!r}">'
            f'<span class="v">{score(line.aggregate)}</span>{interval}</td>'
            "</tr>"
        )
    more = len(ranking.ranked) - TOP
    footer = (
        f'<a href="{esc(link(name))}">{"all " + str(len(ranking.ranked)) + " ranked" if more > 0 else "board"} →</a>'
    )
    unranked = f" · {len(ranking.unranked)} unranked" if ranking.unranked else ""
    return (
        f'<div class="home-card" data-benchmark="{esc(name)}"><h3><a href="{esc(link(name))}">{esc(name)}</a></h3>'
        f'<p class="m">{esc(metric)} {arrow} · {len(ranking.ranked)} ranked{unranked}</p>'
        f'<table class="lb home-table">{"".join(rows)}</table><p class="more">{footer}</p></div>'
    )


def _shares_name(ranking: Ranking, name: str) -> bool:
    return sum(1 for line in ranking.ranked if line.name == name) > 1


def home_summary(board: Board) -> str:
    counts = board.counts()
    loose = len(getattr(board, "standalone", ()))
    declared = plural(len(board.benchmarks) - loose, "benchmark")
    if loose:  # a local board's tasks in no benchmark are counted apart (they are folded on the page)
        declared += f" and {plural(loose, 'task')} in no benchmark"
    return (
        '<div class="summary"><b>Every benchmark</b>: its top models by its own score, with 95% intervals; '
        f"pick one above (or click its name) for the full board. {declared}, "
        f"{plural(counts['models'], 'model')}.</div>"
    )


def unknown_benchmark(name: str) -> str:
    """The line above the landing page when a link names a benchmark this board does not show."""
    return (
        f'<div class="summary" id="unknown-benchmark">No benchmark named <b>{esc(name)}</b> on this board '
        "(a task is shown inside its benchmark; non-public ones only on a local board): every benchmark "
        "is listed below.</div>"
    )
