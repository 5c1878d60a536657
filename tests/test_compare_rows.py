"""Every comparison row compares what its label names (issue 31.1): each row of Compare two models, per
task and per subset, recomputed from the two result files, on every subset and metric of ComLQ and
NegConstraint (the committed baseline runs) and MultiConIR (two seeded rerankers, domains of unequal
size); LSNC compared on the queries both judges labelled; ``compare --per-subset`` prints the app's rows."""

from __future__ import annotations

import json

import pytest
from conftest import run_cli
from numbers_fixtures import LSNC10, copy_real_results, forge_second_judge, mean, multiconir_pair, strata_ids

from leaderboard.analysis.comparison import cell_labels, comparison_cells
from leaderboard.analysis.subset_text import subset_text
from leaderboard.app.data.comparison import compare_models
from leaderboard.app.server import loading
from leaderboard.app.views.compare import comparison_html
from leaderboard.records.files import read_result

RESAMPLES = 500  # the rows' values do not depend on it; the intervals and p are checked elsewhere


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    root = tmp_path_factory.mktemp("real")
    paths = copy_real_results(root)
    return root, paths


@pytest.fixture(scope="module")
def real_comparison(real):
    from leaderboard.cli.serve import registered_benchmarks

    root, paths = real
    board = loading.load(root, registered_benchmarks(), persist=False)
    keys = {line.name.split("/")[-1]: line.key for line in board.ranking("ComLQ", all_revisions=True).lines}
    found = {
        name: compare_models(board, name, keys["bm25"], keys["all-MiniLM-L6-v2"], n_resamples=RESAMPLES)
        for name in ("ComLQ", "NegConstraint")
    }
    return board, found


@pytest.fixture(scope="module")
def uneven_multiconir(tmp_path_factory):
    root = tmp_path_factory.mktemp("multiconir")
    paths = multiconir_pair(root)
    declared = [
        {
            "name": "Conditions",
            "description": "MultiConIR Tasks 1 and 2 (test)",
            "reference": "",
            "tasks": [
                {"task": "multiconir-task1", "metric": "mean_win_rate", "label": "Task 1"},
                {"task": "multiconir-task2", "metric": "mean_adjacent_win_rate", "label": "Task 2"},
            ],
        }
    ]
    (root / "results" / "benchmarks.json").write_text(json.dumps(declared))
    return root / "results", paths


def _declared_label(declaration, metric):
    """Every name the task's views give ``metric`` (its own name always counts)."""
    names = {metric}
    names |= {str(m["label"]) for m in declaration.get("metrics") or [] if m.get("name") == metric and m.get("label")}
    if metric.startswith("ndcg_at_"):  # results written before labels: named as every table names nDCG
        names.add("nDCG@" + metric.removeprefix("ndcg_at_"))
    names.add(metric.replace("_", " "))  # other snake_case names before labels: "paired win rate"
    for view in declaration.get("views") or []:
        if len(view.get("subsets") or ("default",)) <= 1 and metric in (view.get("metrics") or ()):
            names.add(str((view.get("labels") or {}).get(metric, metric)).rstrip(" ↑↓"))
    return names


