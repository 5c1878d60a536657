"""The Gradio app: a benchmark selector over tabs that render on demand, with the whole view in the URL.

Nothing is inlined into the page at start: the landing page (every benchmark's top models), a board,
and each tab when first opened, are computed by an event (the page load, a tab's select, the
selector), from a board that is built once per results revision. The benchmark board is sorted and
paged on the server over all its rows (``board_table``). The view state (benchmark, tab, filters,
search, sort, page, picked models, the Overall set, the compared models) is kept in the URL, so a
link restores the view (``url_state``).
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

from leaderboard.app import board_table, charts, landing, loading, overall_view, pages, render, url_state, views
from leaderboard.app.assets import DOWNLOAD_JS, HEAD, PAGE_CSS, RESTORE_JS, SORT_JS, TABLE_CSS, url_js, url_state_js
from leaderboard.app.board import OVERALL, Board, label_of
from leaderboard.app.comparison_view import choice_value, comparison_html, parse_choice
from leaderboard.app.filters import DEFAULT_COLUMNS, SIZES, Filters
from leaderboard.app.landing import HOME
from leaderboard.app.live import LiveBoard
from leaderboard.app.page_statistics import CSV_ROWS, with_statistics
from leaderboard.app.ranking import Ranking
from leaderboard.app.reported_tier import reported_lines
from leaderboard.app.sources import Source

TABS = ("board", "views", "size", "compare", "provenance", "skipped", "about")
TOP_MODELS = 8
CSV_KEEP = 32  # CSV files kept for download at once; older ones are deleted
COLUMN_CHOICES = board_table.EXTRA_COLUMNS + ("Missing",)
SHOWN_COLUMNS = tuple(c for c in COLUMN_CHOICES if c in DEFAULT_COLUMNS or c in ("Dimension", "Max tokens"))


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
    return [(labels[k], choice_value(k)) for k in keys]


def _page(value: Any) -> int:
    try:
        return max(1, int(str(value or "1")))
    except ValueError:
        return 1


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

    def benchmark_list(current: Board) -> list[str]:
        return [b.name for b in current.benchmarks]

    def selector_update(name: str | None = None) -> dict:
        current = board()
        names = current.benchmark_names
        choices = [(HOME, HOME)] + [(label_of(current, n), n) for n in names]
        value = name if name in names else HOME
        return gr.update(choices=choices, value=value)

    def kinds_present() -> list[str]:
        return board().kinds or ["sparse", "dense", "reranker"]

    def ranking_of(name: str | None, revisions: bool = False) -> Ranking | None:
        if not name or name in (OVERALL, HOME):
            return None
        # Statistics are computed for the rows shown only (page_statistics), never for the whole ranking.
        return board().ranking(name, with_stats=False, all_revisions=bool(revisions))

    # -- renderers ------------------------------------------------------------------------------------
    def render_board(name, kinds, instructions, sizes, search, columns, revisions, sort, page, chosen):
        current = board()
        filters = _filters(kinds, kinds_present(), instructions, sizes, search)
        if name == HOME or not name:
            return pages.home_summary(current), landing.landing_html(current, benchmark_list(current)), ""
        if name == OVERALL:
            found = current.overall_ranking(chosen or None, all_revisions=bool(revisions))
            return pages.overall_summary(found), overall_view.overall_html(found, filters), ""
        ranking = ranking_of(name, revisions)
        if ranking is None:
            return pages.benchmark_summary(current, name, None), render.empty("No results yet."), ""
        request = board_table.TableRequest(filters, tuple(columns or ()), url_state.parse_sort(sort or ""), _page(page))
        papers = reported_lines(current, ranking)
        html = board_table.board_html(ranking, request, papers, lambda lines: with_statistics(current, ranking, lines))
        notes = pages.board_notes(ranking, len(papers)) if ranking.lines or papers else ""
        return pages.benchmark_summary(current, name, ranking, filters), html, notes

    # The CSV of each view (its rows, not its sort or page) per results revision.
    csv_paths: dict[tuple, str | None] = {}

    def render_csv(name, kinds, instructions, sizes, search, columns, revisions, sort, page, chosen):
        """The CSV of the view on screen, as numbers: written when the reader asks for it (its statistics cost
        about a second at thousands of models; written after every view change, they slowed the next click)."""
        filters = _filters(kinds, kinds_present(), instructions, sizes, search)
        key = (live.generation, name, filters, bool(revisions), tuple(chosen or ()) if name == OVERALL else ())
        path = csv_paths.get(key)
        if path is None or not Path(path).exists():  # a file pruned since is written again
            if len(csv_paths) >= CSV_KEEP:
                csv_paths.clear()
            path = csv_paths[key] = write_csv(name, filters, revisions, chosen)
        return path

    def write_csv(name, filters, revisions, chosen):
        current = board()
        if name == OVERALL:
            found = current.overall_ranking(chosen or None, all_revisions=bool(revisions))
            return csv_files.write(overall_view.overall_frame(found, filters), "overall-mean-rank")
        ranking = ranking_of(name, revisions)
        if ranking is None or not ranking.lines:
            return None
        exported = [line for line in ranking.lines if filters.keep(line.info)]
        # Intervals and tests of every row exported, up to CSV_ROWS rows: past that, computing them
        # for each view would hold the server for seconds; rows not computed say so (narrow the view).
        with_statistics(current, ranking, exported[:CSV_ROWS])
        frame = render.csv_frame(ranking, filters)
        if len(exported) > CSV_ROWS:
            frame["intervals"] = [
                "" if i < CSV_ROWS else f"not computed: over {CSV_ROWS} rows (filter to narrow)"
                for i in range(len(frame))
            ]
        return csv_files.write(frame, name)

    def render_size(name, width=charts.WIDTH):
        ranking = ranking_of(name)
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

    def render_provenance(name, search, page=1):
        current = board()
        if name in (OVERALL, HOME) or not name:
            wanted = set(current.overall_benchmarks) if name == OVERALL else set(benchmark_list(current))
            tasks = [t.task for b in current.benchmarks if b.name in wanted for t in b.tasks]
        else:
            benchmark = current.benchmark(name)
            tasks = [t.task for t in benchmark.tasks] if benchmark else []
        intro = (
            "<p>Every result behind this view: data hash and revision, harness version and commit, date, "
            "coverage, and the main score's 95% interval where the file itself stores one (the board's "
            "intervals are computed from the per-query values, so a result without a stored one still has "
            "its interval on the board).</p>"
        )
        return intro + pages.provenance_html(current, tasks, search or "", _page(page))

    def compare_choices(name) -> tuple[list[tuple[str, str]], list[str]]:
        """Every model (each revision) with results on the benchmark, and the default pair (#1 and #2)."""
        ranking = ranking_of(name, revisions=True)
        if ranking is None:
            return [], []
        choices = _model_choices(ranking)
        top = [choice_value(line.key) for line in (ranking_of(name) or ranking).ranked[:2]]
        return choices, top

    def compare_updates(name, wanted_a="", wanted_b=""):
        choices, top = compare_choices(name)
        values = [v for _, v in choices]
        a = wanted_a if wanted_a in values else (top[0] if top else None)
        b = wanted_b if wanted_b in values and wanted_b != a else next((v for v in top + values if v != a), None)
        return gr.update(choices=choices, value=a), gr.update(choices=choices, value=b), a, b

    # The model pickers (Task views, Compare) list every model of a benchmark: thousands of choices that
    # cost the browser seconds on every redraw. They are filled when their tab opens, for the benchmark
    # shown; a link's picks (models=, a=, b=) wait in the page's state until then.
    def lists_key(name) -> str:
        return f"{name}\0{live.generation}"

    def unfilled(state=None) -> dict:
        state = state or url_state.ViewState()
        return {"views": None, "compare": None, "models": list(state.models), "a": state.a, "b": state.b}

    def fill_picks(name, lists, chosen=()):
        """The picks dropdown filled for ``name`` (the waiting picks, else those chosen), its value, the new state."""
        choices = _model_choices(ranking_of(name))
        values = {v for _, v in choices}
        picked = [v for v in (lists.get("models") or chosen or []) if v in values]
        return gr.update(choices=choices, value=picked), picked, {**lists, "views": lists_key(name), "models": []}

    def fill_compare(name, lists, a="", b=""):
        a_update, b_update, a, b = compare_updates(name, lists.get("a") or a or "", lists.get("b") or b or "")
        return a_update, b_update, a, b, {**lists, "compare": lists_key(name), "a": "", "b": ""}

    def render_compare(name, a, b, per_subset=False):
        if not name or name in (HOME, OVERALL):
            return render.empty("Pick a benchmark to compare two of its models.")
        key_a, key_b = parse_choice(a), parse_choice(b)
        if key_a is None or key_b is None:
            return render.empty("Pick two models (A and B) to compare.")
        if key_a == key_b:
            return render.empty("Pick two different models.")
        from leaderboard.errors import BadInput

        try:  # the task rows first (fast); the subsets (a test each) on request; both cached per pair
            found = board().comparison(name, key_a, key_b, subsets=bool(per_subset))
        except BadInput as exc:
            return render.empty(str(exc))
        # Subsets as the board names and orders its columns ("¬2in", strata by number), others after them.
        ranking = ranking_of(name)
        order: dict[tuple[str, str], int] = {}
        subset_labels: dict[tuple[str, str], str] = {}
        metrics = {row.task: row.metric for row in found.tasks}
        for column in ranking.columns if ranking else []:  # the column of the compared metric, else the first
            spec = column.spec
            order.setdefault((spec.task, spec.subset), len(order))
            if spec.metric == metrics.get(spec.task) or (spec.task, spec.subset) not in subset_labels:
                subset_labels[(spec.task, spec.subset)] = column.label.rstrip(" ↑↓")
        rows = []
        for task_row in found.tasks:
            rows.append(task_row)
            subsets = found.subsets.get(task_row.task, [])
            rows.extend(sorted(subsets, key=lambda r: (order.get((r.task, r.subset), len(order)), _natural(r.subset))))
        labels = views.model_labels([key_a, key_b])
        problems = [f"{task}: {why}" for task, why in found.skipped]
        return comparison_html(
            labels[key_a], labels[key_b], rows, problems, subsets_shown=bool(per_subset), labels=subset_labels
        )

    # -- layout -----------------------------------------------------------------------------------------
    with gr.Blocks(title="Retrieval leaderboard", fill_width=True, delete_cache=(1800, 3600)) as app:
        generation = gr.State(live.generation)
        model_lists = gr.State(unfilled())  # which benchmark the model pickers hold, and a link's waiting picks
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
        all_benchmarks = benchmark_list(board())
        overall_set = gr.CheckboxGroup(
            all_benchmarks, value=[], label="Benchmarks in Overall", elem_id="overall-set", visible=False
        )
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
                            list(COLUMN_CHOICES),
                            value=list(SHOWN_COLUMNS),
                            label="Columns",
                            elem_id="columns",
                            # ticked but absent is not a bug: say when they appear
                            info="Dimension and Max tokens appear where some model's metadata has them; "
                            "Missing where an unranked model lacks a result.",
                        )
                        revisions = gr.Checkbox(
                            value=False,
                            label="Every revision of each model (default: its newest)",
                            elem_id="filter-revisions",
                        )
                sort_box = gr.Textbox("", elem_id="sort-state", elem_classes=["state-box"], show_label=False)
                page_box = gr.Textbox("1", elem_id="page-state", elem_classes=["state-box"], show_label=False)
                board_go = gr.Button("sort or page", elem_id="board-go", elem_classes=["state-box"])
                table = _table_html('<div class="empty" id="board-loading">Loading…</div>', elem_id="board")
                with gr.Row():
                    csv = gr.Button("Download CSV of this view", elem_id="download-csv", size="sm", scale=0)
                    csv_file = gr.File(visible=False)  # the file the click writes, handed to the browser
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
            with gr.Tab("Compare two models", id="compare") as compare_tab:
                with gr.Row():
                    compare_a = gr.Dropdown([], value=None, label="Model A", elem_id="compare-a")
                    compare_b = gr.Dropdown([], value=None, label="Model B", elem_id="compare-b")
                compare_subsets = gr.Button(
                    "Per subset (query types, domains, strata: slower)", elem_id="compare-subsets", size="sm"
                )
                comparison = _table_html("", elem_id="compare")
            with gr.Tab("Provenance", id="provenance") as provenance_tab:
                provenance_search = gr.Textbox(label="Search models", elem_id="provenance-search")
                provenance_page = gr.Textbox(
                    "1", elem_id="provenance-page", elem_classes=["state-box"], show_label=False
                )
                provenance_go = gr.Button("page", elem_id="provenance-go", elem_classes=["state-box"])
                provenance = _table_html("", elem_id="provenance")
            with gr.Tab("Skipped", id="skipped") as skipped_tab:
                skipped = _table_html("", elem_id="skipped")
            with gr.Tab("About", id="about") as about_tab:
                about = gr.HTML("", elem_id="about-page", js_on_load=None)

        query = gr.Textbox(visible=False)  # the page's URL query, filled by RESTORE_JS
        query_width = gr.Number(visible=False)  # the browser window's width: charts are drawn to fit it
        chart_width = gr.State(charts.WIDTH)
        filter_inputs: list[Any] = [kinds, instructions, sizes, search, columns, revisions]
        # The benchmark shown is kept on the server (a State): a filter's change event that the page load
        # fires (restoring the link's filters) may read the selector before its own update lands.
        shown = gr.State(HOME)
        board_inputs: list[Any] = [shown, *filter_inputs, sort_box, page_box, overall_set]
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
        def on_load(raw_query, window):
            state = url_state.parse(raw_query)
            update = selector_update(state.benchmark)
            name = update["value"]
            tab = state.tab if state.tab in TABS else "board"
            width = charts.fit_width(window)
            all_kinds = kinds_present()
            chosen_kinds = url_state.known(state.kinds, all_kinds, all_kinds)
            chosen_sizes = url_state.known(state.sizes, SIZES, list(SIZES))
            chosen_columns = url_state.known(state.columns, COLUMN_CHOICES, list(SHOWN_COLUMNS))
            instruction = state.instructions if state.instructions in ("any", "yes", "no") else "any"
            sort = f"{state.sort[0]}.{state.sort[1]}" if state.sort else ""
            chosen_set = url_state.known(state.overall, benchmark_list(board()), []) if state.overall else []
            board_html = render_board(
                name,
                chosen_kinds,
                instruction,
                chosen_sizes,
                state.search,
                chosen_columns,
                state.revisions,
                sort,
                state.page,
                chosen_set,
            )
            if state.benchmark and state.benchmark != name:  # a link to a board this one lacks: say so
                board_html = (pages.unknown_benchmark(state.benchmark) + board_html[0], *board_html[1:])
            lists = unfilled(state)
            picks_update, picked = gr.skip(), []
            if tab == "views":
                picks_update, picked, lists = fill_picks(name, lists)
            a_update = b_update = a = b = gr.skip()
            if tab == "compare":
                a_update, b_update, a, b, lists = fill_compare(name, lists)
            size = render_size(name, width) if tab == "size" else (gr.skip(), gr.skip())
            return (
                update,
                name,
                gr.Tabs(selected=tab),
                tab,
                width,
                # Only what the link changes: an unchanged control fires no change event (and no second render).
                _changed(chosen_kinds, all_kinds),
                _changed(instruction, "any"),
                _changed(chosen_sizes, list(SIZES)),
                _changed(state.search, ""),
                _changed(chosen_columns, list(SHOWN_COLUMNS)),
                _changed(state.revisions, False),
                _changed(sort, ""),
                _changed(str(state.page), "1"),
                _overall_update(board(), name, chosen_set),
                *board_html,
                picks_update,
                views_key(name, TOP_MODELS, picked, width) if tab == "views" else gr.skip(),
                *size,
                a_update,
                b_update,
                render_compare(name, a, b) if tab == "compare" else gr.skip(),
                render_provenance(name, "") if tab == "provenance" else gr.skip(),
                pages.skipped_html(board()) if tab == "skipped" else gr.skip(),
                pages.about_html(board()) if tab == "about" else gr.skip(),
                lists,
            )

        # What a page load and a benchmark switch both redraw, in the order their handlers return it.
        view_outputs = [
            sort_box,
            page_box,
            overall_set,
            *board_outputs,
            picks,
            views_request,
            size_plot,
            size_note,
            compare_a,
            compare_b,
            comparison,
            provenance,
        ]
        app.load(
            on_load,
            [query, query_width],
            [selector, shown, tabs, active, chart_width, *filter_inputs, *view_outputs, skipped, about, model_lists],
            js=RESTORE_JS,
        )

        def on_benchmark(name, showing, filled, active_tab, n, search_text, width, *state):
            """The new benchmark's board; only what changed is sent (each update costs the browser a redraw)."""
            if name == showing:  # set by a page load or a tick that drew it already
                return [gr.skip()] * (2 + len(view_outputs))
            current = board()
            sort, page, chosen = state[-3:]
            out: list[Any] = [name, _changed("", sort), _changed("1", str(page))]
            hidden = OVERALL not in (name, showing)  # the Overall set stays hidden
            out.append(gr.skip() if hidden else _overall_update(current, name, chosen))
            out += list(render_board(*(name, *state[:-3], "", 1, chosen)))
            lists = unfilled()  # the switch dropped the link's picks (models, a, b) from the URL
            if active_tab == "views":
                picks_update, _, lists = fill_picks(name, lists)
                out += [picks_update, views_key(name, n, [], width)]
            else:  # emptied (if filled): the tab fills them for this benchmark when it opens
                out += [gr.skip() if filled.get("views") is None else gr.update(choices=[], value=[]), gr.skip()]
            size = render_size(name, width) if active_tab == "size" else (gr.skip(), gr.skip())
            out += list(size)
            if active_tab == "compare":
                a_update, b_update, a, b, lists = fill_compare(name, lists)
                out += [a_update, b_update, render_compare(name, a, b)]
            elif filled.get("compare") is None:
                out += [gr.skip(), gr.skip(), gr.skip()]
            else:
                out += [gr.update(choices=[], value=None), gr.update(choices=[], value=None), gr.skip()]
            out.append(render_provenance(name, search_text) if active_tab == "provenance" else gr.skip())
            out.append(lists)
            return out

        selector.change(
            on_benchmark,
            [selector, shown, model_lists, active, top_n, provenance_search, chart_width, *filter_inputs, sort_box]
            + [page_box, overall_set],
            [shown, *view_outputs, model_lists],
            js=url_state_js({0: "benchmark"}, reset=("sort", "p", "models", "a", "b", "overall"), reset_on_change=True),
            show_progress_on=table,  # one spinner where the reader looks, not one on each of 16 outputs
        )

        # A filter or column change renders page 1 of the new view; its value goes into the URL.
        def on_filter(*state):
            return ("1", *render_board(*(*state[:-2], 1, state[-1])))

        parameters = {1: "kind", 2: "instr", 3: "size", 4: "q", 5: "cols", 6: "revisions"}
        defaults: dict[str, object] = {
            "kind": kinds_present(),
            "instr": "any",
            "size": list(SIZES),
            "cols": list(SHOWN_COLUMNS),
        }
        for position, control in enumerate(filter_inputs, start=1):
            control.change(
                on_filter,
                board_inputs,
                [page_box, *board_outputs],
                js=url_state_js({position: parameters[position]}, defaults, reset=("p",)),
                show_progress="hidden",
            )
        # Header clicks and the pager write the state boxes (assets.SORT_JS): one page, sorted over all rows.
        board_go.click(render_board, board_inputs, board_outputs, show_progress="hidden")
        csv.click(render_csv, board_inputs, csv_file, show_progress_on=csv).then(None, csv_file, None, js=DOWNLOAD_JS)
        overall_set.input(
            on_filter,
            board_inputs,
            [page_box, *board_outputs],
            js=url_state_js({9: "overall"}),
            show_progress="hidden",
        )

        board_tab.select(lambda: "board", None, active, js=url_js("tab", "board"))

        def on_views_tab(name, n, chosen, width, lists):
            if lists.get("views") == lists_key(name):  # filled for this benchmark: only the views
                return "views", views_key(name, n, chosen, width), gr.skip(), lists
            picks_update, picked, lists = fill_picks(name, lists, chosen)
            return "views", views_key(name, n, picked, width), picks_update, lists

        views_tab.select(
            on_views_tab,
            [selector, top_n, picks, chart_width, model_lists],
            [active, views_request, picks, model_lists],
            js=url_js("tab", "views"),
        )
        top_n.release(views_key, [selector, top_n, picks, chart_width], views_request)
        picks.input(views_key, [selector, top_n, picks, chart_width], views_request, js=url_state_js({2: "models"}))
        size_tab.select(
            lambda name, width: ("size", *render_size(name, width)),
            [selector, chart_width],
            [active, size_plot, size_note],
            js=url_js("tab", "size"),
        )

        def on_compare_tab(name, a, b, lists):
            if lists.get("compare") == lists_key(name):
                return "compare", gr.skip(), gr.skip(), render_compare(name, a, b), lists
            a_update, b_update, a, b, lists = fill_compare(name, lists, a, b)
            return "compare", a_update, b_update, render_compare(name, a, b), lists

        compare_tab.select(
            on_compare_tab,
            [selector, compare_a, compare_b, model_lists],
            [active, compare_a, compare_b, comparison, model_lists],
            js=url_js("tab", "compare"),
        )
        compare_subsets.click(
            lambda name, a, b: render_compare(name, a, b, True), [selector, compare_a, compare_b], comparison
        )
        for position, control in ((1, compare_a), (2, compare_b)):
            control.input(
                render_compare,
                [selector, compare_a, compare_b],
                comparison,
                js=url_state_js({position: "a" if position == 1 else "b"}),
            )
        provenance_tab.select(
            lambda name, text: ("provenance", render_provenance(name, text)),
            [selector, provenance_search],
            [active, provenance],
            js=url_js("tab", "provenance"),
        )
        provenance_search.change(render_provenance, [selector, provenance_search], provenance, show_progress="hidden")
        provenance_go.click(  # the pager (assets.SORT_JS)
            render_provenance, [selector, provenance_search, provenance_page], provenance, show_progress="hidden"
        )
        skipped_tab.select(
            lambda: ("skipped", pages.skipped_html(board())), None, [active, skipped], js=url_js("tab", "skipped")
        )
        about_tab.select(lambda: ("about", pages.about_html(board())), None, [active, about], js=url_js("tab", "about"))

        # New results (polled on the server): re-render what this page shows, once per new revision.
        def on_tick(seen, *state):
            if seen == live.generation:
                return [gr.skip()] * (4 + len(board_outputs))
            update = selector_update(state[0])
            name = update["value"]
            return [live.generation, pages.status_line(board()), update, name, *render_board(name, *state[1:])]

        if poll_seconds:
            timer = gr.Timer(min(max(poll_seconds / 4, 5.0), 60.0))
            outputs = [generation, status, selector, shown, *board_outputs]
            timer.tick(on_tick, [generation, *board_inputs], outputs)
    app.live_board = live  # type: ignore[attr-defined]  # for tests and serve: poll now, stop
    return app


