"""The Leaderboard tab: the benchmark's table, sorted and paged on the server, its filters, notes and CSV.

Also draws the summary line and the Overall set above the tabs (the shell's), which describe this table.

What the tab draws is one ``BoardView``, read once from the link (the page load) or from the controls (every
other event) and passed down to the views: the benchmark, the reader's filters and columns, the ranking chosen
(the aggregate ranked by, the tasks ranked over), the sort, the page and Overall's benchmarks.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr

from leaderboard.app.data import aggregates, url_state
from leaderboard.app.data.board import OVERALL, Board
from leaderboard.app.data.filters import DEFAULT_COLUMNS, OPEN_WEIGHTS, SIZES, SOURCES, ZERO_SHOT, Filters, license_of
from leaderboard.app.data.page_statistics import CSV_ROWS, with_statistics
from leaderboard.app.data.ranking import Ranking
from leaderboard.app.data.reported_tier import reported_lines
from leaderboard.app.server import prefetch
from leaderboard.app.server.csv_files import CSV_KEEP, CsvFiles
from leaderboard.app.tabs.assets import COPY_JS, DOWNLOAD_JS, TASKS_JS, url_state_js
from leaderboard.app.tabs.base import (
    DRAW_LATEST,
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
from leaderboard.app.views.overall import overall_frame, overall_html, overall_summary

ID = "board"
LABEL = "Leaderboard"
COLUMN_CHOICES = EXTRA_COLUMNS + ("Missing",)
SHOWN_COLUMNS = tuple(c for c in COLUMN_CHOICES if c in DEFAULT_COLUMNS or c in ("Dimension", "Max tokens"))
# The controls of the reader's view, in the order of the tab's inputs after the benchmark, each with its URL
# parameter; the table's sort and page and Overall's benchmarks follow them.
FILTER_CONTROLS = (
    ("kinds", "kind"),
    ("instructions", "instr"),
    ("sizes", "size"),
    ("search", "q"),
    ("columns", "cols"),
    ("revisions", "revisions"),
    ("zero_shot", "zs"),
    ("licenses", "lic"),
    ("weights", "open"),
    ("sources", "src"),
    ("by", "by"),
    ("tasks", "tasks"),
)
PARAMETERS = {position: parameter for position, (_, parameter) in enumerate(FILTER_CONTROLS, start=1)}


def shown_values(ticked: list[str] | None, offered: list[str], current: list[str]) -> tuple[str, ...]:
    """What a checkbox filter shows: every current value but those the reader unticked (empty: no filter).

    The checkboxes offer the values of the board the page was built on; a value new since (a model with a new
    license or kind, loaded with a new results revision) is not offered, so it is never hidden."""
    hidden = set(offered) - set(ticked or ())
    if not ticked or not hidden:  # nothing ticked is no filter, as every choice ticked is
        return ()
    return tuple(sorted(set(current) - hidden))


def _filters(  # noqa: PLR0913 (one parameter per filter control, with the values the board and the page offer)
    kinds: list[str] | None,
    all_kinds: list[str],
    instructions: str,
    sizes: list[str] | None,
    search: str,
    *,
    zero_shot: str | None = None,
    licenses: list[str] | None = None,
    all_licenses: list[str] | None = None,
    weights: str | None = None,
    sources: list[str] | None = None,
    offered_kinds: list[str] | None = None,
    offered_licenses: list[str] | None = None,
) -> Filters:
    """The filters of the ticked controls; ``all_*`` are the current board's values, ``offered_*`` the values the
    checkboxes offer (the board the page was built on; default: the current ones)."""
    return Filters(
        kinds=shown_values(kinds, all_kinds if offered_kinds is None else offered_kinds, all_kinds),
        instructions=instructions or "any",
        sizes=tuple(sizes or ()) if set(sizes or ()) != set(SIZES) else (),
        search=(search or "").strip(),
        zero_shot=zero_shot if zero_shot is not None and zero_shot in ZERO_SHOT else "any",
        # every choice ticked is no filter (a license no shown model has is not a reason to hide one)
        licenses=()
        if licenses is None
        else shown_values(
            licenses,
            list(all_licenses or ()) if offered_licenses is None else offered_licenses,
            list(all_licenses or ()),
        ),
        open_weights=weights if weights is not None and weights in OPEN_WEIGHTS else "any",
        sources=tuple(sources or ()) if sources is not None and set(sources) != set(SOURCES) else (),
    )


def by_update(ranking: Ranking | None, by: str = "") -> dict[str, Any]:
    """The "Rank by" choices of a benchmark: its declared aggregate (the default, value "") and its other means;
    hidden where it declares only one."""
    found = aggregates.choices(ranking) if ranking is not None else []
    if len(found) < 2:
        return gr.update(choices=[("", "")], value="", visible=False)
    options = [(f"{found[0]} (default)", "")] + [(label, label) for label in found[1:]]
    return gr.update(choices=options, value=by if by in found[1:] else "", visible=True)


def view_ranking(declared: Ranking, by: str = "", tasks: list[str] | tuple[str, ...] | None = None) -> Ranking:
    """The ranking the board draws: over the tasks chosen (Overall-style), else by the aggregate chosen, else the
    declared one."""
    chosen = aggregates.chosen_tasks(declared, tasks)
    return aggregates.over_tasks(declared, chosen) if chosen else aggregates.ranked_by(declared, by)


def tasks_update(ranking: Ranking | None, chosen: list[str] | None = None) -> dict[str, Any]:
    """The "Tasks ranked over" choices of a benchmark: the tasks its aggregate averages, all ticked by default (its
    own ranking); hidden where it averages one task."""
    offered = aggregates.task_choices(ranking) if ranking is not None else []
    if len(offered) < 2:
        return gr.update(choices=[], value=[], visible=False)
    return gr.update(choices=offered, value=list(chosen) if chosen else offered, visible=True)


def overall_update(board: Board, name: str | None, chosen: list[str] | None) -> dict[str, Any]:
    """The Overall set's checkboxes: shown only with Overall, ticked as chosen (default: the default set)."""
    if name != OVERALL:
        return gr.update(visible=False)
    found = board.overall_ranking(chosen or None)
    # tasks in no benchmark are offered only once a link picked one (a local board has dozens of them)
    names = [b.name for b in board.benchmarks if b.name not in board.standalone or b.name in found.benchmarks]
    return gr.update(choices=names, value=found.benchmarks, visible=True)


