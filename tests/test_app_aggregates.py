"""Every aggregate a benchmark declares (its ranking's, and its other means) on the model page, side by side and in
Compare: its value, its rank among the models ranked by it, its interval where per-query values exist (the same
bootstrap as a cell's), the paired test of two models on it (``leaderboard compare``'s statistics), and the plain
difference, marked, where a run is imported.

The app fixtures, with "Demo retrieval" declaring two other means over columns of its board: one over the column its
results have per-query values of (nDCG@10, as its aggregate), one over a column without (MRR@10)."""

from __future__ import annotations

import json

import pytest
from app_fixtures import build_results, folder_name

from leaderboard.app.data import aggregates
from leaderboard.app.data.comparison import aggregate_differences
from leaderboard.app.data.many_models import picked, table_rows
from leaderboard.app.data.page_statistics import with_statistics
from leaderboard.app.server import loading
from leaderboard.app.views.compare import aggregates_html
from leaderboard.app.views.model import model_page_html
from leaderboard.app.views.side import side_html

IMPORTED_MODEL = "mteb-imported-model"
SIDE = "nDCG@10, a side mean"  # over the per-query values of the demo task
PLAIN = "mean MRR@10"  # over a metric the results hold no per-query values of


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    root = build_results(tmp_path_factory.mktemp("aggregates") / "results")
    declared = json.loads((root / "benchmarks.json").read_text())
    demo = next(b for b in declared if b["name"] == "Demo retrieval")
    demo["also"] = [
        {"label": SIDE, "formula": "nDCG@10(demo)", "tasks": [{"task": "demo", "metric": "ndcg_at_10"}]},
        {"label": PLAIN, "formula": "MRR@10(demo)", "tasks": [{"task": "demo", "metric": "mrr_at_10"}]},
    ]
    (root / "benchmarks.json").write_text(json.dumps(declared))
    # a run imported from mteb: no per-query values
    source = next(p for p in root.rglob("demo.json") if json.loads(p.read_text())["model"]["name"] == "bm25")
    data = json.loads(source.read_text())
    data["model"].update(name=IMPORTED_MODEL, revision="m1")
    data["model"]["metadata"].update(name=IMPORTED_MODEL)
    data["per_query"] = None
    data["confidence_intervals"] = {}
    data["imported_from"] = {"format": "mteb", "file": "x/demo.json", "mteb_version": "1.38.0"}
    target = root / folder_name(IMPORTED_MODEL) / "m1" / "demo.json"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(data))
    return loading.load(root, public=True, persist=False)


def test_each_aggregate_has_its_value_rank_and_the_interval_of_its_queries(board):
    ranking = board.ranking("Demo retrieval", with_stats=False)
    assert aggregates.choices(ranking) == ["nDCG@10", SIDE, PLAIN]
    with_statistics(board, ranking, ranking.lines)
    ndcg, mrr = (next(c for c in ranking.columns if c.spec.metric == m) for m in ("ndcg_at_10", "mrr_at_10"))
    by = {label: aggregates.ranked_by(ranking, label) for label in (SIDE, PLAIN)}
    for line in ranking.ranked:
        declared, side, plain = aggregates.aggregate_values(ranking, line)
        assert (declared.value, declared.rank, declared.interval) == (
            line.aggregate,
            line.rank,
            line.aggregate_interval,
        )
        assert (side.value, plain.value) == (line.values[ndcg.key], line.values[mrr.key])
        for value in (side, plain):
            row = next(r for r in by[value.label].ranked if r.key == line.key)
            assert value.rank == row.rank and value.ranked == len(by[value.label].ranked)
        assert plain.interval is None  # no per-query values of MRR@10
        if line.imported:
            assert side.interval is None
        else:  # a mean over one column: that column's own bootstrap interval, the aggregate's
            assert side.interval is not None and side.interval == pytest.approx(line.intervals[ndcg.key])
            assert side.interval == pytest.approx(line.aggregate_interval)


