"""Every metric's cell takes its interval from the queries that metric was computed on (issue 31.2):
LSNC's judged negation queries, recorded per metric in the result (``per_query.metric_queries``) and
checked by every reader; MultiConIR's default scores, macro means over domains of unequal size
(``per_query.macro_over``), read, resampled per domain and tested as the board shows them."""

from __future__ import annotations

import json

import numpy as np
import pytest
from numbers_fixtures import LSNC10, copy_real_results, forge_second_judge, multiconir_pair, strata_ids
from scipy import stats

from leaderboard.app.server import loading
from leaderboard.metrics.bootstrap import N_RESAMPLES, stratified_bootstrap
from leaderboard.records.files import read_result, validation_errors
from leaderboard.records.result import decode_metric_queries, decode_per_query


def own_interval(values: dict[str, float]) -> tuple[float, float]:
    """The harness's bootstrap of one cell's values, queries in id order (independent of the board's code)."""
    low, high = stratified_bootstrap([np.asarray([[values[q] for q in sorted(values)]])])
    return float(low[0]), float(high[0])


@pytest.fixture(scope="module")
def board_with_two_judges(tmp_path_factory):
    """The real ComLQ runs; all-MiniLM-L6-v2's as if its judge had labelled 40 fewer negation queries."""
    from leaderboard.cli.serve import registered_benchmarks

    root = tmp_path_factory.mktemp("judges")
    paths = copy_real_results(root, tasks=("comlq",))
    minilm = paths["all-MiniLM-L6-v2"]["comlq"]
    minilm.write_text(json.dumps(forge_second_judge(json.loads(minilm.read_text()))))
    return loading.load(root, registered_benchmarks(), persist=False), paths


def test_lsnc_cells_have_the_interval_of_the_queries_each_judge_labelled(board_with_two_judges):
    board, paths = board_with_two_judges
    ranking = board.ranking("ComLQ")
    columns = {c.spec.metric: c for c in ranking.columns if c.spec.subset == "group=negation"}
    assert LSNC10 in columns
    checked = 0
    for line in ranking.lines:
        model = "bm25" if line.name == "bm25" else "all-MiniLM-L6-v2"
        data = json.loads(paths[model]["comlq"].read_text())
        for metric, column in columns.items():
            values = strata_ids(data, "group=negation", metric)[0]
            assert len(values) == (874 if model == "bm25" else 834)
            assert line.values[column.key] == pytest.approx(np.mean(list(values.values())), abs=1e-12)
            assert column.key not in line.interval_notes  # it used to say "no interval"
            assert line.intervals[column.key] == pytest.approx(own_interval(values), abs=1e-12)
            ref = stats.bootstrap(
                (np.asarray(list(values.values())),), np.mean, n_resamples=N_RESAMPLES, method="percentile",
                rng=np.random.default_rng(3),
            ).confidence_interval  # fmt: skip
            assert line.intervals[column.key] == pytest.approx((ref.low, ref.high), abs=0.004)
            checked += 1
    assert checked == 4
    # per negation type too: LSNC@10's cell on ¬2in resamples the judged queries of that type only
    type_cells = [c for c in ranking.columns if c.spec.metric == LSNC10 and c.spec.subset.startswith("type=")]
    for column in type_cells:
        for line in ranking.lines:
            assert line.intervals.get(column.key) is not None