# -- what the tab draws ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BoardView:
    """What the Leaderboard tab draws: the benchmark (``HOME``, ``OVERALL`` or a benchmark's name), the reader's
    filters and optional columns, every revision or each model's newest, the aggregate ranked by and the tasks
    ranked over (empty: the declared ranking), the sort ("<column key>.asc|desc", empty: by rank), the page, and
    the benchmarks of Overall (empty: its default set)."""

    name: str
    filters: Filters = Filters()
    columns: tuple[str, ...] = ()
    revisions: bool = False
    by: str = ""
    tasks: tuple[str, ...] = ()
    sort: str = ""
    page: int = 1
    overall: tuple[str, ...] = ()

    @property
    def table(self) -> TableRequest:
        """The page of the benchmark's table asked for."""
        return TableRequest(self.filters, self.columns, url_state.parse_sort(self.sort), self.page)

    @property
    def rows(self) -> tuple[Any, ...]:
        """What sets the view's rows (not their sort or page): one CSV each."""
        overall = self.overall if self.name == OVERALL else ()
        return (self.name, self.filters, self.revisions, overall, self.by, self.tasks)


@dataclass(frozen=True)
class _Restored:
    """The values the tab's controls take from a link, each a valid choice (or the control's default)."""

    kinds: list[str]
    instructions: str
    sizes: list[str]
    search: str
    columns: list[str]
    revisions: bool
    zero_shot: str
    licenses: list[str]
    weights: str
    sources: list[str]
    by: str
    tasks: list[str]
    sort: str
    page: int
    overall: list[str]

    def controls(self) -> list[Any]:
        """In the order of the tab's inputs after the benchmark (``BoardTab.view``)."""
        return [getattr(self, name) for name, _ in FILTER_CONTROLS] + [self.sort, self.page, self.overall]


