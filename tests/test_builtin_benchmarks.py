"""The built-in benchmark declarations: valid, honest about their tasks, metrics, subsets and views.

Each task package declares its own benchmark from its own names (``register_benchmarks`` beside its
``register_tasks``), so no fact is written twice and none needs pinning here."""

from __future__ import annotations

import leaderboard_mteb.tasks
import pytest
from leaderboard_tasks import comlq, demo, mair, multiconir, negconstraint

from leaderboard.contract.benchmark import Benchmark

PACKAGES = (comlq, demo, mair, multiconir, negconstraint, leaderboard_mteb.tasks)

PUBLIC = {
    "MultiConIR",
    "ComLQ",
    "NegConstraint",
    "FollowIR",
    "mFollowIR",
    "InstructIR",
    "IFIR",
    "NevIR",
    "BRIGHT",
    "MAIR",
}


def registered() -> dict[str, Benchmark]:
    found = {}

    def register(name, factory, description="", **_):
        assert description and name not in found
        found[name] = factory()

    for package in PACKAGES:
        package.register_benchmarks(register=register)
    return found


def test_every_builtin_benchmark_is_registered_and_parses():
    from leaderboard.app.data.benchmarks import parse

    benchmarks = registered()
    assert set(benchmarks) == PUBLIC | {"demo", "multiconir-demo"}
    assert {n for n, b in benchmarks.items() if b.public} == PUBLIC
    for name, benchmark in benchmarks.items():
        parsed, problem = parse(benchmark.to_json(), "test")
        assert problem is None and parsed is not None and parsed.name == name
        assert benchmark.formula and benchmark.reference.startswith("https://") and benchmark.aggregate_label
        if benchmark.public:
            assert benchmark.citation
            # demo data and ad-hoc folders belong to no public benchmark
            assert not any(t.task == "demo" or t.task.startswith(("multiconir-demo", "beir")) for t in benchmark.tasks)


def test_aggregates_follow_the_papers():
    b = registered()
    ranked = {name: [(t.task, t.metric, t.subset) for t in bm.tasks if t.in_aggregate] for name, bm in b.items()}
    assert ranked["FollowIR"] == [  # mteb's main score (``test_mteb_benchmarks_rank_by_mtebs_main_score``)
        ("Robust04InstructionRetrieval", "p-MRR", "default"),
        ("News21InstructionRetrieval", "p-MRR", "default"),
        ("Core17InstructionRetrieval", "p-MRR", "default"),
    ]
    (paper_score,) = b["FollowIR"].also  # the paper's score, one click away
    assert paper_score.label == "FollowIR score"
    assert [t.metric for t in paper_score.tasks] == ["og_map_at_1000", "og_ndcg_at_5", "og_map_at_1000"]
    assert not any(t.task == "mFollowIR" for t in b["FollowIR"].tasks)
    assert ranked["MultiConIR"] == [("multiconir-task1", "mean_win_rate", "default")]  # Task 2/4 never averaged in
    shown = {(t.task, t.metric): t.direction for t in b["MultiConIR"].tasks}
    assert shown[("multiconir-task3", "flip_rate")] == "lower" and shown[("multiconir-task1", "decline")] == "lower"
    assert {"multiconir-task4-512", "multiconir-task4-1024"} <= {t for t, _ in shown}
    assert ranked["ComLQ"] == [("comlq", "ndcg_at_10", "default")]
    assert len([t for t in b["ComLQ"].tasks if t.subset.startswith("type=")]) == 14
    assert all("lexical-v1" in t.label for t in b["ComLQ"].tasks if t.metric.startswith("lsnc"))
    assert len(ranked["BRIGHT"]) == 12 and {t.split for t in b["BRIGHT"].tasks} == {"standard"}
    assert len(ranked["IFIR"]) == 7
    # InF-IR's MAIR column: the unweighted mean of DD-15, DD-16, DD-17, FR-21, FR-22 nDCG@10
    assert [m for _, m, _ in ranked["MAIR"]] == ["ndcg_at_10"] * 5 and b["MAIR"].aggregate == "mean"


def test_mteb_benchmarks_rank_by_mtebs_main_score():
    """A benchmark drawn from mteb ranks by each task's main score in mteb, as mteb's own leaderboard does; another
    number (FollowIR's paper score) is a declared side aggregate a reader may rank by."""
    import json

    from conftest import REPO

    known = json.loads((REPO / "leaderboard" / "mteb" / "mteb_tasks.json").read_text())["tasks"]
    checked = 0
    for name, benchmark in registered().items():
        ranked = [t for t in benchmark.tasks if t.in_aggregate and t.task in known]
        for spec in ranked:
            assert spec.metric == known[spec.task]["main_score"], (name, spec.task, spec.metric)
            checked += 1
    assert checked >= 24  # FollowIR's 3, mFollowIR, InstructIR, IFIR's 7, NevIR, BRIGHT's 12


@pytest.mark.parametrize("name", ["MultiConIR", "ComLQ", "NegConstraint", "MAIR", "demo", "multiconir-demo"])
def test_columns_and_views_exist_in_the_task_declarations(name):
    """Every metric, subset and view a benchmark names is one the task declares (tasks built offline)."""
    from leaderboard.engine.building import make_task
    from leaderboard.engine.options import RunOptions
    from leaderboard.registry import get_registry

    benchmark = registered()[name]
    registry = get_registry()
    for column in (*benchmark.tasks, *(t for side in benchmark.also for t in side.tasks)):
        task, _ = make_task(registry, column.task, RunOptions())
        meta = task.metadata
        assert column.metric in {m.name for m in meta.metrics}, (column.task, column.metric)
        assert column.subset in meta.subsets and column.split in meta.splits
        assert next(m for m in meta.metrics if m.name == column.metric).direction == column.direction
    for view in benchmark.views:
        task, _ = make_task(registry, view.task, RunOptions())
        assert view.title in {v.title for v in task.metadata.views}, (view.task, view.title)
