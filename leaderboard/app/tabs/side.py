"""The Side by side tab: 2 to 8 models (``?side=A|B|...``) per benchmark and column, a profile chart, and
the pairwise tests on request (``many_models``; the tests cost one paired bootstrap per pair and task)."""

from __future__ import annotations

from typing import Any

import gradio as gr

from leaderboard.app.data.many_models import MAX_PICKS, pairwise, picked
from leaderboard.app.data.model_index import model_index
from leaderboard.app.server.side_tests import tests_ahead
from leaderboard.app.tabs.assets import SIDE_CSS, TABLE_CSS, url_state_js
from leaderboard.app.tabs.base import DRAW_LATEST, Hook, Load, Shell, Tab, plot_data, skips, view_html
from leaderboard.app.tabs.picks import as_list, listed_names
from leaderboard.app.views import charts
from leaderboard.app.views.side import pairwise_html, profile_chart, side_html

ID = "side"
LABEL = "Side by side"


def build(shell: Shell) -> Tab | None:
    def draw(names: Any, width: int | None = charts.WIDTH) -> tuple[Any, str, str]:
        names = as_list(names)
        picks = picked(shell.board(), names)
        plot = None
        if len(picks.parts) and charts.available():
            chart = profile_chart(picks, max(200, int(width or charts.WIDTH) - 40))
            plot = plot_data(chart) if chart is not None else None
        html = view_html(ID, side_html(picks), models="|".join(picks.picks))
        if picks.parts:
            tests_ahead(shell.board(), picks)  # the tests the reader may ask for next, computed while they read
        return plot, html, view_html("side-pairs", "", models="|".join(picks.picks))

    def tests(names: Any) -> str:
        picks = picked(shell.board(), as_list(names))
        shown = pairwise_html(pairwise(shell.board(), picks)) if picks.parts else ""
        return view_html("side-pairs", shown, models="|".join(picks.picks), tested=1)

    def picker(names: Any) -> dict[str, Any]:
        index = model_index(shell.board())
        value = [found for name in as_list(names) if (found := index.resolve(name))][:MAX_PICKS]
        return gr.update(choices=listed_names(index.names, value), value=value)

    with gr.Tab(LABEL, id=ID) as tab:
        pick = gr.Dropdown(
            [],
            value=[],
            multiselect=True,
            max_choices=MAX_PICKS,
            label=f"Models (2 to {MAX_PICKS})",
            elem_id="side-pick",
            allow_custom_value=True,
        )
        plot = gr.Plot(elem_id="side-plot", show_label=False)
        tables = gr.HTML("", elem_id="side-view", css_template=TABLE_CSS + SIDE_CSS, apply_default_css=False)
        go = gr.Button("Pairwise tests (Holm): slower", elem_id="side-tests", size="sm")
        pairs = gr.HTML("", elem_id="side-pairs", css_template=TABLE_CSS, apply_default_css=False)
    outputs = [pick, plot, tables, pairs]

    def on_open(names: Any, width: int) -> tuple[Any, ...]:
        return picker(names), *draw(names, width)

    shell.when_opened(tab, ID, on_open, [pick, shell.chart_width], outputs)
    pick.input(
        draw, [pick, shell.chart_width], [plot, tables, pairs], js=url_state_js({0: "side"}), trigger_mode=DRAW_LATEST
    )
    go.click(tests, [pick], pairs)

    def on_load(load: Load) -> list[Any]:
        if load.tab != ID:
            return skips(outputs)
        return [picker(load.state.side), *draw(list(load.state.side), load.width)]

    return Tab(id=ID, load=Hook(on_load, outputs), spinner=tables)
