"""The Compare two models tab: the paired difference of two models per task (and per subset on request).

Like the Task views picker, the two pickers are filled when the tab opens; a link's ``a=`` and ``b=``
(model names, see ``picks``) wait in the tab's state until then. A link's pick that names no model of
the benchmark is named in the tab and its picker left empty: never replaced by #1 or #2.
"""

from __future__ import annotations

from typing import Any

import gradio as gr

from leaderboard.app.data import task_views
from leaderboard.app.data.aggregates import task_choices
from leaderboard.app.data.board import OVERALL
from leaderboard.app.data.comparison import ModelComparison, aggregate_differences
from leaderboard.app.data.values import ModelKey
from leaderboard.app.tabs.assets import url_state_js
from leaderboard.app.tabs.base import DRAW_LATEST, Hook, Load, Shell, Switch, Tab, table_html, view_html
from leaderboard.app.tabs.picks import Picks, unknown_note
from leaderboard.app.views import render
from leaderboard.app.views.compare import aggregates_html, comparison_html, plain_difference_html
from leaderboard.app.views.landing import HOME

ID = "compare"
LABEL = "Compare two models"


def _unvouched(board: Any, name: str, key_a: Any, key_b: Any, labels: dict[Any, str]) -> list[str]:
    """On a board with the queue's key: a line when either side's per-query values carry no attestation that
    holds (the intervals and p rest on them; anyone with write access to the results could have changed them)."""
    if board.queue_key is None:
        return []
    ranking = board.ranking(name, with_stats=False, all_revisions=True)  # the ranking the comparison reads
    lines = {line.key: line for line in ranking.lines} if ranking is not None else {}
    pushed = [labels[k] for k in (key_a, key_b) if k in lines and not lines[k].attested]
    if not pushed:
        return []
    return [
        "The intervals and p rest on per-query values that no attestation vouches for: "
        f"{' and '.join(pushed)} not evaluated by the queue."
    ]


def _unfilled(a: str = "", b: str = "") -> dict[str, Any]:
    """The pickers' state: which benchmark they hold (None: none yet), and a link's pair waiting for them."""
    return {"filled": None, "a": a, "b": b}


class CompareTab:
    """The tab's drawing for a shell: the pickers filled for a benchmark, and the comparison of the pair picked."""

    def __init__(self, shell: Shell) -> None:
        self.shell = shell

    def picks_of(self, name: str) -> Picks:
        """Every model (each revision) with results on the benchmark."""
        return Picks(self.shell.ranking(name), self.shell.ranking(name, revisions=True))

    def fill(self, name: str, waiting: dict[str, Any], a: str = "", b: str = "") -> tuple[Any, ...]:
        """Both pickers filled for ``name``: the link's pair (waiting), else the pair chosen, else #1 and #2.

        A pick that names no model of the benchmark leaves its picker empty and is named in the tab.
        Returns the two pickers' updates, the pair, the note naming unknown picks, and the new state."""
        picks = self.picks_of(name)
        ranking = self.shell.ranking(name)
        top = [picks.value(line.key) for line in ranking.ranked[:2]] if ranking else []
        asked = {"a": waiting.get("a") or a or "", "b": waiting.get("b") or b or ""}
        found = {side: picks.key(pick) for side, pick in asked.items()}
        pair = {side: picks.value(key) if key else None for side, key in found.items()}
        if not asked["a"]:
            pair["a"] = top[0] if top else None
        if not asked["b"]:
            pair["b"] = next((v for v in top + [picks.value(key) for key in picks.keys] if v != pair["a"]), None)
        notes = [unknown_note([asked[side]], name, side) for side in ("a", "b") if asked[side] and found[side] is None]
        choices = picks.choices(keep=[value for value in pair.values() if value])
        updates = [gr.update(choices=choices, value=pair[side]) for side in ("a", "b")]
        filled = {"filled": self.shell.lists_key(name), "a": "", "b": ""}
        return *updates, pair["a"], pair["b"], " ".join(notes), filled

    def render(self, name: str | None, a: str | None, b: str | None, per_subset: bool = False, note: str = "") -> str:
        shown = self.draw(name, a, b, per_subset)
        if note:
            shown = f'<p class="note warn" id="compare-unknown">{note}</p>' + shown
        return view_html(ID, shown, benchmark=name or HOME, a=a or "", b=b or "", subsets=int(bool(per_subset)))

    def draw(self, name: str | None, a: str | None, b: str | None, per_subset: bool) -> str:
        if not name or name in (HOME, OVERALL):
            return render.empty("Pick a benchmark to compare two of its models.")
        if not a or not b:  # before the ranking of every revision is looked up
            return render.empty("Pick two models (A and B) to compare.")
        picks = self.picks_of(name)
        key_a, key_b = picks.key(a), picks.key(b)
        if key_a is None or key_b is None:  # a name typed in a picker
            unknown = [pick for pick, key in ((a, key_a), (b, key_b)) if key is None]
            return render.empty(unknown_note(unknown, name))
        if key_a == key_b:
            return render.empty("Pick two different models.")
        from leaderboard.errors import BadInput

        try:  # the task rows first (fast); the subsets (a test each) on request; both cached per pair
            found = self.shell.board().comparison(name, key_a, key_b, subsets=bool(per_subset))
        except BadInput as exc:
            return render.empty(str(exc))
        return self._comparison_html(name, (key_a, key_b), found, per_subset)

    def _comparison_html(
        self, name: str, pair: tuple[ModelKey, ModelKey], found: ModelComparison, per_subset: bool
    ) -> str:
        """The aggregates' differences (where a benchmark has more than a task row's), each task's and subset's
        paired test, and the plain differences of the tasks not compared over queries."""
        board = self.shell.board()
        key_a, key_b = pair
        rows = found.ordered(self.shell.ranking(name))  # subsets in the board's column order, strata by number
        labels = task_views.model_labels([key_a, key_b])
        problems = found.problems() + _unvouched(board, name, key_a, key_b, labels)
        every = board.ranking(name, with_stats=False, all_revisions=True)  # the rows the pickers list
        lines = {line.key: line for line in every.lines} if every is not None else {}
        plain = aggregates = ""
        if every is not None and key_a in lines and key_b in lines:
            untested = {task for task, _ in found.skipped}  # the tasks not compared over queries
            plain = plain_difference_html(
                labels[key_a], labels[key_b], lines[key_a], lines[key_b], every.columns, untested
            )
            # the aggregates the ranking uses, first, where one is more than a task row below repeats (a mean over
            # several tasks, or another declared mean)
            if len(task_choices(every)) > 1 or len(getattr(every.benchmark, "also", ()) or ()) > 0:
                differences = aggregate_differences(board, every, lines[key_a], lines[key_b])
                aggregates = aggregates_html(labels[key_a], labels[key_b], differences)
        return aggregates + comparison_html(
            labels[key_a],
            labels[key_b],
            rows,
            problems,
            subsets_shown=bool(per_subset),
            labels=found.labels(),
            plain=plain,
        )


