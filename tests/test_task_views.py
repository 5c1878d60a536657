"""Every built-in task's views name only what its results hold, every value lies in its metric's declared
range, and every result carries per-query (per-record) values of its main metrics."""

from __future__ import annotations

import math

import pytest

import leaderboard
from leaderboard.records.result import Result, decode_per_query

MULTICONIR_DEMO = [
    "multiconir-demo-task1",
    "multiconir-demo-task2",
    "multiconir-demo-task3",
    "multiconir-demo-task4-512",
    "multiconir-demo-task4-1024",
]


def check_views_and_ranges(result: Result) -> None:
    scores = result.scores
    for view in result.task.views:
        assert view.split in scores, (result.task.name, view.title)
        assert len(view.subsets) == 1 or len(view.metrics) == 1, view.title  # one axis
        for subset in view.subsets:
            for metric in view.metrics:
                assert metric in scores[view.split].get(subset, {}), (result.task.name, view.title, subset, metric)
        assert set(view.labels) <= set(view.subsets) | set(view.metrics), view.title
    declared = {m.name: m for m in result.task.metrics}
    for subsets in scores.values():
        for values in subsets.values():
            for name, value in values.items():
                metric = declared[name]
                assert metric.description, name
                assert metric.low is None or value >= metric.low - 1e-12, (name, value)
                assert metric.high is None or value <= metric.high + 1e-12, (name, value)


@pytest.fixture(scope="module")
def demo_results(tmp_path_factory):
    out = tmp_path_factory.mktemp("views")
    outcomes = leaderboard.evaluate(["bm25-okapi"], MULTICONIR_DEMO, output=out / "mc")
    outcomes += leaderboard.evaluate(["bm25"], ["demo"], output=out / "demo")
    return {o.task: o.result for o in outcomes}


@pytest.mark.parametrize("task", [*MULTICONIR_DEMO, "demo"])
def test_views_ranges_and_per_query(demo_results, task):
    result = demo_results[task]
    check_views_and_ranges(result)
    assert result.per_query is not None
    per_query = decode_per_query(result.per_query)
    main = result.task.main_score
    assert all(main in values and math.isfinite(values[main]) for values in per_query.values())
    if task == "demo":
        assert len(per_query) == 12
        assert sum(v[main] for v in per_query.values()) / 12 == pytest.approx(result.main_score)
    else:  # one entry per record: three records in each of the five domains
        from leaderboard_tasks.multiconir import DOMAINS

        assert sorted(per_query) == sorted(f"{d}/{i}" for d in DOMAINS for i in range(3))
        # equal-sized domains: the macro mean over domains equals the mean over records
        assert sum(v[main] for v in per_query.values()) / 15 == pytest.approx(result.main_score)


def test_task2_pairs_are_named_and_ordered_as_the_paper(demo_results):
    result = demo_results["multiconir-demo-task2"]
    (curve,) = [v for v in result.task.views if v.kind == "curve"]
    labels = [curve.labels[m] for m in curve.metrics]
    assert labels == ["d₁ vs d₀", "d₂ vs d₁", "d₃ vs d₂", "d₄ vs d₃", "d₅ vs d₄", "d₆ vs d₅", "d₇ vs d₆", "d₈ vs d₇",
                      "d₉ vs d₈", "d₁₀ vs d₉"]  # fmt: skip
    pairs = [m for m in result.scores["test"]["default"] if m.startswith("win_rate_")]
    assert pairs == list(curve.metrics)  # the results keep the paper's order too
    assert result.task.metric("win_rate_d10_vs_d9").description.startswith("pair d₁₀ vs d₉: ")


def test_task3_flip_metrics_have_descriptions_and_task1_ranges(demo_results):
    task3 = demo_results["multiconir-demo-task3"].task
    flips = [m for m in task3.metrics if m.name.startswith("flip_rate_")]
    assert len(flips) == 10 and all(m.description and m.direction == "lower" for m in flips)
    task1 = demo_results["multiconir-demo-task1"].task
    assert (task1.metric("margin_k1").low, task1.metric("margin_k1").high) == (None, None)
    assert (task1.metric("decline").low, task1.metric("decline").high) == (-1.0, 1.0)


def test_task4_requires_no_natural_query(tmp_path):
    from leaderboard_tasks.multiconir import DemoMultiConIRTask

    for variant in ("task4-512", "task4-1024", "task2"):
        task = DemoMultiConIRTask(variant, data_dir=str(tmp_path))
        assert "Natural_Query10" not in task.variant.columns
    assert "Natural_Query10" in DemoMultiConIRTask("task3", data_dir=str(tmp_path)).variant.columns
    data = DemoMultiConIRTask("task4-512", data_dir=str(tmp_path)).load()  # the fixture's Task 4 has no such column
    assert len(data.sets) == 15


def test_mteb_task_views_name_the_metrics_mteb_reports():
    pytest.importorskip("mteb")
    from leaderboard_mteb.tasks import MtebTask

    followir = MtebTask("Core17InstructionRetrieval").metadata.views[0]
    assert followir.metrics == ("p-MRR", "og_map_at_1000", "changed_map_at_1000", "og_ndcg_at_5", "changed_ndcg_at_5")
    bright = MtebTask("BrightBiologyRetrieval").metadata.views[0]
    assert bright.split == "standard" and bright.metrics[0] == "ndcg_at_10"
    languages = MtebTask("mFollowIR").metadata.views[1]
    assert languages.subsets == ("fas", "rus", "zho")