class BoardTab:
    """The tab's drawing for a shell: the view read from the controls or a link, its HTML and its CSV."""

    def __init__(self, shell: Shell) -> None:
        self.shell = shell
        self.csv_files = CsvFiles()
        self.csv_paths: dict[tuple[Any, ...], str | None] = {}  # the CSV of each view's rows, per results revision
        # The values the kind and license checkboxes offer: those of the board the page is built on.
        self.offered: dict[str, list[str]] = {"kinds": shell.kinds_present(), "licenses": list(shell.board().licenses)}

    def view(self, name: str | None, *controls: Any) -> BoardView:
        """The view the controls' values show, as Gradio passes them: ``FILTER_CONTROLS``, the sort, the page, Overall's
        benchmarks."""
        (kinds, instructions, sizes, search, columns, revisions, zero_shot, licenses, weights, sources, by, tasks, sort,
         page, overall) = controls  # fmt: skip
        filters = _filters(
            kinds,
            self.shell.kinds_present(),
            instructions,
            sizes,
            search,
            zero_shot=zero_shot,
            licenses=licenses,
            all_licenses=self.shell.board().licenses,
            weights=weights,
            sources=sources,
            offered_kinds=self.offered["kinds"],
            offered_licenses=self.offered["licenses"],
        )
        return BoardView(
            name=name or "",
            filters=filters,
            columns=tuple(columns or ()),
            revisions=bool(revisions),
            by=by or "",
            tasks=tuple(tasks or ()),
            sort=sort or "",
            page=page_number(page),
            overall=tuple(overall or ()),
        )

    def restored(self, state: url_state.ViewState, name: str, declared: Ranking | None) -> _Restored:
        """The controls' values a link sets: its choices that the board offers, the defaults for the others."""
        all_kinds = self.shell.kinds_present()
        all_licenses = self.shell.board().licenses
        # a link's licenses by their SPDX ids, as the filter names them (lic=mit is MIT)
        linked = None if state.licenses is None else tuple(license_of({"license": v}) for v in state.licenses)
        return _Restored(
            kinds=url_state.known(state.kinds, all_kinds, all_kinds),
            instructions=state.instructions if state.instructions in ("any", "yes", "no") else "any",
            sizes=url_state.known(state.sizes, SIZES, list(SIZES)),
            search=state.search,
            columns=url_state.known(state.columns, COLUMN_CHOICES, list(SHOWN_COLUMNS)),
            revisions=state.revisions,
            zero_shot=state.zero_shot if state.zero_shot in ZERO_SHOT else "any",
            licenses=url_state.known(linked, all_licenses, all_licenses),
            weights=state.open_weights if state.open_weights in OPEN_WEIGHTS else "any",
            sources=url_state.known(state.sources, SOURCES, list(SOURCES)),
            by=state.by if declared is not None and state.by in aggregates.choices(declared)[1:] else "",
            tasks=list(aggregates.chosen_tasks(declared, state.tasks)) if declared is not None else [],
            sort=f"{state.sort[0]}.{state.sort[1]}" if state.sort else "",
            page=state.page,
            overall=url_state.known(state.overall, self.shell.benchmark_list(), []) if state.overall else [],
        )

    def render(self, view: BoardView) -> tuple[str, str, str]:
        """The summary, the table (named by its view: benchmark, sort, page) and the notes."""
        summary, html, notes = self.draw(view)
        return summary, view_html(ID, html, benchmark=view.name or HOME, sort=view.sort, page=view.page), notes

    def draw(self, view: BoardView) -> tuple[str, str, str]:
        current = self.shell.board()
        if view.name == HOME or not view.name:
            return home_summary(current), landing_html(current, self.shell.benchmark_list()), ""
        if view.name == OVERALL:
            found = current.overall_ranking(view.overall or None, all_revisions=view.revisions)
            return overall_summary(found), overall_html(found, view.filters), ""
        return self._draw_benchmark(current, view)

    def _draw_benchmark(self, current: Board, view: BoardView) -> tuple[str, str, str]:
        declared = self.shell.ranking(view.name, view.revisions)
        if declared is None:
            return benchmark_summary(current, view.name, None), render.empty("No results yet."), ""
        ranking = view_ranking(declared, view.by, view.tasks)  # the declared ranking unless the reader picked another
        papers = reported_lines(current, ranking)
        html = board_html(
            ranking,
            view.table,
            papers,
            # the statistics of the declared rows (a derived row shares their cells' intervals)
            lambda lines: prefetch.now(current, declared, aggregates.originals(ranking, lines)),
            lambda lines: prefetch.ahead(current, declared, aggregates.originals(ranking, lines)),
        )
        if ranking is not declared:
            ranking.interval_note = declared.interval_note
        notes = board_notes(ranking, len(papers)) if ranking.lines or papers else ""
        benchmark = current.benchmark(view.name)
        cite = cite_html(current, benchmark) if benchmark is not None else ""  # every benchmark board: what to cite
        return benchmark_summary(current, view.name, ranking, view.filters), html, notes + cite

    def csv(self, view: BoardView) -> str | None:
        """The CSV of the view on screen, as numbers: written when the reader asks for it (its statistics cost
        about a second at thousands of models; written after every view change, they slowed the next click)."""
        key = (self.shell.live.generation, *view.rows)
        path = self.csv_paths.get(key)
        if path is None or not Path(path).exists():  # a file pruned since is written again
            if len(self.csv_paths) >= CSV_KEEP:
                self.csv_paths.clear()
            path = self.csv_paths[key] = self._write_csv(view)
        return path

    def _write_csv(self, view: BoardView) -> str | None:
        current = self.shell.board()
        if view.name == OVERALL:
            found = current.overall_ranking(view.overall or None, all_revisions=view.revisions)
            return self.csv_files.write(overall_frame(found, view.filters), "overall-mean-rank")
        declared = self.shell.ranking(view.name, view.revisions)
        if declared is None or not declared.lines:
            return None
        ranking = view_ranking(declared, view.by, view.tasks)
        exported = [line for line in ranking.lines if view.filters.keep(line.info)]
        # Intervals and tests of every row exported, up to CSV_ROWS rows: past that, computing them
        # for each view would hold the server for seconds; rows not computed say so (narrow the view).
        with_statistics(current, declared, aggregates.originals(ranking, exported[:CSV_ROWS]))
        frame = render.csv_frame(ranking, view.filters)
        if len(exported) > CSV_ROWS:
            frame["intervals"] = [
                "" if i < CSV_ROWS else f"not computed: over {CSV_ROWS} rows (filter to narrow)"
                for i in range(len(frame))
            ]
        return self.csv_files.write(frame, view.name)


