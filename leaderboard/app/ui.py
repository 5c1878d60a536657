"""The Gradio app: a benchmark selector over tabs that render on demand.

Nothing is inlined into the page at start: the board, and each tab when first opened, are computed
by an event (the page load, a tab's select, the selector), from a board that is built once per
results revision. The benchmark and the tab are kept in the URL, so a link restores the view.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")  # before gradio is imported: no telemetry

import gradio as gr

from leaderboard.app import charts, loading, pages, render, views
from leaderboard.app.board import OVERALL, Board, label_of
from leaderboard.app.filters import DEFAULT_COLUMNS, OPTIONAL_COLUMNS, SIZES, Filters
from leaderboard.app.ranking import Ranking
from leaderboard.app.assets import HEAD, PAGE_CSS, RESTORE_JS, SORT_JS, TABLE_CSS, url_js
from leaderboard.app.live import LiveBoard
from leaderboard.app.sources import Source

TABS = ("board", "views", "size", "provenance", "skipped", "about")
TOP_MODELS = 8
CSV_KEEP = 32  # CSV files kept for download at once; older ones are deleted


class CsvFiles:
    """The CSV of each view shown, in one private folder: same content, same file; old files pruned; removed at exit."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="leaderboard-csv-"))
        atexit.register(shutil.rmtree, self.folder, True)

    def write(self, frame: Any, name: str) -> str:
        text = frame.to_csv(index=False)
        digest = hashlib.sha256(text.encode()).hexdigest()[:16]
        target = self.folder / digest / f"{_file_name(name)}.csv"
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            self._prune()
        return str(target)

    def _prune(self) -> None:
        entries = sorted(self.folder.iterdir(), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in entries[CSV_KEEP:]:
            shutil.rmtree(old, ignore_errors=True)


def _file_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in name).strip("-.") or "leaderboard"


def _filters(kinds: list[str] | None, all_kinds: list[str], instructions: str, sizes: list[str] | None, search: str):
    return Filters(
        kinds=tuple(kinds or ()) if set(kinds or ()) != set(all_kinds) else (),
        instructions=instructions or "any",
        sizes=tuple(sizes or ()) if set(sizes or ()) != set(SIZES) else (),
        search=(search or "").strip(),
    )


def _model_choices(ranking: Ranking | None) -> list[tuple[str, str]]:
    if ranking is None:
        return []
    keys = [line.key for line in ranking.lines]
    labels = views.model_labels(keys)
    return [(labels[k], f"{k[0]}\x1f{k[1]}") for k in keys]