def test_the_model_page_and_side_by_side_show_every_aggregate(board):
    html = model_page_html(board, "tiny-dense-model")
    assert all(f'data-aggregate="{label}"' in html for label in ("nDCG@10", SIDE, PLAIN))
    assert 'data-aggregate="nDCG@10"><td class="c-text mp-col" title="nDCG@10(demo)">nDCG@10 ↑ (default)<' in html
    imported = model_page_html(board, IMPORTED_MODEL)
    assert "no interval: run by mteb 1.38, imported" in imported
    assert "mteb 1.38, imported (Demo retrieval)" in imported  # what ran it, not the plugin's version
    picks = picked(board, ["bm25", "tiny-dense-model", IMPORTED_MODEL])
    (demo,) = [part for part in picks.parts if part.benchmark == "Demo retrieval"]
    rows = table_rows(demo)
    assert [row.label for row in rows[:3]] == ["nDCG@10", SIDE, PLAIN] and rows[0].default and not rows[1].default
    side = side_html(picks)
    assert f'data-row="{SIDE} ↑ (not the default ranking)"' in side


def test_compare_tests_each_aggregate_as_compare_tests_its_task(board):
    every = board.ranking("Demo retrieval", with_stats=False, all_revisions=True)
    lines = {line.name: line for line in every.lines}
    a, b = lines["bm25"], lines["tiny-dense-model"]
    declared, *sides = aggregate_differences(board, every, a, b)
    task = board.comparison("Demo retrieval", a.key, b.key, subsets=False).tasks[0]  # nDCG@10 of demo
    # a one-task aggregate: compare's own paired interval and randomization p (checked against scipy elsewhere)
    assert declared.test.difference == pytest.approx(task.difference)
    assert (declared.test.low, declared.test.high) == pytest.approx((task.ci_low, task.ci_high))
    assert declared.test.p_value == pytest.approx(task.p_value)
    side, plain = sides
    assert (side.test.low, side.test.high, side.test.p_value) == pytest.approx(
        (task.ci_low, task.ci_high, task.p_value)
    )
    assert plain.test is None and plain.why == "no interval: per-query values missing"
    assert plain.difference == pytest.approx(a.side[PLAIN] - b.side[PLAIN])
    imported = aggregate_differences(board, every, a, lines[IMPORTED_MODEL])
    assert all(row.test is None and row.why == "no interval: run by mteb 1.38, imported" for row in imported)
    html = aggregates_html("bm25", IMPORTED_MODEL, imported)
    assert 'id="compare-aggregates"' in html and "no interval: run by mteb 1.38, imported" in html


def test_score_over_release_date_plots_each_ranked_model_with_its_interval(board, tmp_path):
    from leaderboard.app.views import charts
    from leaderboard.app.views.time import dated, time_frame

    ranking = board.ranking("Demo retrieval", with_stats=False)
    dates = {"bm25": "2024-02-01", "tiny-dense-model": "2025-07-15T00:00:00", IMPORTED_MODEL: "2023-03-03"}
    for line in ranking.ranked:  # the fixtures record no release date: as model_meta.json would give them
        if line.name in dates:
            line.info = {**line.info, "release_date": dates[line.name]}
    with_statistics(board, ranking, dated(ranking))
    frame, undated = time_frame(ranking)
    assert set(frame["model"]) == set(dates) and set(undated) == {line.name for line in ranking.ranked} - set(dates)
    for row in frame.itertuples():
        line = next(line for line in ranking.ranked if line.name == row.model)
        assert row.released == dates[row.model][:10] and row.score == line.aggregate
        if line.imported:
            assert row.low is None or row.low != row.low  # no interval: marked as imported
            assert row.source == charts.SOURCE_IMPORTED
        else:
            assert (row.low, row.high) == pytest.approx(line.aggregate_interval)
    spec = charts.time_chart(frame, "nDCG@10", 500).to_dict()
    assert [layer["mark"]["type"] for layer in spec["layer"]] == ["rule", "point"]  # whiskers and points, no line