def test_new_comlq_results_record_which_queries_lsnc_is_computed_on(tmp_path):
    from app_fixtures import write_comlq

    import leaderboard

    types = write_comlq(tmp_path / "data")
    queries = [json.loads(line) for line in (tmp_path / "data" / "queries.jsonl").read_text().splitlines()]
    for query in queries:  # a negated condition the lexical judge can read on half the negation queries
        if types[query["_id"]] in ("2in", "3in", "inp", "pin", "pni") and query["_id"].endswith(("0", "2")):
            query["text"] += " but not saturn"
    (tmp_path / "data" / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (outcome,) = leaderboard.evaluate(
        ["bm25"], ["comlq"], output=tmp_path / "out", data_dirs={"comlq": str(tmp_path / "data")}
    )
    result = outcome.result
    declared = decode_metric_queries(result.per_query)
    values = decode_per_query(result.per_query)
    lsnc = [m for m in result.per_query.metrics if m.startswith("lsnc_")]
    assert sorted(declared) == sorted(lsnc) and lsnc
    judged = result.task_details["judge_coverage"]
    assert 0 < judged["judged"] < judged["negation_queries"]
    for metric in lsnc:
        assert declared[metric] == sorted(q for q, row in values.items() if metric in row)
        assert len(declared[metric]) == judged["judged"]
    assert "ndcg_at_10" not in declared  # computed on every query: not listed
    # a forged list (one judged query dropped from it) is refused by every reader, naming the field
    data = result.to_json()
    from leaderboard.records.per_query import encode_per_query

    forged = {m: ids[1:] for m, ids in declared.items()}
    data["per_query"] = encode_per_query(values, None, forged).model_dump(mode="json")
    data["per_query"]["subsets"] = result.to_json()["per_query"]["subsets"]
    problems = validation_errors(data)
    assert any(f"per_query/metric_queries/{lsnc[0]}" in p for p in problems), problems


def test_files_written_before_metric_membership_still_read_and_get_lsnc_intervals(tmp_path):
    from numbers_fixtures import BM25

    data = json.loads((BM25 / "comlq.json").read_text("utf-8"))
    assert data["per_query"].pop("metric_queries")  # as files written before the field existed hold it
    (tmp_path / "comlq.json").write_text(json.dumps(data), "utf-8")
    result = read_result(tmp_path / "comlq.json")
    assert result.per_query is not None and result.per_query.metric_queries is None
    from leaderboard.records.per_query_columns import mean, of_result, strata

    parts = strata(of_result(result), LSNC10, "group=negation")
    assert not isinstance(parts, str) and len(parts[0][0]) == 874
    assert mean(parts) == pytest.approx(result.score(LSNC10, "group=negation"), abs=1e-12)


def test_uneven_multiconir_results_read_and_their_board_numbers_are_macro_means(tmp_path):
    paths = multiconir_pair(tmp_path)
    for model in paths.values():
        for path in model.values():
            result = read_result(path)  # refused before: the mean over records is not the macro mean
            assert result.per_query.macro_over and len(result.per_query.macro_over) == 5
    declared = [
        {
            "name": "Conditions",
            "description": "",
            "reference": "",
            "tasks": [
                {"task": "multiconir-task1", "metric": "mean_win_rate", "label": "Task 1"},
                {"task": "multiconir-task2", "metric": "mean_adjacent_win_rate", "label": "Task 2"},
            ],
        }
    ]
    (tmp_path / "results" / "benchmarks.json").write_text(json.dumps(declared))
    board = loading.load(tmp_path / "results", persist=False)
    ranking = board.ranking("Conditions")
    assert [line.p_value is not None for line in ranking.ranked] == [False, True]  # #2 tested against #1
    for line in ranking.ranked:
        # the aggregate: the mean of the two tasks' macro means, resampled per task and domain (10 strata)
        parts, shares = [], []
        for column in ranking.columns:
            data = json.loads(paths[line.name][column.spec.task].read_text())
            domains = strata_ids(data, "default", column.spec.metric)
            assert len(domains) == 5
            parts += [np.asarray([[d[q] for q in sorted(d)]]) for d in domains]
            shares += [1 / 10] * 5
        low, high = stratified_bootstrap(parts, weights=shares)
        assert line.aggregate_interval == pytest.approx((low[0], high[0]), abs=1e-12)
        macro = np.mean([np.mean([np.mean(list(p[0])) for p in parts[i : i + 5]]) for i in (0, 5)])
        assert line.aggregate == pytest.approx(macro, abs=1e-12)