def _natural(text: str) -> list[Any]:
    """'cw=3-10' before 'cw=11-12': numbers compare as numbers."""
    import re

    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", text) if part]


def _changed(value: Any, default: Any) -> Any:
    return gr.skip() if value == default else value


def _overall_update(board: Board, name: str | None, chosen: list[str] | None) -> dict:
    """The Overall set's checkboxes: shown only with Overall, ticked as chosen (default: the default set)."""
    if name != OVERALL:
        return gr.update(visible=False)
    names = [b.name for b in board.benchmarks]
    found = board.overall_ranking(chosen or None)
    return gr.update(choices=names, value=found.benchmarks, visible=True)


def _table_html(value: str, **html_kwargs: Any) -> gr.HTML:
    """An HTML block holding a sortable table: the table's own CSS (scoped), not Gradio's prose styles."""
    return gr.HTML(value, js_on_load=SORT_JS, css_template=TABLE_CSS, apply_default_css=False, **html_kwargs)


def _dropdown_args(update: dict) -> dict:
    return {"choices": update["choices"], "value": update["value"]}


def _draw_views(board: Board, request: dict | None) -> None:
    """Each task's declared views for the benchmark: tables as HTML, curves and bars as charts."""
    if not request:
        gr.HTML(render.empty("Open this tab to draw the benchmark's task views."), js_on_load=None)
        return
    name = request["benchmark"]
    ranking = board.ranking(name, with_stats=False) if name and name not in (OVERALL, HOME) else None
    if ranking is None:
        gr.HTML(render.empty("Pick a benchmark to see its tasks' views."), js_on_load=None)
        return
    wanted = {parse_choice(p) for p in request["picks"]}
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
    # Gradio's run history re-serializes every past call (each with its table) into localStorage on every
    # event: seconds per click once a reader has clicked around a large board. A board needs none.
    launch_kwargs.setdefault("run_history", False)
    # ``?page=N`` is Gradio's multipage parameter (a 500 for any other value): old links are redirected.
    from starlette.middleware import Middleware

    from leaderboard.app.legacy_links import LegacyPageLinks

    app_kwargs = dict(launch_kwargs.pop("app_kwargs", None) or {})
    app_kwargs["middleware"] = [*app_kwargs.get("middleware", []), Middleware(LegacyPageLinks)]
    app.launch(
        server_name=host,
        server_port=port,
        share=False,
        show_error=True,
        quiet=True,
        css=PAGE_CSS,
        head=HEAD,
        app_kwargs=app_kwargs,
        **launch_kwargs,
    )
    live = getattr(app, "live_board", None)
    if live is not None:
        live.start_warming()
    app.block_thread()
