"""The board's numbers as claims: per-subset intervals from the subset's own queries, Overall over a chosen
set, one row per model, boards from a folder without benchmarks.json, and the comparison view equal to
``leaderboard compare``. No browser: the data functions the pages render."""

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import run_cli
from scipy import stats

from leaderboard.app.data.comparison import compare_models
from leaderboard.app.data.filters import Filters
from leaderboard.app.server import loading
from leaderboard.app.views import render
from leaderboard.metrics.bootstrap import N_RESAMPLES
from leaderboard.records.result import encode_per_query

TYPES = {"type=a": 0.9, "type=b": 0.35}  # per-type means far apart, so a shared interval would be obvious


@pytest.fixture(scope="module")
def demo_result(tmp_path_factory):
    """A real bm25 result on the demo task, the template the synthetic results below are edited from."""
    import leaderboard

    out = tmp_path_factory.mktemp("seed")
    leaderboard.evaluate(["bm25"], ["demo"], output=out)
    (path,) = out.rglob("demo.json")
    return json.loads(path.read_text())


def _result(template, task, model, revision, values, members, *, created="2026-11-01T00:00:00+00:00", stored=True):
    """A valid result of ``task`` whose scores are the means of ``values`` (query -> ndcg) over each subset.

    ``stored``: False writes the subsets' scores without saying which queries form them (older files)."""
    data = json.loads(json.dumps(template))
    data["task"].update(name=task, views=[])
    data["model"].update(name=model, revision=revision)
    data["model"]["metadata"].update(name=model, revision=revision)
    scores = {"default": {"ndcg_at_10": float(np.mean(list(values.values())))}}
    for subset, ids in members.items():
        scores[subset] = {"ndcg_at_10": float(np.mean([values[q] for q in ids]))}
    data["scores"] = {"test": scores}
    data["main_score"] = scores["default"]["ndcg_at_10"]
    data["confidence_intervals"] = {}
    data["subset_sizes"] = {"test": {"default": len(values)} | {s: len(ids) for s, ids in members.items()}}
    named = members if stored else None
    data["per_query"] = encode_per_query({q: {"ndcg_at_10": v} for q, v in values.items()}, named).model_dump()
    data["created_at"] = created
    data["task_details"] = {}
    return data


def _write(root: Path, data: dict) -> None:
    folder = root / data["model"]["name"] / data["model"]["revision"]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{data['task']['name']}.json").write_text(json.dumps(data))


def _typed_values(seed: int, shift: float) -> tuple[dict[str, float], dict[str, list[str]]]:
    rng = np.random.default_rng(seed)
    values, members = {}, {}
    for subset, mean in TYPES.items():
        ids = [f"{subset[-1]}{i:02d}" for i in range(20)]
        draws = np.clip(mean + shift + rng.normal(0, 0.08, len(ids)), 0.0, 1.0)
        values.update(zip(ids, draws.tolist()))
        members[subset] = ids
    return values, members


TYPED_BENCHMARK = {
    "name": "Typed",
    "description": "a task with two query types (test)",
    "reference": "",
    "tasks": [
        {"task": "typed", "metric": "ndcg_at_10", "label": "All"},
        {"task": "typed", "metric": "ndcg_at_10", "subset": "type=a", "label": "a", "in_aggregate": False},
        {"task": "typed", "metric": "ndcg_at_10", "subset": "type=b", "label": "b", "in_aggregate": False},
    ],
}


@pytest.fixture(scope="module")
def typed_board(demo_result, tmp_path_factory):
    root = tmp_path_factory.mktemp("typed")
    for number, model in enumerate(["alpha", "beta", "gamma"]):
        values, members = _typed_values(number, -0.05 * number)
        _write(root, _result(demo_result, "typed", model, "r1", values, members, stored=model != "gamma"))
    (root / "benchmarks.json").write_text(json.dumps([TYPED_BENCHMARK]))
    return loading.load(root, public=True, persist=False)