def check_row(row, data_a, data_b, declaration):
    """The row's numbers recomputed from the two result files (JSON), and its label naming its own metric."""
    parts_a, parts_b = strata_ids(data_a, row.subset, row.metric), strata_ids(data_b, row.subset, row.metric)
    shared = [sorted(set(a) & set(b)) for a, b in zip(parts_a, parts_b)]
    assert row.queries == sum(len(ids) for ids in shared), (row.subset, row.metric)
    mean_a = mean(mean(a[q] for q in ids) for a, ids in zip(parts_a, shared))
    mean_b = mean(mean(b[q] for q in ids) for b, ids in zip(parts_b, shared))
    assert row.mean_a == pytest.approx(mean_a, abs=1e-12) and row.mean_b == pytest.approx(mean_b, abs=1e-12)
    assert row.difference == pytest.approx(mean_a - mean_b, abs=1e-12)
    assert row.ci_low <= row.difference <= row.ci_high
    assert (row.queries_a, row.queries_b) == (sum(map(len, parts_a)), sum(map(len, parts_b)))
    if row.queries_a == row.queries:  # all of A's own queries: the row's A is A's score as the board shows it
        assert row.mean_a == pytest.approx(data_a["scores"]["test"][row.subset][row.metric], abs=1e-9)
    if row.queries_b == row.queries:
        assert row.mean_b == pytest.approx(data_b["scores"]["test"][row.subset][row.metric], abs=1e-9)
    subset_label, metric_label = cell_labels(declaration, row.subset, row.metric)
    assert metric_label in _declared_label(declaration, row.metric), (row.subset, row.metric, metric_label)
    assert subset_label == "all queries" if row.subset == "default" else subset_label != "all queries"


def test_every_row_of_comlq_and_negconstraint_is_recomputed_from_the_two_files(real, real_comparison):
    _, paths = real
    board, found = real_comparison
    checked = {}
    for benchmark, task in (("ComLQ", "comlq"), ("NegConstraint", "negconstraint")):
        comparison = found[benchmark]
        data_a = json.loads(paths["bm25"][task].read_text())
        data_b = json.loads(paths["all-MiniLM-L6-v2"][task].read_text())
        declaration = board.tasks[task]
        expected = comparison_cells(declaration, comparison_named(data_a), comparison_named(data_b))
        stored = set(data_a["per_query"]["metrics"])  # a view's metric without per-query values is not compared
        rows = comparison.subsets[task]
        assert [(r.subset, r.metric) for r in rows] == [c for c in expected if c[1] in stored]
        assert comparison.rows()[0].subset == "default" and comparison.rows()[0].metric == data_a["task"]["main_score"]
        for row in comparison.rows():
            check_row(row, data_a, data_b, declaration)
        checked[task] = {(r.subset, r.metric) for r in rows}
    # the defect: a row labelled LSNC held nDCG@10 over the negation queries, and LSNC was never compared
    assert {("group=negation", LSNC10), ("group=negation", "lsnc_lexical_v1_at_100")} <= checked["comlq"]
    assert {(f"type={t}", LSNC10) for t in ("2in", "3in", "inp", "pin", "pni")} <= checked["comlq"]
    assert {("default", "paired_win_rate"), ("default", "violation_at_1")} <= checked["negconstraint"]
    # a view's metric stored only as a mean is named under the table, never compared on something else
    assert found["NegConstraint"].problems() == [
        "negconstraint: not compared per subset: the result has no per-query values of lsnc_at_100: lsnc_at_100"
    ]
    lsnc = next(r for r in found["ComLQ"].subsets["comlq"] if (r.subset, r.metric) == ("group=negation", LSNC10))
    assert lsnc.queries == 874 and lsnc.mean_a == pytest.approx(0.4892549862145238, abs=1e-12)
    labels = found["ComLQ"].labels()
    assert labels[("comlq", "group=negation", LSNC10)] == ("group=negation", "LSNC@10 (lexical-v1)")
    assert labels[("comlq", "group=negation", "ndcg_at_10")] == ("group=negation", "nDCG@10")
    html = comparison_html("bm25", "MiniLM", found["ComLQ"].rows(), labels=labels)
    assert html.count("LSNC@10 (lexical-v1)") == 6  # the negation group and the five negation types, no other row


def comparison_members(data):
    from leaderboard.records.result import decode_subset_queries

    return decode_subset_queries(data["per_query"])


def comparison_named(data):
    return set(comparison_members(data))


