"""The Size vs score tab: the benchmark's ranked models, score against parameter count."""

from __future__ import annotations

from typing import Any

import gradio as gr

from leaderboard.app.data.board import Board
from leaderboard.app.data.ranking import Ranking, aggregate_title
from leaderboard.app.tabs.base import Hook, Load, Shell, Switch, Tab, plot_data, skips
from leaderboard.app.views import charts, render
from leaderboard.app.views.size import size_frame

ID = "size"
LABEL = "Size vs score"
NAMED = 50  # models without a parameter count named below the chart; the others are counted


def _unsized_note(unsized: list[str]) -> str:
    """The ranked models the chart leaves out: named, up to ``NAMED`` (at 100,000 imported results there were
    1,896 of them, a page of names), then counted."""
    named = render.esc(", ".join(unsized[:NAMED]))
    more = len(unsized) - NAMED
    rest = f" and {more:,} more (their Parameters column on the board shows —)" if more > 0 else ""
    return f"Not shown ({len(unsized):,} without a parameter count): {named}{rest}."


def draw(ranking: Ranking | None, width: int = charts.WIDTH) -> tuple[Any, str]:
    """The chart (``gr.Plot``'s value, drawn once per ranking and width: the ranking is rebuilt with each new
    results revision) and the note below it."""
    if ranking is None:
        return None, render.empty("Pick a benchmark to plot its scores against model size.")
    frame, unsized = size_frame(ranking)
    y_label = f"{aggregate_title(ranking)} ({render.ARROW[ranking.direction]} better)"
    note = f'<p class="note">Ranked models only. {_unsized_note(unsized)}</p>' if unsized else ""
    if frame.empty:
        return None, render.empty("No ranked model with a known parameter count yet.") + note
    if not charts.available():
        return None, render.empty(f"Charts need altair: {charts.INSTALL}") + note
    key = f"size_plot\0{width}\0{y_label}"
    if key not in ranking.memo:
        chart = charts.size_chart(frame, y_label, width)
        ranking.memo[key] = None if chart is None else plot_data(chart)
    return ranking.memo[key], note


def warm(board: Board) -> None:
    """Each benchmark's chart at the desktop width (at 100,000 imported results: 0.2 s of the first opening)."""
    for benchmark in board.benchmarks:
        draw(board.ranking(benchmark.name, with_stats=False))


def build(shell: Shell) -> Tab | None:
    def render_size(name: str | None, width: int = charts.WIDTH) -> tuple[Any, str]:
        return draw(shell.ranking(name), width)

    with gr.Tab(LABEL, id=ID) as tab:
        plot = gr.Plot(elem_id="size-plot", show_label=False)
        note = gr.HTML("", js_on_load=None)
    outputs = [plot, note]
    shell.when_opened(tab, ID, render_size, [shell.selector, shell.chart_width], outputs)

    def on_load(load: Load) -> list[Any]:
        return list(render_size(load.name, load.width)) if load.tab == ID else skips(outputs)

    def on_switch(switch: Switch) -> list[Any]:
        return list(render_size(switch.name, switch.width)) if switch.tab == ID else skips(outputs)

    return Tab(id=ID, load=Hook(on_load, outputs), switch=Hook(on_switch, outputs), warm=warm)