def _subset_values(board, line, subset):
    stored = board.per_query([line.paths["typed"]])[line.paths["typed"]]
    ids = stored["ids"]
    return np.array([stored["values"]["ndcg_at_10"][ids.index(q)] for q in ids if q.startswith(subset[-1])])


def test_each_type_cell_has_the_interval_of_its_own_queries(typed_board):
    ranking = typed_board.ranking("Typed")
    keys = {c.label: c.key for c in ranking.columns}
    checked = 0
    for line in ranking.lines:
        if line.name == "gamma":
            continue
        for subset, label in (("type=a", "a"), ("type=b", "b")):
            values = _subset_values(typed_board, line, subset)
            assert line.values[keys[label]] == pytest.approx(values.mean(), abs=1e-12)
            low, high = line.intervals[keys[label]]
            ref = stats.bootstrap(
                (values,), np.mean, n_resamples=N_RESAMPLES, method="percentile", rng=np.random.default_rng(7)
            ).confidence_interval
            # Monte-Carlo error of a 2.5% quantile over 10,000 resamples is far below 0.004 here
            assert low == pytest.approx(ref.low, abs=0.004) and high == pytest.approx(ref.high, abs=0.004)
            assert low < values.mean() < high
            checked += 1
        all_low, all_high = line.intervals[keys["All"]]
        a_low, a_high = line.intervals[keys["a"]]
        assert a_low > all_high  # type a's interval lies above the whole task's: not the same interval
    assert checked == 4


def test_no_membership_means_no_subset_interval_and_the_csv_says_why(typed_board):
    ranking = typed_board.ranking("Typed")
    keys = {c.label: c.key for c in ranking.columns}
    gamma = next(line for line in ranking.lines if line.name == "gamma")
    assert gamma.values[keys["a"]] is not None and gamma.intervals[keys["a"]] is None
    assert "does not say which queries form type=a" in gamma.interval_notes[keys["a"]]
    assert gamma.intervals[keys["All"]] is not None  # its main cell still has one
    frame = pd.read_csv(io.StringIO(render.csv_frame(ranking, Filters()).to_csv(index=False)))
    for line in ranking.lines:
        row = frame[frame["model"] == line.name].iloc[0]
        for label, subset in (("a", "type=a"), ("b", "type=b")):
            name = f"typed:ndcg_at_10:{subset}"
            interval = line.intervals[keys[label]]
            if interval is None:
                assert pd.isna(row[f"{name}:ci_low"]) and "which queries form" in row[f"{name}:ci_note"]
            else:
                assert (row[f"{name}:ci_low"], row[f"{name}:ci_high"]) == pytest.approx(interval, abs=1e-12)
                assert pd.isna(row[f"{name}:ci_note"])
    assert "queries behind that cell" in ranking.interval_note
    assert "about the nDCG@10 column only" in ranking.test_note  # the ≈ is stated for its column


def _plain(template, task, model, revision, mean, created="2026-11-01T00:00:00+00:00"):
    values = {f"q{i}": float(np.clip(mean + 0.01 * ((i * 7) % 5 - 2), 0, 1)) for i in range(12)}
    return _result(template, task, model, revision, values, {}, created=created)


