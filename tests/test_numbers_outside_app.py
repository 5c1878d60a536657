"""Numbers below the main score, outside the app (issue 32.3), and the small comparison fixes (31.4, 31.5,
32.5): ``show --subsets`` in every format, ``compare --queries N``, ``leaderboard.per_query_frame``, the
flat table's intervals equal to the board's, one writing of a p-value, refusals of incomparable pairs."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from conftest import run_cli
from numbers_fixtures import LSNC10, copy_real_results, strata_ids

from leaderboard.app.server import loading
from leaderboard.records.files import read_result

SHARED_COMLQ = __import__("pathlib").Path(__file__).resolve().parents[2] / "shared" / "data" / "comlq"


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    root = tmp_path_factory.mktemp("real")
    return root, copy_real_results(root)


def test_show_subsets_prints_each_tasks_subset_table_with_intervals_in_every_format(real, tmp_path):
    root, paths = real
    ran = run_cli("show", str(root), "--subsets", "--format", "json")
    assert ran.returncode == 0, ran.stderr
    rows = json.loads(ran.stdout)
    by = {(r["model"].split("/")[-1], r["task"], r["subset"], r["metric"]): r for r in rows}
    # ComLQ per type with LSNC; NegConstraint per category with the violation metrics
    assert ("bm25", "comlq", "type=2in", LSNC10) in by and ("bm25", "comlq", "type=1p", LSNC10) not in by
    assert {("bm25", "negconstraint", "category=A - a", m) for m in ("ndcg_at_10", "paired_win_rate")} <= set(by)
    assert ("bm25", "negconstraint", "default", "violation_at_5") in by
    for (model, task, subset, metric), row in by.items():
        data = json.loads(paths["bm25" if model == "bm25" else "all-MiniLM-L6-v2"][task].read_text())
        assert row["value"] == data["scores"]["test"][subset][metric]
        if row["ci_low"] is None:
            assert row["ci_note"], (task, subset, metric)
            continue
        values = strata_ids(data, subset, metric)[0]  # recomputed from the file: the cell's own queries
        assert row["queries"] == len(values) and row["ci_source"] == "bootstrap"
        assert row["ci_low"] < np.mean(list(values.values())) < row["ci_high"] or row["ci_low"] == row["ci_high"]
    lsnc = by[("bm25", "comlq", "group=negation", LSNC10)]
    assert lsnc["queries"] == 874 and lsnc["metric_label"] == "LSNC@10 (lexical-v1)"
    # the same interval as the board's cell (ComLQ's LSNC@10 column)
    from leaderboard.cli.serve import registered_benchmarks

    board = loading.load(root, registered_benchmarks(), persist=False)
    ranking = board.ranking("ComLQ")
    column = next(c for c in ranking.columns if (c.spec.subset, c.spec.metric) == ("group=negation", LSNC10))
    line = next(line for line in ranking.lines if line.name == "bm25")
    assert line.intervals[column.key] == pytest.approx((lsnc["ci_low"], lsnc["ci_high"]), abs=1e-12)
    # the terminal, Markdown and LaTeX tables lay the same rows out per task (ComLQ's, from the rows above) ...
    from leaderboard.cli.paper_tables import render
    from leaderboard.cli.subset_tables import wide

    headers, body = wide(r for r in rows if r["task"] == "comlq")
    assert headers[:3] == ["Model", "Subset", "nDCG@10"] and "LSNC@10 (lexical-v1)" in headers
    cell = f"{lsnc['value']:.4f} [{lsnc['ci_low']:.4f}, {lsnc['ci_high']:.4f}]"
    assert any(line[1] == "group=negation" and cell in line for line in body)
    assert any(line[1] == "¬2in (type=2in)" for line in body)
    markdown = render(headers, [[(c, False) for c in line] for line in body], "markdown", "t", [], 2)
    assert cell.replace("[", "\\[").replace("]", "\\]") in markdown  # brackets escaped: not a Markdown link
    # ... and the command prints them in every format (NegConstraint's two results: fast)
    negconstraint = tmp_path / "negconstraint"
    copy_real_results(negconstraint, tasks=("negconstraint",))
    win = next(r for r in rows if r["model"] == "bm25" and (r["subset"], r["metric"]) == ("default", "paired_win_rate"))
    table = run_cli("show", str(negconstraint), "--subsets", "--format", "csv")
    assert table.returncode == 0, table.stderr
    printed = list(csv.DictReader(io.StringIO(table.stdout)))
    assert len(printed) == sum(r["task"] == "negconstraint" for r in rows) and printed[0]["ci_source"] == "bootstrap"
    for fmt in ("table", "markdown", "latex"):
        shown = run_cli("show", str(negconstraint), "--subsets", "--format", fmt)
        assert shown.returncode == 0, shown.stderr
        cell = f"{win['value']:.4f} [{win['ci_low']:.4f}, {win['ci_high']:.4f}]"
        if fmt == "markdown":  # brackets escaped: not a Markdown link
            cell = cell.replace("[", "\\[").replace("]", "\\]")
        if fmt == "latex":  # models are the columns, each interval below its score (tests/test_paper_latex.py)
            cell = f"{win['value']:.4f}"
            assert f"{{\\scriptsize [{win['ci_low']:.4f}, {win['ci_high']:.4f}]}}" in shown.stdout
        assert cell in shown.stdout
        assert "violator in top 5" in shown.stdout


def test_compare_queries_lists_the_largest_differences_each_way_with_text_given_the_data(real):
    root, paths = real
    args = ["compare", "bm25", "all-MiniLM-L6-v2", "-t", "comlq", "--results", str(root), "--queries", "4"]
    ran = run_cli(*args, "--data-dir", f"comlq={SHARED_COMLQ}", "--format", "json")
    assert ran.returncode == 0, ran.stderr
    found = json.loads(ran.stdout)["queries"]["comlq"]
    a = json.loads(paths["bm25"]["comlq"].read_text())
    b = json.loads(paths["all-MiniLM-L6-v2"]["comlq"].read_text())
    va, vb = strata_ids(a, "default", "ndcg_at_10")[0], strata_ids(b, "default", "ndcg_at_10")[0]
    gaps = sorted(((va[q] - vb[q], q) for q in va), key=lambda x: (-x[0], int(x[1])))  # ComLQ's ids are numbers
    assert [r["query_id"] for r in found["a_better"]] == [q for _, q in gaps[:4]]
    low = sorted(((va[q] - vb[q], q) for q in va), key=lambda x: (x[0], int(x[1])))
    assert [r["query_id"] for r in found["b_better"]] == [q for _, q in low[:4]]
    texts = {json.loads(line)["_id"]: json.loads(line)["text"] for line in (SHARED_COMLQ / "queries.jsonl").open()}
    for row in found["a_better"] + found["b_better"]:
        assert row["value_a"] == va[row["query_id"]] and row["value_b"] == vb[row["query_id"]]
        assert row["text"] == texts[row["query_id"]]
        assert any(s.startswith("type=") for s in row["subsets"])
    plain = run_cli(*args)  # no data: the ids, subsets and scores, no text
    assert plain.returncode == 0 and found["a_better"][0]["query_id"] in plain.stdout


def test_per_query_frame_of_one_result_or_many(real):
    import leaderboard

    root, paths = real
    frame = leaderboard.per_query_frame(root)
    assert set(frame.columns) == {"model", "revision", "task", "result_path", "query_id", "subsets", "metric", "value"}
    for tasks in paths.values():
        for path in tasks.values():
            result = read_result(path)
            mine = frame[(frame.result_path == str(path))]
            for metric, group in mine.groupby("metric"):
                assert group.value.mean() == pytest.approx(result.score(metric), abs=1e-12)  # every query it has
    lsnc = frame[(frame.metric == LSNC10) & (frame.model == "bm25")]
    assert len(lsnc) == 874  # the judged queries only
    type_2in = lsnc[lsnc.subsets.map(lambda s: "type=2in" in s)]
    assert type_2in.value.mean() == pytest.approx(read_result(paths["bm25"]["comlq"]).score(LSNC10, "type=2in"))
    one = leaderboard.per_query_frame(read_result(paths["bm25"]["negconstraint"]), metrics=["paired_win_rate"])
    assert len(one) == 366 and set(one.metric) == {"paired_win_rate"} and one.result_path.isna().all()
    many = leaderboard.per_query_frame([paths["bm25"]["negconstraint"], paths["all-MiniLM-L6-v2"]["negconstraint"]])
    assert many.groupby("model").size().tolist() == [3660, 3660]


def test_the_flat_tables_intervals_are_the_boards_and_reused_for_an_unchanged_file(real):
    from leaderboard.cli.serve import registered_benchmarks
    from leaderboard.hub.flat_table import rows_of

    root, paths = real
    board = loading.load(root, registered_benchmarks(), persist=False)
    result = read_result(paths["bm25"]["comlq"])
    rows = {(r["subset"], r["metric"]): r for r in rows_of(result, "results/bm25/comlq.json", "abc")}
    assert rows[("default", "ndcg_at_10")]["is_main_score"] and rows[("default", "ndcg_at_10")]["ci_low"] is not None
    ranking = board.ranking("ComLQ")
    line = next(line for line in ranking.lines if line.name == "bm25")
    for column in ranking.columns:  # every interval the board shows for this result, main score included
        row = rows[(column.spec.subset, column.spec.metric)]
        assert (row["ci_low"], row["ci_high"]) == pytest.approx(line.intervals[column.key], abs=1e-12)
        assert row["ci_source"] == "bootstrap" and row["result_sha256"] == "abc"
    # a push reuses the intervals of a file whose bytes it wrote the table from; a changed file's are computed
    small = read_result(paths["bm25"]["negconstraint"])
    first = {(r["subset"], r["metric"]): r for r in rows_of(small, "n.json", "abc")}
    reused = {("n.json", "abc", "default", "ndcg_at_10"): (0.1, 0.2, "bootstrap", 7)}
    again = {(r["subset"], r["metric"]): r for r in rows_of(small, "n.json", "abc", reused)}
    assert (again[("default", "ndcg_at_10")]["ci_low"], again[("default", "ndcg_at_10")]["ci_high"]) == (0.1, 0.2)
    assert again[("default", "ndcg_at_10")]["queries"] == 7
    changed = {(r["subset"], r["metric"]): r for r in rows_of(small, "n.json", "other", reused)}
    assert changed[("default", "ndcg_at_10")]["ci_low"] == first[("default", "ndcg_at_10")]["ci_low"]


def test_the_flat_tables_queries_are_those_behind_the_value_and_the_subsets_size_its_own_column(real):
    """LSNC on ComLQ: the value and its interval cover the 874 judged queries of the 2,909 (``show --subsets``'s
    count); the table round-trips both through Parquet, and a reused interval keeps its count."""
    from leaderboard.hub.flat_table import reusable_intervals, rows_of, table_bytes

    root, paths = real
    data = json.loads(paths["bm25"]["comlq"].read_text())
    result = read_result(paths["bm25"]["comlq"])
    rows = rows_of(result, "results/bm25/comlq.json", "abc")
    by_cell = {(r["split"], r["subset"], r["metric"]): r for r in rows}
    split = result.task.main_split
    lsnc = by_cell[(split, "default", LSNC10)]
    assert (lsnc["queries"], lsnc["subset_queries"]) == (874, 2909)
    assert len(strata_ids(data, "default", LSNC10)[0]) == 874
    main = by_cell[(split, "default", "ndcg_at_10")]
    assert main["queries"] == main["subset_queries"] == 2909
    for (_, subset, metric), row in by_cell.items():  # every cell: the count behind its own per-query values
        if row["ci_source"] == "bootstrap":
            assert row["queries"] == sum(len(ids) for ids in strata_ids(data, subset, metric)), (subset, metric)
            assert row["queries"] <= row["subset_queries"]
    shown = run_cli("show", str(root), "--subsets", "--format", "json")
    assert shown.returncode == 0, shown.stderr
    cells = [c for c in json.loads(shown.stdout) if c["model"] == result.model.name and c["task"] == "comlq"]
    assert any(c["metric"] == LSNC10 for c in cells)
    for cell in cells:  # the same count as show --subsets gives each cell
        assert by_cell[(split, cell["subset"], cell["metric"])]["queries"] == cell["queries"], cell
    reused = reusable_intervals(table_bytes(rows))
    assert reused[("results/bm25/comlq.json", "abc", "default", LSNC10)][3] == 874


def test_a_p_value_at_the_permutation_floor_reads_the_same_in_the_cli_and_the_app():
    from types import SimpleNamespace

    from leaderboard.app.views.compare import comparison_html, p_text
    from leaderboard.cli.formats import at_floor, format_p

    floor = 2 / 10_001
    row = SimpleNamespace(p_value=floor, exact=False, resamples=10_000)
    cli_text = format_p(floor, at_floor(row, 10_000))
    assert cli_text == "≤0.0002" and p_text(floor, 10_000, False) == cli_text  # was "2.0e-04" in the app
    assert p_text(0.26478, 10_000, False) == format_p(0.26478, False) == "0.2648"  # was "0.265"
    shown = SimpleNamespace(
        task="t", subset="default", metric="m", mean_a=0.6, mean_b=0.5, difference=0.1, ci_low=0.05, ci_high=0.15,
        p_value=floor, p_holm=2 * floor, exact=False, resamples=10_000, queries=2909,
    )  # fmt: skip
    html = comparison_html("A", "B", [shown])
    assert "≤0.0002" in html and "≤0.0004" in html  # Holm's p is an upper bound too, as the CLI prints it


def test_compare_refuses_results_of_different_task_versions_naming_both_files_and_the_field(real, tmp_path):
    root, paths = real
    data = json.loads(paths["all-MiniLM-L6-v2"]["negconstraint"].read_text())
    data["task"]["version"] = str(int(data["task"]["version"]) + 1)  # a version the bm25 result is not at
    other = tmp_path / "results" / "m" / "r" / "negconstraint.json"
    other.parent.mkdir(parents=True)
    other.write_text(json.dumps(data))
    bm25 = tmp_path / "results" / "bm25" / "r" / "negconstraint.json"
    bm25.parent.mkdir(parents=True)
    bm25.write_text(paths["bm25"]["negconstraint"].read_text())
    ran = run_cli(
        "compare", "bm25", data["model"]["name"], "-t", "negconstraint", "--results", str(tmp_path / "results")
    )
    assert ran.returncode == 2, ran.stdout + ran.stderr
    message = " ".join(ran.stderr.split())
    assert "task.version" in message and str(other) in message and str(bm25) in message
    assert "Traceback" not in ran.stderr


def test_compare_refuses_a_result_compared_with_itself(real):
    root, _ = real
    ran = run_cli("compare", "bm25", "bm25", "-t", "negconstraint", "--results", str(root))
    assert ran.returncode == 2 and "same model" in ran.stderr and "Traceback" not in ran.stderr
    assert ran.stdout == ""