def test_lsnc_is_compared_on_the_queries_both_judges_labelled(real, tmp_path):
    _, paths = real
    data_a = json.loads(paths["bm25"]["comlq"].read_text())
    data_b = forge_second_judge(json.loads(paths["all-MiniLM-L6-v2"]["comlq"].read_text()))
    read_result_data = tmp_path / "b.json"
    read_result_data.write_text(json.dumps(data_b))
    b = read_result(read_result_data)  # still a valid result: its LSNC scores are over its own judged queries
    a = read_result(paths["bm25"]["comlq"])
    from leaderboard.analysis.comparison import compare_cell
    from leaderboard.records.per_query_columns import of_result

    declaration = a.task.model_dump(mode="json")
    dropped = sorted(set(strata_ids(data_a, "default", LSNC10)[0]) - set(strata_ids(data_b, "default", LSNC10)[0]))
    members = comparison_members(data_a)
    negation_type = next(
        s for s, ids in members.items() if s.startswith("type=") and "&" not in s and dropped[0] in ids
    )
    for subset in ("group=negation", negation_type, "default"):
        row = compare_cell("comlq", LSNC10, "higher", of_result(a), of_result(b), subset, n_resamples=RESAMPLES)
        assert not isinstance(row, str)
        check_row(row, data_a, data_b, declaration)
        assert row.queries < row.queries_a and row.queries_b == row.queries  # A's judge labelled more
        assert row.mean_a != pytest.approx(a.score(LSNC10, subset))  # so A's own LSNC is not what is compared
    assert "of A 874, B 834" in comparison_html("A", "B", [row])


def test_multiconir_rows_are_macro_means_over_domains_of_unequal_size(uneven_multiconir):
    root, paths = uneven_multiconir
    board = loading.load(root, persist=False)
    keys = {line.name: line.key for line in board.ranking("Conditions", all_revisions=True).lines}
    comparison = compare_models(board, "Conditions", keys["seeded-a"], keys["seeded-b"], n_resamples=RESAMPLES)
    assert not comparison.skipped and len(comparison.tasks) == 2
    for task in ("multiconir-task1", "multiconir-task2"):
        data_a = json.loads(paths["seeded-a"][task].read_text())
        data_b = json.loads(paths["seeded-b"][task].read_text())
        rows = [r for r in comparison.rows() if r.task == task]
        assert {r.subset for r in rows} >= {"default", "domain=Books", "domain=Medical Case"}
        for row in rows:
            check_row(row, data_a, data_b, board.tasks[task])
        main = rows[0]
        assert main.mean_a == pytest.approx(data_a["main_score"], abs=1e-12)  # the macro mean, as the board shows
    decline = next(r for r in comparison.rows() if r.metric == "decline")
    assert decline.direction == "lower" and decline.subset == "default"


def test_compare_per_subset_prints_the_apps_rows(real, real_comparison):
    root, _ = real
    _, found = real_comparison
    ran = run_cli(
        "compare", "bm25", "all-MiniLM-L6-v2", "-t", "negconstraint", "--results", str(root),
        "--resamples", str(RESAMPLES), "--per-subset", "--format", "json",
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    printed = json.loads(ran.stdout)["subsets"]["negconstraint"]
    app = found["NegConstraint"]
    assert [r["subset"] for r in printed] == [r.subset for r in app.subsets["negconstraint"]]
    for mine, theirs in zip(printed, app.subsets["negconstraint"]):
        expected = theirs.to_json()
        assert {k: mine[k] for k in expected} == pytest.approx(expected)
        shown = app.labels()[("negconstraint", mine["subset"], mine["metric"])]  # the app adds the name it hides
        assert (subset_text(mine["subset_label"], mine["subset"]), mine["metric_label"]) == shown
    assert "lsnc_at_100" in ran.stderr and "not compared per subset" in ran.stderr  # no per-query values of it
    for fmt in ("table", "markdown", "latex"):
        shown = run_cli(
            "compare", "bm25", "all-MiniLM-L6-v2", "-t", "negconstraint", "--results", str(root),
            "--resamples", str(RESAMPLES), "--per-subset", "--format", fmt,
        )  # fmt: skip
        assert shown.returncode == 0, shown.stderr
        assert "per subset" in shown.stdout and "violator in top 5" in shown.stdout
