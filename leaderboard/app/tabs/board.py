"""The Leaderboard tab: the benchmark's table, sorted and paged on the server, its filters, notes and CSV.

Also draws the summary line and the Overall set above the tabs (the shell's), which describe this table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gradio as gr

from leaderboard.app.data import aggregates, url_state
from leaderboard.app.data.board import OVERALL, Board
from leaderboard.app.data.filters import DEFAULT_COLUMNS, OPEN_WEIGHTS, SIZES, SOURCES, ZERO_SHOT, Filters, license_of
from leaderboard.app.data.page_statistics import CSV_ROWS, with_statistics
from leaderboard.app.data.reported_tier import reported_lines
from leaderboard.app.server import prefetch
from leaderboard.app.server.csv_files import CSV_KEEP, CsvFiles
from leaderboard.app.tabs.assets import DOWNLOAD_JS, url_state_js
from leaderboard.app.tabs.base import (
    Hook,
    Load,
    Shell,
    Switch,
    Tab,
    Tick,
    changed,
    page_number,
    skips,
    table_html,
    view_html,
)
from leaderboard.app.views import render
from leaderboard.app.views.board import EXTRA_COLUMNS, TableRequest, board_html
from leaderboard.app.views.board_notes import benchmark_summary, board_notes, cite_html
from leaderboard.app.views.landing import HOME, home_summary, landing_html, unknown_benchmark
from leaderboard.app.views.model import COPY_JS
from leaderboard.app.views.overall import overall_frame, overall_html, overall_summary

ID = "board"
LABEL = "Leaderboard"
COLUMN_CHOICES = EXTRA_COLUMNS + ("Missing",)
SHOWN_COLUMNS = tuple(c for c in COLUMN_CHOICES if c in DEFAULT_COLUMNS or c in ("Dimension", "Max tokens"))


def shown_values(ticked: list[str] | None, offered: list[str], current: list[str]) -> tuple[str, ...]:
    """What a checkbox filter shows: every current value but those the reader unticked (empty: no filter).

    The checkboxes offer the values of the board the page was built on; a value new since (a model with a new
    license or kind, loaded with a new results revision) is not offered, so it is never hidden."""
    hidden = set(offered) - set(ticked or ())
    if not ticked or not hidden:  # nothing ticked is no filter, as every choice ticked is
        return ()
    return tuple(sorted(set(current) - hidden))


def _filters(
    kinds: list[str] | None,
    all_kinds: list[str],
    instructions: str,
    sizes: list[str] | None,
    search: str,
    zero_shot: str | None = None,
    licenses: list[str] | None = None,
    all_licenses: list[str] | None = None,
    weights: str | None = None,
    sources: list[str] | None = None,
    offered_kinds: list[str] | None = None,
    offered_licenses: list[str] | None = None,
):
    """The filters of the ticked controls; ``all_*`` are the current board's values, ``offered_*`` the values the
    checkboxes offer (the board the page was built on; default: the current ones)."""
    return Filters(
        kinds=shown_values(kinds, all_kinds if offered_kinds is None else offered_kinds, all_kinds),
        instructions=instructions or "any",
        sizes=tuple(sizes or ()) if set(sizes or ()) != set(SIZES) else (),
        search=(search or "").strip(),
        zero_shot=zero_shot if zero_shot in ZERO_SHOT else "any",
        # every choice ticked is no filter (a license no shown model has is not a reason to hide one)
        licenses=()
        if licenses is None
        else shown_values(
            licenses,
            list(all_licenses or ()) if offered_licenses is None else offered_licenses,
            list(all_licenses or ()),
        ),
        open_weights=weights if weights in OPEN_WEIGHTS else "any",
        sources=tuple(sources or ()) if sources is not None and set(sources) != set(SOURCES) else (),
    )


def by_update(ranking, by: str = "") -> dict:
    """The "Rank by" choices of a benchmark: its declared aggregate (the default, value "") and its other means;
    hidden where it declares only one."""
    found = aggregates.choices(ranking) if ranking is not None else []
    if len(found) < 2:
        return gr.update(choices=[("", "")], value="", visible=False)
    options = [(f"{found[0]} (default)", "")] + [(label, label) for label in found[1:]]
    return gr.update(choices=options, value=by if by in found[1:] else "", visible=True)


def view_ranking(declared, by: str = "", tasks: list[str] | None = None):
    """The ranking the board draws: over the tasks chosen (Overall-style), else by the aggregate chosen, else the
    declared one."""
    chosen = aggregates.chosen_tasks(declared, tasks)
    return aggregates.over_tasks(declared, chosen) if chosen else aggregates.ranked_by(declared, by)


def tasks_update(ranking, chosen: list[str] | None = None) -> dict:
    """The "Tasks ranked over" choices of a benchmark: the tasks its aggregate averages, all ticked by default (its
    own ranking); hidden where it averages one task."""
    offered = aggregates.task_choices(ranking) if ranking is not None else []
    if len(offered) < 2:
        return gr.update(choices=[], value=[], visible=False)
    return gr.update(choices=offered, value=list(chosen) if chosen else offered, visible=True)


# The tasks' URL parameter: the ticked tasks, or none when every task is ticked (the benchmark's own ranking); a new
# choice starts again at page 1.
TASKS_JS = """(...args) => { const url = new URL(window.location.href); const v = args[%d] || [];
const all = document.querySelectorAll('#rank-tasks input[type=checkbox]').length;
if (!v.length || v.length === all) url.searchParams.delete('tasks'); else url.searchParams.set('tasks', v.join('|'));
url.searchParams.delete('p'); window.history.replaceState(null, '', url); return args; }"""


def overall_update(board: Board, name: str | None, chosen: list[str] | None) -> dict:
    """The Overall set's checkboxes: shown only with Overall, ticked as chosen (default: the default set)."""
    if name != OVERALL:
        return gr.update(visible=False)
    found = board.overall_ranking(chosen or None)
    # tasks in no benchmark are offered only once a link picked one (a local board has dozens of them)
    names = [b.name for b in board.benchmarks if b.name not in board.standalone or b.name in found.benchmarks]
    return gr.update(choices=names, value=found.benchmarks, visible=True)