# -- layout and events ----------------------------------------------------------------------------------------------


@dataclass
class _Controls:
    """The tab's components, in page order (``_layout``)."""

    kinds: Any
    instructions: Any
    sizes: Any
    search: Any
    columns: Any
    revisions: Any
    zero_shot: Any
    licenses: Any
    weights: Any
    sources: Any
    tasks: Any
    by: Any
    restored_search: Any  # the search a link restored, whose change event the load causes
    sort_box: Any
    page_box: Any
    board_go: Any
    table: Any
    csv: Any
    csv_file: Any
    notes: Any

    @property
    def filters(self) -> list[Any]:
        """The controls of the reader's view, in the order of the tab's inputs (``FILTER_CONTROLS``)."""
        return [getattr(self, name) for name, _ in FILTER_CONTROLS]

    @property
    def outputs(self) -> list[Any]:
        """What every drawing updates: the summary above the tabs (the shell's), the table and the notes."""
        return [self.table, self.notes]


def build(shell: Shell) -> Tab | None:
    board = BoardTab(shell)
    with gr.Tab(LABEL, id=ID) as tab:
        controls = _layout(board.offered)
    view_inputs: list[Any] = [*controls.filters, controls.sort_box, controls.page_box, shell.overall_set]
    # The benchmark shown is the shell's State: a filter's change event that the page load fires
    # (restoring the link's filters) may read the selector before its own update lands.
    inputs: list[Any] = [shell.shown, *view_inputs]
    outputs = [shell.summary, *controls.outputs]
    _wire_events(shell, board, controls, inputs, outputs)
    shell.when_opened(tab, ID, lambda: (), [], [])

    def on_load(load: Load) -> list[Any]:
        state, name = load.state, load.name
        declared = shell.ranking(name)
        restored = board.restored(state, name, declared)
        drawn = board.render(board.view(name, *restored.controls()))
        if state.benchmark and state.benchmark != name:  # a link to a board this one lacks: say so
            drawn = (unknown_benchmark(state.benchmark) + drawn[0], *drawn[1:])
        all_kinds, all_licenses = shell.kinds_present(), shell.board().licenses
        return [
            # Only what the link changes: each control updated costs the browser a redraw.
            changed(restored.kinds, all_kinds),
            changed(restored.instructions, "any"),
            changed(restored.sizes, list(SIZES)),
            changed(state.search, ""),
            changed(restored.columns, list(SHOWN_COLUMNS)),
            changed(state.revisions, False),
            changed(restored.zero_shot, "any"),
            changed(restored.licenses, all_licenses),
            changed(restored.weights, "any"),
            changed(restored.sources, list(SOURCES)),
            by_update(declared, restored.by),
            tasks_update(declared, restored.tasks),
            changed(restored.sort, ""),
            changed(str(state.page), "1"),
            overall_update(shell.board(), name, restored.overall),
            {"q": state.search} if state.search else {},
            *drawn,
        ]

    def on_switch(switch: Switch, *state: Any) -> list[Any]:
        sort, page, chosen = state[-3:]
        declared = shell.ranking(switch.name)
        out: list[Any] = [changed("", sort), changed("1", str(page)), by_update(declared), tasks_update(declared)]
        hidden = OVERALL not in (switch.name, switch.previous)  # the Overall set stays hidden
        out.append(gr.skip() if hidden else overall_update(shell.board(), switch.name, chosen))
        # a new benchmark starts at its own declared aggregate over all its tasks (``by`` and ``tasks`` are dropped)
        view = dataclasses.replace(board.view(switch.name, *state), by="", tasks=(), sort="", page=1)
        return out + list(board.render(view))

    def on_tick(tick: Tick, *state: Any) -> list[Any]:
        return list(board.render(board.view(tick.name, *state))) if tick.changed else skips(outputs)

    c = controls
    return Tab(
        id=ID,
        load=Hook(on_load, [*c.filters, c.sort_box, c.page_box, shell.overall_set, c.restored_search, *outputs]),
        switch=Hook(on_switch, [c.sort_box, c.page_box, c.by, c.tasks, shell.overall_set, *outputs], view_inputs),
        tick=Hook(on_tick, outputs, view_inputs),
        url_parameters=("sort", "p", "overall", "by", "tasks"),
        spinner=c.table,
    )