def build(shell: Shell) -> Tab | None:
    compare = CompareTab(shell)
    with gr.Tab(LABEL, id=ID) as tab:
        lists = gr.State(_unfilled())
        with gr.Row():
            # Custom values: a name typed is resolved as a link's is; and the value a picker emptied on a
            # benchmark switch may still send (Gradio's frontend keeps some) is not refused by Gradio.
            compare_a = gr.Dropdown([], value=None, label="Model A", elem_id="compare-a", allow_custom_value=True)
            compare_b = gr.Dropdown([], value=None, label="Model B", elem_id="compare-b", allow_custom_value=True)
        subsets = gr.Button("Per subset (query types, domains, strata: slower)", elem_id="compare-subsets", size="sm")
        comparison = table_html("", elem_id="compare")

    def on_open(name: str, a: str, b: str, filled: dict[str, Any]) -> tuple[Any, ...]:
        if filled.get("filled") == shell.lists_key(name):  # drawn for this benchmark (by the load, when the
            return gr.skip(), gr.skip(), gr.skip(), filled  # link opens this tab: its select fires after)
        if filled.get("filled") is None:  # never filled, or emptied by a switch: what they hold is stale
            a = b = ""
        a_update, b_update, a, b, note, filled = compare.fill(name, filled, a, b)
        return a_update, b_update, compare.render(name, a, b, note=note), filled

    outputs = [compare_a, compare_b, comparison, lists]
    shell.when_opened(tab, ID, on_open, [shell.selector, compare_a, compare_b, lists], outputs)
    pair = [shell.selector, compare_a, compare_b]
    subsets.click(lambda name, a, b: compare.render(name, a, b, True), pair, comparison)
    for position, control in ((1, compare_a), (2, compare_b)):
        control.input(
            compare.render,
            pair,
            comparison,
            js=url_state_js({position: "a" if position == 1 else "b"}),
            trigger_mode=DRAW_LATEST,
        )

    def on_load(load: Load) -> list[Any]:
        waiting = _unfilled(load.state.a, load.state.b)
        if load.tab != ID:
            return [gr.skip(), gr.skip(), gr.skip(), waiting]
        a_update, b_update, a, b, note, filled = compare.fill(load.name, waiting)
        return [a_update, b_update, compare.render(load.name, a, b, note=note), filled]

    def on_switch(switch: Switch, filled: dict[str, Any]) -> list[Any]:
        # The switch dropped the link's pair from the URL: none waits any more.
        if switch.tab == ID:
            a_update, b_update, a, b, _, filled = compare.fill(switch.name, _unfilled())
            return [a_update, b_update, compare.render(switch.name, a, b), filled]
        if filled.get("filled") is None:
            return [gr.skip(), gr.skip(), gr.skip(), _unfilled()]
        # Emptied, with the comparison: the tab fills them for this benchmark when it opens.
        emptied = gr.update(choices=[], value=None)
        return [emptied, emptied, compare.render(switch.name, None, None), _unfilled()]

    return Tab(
        id=ID,
        load=Hook(on_load, outputs),
        switch=Hook(on_switch, outputs, [lists]),
        url_parameters=("a", "b"),
    )
