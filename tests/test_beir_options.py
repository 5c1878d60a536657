"""BEIR conventions as task options: ignore_identical_ids (on by default) and relevance_level."""

from __future__ import annotations

import pytest
from conftest import write_beir

import leaderboard
from leaderboard.errors import BadInput
from leaderboard.metrics.retrieval import drop_identical_ids, per_query_scores

# Query ids that are also document ids (as in ArguAna or Quora): each query's own document scores
# exactly as its relevant one and wins the tie (trec order: id descending, "q1" > "d1").
CORPUS = {"q1": "apple banana", "q2": "cherry date", "d1": "apple fruit", "d2": "cherry fruit"}
QUERIES = {"q1": "apple", "q2": "cherry"}
QRELS = {"q1": {"d1": 1}, "q2": {"d2": 1}}


@pytest.fixture
def folder(tmp_path):
    return write_beir(tmp_path / "selfref", CORPUS, QUERIES, QRELS)


def _run(folder, output, **task_options):
    (outcome,) = leaderboard.evaluate(["bm25"], [f"beir:{folder}"], output=output, task_options=task_options)
    return outcome.result


def test_identical_ids_are_dropped_by_default_and_kept_on_request(folder, tmp_path):
    on = _run(folder, tmp_path / "on")
    assert on.task_details["ignore_identical_ids"] is True and on.task_details["identical_ids_dropped"] == 2
    assert on.score("mrr_at_10") == 1.0 and on.score("ndcg_at_10") == 1.0  # d1, d2 at rank 1
    assert on.task.options.keys() == {"ignore_identical_ids", "relevance_level"}

    off = _run(folder, tmp_path / "off", ignore_identical_ids="false")
    assert off.task_details["ignore_identical_ids"] is False and off.task_details["identical_ids_dropped"] == 0
    assert off.score("mrr_at_10") == 0.5  # each query's own document takes rank 1
    assert off.settings.model_extra["task_options"] == {"ignore_identical_ids": "false"}  # part of the identity

    from leaderboard.records.files import identity

    assert identity(on) != identity(off)


def test_relevance_level_counts_only_high_grades_in_binary_metrics(tmp_path):
    corpus = {"a": "solar panel power", "b": "solar heating water", "c": "wind turbine"}
    root = write_beir(tmp_path / "graded", corpus, {"q": "solar power"}, {"q": {"a": 1, "b": 2}})
    level1 = _run(root, tmp_path / "l1")
    level2 = _run(root, tmp_path / "l2", relevance_level="2")
    assert level1.task_details["relevance_level"] == 1 and level2.task_details["relevance_level"] == 2
    # BM25 ranks a (both terms) above b: grade-1 a is relevant at level 1, not at level 2.
    assert level1.score("mrr_at_10") == 1.0 and level2.score("mrr_at_10") == 0.5
    assert level1.score("recall_at_1") == 0.5 and level2.score("recall_at_1") == 0.0
    assert level1.score("ndcg_at_10") == level2.score("ndcg_at_10")  # nDCG keeps graded gains


@pytest.mark.parametrize(
    "options, message",
    [
        ({"ignore_identical_ids": "maybe"}, "ignore_identical_ids=maybe: expected true or false"),
        ({"relevance_level": "0"}, "relevance_level=0: expected an integer >= 1"),
        ({"relevance_level": "two"}, "relevance_level=two: expected an integer >= 1"),
    ],
)
def test_bad_option_values(folder, tmp_path, options, message):
    with pytest.raises(BadInput, match=message):
        _run(folder, tmp_path / "bad", **options)
    assert not (tmp_path / "bad").exists()


def test_drop_identical_ids_and_relevance_level_by_hand():
    run = {"q1": {"q1": 3.0, "d1": 2.0}, "q2": {"d2": 1.0}}
    dropped, n = drop_identical_ids(run)
    assert dropped == {"q1": {"d1": 2.0}, "q2": {"d2": 1.0}} and n == 1
    assert drop_identical_ids({"q": {"d": 1.0}}) == ({"q": {"d": 1.0}}, 0)
    qrels = {"q": {"a": 1, "b": 2}}
    ranked = {"q": {"a": 2.0, "b": 1.0}}
    assert per_query_scores(qrels, ranked, relevance_level=2)["q"]["map_at_10"] == 0.5  # b at rank 2, alone relevant
    assert per_query_scores(qrels, ranked)["q"]["map_at_10"] == 1.0


def test_a_run_with_task_options_is_written_beside_the_default_one_and_never_ranked(folder, tmp_path):
    """Another protocol goes to its own file (no clash, no --overwrite) and the board ranks only the default."""
    out = tmp_path / "both"
    (default,) = leaderboard.evaluate(["bm25"], [f"beir:{folder}"], output=out)
    (variant,) = leaderboard.evaluate(
        ["bm25"], [f"beir:{folder}"], output=out, task_options={"ignore_identical_ids": "false"}
    )
    assert default.status == variant.status == "written" and default.path != variant.path
    assert default.path.exists() and variant.path.exists() and "ignore_identical_ids" in variant.path.name

    from leaderboard.app.data.ranking import _choose
    from leaderboard.app.server import loading
    from leaderboard.contract.benchmark import Benchmark, BenchmarkTask

    task = default.result.task.name
    bench = Benchmark("selfref", "test", "", (BenchmarkTask(task, "ndcg_at_10"),))
    board = loading.load(out, [bench.to_json()], public=True, persist=False)
    ranking = board.ranking("selfref")
    (line,) = ranking.ranked
    assert line.paths[task].endswith(default.path.name) and line.values
    (variant_row,) = [r for r in board.by_task[task] if r.get("task_options")]
    chosen, why = _choose([variant_row], BenchmarkTask(task, "ndcg_at_10"), None, {})
    assert chosen is None and "non-default task options (ignore_identical_ids=false" in why
