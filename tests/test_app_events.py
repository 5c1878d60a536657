"""The app's events that draw a view from the reader's controls answer the controls' latest state.

Gradio drops an ``input`` or ``click`` event that comes while the last one is still being answered (its
trigger mode "once"). Under load, the last of a reader's quick ticks was lost that way: every task's box was
ticked, while the board and the link still ranked over eleven of twelve tasks. Each such event must be
"always_last": answered again, with the controls as they stand, once the pending answer is in.
"""

from __future__ import annotations


def test_every_control_that_draws_a_view_answers_its_latest_state(tmp_path):
    from leaderboard.app.ui import build_app

    results = tmp_path / "results"
    results.mkdir()
    config = build_app(results).get_config_file()
    names = {component["id"]: component.get("props", {}).get("elem_id") for component in config["components"]}
    modes: dict[tuple[str, str], str] = {}
    for dependency in config["dependencies"]:
        for target, event in dependency["targets"]:
            if event in ("input", "click") and names.get(target):
                modes[(names[target], event)] = dependency["trigger_mode"]

    drawing = [key for key in modes if key[1] == "input"] + [("board-go", "click")]
    for control in ("rank-tasks", "filter-size", "overall-set", "side-pick", "compare-a", "model-pick"):
        assert (control, "input") in drawing, f"{control} no longer listens to input: {sorted(modes)}"
    assert {key: modes[key] for key in drawing} == dict.fromkeys(drawing, "always_last")
    # a button that writes a file or starts tests once per press keeps Gradio's default
    assert modes[("download-csv", "click")] == "once"


def test_a_page_that_opens_queues_its_load_alone(tmp_path):
    """Gradio's queue answers a page's events over one stream and closes it once none is pending. A page that
    opens sends the first tab's select, then its load; on a busy machine the load's answer once went to the
    stream the select's answer had closed, and the page waited for ever. Every tab's select is answered outside
    the queue, but Task views' (its render listens to a state, whose change Gradio reports from the queue only)."""
    from leaderboard.app.ui import build_app

    results = tmp_path / "results"
    results.mkdir()
    config = build_app(results).get_config_file()
    labels = {component["id"]: component.get("props", {}).get("label") for component in config["components"]}
    selects: dict[str, bool] = {}
    loads = []
    for dependency in config["dependencies"]:
        for target, event in dependency["targets"]:
            if event == "select" and target in labels:
                selects[labels[target]] = dependency["queue"] is not False
            if event == "load":
                loads.append(dependency["queue"] is not False)

    assert loads == [True]  # the load itself keeps the queue: one queued event when a page opens
    assert {"Leaderboard", "Model", "Compare two models", "About"} <= set(selects)
    assert {tab for tab, queued in selects.items() if queued} == {"Task views"}
