"""The Provenance tab: every result behind the view (data hash, harness version, date, coverage), paged."""

from __future__ import annotations

from typing import Any

import gradio as gr

from leaderboard.app.data.board import OVERALL
from leaderboard.app.tabs.base import Hook, Load, Shell, Switch, Tab, page_number, table_html, view_html
from leaderboard.app.views.landing import HOME
from leaderboard.app.views.provenance import provenance_html

ID = "provenance"
LABEL = "Provenance"
INTRO = (
    "<p>Every result behind this view: data hash and revision, harness version and commit, date, "
    "coverage, and the main score's 95% interval where the file itself stores one (the board's "
    "intervals are computed from the per-query values, so a result without a stored one still has "
    "its interval on the board).</p>"
)


def build(shell: Shell) -> Tab | None:
    def render_provenance(name: str | None, search: str | None, page: Any = 1) -> str:
        current = shell.board()
        if name in (OVERALL, HOME) or not name:
            wanted = set(current.overall_benchmarks) if name == OVERALL else set(shell.benchmark_list())
            tasks = [t.task for b in current.benchmarks if b.name in wanted for t in b.tasks]
        else:
            benchmark = current.benchmark(name)
            tasks = [t.task for t in benchmark.tasks] if benchmark else []
        shown = INTRO + provenance_html(current, tasks, search or "", page_number(page))
        return view_html(ID, shown, benchmark=name or HOME, search=search or "", page=page_number(page))

    with gr.Tab(LABEL, id=ID) as tab:
        search = gr.Textbox(label="Search models", elem_id="provenance-search")
        page = gr.Textbox("1", elem_id="provenance-page", elem_classes=["state-box"], show_label=False)
        go = gr.Button("page", elem_id="provenance-go", elem_classes=["state-box"])
        table = table_html("", elem_id="provenance")
    shell.when_opened(tab, ID, lambda name, text: (render_provenance(name, text),), [shell.selector, search], [table])
    search.change(render_provenance, [shell.selector, search], table, show_progress="hidden")
    go.click(render_provenance, [shell.selector, search, page], table, show_progress="hidden")  # the pager (SORT_JS)

    def on_load(load: Load) -> list[Any]:
        return [render_provenance(load.name, "") if load.tab == ID else gr.skip()]

    def on_switch(switch: Switch, text: str) -> list[Any]:
        return [render_provenance(switch.name, text) if switch.tab == ID else gr.skip()]

    return Tab(id=ID, load=Hook(on_load, [table]), switch=Hook(on_switch, [table], [search]))
