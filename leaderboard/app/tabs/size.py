"""The Size vs score tab: the benchmark's ranked models, score against parameter count."""

from __future__ import annotations

from typing import Any

import gradio as gr

from leaderboard.app import charts, pages, render
from leaderboard.app.tabs.base import Hook, Load, Shell, Switch, Tab, skips

ID = "size"


def build(shell: Shell) -> Tab:
    def render_size(name, width=charts.WIDTH):
        ranking = shell.ranking(name)
        if ranking is None:
            return None, render.empty("Pick a benchmark to plot its scores against model size.")
        frame, unsized = pages.size_frame(ranking)
        y_label = f"{render.aggregate_title(ranking)} ({render.ARROW[ranking.direction]} better)"
        note = (
            f'<p class="note">Ranked models only. Not shown (no parameter count): {render.esc(", ".join(unsized))}</p>'
            if unsized
            else ""
        )
        if frame.empty:
            return None, render.empty("No ranked model with a known parameter count yet.") + note
        if not charts.available():
            return None, render.empty(f"Charts need altair: {charts.INSTALL}") + note
        return charts.size_chart(frame, y_label, width), note

    with gr.Tab("Size vs score", id=ID) as tab:
        plot = gr.Plot(elem_id="size-plot", show_label=False)
        note = gr.HTML("", js_on_load=None)
    outputs = [plot, note]
    shell.when_opened(tab, ID, render_size, [shell.selector, shell.chart_width], outputs)

    def on_load(load: Load) -> list[Any]:
        return list(render_size(load.name, load.width)) if load.tab == ID else skips(outputs)

    def on_switch(switch: Switch) -> list[Any]:
        return list(render_size(switch.name, switch.width)) if switch.tab == ID else skips(outputs)

    return Tab(id=ID, load=Hook(on_load, outputs), switch=Hook(on_switch, outputs))