def build_app(
    results: Path | str,
    benchmarks: Iterable[Any] | None = None,
    *,
    public: bool = True,
    endpoint: str | None = None,
    poll_seconds: float | None = None,
) -> gr.Blocks:
    """The leaderboard over a results folder or ``hf://ORG/NAME``.

    ``benchmarks``: declarations used for names the results' benchmarks.json does not declare.
    ``public``: False shows non-public benchmarks and tasks in no benchmark, labelled (a local board).
    ``poll_seconds``: check the source for a new revision this often and reload without a restart.
    """
    declared = list(benchmarks or [])
    live = LiveBoard(
        Source(str(results), endpoint),
        lambda folder, revision: loading.load(folder, declared, public=public, revision=revision),
        poll_seconds,
    )
    live.start()
    csv_files = CsvFiles()

    def board() -> Board:
        return live.board

    def selector_update(name: str | None = None) -> dict:
        current = board()
        names = current.benchmark_names
        choices = [(label_of(current, n), n) for n in names]
        value = name if name in names else (names[0] if names else None)
        return gr.update(choices=choices, value=value)

    def kinds_present() -> list[str]:
        return sorted({str(r["model"]["kind"]) for r in board().shown_rows}) or ["sparse", "dense", "reranker"]

    # -- renderers ------------------------------------------------------------------------------------
    def render_board(name, kinds, instructions, sizes, search, columns):
        current = board()
        filters = _filters(kinds, kinds_present(), instructions, sizes, search)
        if name == OVERALL:
            names, rows = current.overall()
            return pages.benchmark_summary(current, name, None), render.overall_table(names, rows, filters), ""
        ranking = current.ranking(name) if name else None
        if ranking is None:
            return pages.benchmark_summary(current, name, None), render.empty("No results yet."), ""
        html = render.board_table(ranking, filters, columns or [])
        notes = pages.board_notes(ranking) if ranking.lines else ""
        return pages.benchmark_summary(current, name, ranking), html, notes

    def render_csv(name, kinds, instructions, sizes, search, columns):
        """The download button's file: the view on screen, as numbers (after the table, off its critical path)."""
        current = board()
        filters = _filters(kinds, kinds_present(), instructions, sizes, search)
        if name == OVERALL:
            names, rows = current.overall()
            return csv_files.write(_overall_frame(names, rows, filters), "overall-mean-rank")
        ranking = current.ranking(name) if name else None
        return csv_files.write(render.csv_frame(ranking, filters), name) if ranking and ranking.lines else None

    def render_size(name, width=charts.WIDTH):
        current = board()
        ranking = current.ranking(name) if name and name != OVERALL else None
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

    def render_provenance(name, search):
        current = board()
        if name == OVERALL:
            tasks = [t.task for b in current.benchmarks if b.name in current.overall_benchmarks for t in b.tasks]
        else:
            benchmark = current.benchmark(name)
            tasks = [t.task for t in benchmark.tasks] if benchmark else []
        intro = (
            "<p>Every result behind this benchmark: data hash and revision, harness version and commit, date, "
            "coverage and the main score's 95% interval.</p>"
        )
        return intro + pages.provenance_html(current, tasks, search or "")

    # -- layout -----------------------------------------------------------------------------------------
    with gr.Blocks(title="Retrieval leaderboard", fill_width=True, delete_cache=(1800, 3600)) as app:
        generation = gr.State(live.generation)
        active = gr.State("board")
        views_request = gr.State(None)
        with gr.Row(equal_height=True, elem_id="top"):
            with gr.Column(scale=2, min_width=300):
                gr.HTML("<h1>Retrieval leaderboard</h1>", elem_id="title", js_on_load=None)
                status = gr.HTML(pages.status_line(board()), js_on_load=None)
            selector = gr.Dropdown(
                label="Benchmark",
                elem_id="benchmark-select",
                scale=3,
                min_width=300,
                **_dropdown_args(selector_update()),
            )
        summary = gr.HTML("", elem_id="benchmark-summary", js_on_load=None)
        with gr.Tabs(selected="board", overflow_behavior="wrap", elem_id="tabs") as tabs:
            with gr.Tab("Leaderboard", id="board") as board_tab:
                with gr.Accordion("Filters and columns", open=False, elem_id="filters"):
                    with gr.Row():
                        kind_names = kinds_present()
                        kinds = gr.CheckboxGroup(
                            kind_names, value=kind_names, label="Model kind", elem_id="filter-kind"
                        )
                        instructions = gr.Radio(
                            ["any", "yes", "no"], value="any", label="Takes instructions", elem_id="filter-instructions"
                        )
                        sizes = gr.CheckboxGroup(
                            list(SIZES), value=list(SIZES), label="Parameters", elem_id="filter-size"
                        )
                    with gr.Row():
                        search = gr.Textbox(
                            label="Search models", placeholder="name contains…", elem_id="filter-search"
                        )
                        columns = gr.CheckboxGroup(
                            list(OPTIONAL_COLUMNS),
                            value=list(DEFAULT_COLUMNS),
                            label="Columns",
                            elem_id="columns",
                        )
                table = _table_html('<div class="empty" id="board-loading">Loading…</div>', elem_id="board")
                with gr.Row():
                    csv = gr.DownloadButton("Download CSV of this view", elem_id="download-csv", size="sm", scale=0)
                notes = gr.HTML("", elem_id="notes", js_on_load=None)
            with gr.Tab("Task views", id="views") as views_tab:
                with gr.Row():
                    top_n = gr.Slider(1, charts.MAX_MODELS, value=TOP_MODELS, step=1, label="Top N ranked models")
                    picks = gr.Dropdown(
                        [],
                        value=[],
                        multiselect=True,
                        max_choices=charts.MAX_MODELS,
                        label="…or pick models",
                        elem_id="view-models",
                    )

                @gr.render(inputs=[views_request], triggers=[views_request.change])
                def draw_views(request):
                    _draw_views(board(), request)

            with gr.Tab("Size vs score", id="size") as size_tab:
                size_plot = gr.Plot(elem_id="size-plot", show_label=False)
                size_note = gr.HTML("", js_on_load=None)
            with gr.Tab("Provenance", id="provenance") as provenance_tab:
                provenance_search = gr.Textbox(label="Search models", elem_id="provenance-search")
                provenance = _table_html("", elem_id="provenance")
            with gr.Tab("Skipped", id="skipped") as skipped_tab:
                skipped = _table_html("", elem_id="skipped")
            with gr.Tab("About", id="about") as about_tab:
                about = gr.HTML("", elem_id="about-page", js_on_load=None)

        query_benchmark = gr.Textbox(visible=False)  # filled from the page's URL by RESTORE_JS
        query_tab = gr.Textbox(visible=False)
        query_width = gr.Number(visible=False)  # the browser window's width: charts are drawn to fit it
        chart_width = gr.State(charts.WIDTH)
        filter_inputs: list[Any] = [kinds, instructions, sizes, search, columns]
        board_outputs = [summary, table, notes]

        def views_key(name, n, chosen, width):
            return {
                "benchmark": name,
                "top": int(n or TOP_MODELS),
                "picks": list(chosen or []),
                "width": width,
                "gen": live.generation,
            }

        # -- events -----------------------------------------------------------------------------------
        def on_load(wanted, wanted_tab, window, *filters):
            update = selector_update(wanted)
            name = update["value"]
            tab = wanted_tab if wanted_tab in TABS else "board"
            width = charts.fit_width(window)
            # Selecting a tab from Python does not fire its select event: render the requested tab here.
            size = render_size(name, width) if tab == "size" else (gr.skip(), gr.skip())
            return (
                update,
                gr.Tabs(selected=tab),
                tab,
                width,
                *render_board(name, *filters),
                gr.update(choices=_model_choices(_ranking(board(), name)), value=[]),
                views_key(name, TOP_MODELS, [], width) if tab == "views" else gr.skip(),
                *size,
                render_provenance(name, "") if tab == "provenance" else gr.skip(),
                pages.skipped_html(board()) if tab == "skipped" else gr.skip(),
                pages.about_html(board()) if tab == "about" else gr.skip(),
            )

        app.load(
            on_load,
            [query_benchmark, query_tab, query_width, *filter_inputs],
            [
                selector,
                tabs,
                active,
                chart_width,
                *board_outputs,
                picks,
                views_request,
                size_plot,
                size_note,
                provenance,
                skipped,
                about,
            ],
            js=RESTORE_JS,
        ).then(render_csv, [selector, *filter_inputs], csv, show_progress="hidden")

        def on_benchmark(name, active_tab, n, chosen, search_text, width, *filters):
            current = board()
            out: list[Any] = [*render_board(name, *filters)]
            out.append(gr.update(choices=_model_choices(_ranking(current, name)), value=[]))
            out.append(views_key(name, n, [], width) if active_tab == "views" else gr.skip())
            size = render_size(name, width) if active_tab == "size" else (gr.skip(), gr.skip())
            out += list(size)
            out.append(render_provenance(name, search_text) if active_tab == "provenance" else gr.skip())
            return out

        selector.input(
            on_benchmark,
            [selector, active, top_n, picks, provenance_search, chart_width, *filter_inputs],
            [*board_outputs, picks, views_request, size_plot, size_note, provenance],
            js=url_js("benchmark"),
        ).then(render_csv, [selector, *filter_inputs], csv, show_progress="hidden")
        for control in filter_inputs:
            control.change(render_board, [selector, *filter_inputs], board_outputs, show_progress="hidden").then(
                render_csv, [selector, *filter_inputs], csv, show_progress="hidden"
            )

        board_tab.select(lambda: "board", None, active, js=url_js("tab", "board"))
        views_tab.select(
            lambda name, n, chosen, width: ("views", views_key(name, n, chosen, width)),
            [selector, top_n, picks, chart_width],
            [active, views_request],
            js=url_js("tab", "views"),
        )
        top_n.release(views_key, [selector, top_n, picks, chart_width], views_request)
        picks.change(views_key, [selector, top_n, picks, chart_width], views_request)
        size_tab.select(
            lambda name, width: ("size", *render_size(name, width)),
            [selector, chart_width],
            [active, size_plot, size_note],
            js=url_js("tab", "size"),
        )
        provenance_tab.select(
            lambda name, text: ("provenance", render_provenance(name, text)),
            [selector, provenance_search],
            [active, provenance],
            js=url_js("tab", "provenance"),
        )
        provenance_search.change(render_provenance, [selector, provenance_search], provenance, show_progress="hidden")
        skipped_tab.select(
            lambda: ("skipped", pages.skipped_html(board())), None, [active, skipped], js=url_js("tab", "skipped")
        )
        about_tab.select(lambda: ("about", pages.about_html(board())), None, [active, about], js=url_js("tab", "about"))

        # New results (polled on the server): re-render what this page shows, once per new revision.
        def on_tick(seen, name, *filters):
            if seen == live.generation:
                return [gr.skip()] * (3 + len(board_outputs))
            update = selector_update(name)
            return [live.generation, pages.status_line(board()), update, *render_board(update["value"], *filters)]

        if poll_seconds:
            timer = gr.Timer(min(max(poll_seconds / 4, 5.0), 60.0))
            timer.tick(
                on_tick, [generation, selector, *filter_inputs], [generation, status, selector, *board_outputs]
            ).then(render_csv, [selector, *filter_inputs], csv, show_progress="hidden")
    app.live_board = live  # type: ignore[attr-defined]  # for tests and serve: poll now, stop
    return app


