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


def test_every_event_that_draws_a_view_is_answered_in_its_own_request(tmp_path):
    """Gradio's queue answers a page's events over one stream and closes it once none is pending; an event sent
    as it closed (the page load, sent right after the first tab's select) was never answered on a busy machine.
    Every event that draws a view (the load, each tab's select, the controls, the poll's tick, the views' render)
    is outside the queue; only the buttons that start work keep it."""
    from leaderboard.app.ui import build_app

    results = tmp_path / "results"
    results.mkdir()
    config = build_app(results, poll_seconds=60).get_config_file()
    components = {component["id"]: component for component in config["components"]}

    def named(target: int) -> str:
        component = components.get(target, {})
        props = component.get("props", {})
        return str(props.get("elem_id") or props.get("label") or component.get("type") or target)

    queued, direct = set(), set()
    for dependency in config["dependencies"]:
        if dependency.get("backend_fn") is False:  # runs in the browser only (the CSV's download)
            continue
        for target, event in dependency["targets"]:
            (direct if dependency["queue"] is False else queued).add((named(target), event))

    assert queued == {("download-csv", "click"), ("compare-subsets", "click"), ("side-tests", "click")}
    for event in ("load", "tick", "select", "input", "change", "release"):
        assert any(kind == event for _, kind in direct), f"no {event} event outside the queue: {sorted(direct)}"
    for tab in ("Leaderboard", "Task views", "Compare two models", "Side by side", "Model", "About"):
        assert (tab, "select") in direct
