"""The Task views tab: each task's declared views (tables, curves, bars) for the top N or the picked models.

The model picker lists the benchmark's first models (``picks.LISTED_AT_MOST``; the others are typed or
linked). It is filled when the tab opens, for the benchmark shown; a link's
``models=`` (model names, see ``picks``) wait in the tab's state until then. Picks that name no model
of the benchmark, and those past the charts' limit, are named above the views.
"""

from __future__ import annotations

from typing import Any

import gradio as gr

from leaderboard.app.data import task_views
from leaderboard.app.data.board import OVERALL, Board
from leaderboard.app.data.values import ModelKey
from leaderboard.app.server.csv_files import file_name
from leaderboard.app.tabs.assets import url_state_js
from leaderboard.app.tabs.base import DRAW_LATEST, Hook, Load, Shell, Switch, Tab, plot_data, table_html, view_html
from leaderboard.app.tabs.picks import Picks, unknown_note
from leaderboard.app.views import charts, render
from leaderboard.app.views.landing import HOME
from leaderboard.app.views.views import view_heading, view_table_html
from leaderboard.contract.task import View

ID = "views"
LABEL = "Task views"
TOP_MODELS = 8


def _unfilled(models: tuple[str, ...] | list[str] = ()) -> dict[str, Any]:
    """The picker's state: which benchmark it holds (None: none yet), and a link's picks waiting for it."""
    return {"filled": None, "models": list(models)}


def _fill_picks(
    shell: Shell, name: str, lists: dict[str, Any], chosen: list[str] | tuple[str, ...] = ()
) -> tuple[dict[str, Any], list[str], list[str], dict[str, Any]]:
    """The picks dropdown filled for ``name`` (the link's waiting picks, else those chosen), its value,
    the notes on the link's picks that are not drawn, and the new state."""
    picks = Picks(shell.ranking(name))
    waiting = lists.get("models") or []
    found = picks.resolve(waiting or chosen or [], limit=charts.MAX_MODELS)
    notes = [unknown_note(found.unknown, name, "models")] if waiting and found.unknown else []
    if notes and not found.values:
        notes[0] += " The views show the top ranked models instead."
    if found.over_limit:
        total = len(found.values) + found.over_limit
        notes.append(
            f"The link picks {total} models: the views draw at most {charts.MAX_MODELS}, "
            f"so the first {len(found.values)} are picked."
        )
    update = gr.update(choices=picks.choices(keep=found.values), value=found.values)
    return update, found.values, notes, {"filled": shell.lists_key(name), "models": []}


def build(shell: Shell) -> Tab | None:
    def views_key(
        name: str, n: float | None, chosen: list[str] | None, width: int, notes: list[str] | tuple[str, ...] = ()
    ) -> dict[str, Any]:
        return {
            "benchmark": name,
            "top": int(n or TOP_MODELS),
            "picks": list(chosen or []),
            "width": width,
            "gen": shell.live.generation,
            "notes": list(notes),
        }

    with gr.Tab(LABEL, id=ID) as tab:
        request = gr.State(None)  # what the views below are drawn for: set by the events, drawn by the render
        lists = gr.State(_unfilled())
        with gr.Row():
            top_n = gr.Slider(1, charts.MAX_MODELS, value=TOP_MODELS, step=1, label="Top N ranked models")
            picks = gr.Dropdown(
                [],
                value=[],
                multiselect=True,
                max_choices=charts.MAX_MODELS,
                label="…or pick models",
                elem_id="view-models",
                allow_custom_value=True,  # as the compare pickers (tabs.compare): typed names, stale values
            )

        @gr.render(inputs=[request], triggers=[request.change])  # type: ignore[untyped-decorator]  # gradio's is untyped
        def draw_views(wanted: dict[str, Any] | None) -> None:
            _draw_views(shell.board(), wanted)

    def on_open(name: str, n: float, chosen: list[str], width: int, filled: dict[str, Any]) -> tuple[Any, ...]:
        if filled.get("filled") == shell.lists_key(name):  # drawn for this benchmark (by the load, when the
            return gr.skip(), gr.skip(), filled  # link opens this tab: its select fires after)
        if filled.get("filled") is None:  # never filled, or emptied by a switch: what it holds is stale
            chosen = []
        picks_update, picked, notes, filled = _fill_picks(shell, name, filled, chosen)
        return views_key(name, n, picked, width, notes), picks_update, filled

    key_inputs = [shell.selector, top_n, picks, shell.chart_width]
    # queued: the render listens to ``request``'s change
    shell.when_opened(tab, ID, on_open, [*key_inputs, lists], [request, picks, lists], queued=True)
    top_n.release(views_key, key_inputs, request)
    picks.input(views_key, key_inputs, request, js=url_state_js({2: "models"}), trigger_mode=DRAW_LATEST)

    def on_load(load: Load) -> list[Any]:
        waiting = _unfilled(load.state.models)
        if load.tab != ID:
            return [gr.skip(), gr.skip(), waiting]
        picks_update, picked, notes, filled = _fill_picks(shell, load.name, waiting)
        return [picks_update, views_key(load.name, TOP_MODELS, picked, load.width, notes), filled]

    def on_switch(switch: Switch, n: float, filled: dict[str, Any]) -> list[Any]:
        # The switch dropped the link's picks from the URL: none wait any more.
        if switch.tab == ID:
            picks_update, _, _, filled = _fill_picks(shell, switch.name, _unfilled())
            return [picks_update, views_key(switch.name, n, [], switch.width), filled]
        # Emptied (if filled): the tab fills them for this benchmark when it opens.
        emptied = gr.skip() if filled.get("filled") is None else gr.update(choices=[], value=[])
        return [emptied, gr.skip(), _unfilled()]

    return Tab(
        id=ID,
        load=Hook(on_load, [picks, request, lists]),
        switch=Hook(on_switch, [picks, request, lists], [top_n, lists]),
        url_parameters=("models",),
    )