def _layout(offered: dict[str, list[str]]) -> _Controls:
    """The tab's components, laid out inside its ``gr.Tab``: the filters and columns (folded), the ranking's
    choices, the hidden boxes the table's sort and pager write, the table, the CSV button and the notes."""
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
    restored_search = gr.State({})
    sort_box = gr.Textbox("", elem_id="sort-state", elem_classes=["state-box"], show_label=False)
    page_box = gr.Textbox("1", elem_id="page-state", elem_classes=["state-box"], show_label=False)
    board_go = gr.Button("sort or page", elem_id="board-go", elem_classes=["state-box"])
    table = table_html('<div class="empty" id="board-loading">Loading…</div>', elem_id="board")
    with gr.Row():
        csv = gr.Button("Download CSV of this view", elem_id="download-csv", size="sm", scale=0)
        csv_file = gr.File(visible=False)  # the file the click writes, handed to the browser
    notes = gr.HTML("", elem_id="notes", js_on_load=COPY_JS)  # its cite panel's copy button
    return _Controls(
        kinds=kinds,
        instructions=instructions,
        sizes=sizes,
        search=search,
        columns=columns,
        revisions=revisions,
        zero_shot=zero_shot,
        licenses=licenses,
        weights=weights,
        sources=sources,
        tasks=tasks,
        by=by,
        restored_search=restored_search,
        sort_box=sort_box,
        page_box=page_box,
        board_go=board_go,
        table=table,
        csv=csv,
        csv_file=csv_file,
        notes=notes,
    )