def test_overall_ranks_models_covering_five_of_nine_benchmarks(demo_result, tmp_path):
    declared = [
        {"name": f"B{i}", "description": "", "reference": "", "tasks": [{"task": f"t{i}", "metric": "ndcg_at_10"}]}
        for i in range(1, 10)
    ]
    (tmp_path / "benchmarks.json").write_text(json.dumps(declared))
    for number, model in enumerate(["m1", "m2", "m3"]):
        for i in range(1, 6):  # five of the nine benchmarks have results
            _write(tmp_path, _plain(demo_result, f"t{i}", model, "r1", 0.8 - 0.1 * number + 0.01 * i))
    for i in range(1, 4):  # m4 only on three of them
        _write(tmp_path, _plain(demo_result, f"t{i}", "m4", "r1", 0.95))
    board = loading.load(tmp_path, public=True, persist=False)
    overall = board.overall_ranking()
    assert overall.default and overall.benchmarks == ["B1", "B2", "B3", "B4", "B5"]
    assert [(r.name, r.rank, r.mean_rank) for r in overall.ranked] == [
        ("m1", 1, pytest.approx(1.6)),  # 2nd behind m4 in B1..B3, 1st in B4, B5: (2*3 + 1*2) / 5
        ("m2", 2, pytest.approx(2.6)),
        ("m3", 3, pytest.approx(3.6)),
    ]
    assert [(r.name, r.coverage) for r in overall.unranked] == [("m4", 3)]
    assert "mean rank over 5 benchmarks" in overall.note and "B5" in overall.note
    chosen = board.overall_ranking(["B3", "B1", "B2", "nope"])
    assert chosen.benchmarks == ["B1", "B2", "B3"] and chosen.unknown == ["nope"] and not chosen.default
    assert [r.name for r in chosen.ranked] == ["m4", "m1", "m2", "m3"] and chosen.unranked == []


def test_two_revisions_of_one_model_are_one_row_by_default(demo_result, tmp_path):
    (tmp_path / "benchmarks.json").write_text(
        json.dumps(
            [{"name": "Demo", "description": "", "reference": "", "tasks": [{"task": "t1", "metric": "ndcg_at_10"}]}]
        )
    )
    _write(tmp_path, _plain(demo_result, "t1", "nvidia/NV-Embed-v2", "old", 0.9, "2026-10-01T00:00:00+00:00"))
    _write(tmp_path, _plain(demo_result, "t1", "nvidia/NV-Embed-v2", "new", 0.7, "2026-11-01T00:00:00+00:00"))
    _write(tmp_path, _plain(demo_result, "t1", "other", "r1", 0.8))
    board = loading.load(tmp_path, public=True, persist=False)
    ranking = board.ranking("Demo")
    assert [(line.name, line.revision, line.label) for line in ranking.ranked] == [
        ("other", "r1", "other"),
        ("nvidia/NV-Embed-v2", "new", "nvidia/NV-Embed-v2"),  # the newest revision, though the old scored more
    ]
    assert ranking.ranked[1].other_revisions == ["old"]
    every = board.ranking("Demo", all_revisions=True)
    assert [line.label for line in every.ranked] == [
        "nvidia/NV-Embed-v2 @ old",
        "other",
        "nvidia/NV-Embed-v2 @ new",
    ]
    assert board.counts()["models"] == 2 and board.counts()["revisions"] == 3


def test_a_folder_without_benchmarks_json_ranks_each_task_by_its_main_score(demo_result, tmp_path):
    for number, model in enumerate(["m1", "m2"]):
        _write(tmp_path, _plain(demo_result, "t1", model, "r1", 0.5 + 0.2 * number))
        _write(tmp_path, _plain(demo_result, "t2", model, "r1", 0.9 - 0.2 * number))
    (tmp_path / "reported").mkdir()  # reported paper scores (another reader's) never break the board
    (tmp_path / "reported" / "paper.json").write_text(json.dumps({"model": "m1", "value": 0.5}))
    board = loading.load(tmp_path, public=True, persist=False)
    assert board.skipped == [] and board.benchmark_names[:2] == ["t1", "t2"]
    assert [line.name for line in board.ranking("t1").ranked] == ["m2", "m1"]
    assert [line.name for line in board.ranking("t2").ranked] == ["m1", "m2"]
    assert board.ranking("t1").columns[0].spec.metric == "ndcg_at_10"


