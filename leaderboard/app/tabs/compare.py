"""The Compare two models tab: the paired difference of two models per task (and per subset on request).

Like the Task views picker, the two pickers are filled when the tab opens; a link's ``a=`` and ``b=``
wait in the tab's state until then.
"""

from __future__ import annotations

from typing import Any

import gradio as gr

from leaderboard.app import render, views
from leaderboard.app.assets import url_state_js
from leaderboard.app.board import OVERALL
from leaderboard.app.comparison_view import choice_value, comparison_html, parse_choice
from leaderboard.app.landing import HOME
from leaderboard.app.tabs.base import Hook, Load, Shell, Switch, Tab, model_choices, table_html

ID = "compare"


def _unfilled(a: str = "", b: str = "") -> dict:
    """The pickers' state: which benchmark they hold (None: none yet), and a link's pair waiting for them."""
    return {"filled": None, "a": a, "b": b}


def build(shell: Shell) -> Tab:
    def compare_choices(name) -> tuple[list[tuple[str, str]], list[str]]:
        """Every model (each revision) with results on the benchmark, and the default pair (#1 and #2)."""
        ranking = shell.ranking(name, revisions=True)
        if ranking is None:
            return [], []
        choices = model_choices(ranking)
        top = [choice_value(line.key) for line in (shell.ranking(name) or ranking).ranked[:2]]
        return choices, top

    def fill_compare(name, waiting, a="", b=""):
        """Both pickers filled for ``name`` (the waiting pair, else the chosen, else #1 and #2), the pair, the state."""
        choices, top = compare_choices(name)
        values = [v for _, v in choices]
        wanted_a, wanted_b = waiting.get("a") or a or "", waiting.get("b") or b or ""
        a = wanted_a if wanted_a in values else (top[0] if top else None)
        b = wanted_b if wanted_b in values and wanted_b != a else next((v for v in top + values if v != a), None)
        filled = {"filled": shell.lists_key(name), "a": "", "b": ""}
        return gr.update(choices=choices, value=a), gr.update(choices=choices, value=b), a, b, filled

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
            found = shell.board().comparison(name, key_a, key_b, subsets=bool(per_subset))
        except BadInput as exc:
            return render.empty(str(exc))
        rows = found.ordered(shell.ranking(name))  # subsets in the board's column order, strata by number
        labels = views.model_labels([key_a, key_b])
        problems = found.problems()
        return comparison_html(
            labels[key_a], labels[key_b], rows, problems, subsets_shown=bool(per_subset), labels=found.labels()
        )

    with gr.Tab("Compare two models", id=ID) as tab:
        lists = gr.State(_unfilled())
        with gr.Row():
            compare_a = gr.Dropdown([], value=None, label="Model A", elem_id="compare-a")
            compare_b = gr.Dropdown([], value=None, label="Model B", elem_id="compare-b")
        subsets = gr.Button("Per subset (query types, domains, strata: slower)", elem_id="compare-subsets", size="sm")
        comparison = table_html("", elem_id="compare")

    def on_open(name, a, b, filled):
        if filled.get("filled") == shell.lists_key(name):
            return gr.skip(), gr.skip(), render_compare(name, a, b), filled
        a_update, b_update, a, b, filled = fill_compare(name, filled, a, b)
        return a_update, b_update, render_compare(name, a, b), filled

    outputs = [compare_a, compare_b, comparison, lists]
    shell.when_opened(tab, ID, on_open, [shell.selector, compare_a, compare_b, lists], outputs)
    pair = [shell.selector, compare_a, compare_b]
    subsets.click(lambda name, a, b: render_compare(name, a, b, True), pair, comparison)
    for position, control in ((1, compare_a), (2, compare_b)):
        control.input(render_compare, pair, comparison, js=url_state_js({position: "a" if position == 1 else "b"}))

    def on_load(load: Load) -> list[Any]:
        waiting = _unfilled(load.state.a, load.state.b)
        if load.tab != ID:
            return [gr.skip(), gr.skip(), gr.skip(), waiting]
        a_update, b_update, a, b, filled = fill_compare(load.name, waiting)
        return [a_update, b_update, render_compare(load.name, a, b), filled]

    def on_switch(switch: Switch, filled) -> list[Any]:
        # The switch dropped the link's pair from the URL: none waits any more.
        if switch.tab == ID:
            a_update, b_update, a, b, filled = fill_compare(switch.name, _unfilled())
            return [a_update, b_update, render_compare(switch.name, a, b), filled]
        if filled.get("filled") is None:
            return [gr.skip(), gr.skip(), gr.skip(), _unfilled()]
        # Emptied: the tab fills them for this benchmark when it opens.
        return [gr.update(choices=[], value=None), gr.update(choices=[], value=None), gr.skip(), _unfilled()]

    return Tab(
        id=ID,
        load=Hook(on_load, outputs),
        switch=Hook(on_switch, outputs, [lists]),
        url_parameters=("a", "b"),
    )
