"""The Gradio app: a benchmark selector over tabs that render on demand, with the whole view in the URL.

Nothing is inlined into the page at start: the landing page (every benchmark's top models), a board,
and each tab when first opened, are computed by an event (the page load, a tab's select, the
selector), from a board that is built once per results revision. The benchmark board is sorted and
paged on the server over all its rows (``views.board``). The view state (benchmark, tab, filters,
search, sort, page, picked models, the Overall set, the compared models) is kept in the URL, so a
link restores the view (``url_state``).

Each tab is built by its own module (``leaderboard.app.tabs``, which says how to add one); this
module lays out the page around them (title, status, benchmark selector, summary, Overall set) and
wires the three events every tab takes part in: the page load, a benchmark switch and the poll tick.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")  # before gradio is imported: no telemetry

import gradio as gr

from leaderboard.app.data import url_state
from leaderboard.app.server import loading
from leaderboard.app.server.live import LiveBoard
from leaderboard.app.server.live_queue import LiveQueue
from leaderboard.app.server.queue_keyring import LiveKeyring
from leaderboard.app.server.sources import Source
from leaderboard.app.tabs import QUEUE_TABS, TABS, Hook, Load, Shell, Switch, Tick
from leaderboard.app.tabs.assets import HEAD, PAGE_CSS, RESTORE_JS, chart_preload, url_state_js
from leaderboard.app.tabs.model import model_links_head
from leaderboard.app.views import charts
from leaderboard.app.views.landing import HOME
from leaderboard.app.views.status import status_line

# Texts of Gradio's frontend that its English dictionary does not have (``gr.I18n``): the status announcer reads
# "common.complete" into an aria-live region when an event completes.
ANNOUNCEMENTS = {"common.complete": "Done"}


def build_app(
    results: Path | str,
    benchmarks: Iterable[Any] | None = None,
    *,
    public: bool = True,
    endpoint: str | None = None,
    poll_seconds: float | None = None,
    requests: str | None = None,
) -> gr.Blocks:
    """The leaderboard over a results folder or ``hf://ORG/NAME``.

    ``benchmarks``: declarations used for names the results' benchmarks.json does not declare.
    ``public``: False shows non-public benchmarks and tasks in no benchmark, labelled (a local board).
    ``poll_seconds``: check the source for a new revision this often and reload without a restart.
    ``requests``: the evaluation queue's requests dataset (ORG/NAME): adds the Submit and Queue tabs.
    """
    declared = list(benchmarks or [])
    keyring = LiveKeyring(requests, endpoint)  # read again at each poll (``queue_keyring``)
    live = LiveBoard(
        Source(str(results), endpoint),
        lambda folder, revision: loading.load(
            folder, declared, public=public, revision=revision, queue_key=keyring.keyring
        ),
        poll_seconds,
        keyring.refresh,
    )
    live.start()
    shell = Shell(live)
    if requests:
        shell.queue = LiveQueue(requests, endpoint, poll_seconds)
        shell.queue.refresh()
        shell.queue.start()

    app: gr.Blocks
    with gr.Blocks(title="Retrieval leaderboard", fill_width=True, delete_cache=(1800, 3600)) as app:
        generation = gr.State(live.generation)
        shell.active = gr.State("board")
        shell.chart_width = gr.State(charts.WIDTH)
        shell.shown = gr.State(HOME)
        with gr.Row(equal_height=True, elem_id="top"):
            with gr.Column(scale=2, min_width=300):
                gr.HTML("<h1>Retrieval leaderboard</h1>", elem_id="title", js_on_load=None)
                status = gr.HTML(status_line(shell.board()), js_on_load=None)
            update = shell.selector_update()
            shell.selector = gr.Dropdown(
                label="Benchmark",
                elem_id="benchmark-select",
                scale=3,
                min_width=300,
                choices=update["choices"],
                value=update["value"],
            )
        shell.summary = gr.HTML("", elem_id="benchmark-summary", js_on_load=None)
        shell.overall_set = gr.CheckboxGroup(
            shell.benchmark_list(), value=[], label="Benchmarks in Overall", elem_id="overall-set", visible=False
        )
        with gr.Tabs(selected="board", overflow_behavior="wrap", elem_id="tabs") as tabs:
            modules = (*TABS, *(QUEUE_TABS if shell.queue else ()))
            built = [tab for module in modules if (tab := module.build(shell)) is not None]
        query = gr.Textbox(visible=False)  # the page's URL query, filled by RESTORE_JS
        # The board revision the page load drew ("" until it has): read by the poll tick from the page, so a tick
        # sent before the load's answer was applied (its controls still at their defaults) draws nothing.
        drawn = gr.Textbox("", visible=False, elem_id="drawn-revision")
        query_width = gr.Number(visible=False)  # the browser window's width: charts are drawn to fit it
        live.warmers = [lambda _: charts.warm(), *(tab.warm for tab in built if tab.warm is not None)]
        tab_ids = [tab.id for tab in built]
        loads = [tab.load for tab in built if tab.load]
        switches = [tab.switch for tab in built if tab.switch]
        ticks = [tab.tick for tab in built if tab.tick]

        # -- the events every tab takes part in -------------------------------------------------------------
        def on_load(raw_query: str | None, window: float | None, *inputs: Any) -> list[Any]:
            state = url_state.parse(raw_query)
            update = shell.selector_update(state.benchmark)
            name = update["value"]
            tab = state.tab if state.tab in tab_ids else tab_ids[0]
            load = Load(state, name, tab, charts.fit_width(window))
            seen = live.generation  # before drawing: a newer board found meanwhile is drawn by the next tick
            own = [update, name, gr.Tabs(selected=tab), tab, load.width, seen, str(seen), status_line(shell.board())]
            return [*own, *_run(loads, load, inputs)]

        app.load(
            on_load,
            [query, query_width, *_inputs(loads)],
            [shell.selector, shell.shown, tabs, shell.active, shell.chart_width, generation, drawn, status]
            + _outputs(loads),
            js=RESTORE_JS,
        )

        def on_benchmark(name: str, showing: str, active: str, width: int, *inputs: Any) -> list[Any]:
            """The new benchmark's view; only what changed is sent (each update costs the browser a redraw)."""
            if name == showing:  # set by a page load or a tick that drew it already
                return [gr.skip()] * (1 + len(_outputs(switches)))
            return [name, *_run(switches, Switch(name, showing, active, width), inputs)]

        dropped = tuple(parameter for tab in built for parameter in tab.url_parameters)
        shell.selector.change(
            on_benchmark,
            [shell.selector, shell.shown, shell.active, shell.chart_width, *_inputs(switches)],
            [shell.shown, *_outputs(switches)],
            js=url_state_js({0: "benchmark"}, reset=dropped, reset_on_change=True),
            # one spinner where the reader looks, not one on each output
            show_progress_on=[tab.spinner for tab in built if tab.spinner is not None] or None,
        )

        # New results (polled on the server): re-render what this page shows, once per new revision.
        def on_tick(seen: int, shown_revision: str, showing: str, *inputs: Any) -> list[Any]:
            if not shown_revision:  # sent before the page load's answer: the load draws the link's view
                return [gr.skip()] * (4 + len(_outputs(ticks)))
            changed = seen != live.generation
            update = shell.selector_update(showing)
            name = update["value"]
            own = [live.generation, status_line(shell.board()), update, name] if changed else [gr.skip()] * 4
            return [*own, *_run(ticks, Tick(name, changed), inputs)]

        if poll_seconds:
            timer = gr.Timer(min(max(poll_seconds / 4, 5.0), 60.0))
            outputs = [generation, status, shell.selector, shell.shown, *_outputs(ticks)]
            timer.tick(on_tick, [generation, drawn, shell.shown, *_inputs(ticks)], outputs)
    app.live_board = live  # type: ignore[attr-defined]  # for tests and serve: poll now, stop
    app.live_queue = shell.queue  # type: ignore[attr-defined]
    return app