def _table_html(value: str, **html_kwargs: Any) -> gr.HTML:
    """An HTML block holding a sortable table: the table's own CSS (scoped), not Gradio's prose styles."""
    return gr.HTML(value, js_on_load=SORT_JS, css_template=TABLE_CSS, apply_default_css=False, **html_kwargs)


def _ranking(board: Board, name: str | None) -> Ranking | None:
    return board.ranking(name) if name and name != OVERALL else None


def _dropdown_args(update: dict) -> dict:
    return {"choices": update["choices"], "value": update["value"]}


def _overall_frame(names: list[str], rows: list[dict[str, Any]], filters: Filters):
    import pandas as pd

    records = [
        {"rank": r["rank"], "model": r["line"].name, "revision": r["line"].key[1], "mean_rank": r["mean_rank"]}
        | {f"rank:{n}": r["ranks"][n] for n in names}
        for r in rows
        if filters.keep(r["line"].info)
    ]
    return pd.DataFrame(records)


def _draw_views(board: Board, request: dict | None) -> None:
    """Each task's declared views for the benchmark: tables as HTML, curves and bars as charts."""
    if not request:
        gr.HTML(render.empty("Open this tab to draw the benchmark's task views."), js_on_load=None)
        return
    name = request["benchmark"]
    ranking = board.ranking(name) if name and name != OVERALL else None
    if ranking is None:
        gr.HTML(render.empty("Pick a benchmark to see its tasks' views."), js_on_load=None)
        return
    wanted = {tuple(p.split("\x1f", 1)) for p in request["picks"]}
    lines = [line for line in ranking.lines if line.key in wanted] if wanted else ranking.ranked[: request["top"]]
    shown_any = False
    for task, task_views in views.benchmark_views(board, ranking.benchmark):
        paths = {line.key: line.paths[task] for line in lines if task in line.paths}
        for number, view in enumerate(task_views):
            shown_any = True
            frame = views.view_frame(board, view, paths)
            heading = pages.view_heading(task, view)
            if view.kind == "table":
                wide = views.view_table(frame, view)
                body = pages.view_table_html(board, task, view, wide, f"view-{_file_name(task)}-{number}")
                _table_html(heading + (body if not wide.empty else render.empty("No results yet.")))
                continue
            y_label = view.metrics[0]
            y_title = view.labels.get(y_label, y_label) if view.over_subsets else view.title
            gr.HTML(heading, js_on_load=None)
            chart = None
            if charts.available():
                chart = charts.view_chart(frame, view, y_title, request.get("width") or charts.WIDTH)
            if not charts.available():
                gr.HTML(render.empty(f"Charts need altair: {charts.INSTALL}"), js_on_load=None)
            elif chart is None:
                gr.HTML(render.empty("No values to draw yet (the results lack this view's metrics)."), js_on_load=None)
            else:
                gr.Plot(chart, show_label=False, elem_classes=["view-plot"])
    if not shown_any:
        gr.HTML(render.empty("The tasks of this benchmark declare no views."), js_on_load=None)
    elif not lines:
        gr.HTML(render.empty("No ranked model yet: pick models above to compare them."), js_on_load=None)


def launch(app: gr.Blocks, host: str = "127.0.0.1", port: int | None = None, **launch_kwargs: Any) -> None:
    """Serve the app: no share link, the app's CSS, errors shown in the page."""
    # quiet: no "set share=True" hint; serve and the Space print their own line.
    launch_kwargs.setdefault("prevent_thread_lock", True)
    app.launch(
        server_name=host,
        server_port=port,
        share=False,
        show_error=True,
        quiet=True,
        css=PAGE_CSS,
        head=HEAD,
        **launch_kwargs,
    )
    live = getattr(app, "live_board", None)
    if live is not None:
        live.start_warming()
    app.block_thread()
