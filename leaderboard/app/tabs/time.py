"""The Score over time tab: the benchmark's ranked models, score against release date, with their intervals."""

from __future__ import annotations

from typing import Any

import gradio as gr

from leaderboard.app.data.page_statistics import with_statistics
from leaderboard.app.data.ranking import Ranking, aggregate_title
from leaderboard.app.tabs.base import Hook, Load, Shell, Switch, Tab, plot_data, skips, view_html
from leaderboard.app.views import charts, render
from leaderboard.app.views.landing import HOME
from leaderboard.app.views.time import dated, time_frame

ID = "time"
LABEL = "Score over time"
NAMED = 50  # models without a release date named below the chart; the others are counted


def _undated_note(undated: list[str]) -> str:
    named = render.esc(", ".join(undated[:NAMED]))
    more = len(undated) - NAMED
    rest = f" and {more:,} more" if more > 0 else ""
    return f"Not shown ({len(undated):,} without a release date in their metadata): {named}{rest}."


def build(shell: Shell) -> Tab | None:
    def draw(name: str | None, width: int | None = charts.WIDTH) -> tuple[Any, str]:
        ranking: Ranking | None = shell.ranking(name)
        if ranking is None:
            return None, view_html(ID, render.empty("Pick a benchmark to plot its scores over release dates."))
        with_statistics(shell.board(), ranking, dated(ranking))  # each point's interval
        frame, undated = time_frame(ranking)
        y_label = f"{aggregate_title(ranking)} ({render.ARROW[ranking.direction]} better)"
        note = (
            '<p class="note">Ranked models, by the release date their metadata records; the whisker is the 95% '
            "interval of the score (none for an imported run: mteb's files hold no per-query values).</p>"
        )
        if undated:
            note += f'<p class="note">{_undated_note(undated)}</p>'
        if frame.empty:
            return None, view_html(ID, render.empty("No ranked model with a release date yet.") + note, benchmark=name)
        if not charts.available():
            return None, view_html(ID, render.empty(f"Charts need altair: {charts.INSTALL}") + note, benchmark=name)
        chart = charts.time_chart(frame, y_label, int(width or charts.WIDTH))
        plot = None if chart is None else plot_data(chart)
        return plot, view_html(ID, note, benchmark=name)

    def render_time(name: str | None, width: int | None = charts.WIDTH) -> tuple[Any, str]:
        return draw(name if name not in (None, HOME) else None, width)

    with gr.Tab(LABEL, id=ID) as tab:
        plot = gr.Plot(elem_id="time-plot", show_label=False)
        note = gr.HTML("", elem_id="time-note", js_on_load=None)
    outputs = [plot, note]
    shell.when_opened(tab, ID, render_time, [shell.selector, shell.chart_width], outputs)

    def on_load(load: Load) -> list[Any]:
        return list(render_time(load.name, load.width)) if load.tab == ID else skips(outputs)

    def on_switch(switch: Switch) -> list[Any]:
        return list(render_time(switch.name, switch.width)) if switch.tab == ID else skips(outputs)

    return Tab(id=ID, load=Hook(on_load, outputs), switch=Hook(on_switch, outputs))