def _inputs(hooks: Sequence[Hook]) -> list[Any]:
    return [component for hook in hooks for component in hook.inputs]


def _outputs(hooks: Sequence[Hook]) -> list[Any]:
    return [component for hook in hooks for component in hook.outputs]


def _run(hooks: Sequence[Hook], event: Any, inputs: Sequence[Any]) -> list[Any]:
    """Each hook called with the event and its own slice of the inputs; their outputs, concatenated in order."""
    values: list[Any] = []
    start = 0
    for hook in hooks:
        own = inputs[start : start + len(hook.inputs)]
        start += len(hook.inputs)
        out = list(hook.fn(event, *own))
        if len(out) != len(hook.outputs):  # a tab's mistake named here, not as Gradio's count mismatch
            raise ValueError(f"{hook.fn.__qualname__} returned {len(out)} values for {len(hook.outputs)} outputs")
        values += out
    return values


def launch(app: gr.Blocks, host: str = "127.0.0.1", port: int | None = None, **launch_kwargs: Any) -> None:
    """Serve the app: no share link, the app's CSS, errors shown in the page."""
    # quiet: no "set share=True" hint; serve and the Space print their own line.
    launch_kwargs.setdefault("prevent_thread_lock", True)
    # Gradio's run history re-serializes every past call (each with its table) into localStorage on every
    # event: seconds per click once a reader has clicked around a large board. A board needs none.
    launch_kwargs.setdefault("run_history", False)
    # Gradio's English dictionary lacks a key its progress announcer reads out (screen readers heard the key).
    launch_kwargs.setdefault("i18n", gr.I18n(en=ANNOUNCEMENTS))
    # ``?page=N`` is Gradio's multipage parameter (a 500 for any other value): old links are redirected.
    from starlette.middleware import Middleware

    from leaderboard.app.server import background, foreground
    from leaderboard.app.server.legacy_links import LegacyPageLinks, accept_long_links

    accept_long_links()
    app_kwargs = dict(launch_kwargs.pop("app_kwargs", None) or {})
    # BackgroundState first: asking whether the background work is idle is not a reader's request.
    middleware = [
        Middleware(background.BackgroundState),
        Middleware(LegacyPageLinks),
        Middleware(foreground.ReadersFirst),
    ]
    app_kwargs["middleware"] = [*app_kwargs.get("middleware", []), *middleware]
    foreground.serve_events(app)  # the background work gives way to readers' events too
    with background.working("start"):  # from listening to the warm-up under way: not idle in between
        app.launch(
            server_name=host,
            server_port=port,
            share=False,
            show_error=True,
            quiet=True,
            css=PAGE_CSS,
            head=HEAD + chart_preload() + model_links_head(),
            app_kwargs=app_kwargs,
            **launch_kwargs,
        )
        live = getattr(app, "live_board", None)
        if live is not None:
            live.start_warming()
    app.block_thread()