def test_comparison_view_numbers_equal_leaderboard_compare(tmp_path):
    import leaderboard

    leaderboard.evaluate(["bm25", "bm25-okapi"], ["demo"], output=tmp_path)
    before = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*.json")}
    done = run_cli("compare", "bm25", "bm25-okapi", "--task", "demo", "--results", str(tmp_path), "--format", "json")
    assert done.returncode == 0, done.stderr
    after = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*.json")}
    assert after == before  # the results in the folder are the ones compared (nothing run or rewritten)
    cli = json.loads(done.stdout)["tasks"]
    board = loading.load(tmp_path, public=True, persist=False)  # no benchmarks.json: the task is its own board
    keys = {line.name: line.key for line in board.ranking("demo", all_revisions=True).lines}
    view = compare_models(board, "demo", keys["bm25"], keys["bm25-okapi"])
    cached = board.comparison("demo", keys["bm25"], keys["bm25-okapi"])
    assert board.comparison("demo", keys["bm25"], keys["bm25-okapi"]) is cached  # computed once per pair
    assert [c.to_json() for c in cached.tasks] == [c.to_json() for c in view.tasks]
    # the page's first display: the task rows alone, the same numbers, no subset computed
    quick = compare_models(board, "demo", keys["bm25"], keys["bm25-okapi"], subsets=False)
    assert [c.to_json() for c in quick.tasks] == [c.to_json() for c in view.tasks] and not quick.subsets
    tasks_only = board.comparison("demo", keys["bm25"], keys["bm25-okapi"], subsets=False)
    assert not tasks_only.subsets and tasks_only.tasks is cached.tasks  # answered from the pair with subsets
    assert len(view.tasks) == len(cli) == 1 and not view.skipped
    ours = view.tasks[0].to_json()
    for field in ("task", "metric", "queries", "mean_a", "mean_b", "difference", "ci_low", "ci_high", "p_value"):
        assert ours[field] == pytest.approx(cli[0][field], abs=1e-12), field
    assert ours["p_holm"] == pytest.approx(cli[0]["p_holm"], abs=1e-12)
    # per subset (the engine's content-word strata name their queries): the app's rows are compare_subsets'
    from leaderboard.analysis.comparison import compare_subsets
    from leaderboard.records.files import read_result

    paths = {line.name: tmp_path / line.paths["demo"] for line in board.ranking("demo", all_revisions=True).lines}
    a, b = read_result(paths["bm25"]), read_result(paths["bm25-okapi"])
    direct = compare_subsets("demo", a, b, str(paths["bm25"]), str(paths["bm25-okapi"]))
    from leaderboard.analysis.comparison import with_holm

    with_holm(direct)
    assert direct and [(c.subset, c.metric) for c in direct] == [(c.subset, c.metric) for c in view.subsets["demo"]]
    strata = [c for c in direct if c.subset.startswith("cw=")]  # the main score on each content-word stratum
    assert strata and all(c.metric == "ndcg_at_10" for c in strata)
    for mine, theirs in zip(view.subsets["demo"], direct):
        assert mine.to_json() == pytest.approx(theirs.to_json())


def test_damaged_membership_costs_the_subset_intervals_not_the_board(typed_board, tmp_path):
    import shutil

    target = tmp_path / "damaged"
    shutil.copytree(typed_board.root, target)
    path = target / "alpha" / "r1" / "typed.json"
    data = json.loads(path.read_text())
    data["per_query"]["subsets"]["data"] = data["per_query"]["subsets"]["data"][:-8] + "AAAAAAA="
    path.write_text(json.dumps(data))
    board = loading.load(target, public=True, persist=False)
    assert board.skipped == []
    ranking = board.ranking("Typed")
    keys = {c.label: c.key for c in ranking.columns}
    alpha = next(line for line in ranking.lines if line.name == "alpha")
    assert alpha.intervals[keys["All"]] is not None and alpha.intervals[keys["a"]] is None
    assert "which queries form type=a" in alpha.interval_notes[keys["a"]]
    beta = next(line for line in ranking.lines if line.name == "beta")
    assert beta.intervals[keys["a"]] is not None