def _wire_events(shell: Shell, board: BoardTab, c: _Controls, inputs: list[Any], outputs: list[Any]) -> None:
    """The tab's own events: a filter, the search, the Overall set, a header click or the pager, the CSV."""

    # A filter or column the reader changes renders page 1 of the new view; its value goes into the URL.
    # Their ``input`` events, not ``change``: the page load sets the link's values and draws them itself; a
    # change event per control it set would redraw the board from the controls as they stood when that event
    # fired (some still at their defaults), and the last answer to arrive would win.
    def on_filter(name: str, *controls: Any) -> tuple[Any, ...]:
        return ("1", *board.render(dataclasses.replace(board.view(name, *controls), page=1)))

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
    for position, control in enumerate(c.filters, start=1):
        if control is c.search:
            continue
        control.input(
            on_filter,
            inputs,
            [c.page_box, *outputs],
            js=TASKS_JS % position
            if control is c.tasks
            else url_state_js({position: PARAMETERS[position]}, defaults, reset=("p",)),
            show_progress="hidden",
            trigger_mode=DRAW_LATEST,
        )

    # The search box: Gradio's Textbox sends ``input`` on key presses only (a pasted name would not filter), so
    # it listens to ``change``, and the one change the page load itself makes (a link's ``q``) draws nothing.
    def on_search(*state: Any) -> list[Any]:
        *view, restored = state
        if restored and view[4] == restored.get("q"):
            return [{}, gr.skip(), *skips(outputs)]
        return [{}, *on_filter(*view)]

    c.search.change(
        on_search,
        [*inputs, c.restored_search],
        [c.restored_search, c.page_box, *outputs],
        js=url_state_js({4: "q"}, defaults, reset=("p",)),
        show_progress="hidden",
    )
    # Header clicks and the pager write the state boxes (assets.SORT_JS): one page, sorted over all rows.
    c.board_go.click(
        lambda *state: board.render(board.view(*state)),
        inputs,
        outputs,
        show_progress="hidden",
        trigger_mode=DRAW_LATEST,
    )
    c.csv.click(lambda *state: board.csv(board.view(*state)), inputs, c.csv_file, show_progress_on=c.csv).then(
        None, c.csv_file, None, js=DOWNLOAD_JS
    )
    shell.overall_set.input(
        on_filter,
        inputs,
        [c.page_box, *outputs],
        js=url_state_js({len(inputs) - 1: "overall"}),  # the last input
        show_progress="hidden",
        trigger_mode=DRAW_LATEST,
    )
