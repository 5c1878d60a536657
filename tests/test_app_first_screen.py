"""The first screen (issue 38.3): tasks in no benchmark folded into one line, Overall's default set (the benchmarks
most models share, or a plain request to pick), and Overall's picker without tasks in no benchmark."""

from __future__ import annotations

import re

from test_app_board_table import FakeBoard, make_ranking

from leaderboard.app.data import overall
from leaderboard.app.data.board import STANDALONE
from leaderboard.app.data.filters import Filters
from leaderboard.app.data.ranking import Ranking
from leaderboard.app.views import landing
from leaderboard.app.views import overall as overall_view
from leaderboard.app.views.overall import overall_summary


def _ranking(name: str, models: list[str]) -> Ranking:
    found = make_ranking(len(models), name=name)
    for line, model in zip(found.ranked, models, strict=True):
        line.key, line.info = (model, "r1"), {"name": model, "kind": "dense"}
    return found


class Rankings(FakeBoard):
    def __init__(self, rankings, standalone=()):
        super().__init__(rankings)
        self.overall_benchmarks = [n for n in rankings if n not in standalone]
        self.benchmarks = []
        self.standalone = frozenset(standalone)


def test_tasks_in_no_benchmark_are_one_closed_details_line_and_benchmarks_keep_their_cards():
    loose = [f"mteb:Task{i}{STANDALONE}" for i in range(20)]
    rankings = {"Bench": _ranking("Bench", ["a", "b"]), "Empty": None}
    rankings |= {name: _ranking(name, ["a"]) if i == 0 else make_ranking(0, 3, name) for i, name in enumerate(loose)}
    board = Rankings(rankings, standalone=loose)
    html = landing.landing_html(board, list(rankings))  # type: ignore[arg-type]
    assert re.findall(r'data-benchmark="([^"]+)"', html) == ["Bench"]  # no card for a task in no benchmark
    folded = re.search(r'<details class="home-empty" id="home-tasks">(.*?)</details>', html, re.S)
    assert folded and "<details open" not in html
    assert "20 tasks in no benchmark (1 with ranked models)" in folded.group(1)
    assert folded.group(1).count("<li>") == 20 and "mteb:Task0</a> (1 ranked)" in folded.group(1)
    assert "mteb:Task1</a> (3 unranked)" in folded.group(1)
    without = re.search(r'id="home-without">(.*?)</div>', html, re.S)
    assert without and "Empty" in without.group(1) and "Task" not in without.group(1)


def test_tasks_in_no_benchmark_get_cards_when_no_benchmark_ranks_a_model():
    loose = f"mteb:SciFact{STANDALONE}"
    board = Rankings({"Bench": None, loose: _ranking(loose, ["a"])}, standalone=[loose])
    html = landing.landing_html(board, ["Bench", loose])  # type: ignore[arg-type]
    assert re.findall(r'data-benchmark="([^"]+)"', html) == [loose] and "home-tasks" not in html


def test_an_imported_rows_source_sits_under_its_name_not_in_the_score_cell():
    found = _ranking("Bench", ["a", "b"])
    found.ranked[0].imported = "run by mteb 1.38, imported"
    html = landing.landing_html(Rankings({"Bench": found}), ["Bench"])  # type: ignore[arg-type]
    model = re.search(r'<td class="c-model"[^>]*>(.*?)</td>', html).group(1)
    score = re.search(r'<td class="c-agg"[^>]*>(.*?)</td>', html).group(1)
    assert "run by mteb 1.38, imported" in model and "mteb" not in score


def test_overall_defaults_to_the_benchmarks_most_models_share():
    many = [f"m{i}" for i in range(10)]
    rankings = {
        "A": _ranking("A", many),
        "B": _ranking("B", many[:8]),
        "C": _ranking("C", ["m0", "x1", "x2"]),  # shares one model with A and B
        "D": _ranking("D", ["y1", "y2"]),  # shares none
    }
    found = overall.overall_ranking(Rankings(rankings))  # type: ignore[arg-type]
    # A+B: 8 models x 2 benchmarks = 16 ranks; A+B+C: 1 x 3 = 3; so A and B, and the page names C and D
    assert found.default and found.benchmarks == ["A", "B"] and len(found.ranked) == 8
    assert found.others == ["C", "D"]
    summary = overall_summary(found)
    assert (
        "2 benchmarks most models share (A, B: 8 models ranked in all; tick others above to add them: C, D)" in summary
    )
    # every model on every benchmark: all of them, as before
    same = {name: _ranking(name, many[:3]) for name in "ABC"}
    assert overall.overall_ranking(Rankings(same)).benchmarks == ["A", "B", "C"]  # type: ignore[arg-type]


def test_overall_without_a_shared_model_asks_the_reader_to_pick():
    rankings = {"A": _ranking("A", ["a1", "a2"]), "B": _ranking("B", ["b1"])}
    found = overall.overall_ranking(Rankings(rankings))  # type: ignore[arg-type]
    assert found.benchmarks == [] and found.others == ["A", "B"]
    html = overall_view.overall_html(found, Filters())
    assert "No two benchmarks rank a common model" in html and "tick the benchmarks" in html and "A, B" in html
    one = overall.overall_ranking(Rankings({"A": rankings["A"], "B": None}))  # type: ignore[arg-type]
    assert one.benchmarks == ["A"]  # one benchmark with ranked models: Overall is its ranks


def test_overalls_picker_lists_no_task_in_no_benchmark_unless_picked():
    from types import SimpleNamespace

    from leaderboard.app.tabs.board import overall_update

    loose = f"t{STANDALONE}"
    rankings = {"A": _ranking("A", ["m"]), "B": _ranking("B", ["m"]), loose: _ranking(loose, ["m"])}
    board = Rankings(rankings, standalone=[loose])
    board.benchmarks = [SimpleNamespace(name=n) for n in rankings]
    board.overall_ranking = lambda chosen=None: overall.overall_ranking(board, chosen)  # type: ignore[attr-defined]
    assert overall_update(board, "Overall (mean rank)", None)["choices"] == ["A", "B"]  # type: ignore[arg-type]
    picked = overall_update(board, "Overall (mean rank)", ["A", loose])  # type: ignore[arg-type]
    assert picked["choices"] == ["A", "B", loose]