def _draw_views(board: Board, request: dict[str, Any] | None) -> None:
    """Each task's declared views for the benchmark: tables as HTML, curves and bars as charts."""
    if not request:
        gr.HTML(render.empty("Open this tab to draw the benchmark's task views."), js_on_load=None)
        return
    name = request["benchmark"]
    # The view drawn, named (data-benchmark, data-picks), with the notes on the link's picks.
    notes = "".join(f'<p class="note warn picks-note">{note}</p>' for note in request.get("notes") or [])
    marker = view_html(ID, notes, benchmark=name, picks="|".join(request["picks"]))
    gr.HTML(marker, js_on_load=None, elem_classes=[] if notes else ["state-box"])  # no empty block without notes
    ranking = board.ranking(name, with_stats=False) if name and name not in (OVERALL, HOME) else None
    if ranking is None:
        gr.HTML(render.empty("Pick a benchmark to see its tasks' views."), js_on_load=None)
        return
    picks = Picks(ranking)
    typed = [p for p in request["picks"] if picks.key(p) is None]
    if typed:
        gr.HTML(f'<p class="note warn picks-note">{unknown_note(typed, name, "")}</p>', js_on_load=None)
    wanted = {picks.key(p) for p in request["picks"]} - {None}
    lines = [line for line in ranking.lines if line.key in wanted] if wanted else ranking.ranked[: request["top"]]
    shown_any = False
    for task, declared in task_views.benchmark_views(board, ranking.benchmark):
        paths = {line.key: line.paths[task] for line in lines if task in line.paths}
        for number, view in enumerate(declared):
            shown_any = True
            _draw_view(board, task, (number, view), paths, request.get("width") or charts.WIDTH)
    if not shown_any:
        gr.HTML(render.empty("The tasks of this benchmark declare no views."), js_on_load=None)
    elif not lines:
        gr.HTML(render.empty("No ranked model yet: pick models above to compare them."), js_on_load=None)


def _draw_view(board: Board, task: str, numbered: tuple[int, View], paths: dict[ModelKey, str], width: int) -> None:
    """One declared view of a task: a table as HTML, a curve or bars as a chart (``numbered``: its place among the
    task's views, which names its table)."""
    number, view = numbered
    # bars carry each value's interval (a whisker); a curve's points and a table's cells do not
    frame = task_views.view_frame(board, view, paths, task if view.kind == "bars" else "")
    heading = view_heading(task, view)
    if view.kind == "table":
        wide = task_views.view_table(frame, view)
        body = view_table_html(board, task, view, wide, f"view-{file_name(task)}-{number}")
        table_html(heading + (body if not wide.empty else render.empty("No results yet.")))
        return
    y_label = view.metrics[0]
    y_title = view.labels.get(y_label, y_label) if view.over_subsets else view.title
    gr.HTML(heading, js_on_load=None)
    chart = None
    if charts.available():
        chart = charts.view_chart(frame, view, y_title, width)
    if not charts.available():
        gr.HTML(render.empty(f"Charts need altair: {charts.INSTALL}"), js_on_load=None)
    elif chart is None:
        gr.HTML(render.empty("No values to draw yet (the results lack this view's metrics)."), js_on_load=None)
    else:
        gr.Plot(plot_data(chart), show_label=False, elem_classes=["view-plot"])
