"""The runner stores per-query values, stratifies retrieval results by query complexity (CW) and
marks a result partial when a declared split or subset is missing from its scores."""

import numpy as np
import pytest
from scale_fixtures import HashEncoder, PerQueryBeirTask, registry_with, write_beir
from scipy import stats

import leaderboard
from leaderboard.contract.task import COMPLEXITY_VIEW_TITLE
from leaderboard.records.result import decode_per_query, decode_subset_queries

# CW (eq. 1: unique words, bm25s' English stopwords and one-letter words removed), written next to each query.
QUERIES = {
    "q1": ("apple apple", 1),
    "q2": ("the red apple", 2),
    "q3": ("a green pear", 2),
    "q4": ("ripe yellow banana bread", 4),
    "q5": ("is it the cherry x", 1),
    "q6": ("sweet red cherry pie recipe", 5),
    "q7": ("green grape", 2),
    "q8": ("an old lemon tree in the garden", 4),
}
CORPUS = {
    "d1": "apple orchard",
    "d2": "red apple pie",
    "d3": "green pear",
    "d4": "banana bread with ripe banana",
    "d5": "cherry tree",
    "d6": "cherry pie recipe, sweet",
    "d7": "grape vine",
    "d8": "lemon tree garden",
    "d9": "unrelated stone wall",
    "d10": "a yellow submarine",
}
QRELS = {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d3": 1}, "q4": {"d4": 1, "d10": 1}, "q5": {"d5": 1}}
QRELS |= {"q6": {"d6": 1, "d2": 1}, "q7": {"d7": 1}, "q8": {"d8": 1, "d5": 1}}


@pytest.fixture
def fixture_dir(tmp_path):
    return write_beir(tmp_path / "data", CORPUS, {q: t for q, (t, _) in QUERIES.items()}, QRELS)


def test_per_query_values_and_cw_strata(tmp_path, fixture_dir):
    registry = registry_with("tiny-cw", lambda request: PerQueryBeirTask(fixture_dir))
    (outcome,) = leaderboard.evaluate(
        [HashEncoder()], ["tiny-cw"], registry=registry, output=tmp_path / "out", use_cache=False
    )
    result = outcome.result
    per_query = decode_per_query(result.per_query)
    subsets = decode_subset_queries(result.per_query)
    assert set(per_query) == set(QUERIES)
    values = {q: row["ndcg_at_10"] for q, row in per_query.items()}
    assert result.main_score == pytest.approx(np.mean(list(values.values())), abs=1e-12)
    assert result.coverage.complete

    complexity = result.task_details["complexity"]
    assert complexity["definition"]["stopwords"]["name"] == "bm25s.stopwords.STOPWORDS_EN"
    assert complexity["definition"]["tokenizer"]["pattern"] == r"(?u)\b\w+\b"
    cw = {q: expected for q, (_, expected) in QUERIES.items()}
    # the paper's level: the mean CW of the task's queries
    assert complexity["mean_cw"] == pytest.approx(21 / 8) and complexity["queries"] == 8
    details = complexity["strata"]  # this project's own analysis, labelled as such with its statistic
    assert details["analysis"] == "this project's own, not the paper's"
    assert details["statistic"].startswith("Pearson r of per-query CW and per-query ndcg_at_10 over the 8 queries")
    # quartiles of [1, 1, 2, 2, 2, 4, 4, 5]: cut points 1.75, 2, 4 -> CW<=1 | 2 | 4 | 5
    expected_buckets = [(1, 1, 2), (2, 2, 3), (4, 4, 2), (5, 5, 1)]
    assert [(b["low"], b["high"], b["queries"]) for b in details["buckets"]] == expected_buckets
    for bucket in details["buckets"]:
        members = [q for q in QUERIES if bucket["low"] <= cw[q] <= bucket["high"]]
        expected = np.mean([values[q] for q in members])
        assert result.scores["test"][bucket["subset"]]["ndcg_at_10"] == pytest.approx(expected, abs=1e-12)
        assert result.subset_sizes["test"][bucket["subset"]] == len(members)
        assert subsets[bucket["subset"]] == sorted(members)  # each stratum names its own queries
    # the engine declares the curve the board draws: the buckets in increasing CW, the main metric
    (view,) = [v for v in result.task.views if v.title == COMPLEXITY_VIEW_TITLE]
    assert view.kind == "curve" and list(view.subsets) == [b["subset"] for b in details["buckets"]]
    assert view.metrics == ("ndcg_at_10",) and view.labels["cw=2"] == "CW 2"
    reference = stats.pearsonr([cw[q] for q in sorted(QUERIES)], [values[q] for q in sorted(QUERIES)])
    assert details["per_query_pearson_r"] == pytest.approx(reference.statistic, abs=1e-12)
    assert details["per_query_pearson_p"] == pytest.approx(reference.pvalue, abs=1e-12)
    assert "pearson_r" not in complexity  # never beside the paper's number as if it were the paper's r


def test_a_declared_subset_missing_from_the_scores_makes_the_result_partial(tmp_path, fixture_dir):
    registry = registry_with("tiny-cw", lambda request: PerQueryBeirTask(fixture_dir, subsets=("default", "x")))
    (outcome,) = leaderboard.evaluate(
        [HashEncoder()], ["tiny-cw"], registry=registry, output=tmp_path / "out", use_cache=False
    )
    assert not outcome.result.coverage.complete
    assert "test/x" in outcome.result.coverage.reason
    assert ".partial-" in outcome.path.name and outcome.path.exists()


def test_benchmarks_lists_the_mean_cw_each_task_result_records(tmp_path):
    """`leaderboard benchmarks --results DIR` shows a task's mean CW (the paper's level) from its result alone."""
    import json

    from conftest import run_cli
    from leaderboard_tasks.demo_data import QRELS
    from leaderboard_tasks.demo_data import QUERIES as DEMO_QUERIES

    from leaderboard.metrics.complexity import content_words

    (outcome,) = leaderboard.evaluate(["bm25"], ["demo"], output=tmp_path / "out", use_cache=False)
    expected = np.mean([content_words(text) for qid, text in DEMO_QUERIES.items() if qid in QRELS])
    assert outcome.result.task_details["complexity"]["mean_cw"] == pytest.approx(expected, abs=1e-12)
    ran = run_cli("benchmarks", "--results", str(tmp_path / "out"), "--format", "json")
    assert ran.returncode == 0, ran.stderr
    rows = {row["name"]: row for row in json.loads(ran.stdout)}
    assert rows["demo"]["mean_cw"] == {"demo": pytest.approx(expected, abs=1e-12)}
    assert rows["ComLQ"]["mean_cw"] is None  # no ComLQ result there: nothing is made up
    ran = run_cli("benchmarks", "--results", str(tmp_path / "none"), "--format", "csv")
    assert ran.returncode == 0 and ran.stdout.splitlines()[0].split(",")[5] == "mean_cw"