def build(shell: Shell) -> Tab | None:
    csv_files = CsvFiles()

    def render_board(name, *view):
        """The summary, the table (named by its view: benchmark, sort, page) and the notes."""
        sort, page = view[-3], view[-2]
        summary, html, notes = draw_board(name, *view)
        return summary, view_html(ID, html, benchmark=name or HOME, sort=sort or "", page=page_number(page)), notes

    # The values the kind and license checkboxes offer: those of the board the page is built on.
    offered: dict[str, list[str]] = {"kinds": shell.kinds_present(), "licenses": list(shell.board().licenses)}

    def filters_of(kinds, instructions, sizes, search, zero_shot, licenses, weights, sources):
        present = shell.kinds_present()
        return _filters(
            kinds,
            present,
            instructions,
            sizes,
            search,
            zero_shot,
            licenses,
            shell.board().licenses,
            weights,
            sources,
            offered_kinds=offered["kinds"],
            offered_licenses=offered["licenses"],
        )

    def draw_board(
        name,
        kinds,
        instructions,
        sizes,
        search,
        columns,
        revisions,
        zero_shot,
        lic,
        weights,
        src,
        by,
        tasks,
        sort,
        page,
        chosen,
    ):
        current = shell.board()
        filters = filters_of(kinds, instructions, sizes, search, zero_shot, lic, weights, src)
        if name == HOME or not name:
            return home_summary(current), landing_html(current, shell.benchmark_list()), ""
        if name == OVERALL:
            found = current.overall_ranking(chosen or None, all_revisions=bool(revisions))
            return overall_summary(found), overall_html(found, filters), ""
        declared = shell.ranking(name, revisions)
        if declared is None:
            return benchmark_summary(current, name, None), render.empty("No results yet."), ""
        ranking = view_ranking(declared, by, tasks)  # the declared ranking unless the reader picked another
        request = TableRequest(filters, tuple(columns or ()), url_state.parse_sort(sort or ""), page_number(page))
        papers = reported_lines(current, ranking)
        html = board_html(
            ranking,
            request,
            papers,
            # the statistics of the declared rows (a derived row shares their cells' intervals)
            lambda lines: prefetch.now(current, declared, aggregates.originals(ranking, lines)),
            lambda lines: prefetch.ahead(current, declared, aggregates.originals(ranking, lines)),
        )
        if ranking is not declared:
            ranking.interval_note = declared.interval_note
        notes = board_notes(ranking, len(papers)) if ranking.lines or papers else ""
        benchmark = current.benchmark(name)
        cite = cite_html(current, benchmark) if benchmark is not None else ""  # every benchmark board: what to cite
        return benchmark_summary(current, name, ranking, filters), html, notes + cite

    # The CSV of each view (its rows, not its sort or page) per results revision.
    csv_paths: dict[tuple, str | None] = {}

    def render_csv(
        name,
        kinds,
        instructions,
        sizes,
        search,
        columns,
        revisions,
        zero_shot,
        lic,
        weights,
        src,
        by,
        tasks,
        sort,
        page,
        chosen,
    ):
        """The CSV of the view on screen, as numbers: written when the reader asks for it (its statistics cost
        about a second at thousands of models; written after every view change, they slowed the next click)."""
        filters = filters_of(kinds, instructions, sizes, search, zero_shot, lic, weights, src)
        overall = tuple(chosen or ()) if name == OVERALL else ()
        key = (shell.live.generation, name, filters, bool(revisions), overall, by or "", tuple(tasks or ()))
        path = csv_paths.get(key)
        if path is None or not Path(path).exists():  # a file pruned since is written again
            if len(csv_paths) >= CSV_KEEP:
                csv_paths.clear()
            path = csv_paths[key] = write_csv(name, filters, revisions, chosen, by, tasks)
        return path

    def write_csv(name, filters, revisions, chosen, by="", tasks=()):
        current = shell.board()
        if name == OVERALL:
            found = current.overall_ranking(chosen or None, all_revisions=bool(revisions))
            return csv_files.write(overall_frame(found, filters), "overall-mean-rank")
        declared = shell.ranking(name, revisions)
        if declared is None or not declared.lines:
            return None
        ranking = view_ranking(declared, by, tasks)
        exported = [line for line in ranking.lines if filters.keep(line.info)]
        # Intervals and tests of every row exported, up to CSV_ROWS rows: past that, computing them
        # for each view would hold the server for seconds; rows not computed say so (narrow the view).
        with_statistics(current, declared, aggregates.originals(ranking, exported[:CSV_ROWS]))
        frame = render.csv_frame(ranking, filters)
        if len(exported) > CSV_ROWS:
            frame["intervals"] = [
                "" if i < CSV_ROWS else f"not computed: over {CSV_ROWS} rows (filter to narrow)"
                for i in range(len(frame))
            ]
        return csv_files.write(frame, name)

    # -- layout -----------------------------------------------------------------------------------------
    with gr.Tab(LABEL, id=ID) as tab:
        with gr.Accordion("Filters and columns", open=False, elem_id="filters"):
            with gr.Row():
                kind_names = offered["kinds"]
                kinds = gr.CheckboxGroup(kind_names, value=kind_names, label="Model kind", elem_id="filter-kind")
                instructions = gr.Radio(
                    ["any", "yes", "no"], value="any", label="Takes instructions", elem_id="filter-instructions"
                )
                sizes = gr.CheckboxGroup(list(SIZES), value=list(SIZES), label="Parameters", elem_id="filter-size")
            with gr.Row():
                search = gr.Textbox(label="Search models", placeholder="name contains…", elem_id="filter-search")
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
                    value=False, label="Every revision of each model (default: its newest)", elem_id="filter-revisions"
                )
                zero_shot = gr.Radio(
                    [(label, value) for value, label in ZERO_SHOT.items()],
                    value="any",
                    label="Zero-shot on this benchmark",
                    elem_id="filter-zero-shot",
                    info="As MTEB's leaderboard: a model trained on a task of the benchmark is not zero-shot; "
                    "unknown where its model_meta.json names no training data.",
                )
            with gr.Row():
                license_names = offered["licenses"]
                licenses = gr.CheckboxGroup(
                    license_names,
                    value=license_names,
                    label="License",
                    elem_id="filter-license",
                    info="From the model's metadata (an imported model's model_meta.json), by SPDX id; unknown: none "
                    "recorded; own license: a link to its text (on the model's page).",
                )
                weights = gr.Radio(
                    [(label, value) for value, label in OPEN_WEIGHTS.items()],
                    value="any",
                    label="Open weights",
                    elem_id="filter-open-weights",
                    info="A model whose metadata does not say is kept only under any.",
                )
                sources = gr.CheckboxGroup(
                    list(SOURCES),
                    value=list(SOURCES),
                    label="Where the numbers come from",
                    elem_id="filter-source",
                    info="run here: this harness's runs; imported: mteb's runs; reported: copied from a paper or "
                    "from the model's authors.",
                )
            with gr.Row():
                tasks = gr.CheckboxGroup(
                    [],
                    value=[],
                    label="Tasks ranked over",
                    elem_id="rank-tasks",
                    visible=False,
                    info="Untick tasks to rank over the others only: each model's rank on each task, averaged, as "
                    "Overall ranks over benchmarks (no interval). All ticked: the benchmark's own ranking.",
                )
        by = gr.Radio(
            [("", "")],
            value="",
            label="Rank by",
            elem_id="rank-by",
            visible=False,
            info="The benchmark's own aggregate is the default; its other declared means rank without an interval.",
        )
        restored_search = gr.State({})  # the search a link restored, whose change event the load causes
        sort_box = gr.Textbox("", elem_id="sort-state", elem_classes=["state-box"], show_label=False)
        page_box = gr.Textbox("1", elem_id="page-state", elem_classes=["state-box"], show_label=False)
        board_go = gr.Button("sort or page", elem_id="board-go", elem_classes=["state-box"])
        table = table_html('<div class="empty" id="board-loading">Loading…</div>', elem_id="board")
        with gr.Row():
            csv = gr.Button("Download CSV of this view", elem_id="download-csv", size="sm", scale=0)
            csv_file = gr.File(visible=False)  # the file the click writes, handed to the browser
        notes = gr.HTML("", elem_id="notes", js_on_load=COPY_JS)  # its cite panel's copy button

    filter_inputs: list[Any] = [kinds, instructions, sizes, search, columns, revisions, zero_shot]
    filter_inputs += [licenses, weights, sources, by, tasks]
    view_inputs: list[Any] = [*filter_inputs, sort_box, page_box, shell.overall_set]
    # The benchmark shown is the shell's State: a filter's change event that the page load fires
    # (restoring the link's filters) may read the selector before its own update lands.
    board_inputs: list[Any] = [shell.shown, *view_inputs]
    board_outputs = [shell.summary, table, notes]

    # -- events -----------------------------------------------------------------------------------------
    # A filter or column the reader changes renders page 1 of the new view; its value goes into the URL.
    # Their ``input`` events, not ``change``: the page load sets the link's values and draws them itself; a
    # change event per control it set would redraw the board from the controls as they stood when that event
    # fired (some still at their defaults), and the last answer to arrive would win.
    def on_filter(*state):
        return ("1", *render_board(*(*state[:-2], 1, state[-1])))

    parameters = {1: "kind", 2: "instr", 3: "size", 4: "q", 5: "cols", 6: "revisions", 7: "zs"}
    parameters |= {8: "lic", 9: "open", 10: "src", 11: "by", 12: "tasks"}
    defaults: dict[str, object] = {
        "kind": shell.kinds_present(),
        "instr": "any",
        "size": list(SIZES),
        "cols": list(SHOWN_COLUMNS),
        "zs": "any",
        "lic": shell.board().licenses,
        "open": "any",
        "src": list(SOURCES),
    }
    for position, control in enumerate(filter_inputs, start=1):
        if control is search:
            continue
        control.input(
            on_filter,
            board_inputs,
            [page_box, *board_outputs],
            js=TASKS_JS % position
            if control is tasks
            else url_state_js({position: parameters[position]}, defaults, reset=("p",)),
            show_progress="hidden",
        )

    # The search box: Gradio's Textbox sends ``input`` on key presses only (a pasted name would not filter), so
    # it listens to ``change``, and the one change the page load itself makes (a link's ``q``) draws nothing.
    def on_search(*state):
        *view, restored = state
        if restored and view[4] == restored.get("q"):
            return [{}, gr.skip(), *skips(board_outputs)]
        return [{}, *on_filter(*view)]

    search.change(
        on_search,
        [*board_inputs, restored_search],
        [restored_search, page_box, *board_outputs],
        js=url_state_js({4: "q"}, defaults, reset=("p",)),
        show_progress="hidden",
    )
    # Header clicks and the pager write the state boxes (assets.SORT_JS): one page, sorted over all rows.
    board_go.click(render_board, board_inputs, board_outputs, show_progress="hidden")
    csv.click(render_csv, board_inputs, csv_file, show_progress_on=csv).then(None, csv_file, None, js=DOWNLOAD_JS)
    shell.overall_set.input(
        on_filter,
        board_inputs,
        [page_box, *board_outputs],
        js=url_state_js({len(board_inputs) - 1: "overall"}),  # the last input
        show_progress="hidden",
    )
    shell.when_opened(tab, ID, lambda: (), [], [])

    # -- the shared events ------------------------------------------------------------------------------
    def on_load(load: Load) -> list[Any]:
        state, name = load.state, load.name
        all_kinds = shell.kinds_present()
        chosen_kinds = url_state.known(state.kinds, all_kinds, all_kinds)
        chosen_sizes = url_state.known(state.sizes, SIZES, list(SIZES))
        chosen_columns = url_state.known(state.columns, COLUMN_CHOICES, list(SHOWN_COLUMNS))
        instruction = state.instructions if state.instructions in ("any", "yes", "no") else "any"
        zero_shot_choice = state.zero_shot if state.zero_shot in ZERO_SHOT else "any"
        all_licenses = shell.board().licenses
        # a link's licenses by their SPDX ids, as the filter names them (lic=mit is MIT)
        linked = None if state.licenses is None else tuple(license_of({"license": v}) for v in state.licenses)
        chosen_licenses = url_state.known(linked, all_licenses, all_licenses)
        weights_choice = state.open_weights if state.open_weights in OPEN_WEIGHTS else "any"
        chosen_sources = url_state.known(state.sources, SOURCES, list(SOURCES))
        declared = shell.ranking(name)
        by_choice = state.by if declared is not None and state.by in aggregates.choices(declared)[1:] else ""
        tasks_choice = list(aggregates.chosen_tasks(declared, state.tasks)) if declared is not None else []
        sort = f"{state.sort[0]}.{state.sort[1]}" if state.sort else ""
        chosen_set = url_state.known(state.overall, shell.benchmark_list(), []) if state.overall else []
        drawn = render_board(
            name,
            chosen_kinds,
            instruction,
            chosen_sizes,
            state.search,
            chosen_columns,
            state.revisions,
            zero_shot_choice,
            chosen_licenses,
            weights_choice,
            chosen_sources,
            by_choice,
            tasks_choice,
            sort,
            state.page,
            chosen_set,
        )
        if state.benchmark and state.benchmark != name:  # a link to a board this one lacks: say so
            drawn = (unknown_benchmark(state.benchmark) + drawn[0], *drawn[1:])
        return [
            # Only what the link changes: each control updated costs the browser a redraw.
            changed(chosen_kinds, all_kinds),
            changed(instruction, "any"),
            changed(chosen_sizes, list(SIZES)),
            changed(state.search, ""),
            changed(chosen_columns, list(SHOWN_COLUMNS)),
            changed(state.revisions, False),
            changed(zero_shot_choice, "any"),
            changed(chosen_licenses, all_licenses),
            changed(weights_choice, "any"),
            changed(chosen_sources, list(SOURCES)),
            by_update(declared, by_choice),
            tasks_update(declared, tasks_choice),
            changed(sort, ""),
            changed(str(state.page), "1"),
            overall_update(shell.board(), name, chosen_set),
            {"q": state.search} if state.search else {},
            *drawn,
        ]

    def on_switch(switch: Switch, *state) -> list[Any]:
        sort, page, chosen = state[-3:]
        declared = shell.ranking(switch.name)
        out: list[Any] = [changed("", sort), changed("1", str(page)), by_update(declared), tasks_update(declared)]
        hidden = OVERALL not in (switch.name, switch.previous)  # the Overall set stays hidden
        out.append(gr.skip() if hidden else overall_update(shell.board(), switch.name, chosen))
        # a new benchmark starts at its own declared aggregate over all its tasks (``by`` and ``tasks`` are dropped)
        return out + list(render_board(*(switch.name, *state[:-5], "", [], "", 1, chosen)))

    def on_tick(tick: Tick, *state) -> list[Any]:
        return list(render_board(tick.name, *state)) if tick.changed else skips(board_outputs)

    return Tab(
        id=ID,
        load=Hook(on_load, [*filter_inputs, sort_box, page_box, shell.overall_set, restored_search, *board_outputs]),
        switch=Hook(on_switch, [sort_box, page_box, by, tasks, shell.overall_set, *board_outputs], view_inputs),
        tick=Hook(on_tick, board_outputs, view_inputs),
        url_parameters=("sort", "p", "overall", "by", "tasks"),
        spinner=table,
    )
