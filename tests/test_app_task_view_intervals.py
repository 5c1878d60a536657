"""Task views' bars carry each bar's 95% interval: the bootstrap of the queries behind that score, the very interval
the board's cell of the same score shows. Over the committed real ComLQ runs (bm25, all-MiniLM-L6-v2), whose bars
view draws nDCG@10 per query type."""

from __future__ import annotations

import pytest
from numbers_fixtures import copy_real_results

from leaderboard.app.data import task_views
from leaderboard.app.data.page_statistics import with_statistics
from leaderboard.app.server import loading
from leaderboard.app.views import charts


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    from leaderboard.cli.serve import registered_benchmarks

    root = tmp_path_factory.mktemp("view-intervals")
    copy_real_results(root, tasks=("comlq",))
    return loading.load(root, registered_benchmarks(), persist=False)


def test_each_bar_has_the_interval_of_the_boards_cell_of_the_same_score(board):
    ranking = board.ranking("ComLQ", with_stats=False)
    with_statistics(board, ranking, ranking.lines)
    (bars,) = [v for v in task_views.views_of(board, "comlq") if v.kind == "bars"]
    paths = {line.key: line.paths["comlq"] for line in ranking.lines}
    frame = task_views.view_frame(board, bars, paths, "comlq")
    columns = {(c.spec.subset, c.spec.metric): c for c in ranking.columns}
    lines = {line.name: line for line in ranking.lines}
    checked = 0
    for row in frame.itertuples():
        subset, metric = bars.axis[row.order]
        column = columns.get((subset, metric))
        assert row.low <= row.value <= row.high  # every bar here has per-query values behind it
        if column is not None:  # the board shows the same score: the same interval
            assert (row.low, row.high) == pytest.approx(lines[row.model].intervals[column.key])
            checked += 1
    assert checked == 2 * 14  # two models, fourteen query types
    chart = charts.view_chart(frame, bars, "nDCG@10").to_dict()
    marks = [layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"] for layer in chart["layer"]]
    assert marks == ["bar", "rule"]  # the bars, then their whiskers


def test_a_view_off_the_main_split_or_without_per_query_values_has_no_interval(board):
    from dataclasses import replace

    ranking = board.ranking("ComLQ", with_stats=False)
    (bars,) = [v for v in task_views.views_of(board, "comlq") if v.kind == "bars"]
    paths = {line.key: line.paths["comlq"] for line in ranking.lines}
    other = task_views.view_frame(board, replace(bars, split="dev"), paths, "comlq")
    assert other["low"].isna().all()
    plain = task_views.view_frame(board, bars, paths)  # no task named: the stored intervals only (none here)
    assert plain["low"].isna().all()
