"""A metric has one name wherever a reader sees it (the app's headers, compare's terminal table, the paper
formats): ``metrics.labels.metric_label``. Results written before labels existed (the committed baseline
runs) name their metrics through the task's views, the retrieval names and, for other snake_case names,
the words themselves; JSON and CSV keep the names as they are."""

from __future__ import annotations

import json

import pytest
from conftest import run_cli
from numbers_fixtures import copy_real_results

from leaderboard.metrics.labels import metric_label

OLD_NEGCONSTRAINT = {  # as the committed baseline results declare NegConstraint: no metric labels
    "metrics": [{"name": "paired_win_rate"}, {"name": "violation_at_1"}, {"name": "ndcg_at_10"}],
    "views": [
        {"subsets": ["default", "category=A - a"], "metrics": ["paired_win_rate"], "labels": {"default": "all"}},
        {"subsets": ["default"], "metrics": ["violation_at_1"], "labels": {"violation_at_1": "violator in top 1 ↓"}},
    ],
}


@pytest.mark.parametrize(
    ("task", "metric", "label"),
    [
        ({"metrics": [{"name": "mean_win_rate", "label": "mean WR"}]}, "mean_win_rate", "mean WR"),  # declared
        (OLD_NEGCONSTRAINT, "violation_at_1", "violator in top 1 ↓"),  # a view over metrics names it
        (OLD_NEGCONSTRAINT, "ndcg_at_10", "nDCG@10"),  # the retrieval names
        (OLD_NEGCONSTRAINT, "paired_win_rate", "paired win rate"),  # snake_case: its words
        ({"views": [{"subsets": ["a", "b"], "labels": {"default": "x"}}]}, "default", "default"),  # subsets' labels
        (None, "recall_at_100", "Recall@100"),
        (None, "p-MRR", "p-MRR"),  # not snake_case: as it is
        (None, "NDCG_at_10", "NDCG_at_10"),
        (None, "decline", "decline"),
    ],
)
def test_metric_label(task, metric, label):
    assert metric_label(task, metric) == label


@pytest.fixture(scope="module")
def baselines(tmp_path_factory):
    root = tmp_path_factory.mktemp("labels")
    copy_real_results(root)
    return root


def test_the_apps_headers_name_metrics_as_the_cli_does(baselines):
    from leaderboard.app.server import loading
    from leaderboard.cli.serve import registered_benchmarks

    board = loading.load(baselines, registered_benchmarks(), persist=False)
    seen = {}
    for name in ("ComLQ", "NegConstraint"):
        for column in board.ranking(name).columns:
            assert column.metric_label == metric_label(board.tasks[column.spec.task], column.spec.metric)
            seen[column.spec.metric] = column.metric_label
    assert seen["ndcg_at_10"] == "nDCG@10" and seen["paired_win_rate"] == "paired win rate"
    assert seen["lsnc_lexical_v1_at_10"] == "LSNC@10 (lexical-v1)"


def test_compares_terminal_table_names_the_metric_and_json_keeps_its_name(baselines, tmp_path):
    args = ("compare", "bm25", "all-MiniLM-L6-v2", "-t", "negconstraint", "--results", str(baselines))
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    table = run_cli(*args, "--resamples", "200", "--per-subset", env=env)
    assert table.returncode == 0, table.stderr
    assert "nDCG@10" in table.stdout and "paired win rate" in table.stdout
    assert "ndcg_at_10" not in table.stdout and "paired_win_rate" not in table.stdout
    document = json.loads(run_cli(*args, "--resamples", "200", "--per-subset", "--format", "json", env=env).stdout)
    assert document["tasks"][0]["metric"] == "ndcg_at_10"
    assert {"paired_win_rate", "violation_at_1"} <= {row["metric"] for row in document["subsets"]["negconstraint"]}


def test_run_and_show_tables_name_the_main_metric_and_csv_keeps_its_name(baselines, tmp_path):
    import csv
    import io

    ran = run_cli("run", "-m", "bm25", "-t", "demo", "--output", str(tmp_path / "r"), "--quiet")
    assert ran.returncode == 0, ran.stderr
    assert "nDCG@10" in ran.stdout and "ndcg_at_10" not in ran.stdout
    shown = run_cli("show", str(baselines), env={"COLUMNS": "200"})  # results written before labels
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.count("nDCG@10") == 4 and "ndcg_at_10" not in shown.stdout
    rows = list(csv.DictReader(io.StringIO(run_cli("show", str(baselines), "--format", "csv").stdout)))
    assert len(rows) == 4 and {row["main_score"] for row in rows} == {"ndcg_at_10"}
