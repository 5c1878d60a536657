"""Per-query values for tasks that run through mteb: recomputed from mteb's saved rankings, checked against
mteb's own scores, and then compared like every other task (intervals, p-values, complexity strata)."""

import json
from fractions import Fraction

import pytest
from conftest import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from mteb_fixtures import MOVING_CHANGED, followir_moving_folder, ifir_folder

from leaderboard.records.result import Result, decode_per_query


def read(path):
    return Result.model_validate(json.loads(path.read_text()))


def per_query(result, metric):
    return {q: row[metric] for q, row in decode_per_query(result.per_query).items()}


def assert_mean_is_mteb_score(result, split="test"):
    """The stored score is the mean of the stored values (1e-9) and within 1e-6 of what mteb reported."""
    main = result.task.main_score
    values = per_query(result, main)
    mean = sum(values.values()) / len(values)
    assert result.main_score == pytest.approx(mean, abs=1e-9)
    assert result.scores[split]["default"][main] == pytest.approx(mean, abs=1e-9)
    reported = result.task_details["mteb_reported"][split]["default"][main]
    assert abs(mean - reported) <= 1e-6 + (5e-6 if main.startswith("ndcg") else 0.0)  # mteb rounds nDCG to 5 places
    return values


# -- p-MRR on a fixture where the changed instruction moves documents both ways -------------------------------


# BM25's rankings on followir_moving_folder (every document holds "energy", the query; four tokens each):
#   q1-og      "energy solar panels":          d1 (solar, panels) 1, d3 (solar) 2, d4 3, d2 4   (d4, d2 tie: id desc)
#   q1-changed "energy wind turbines":         d2 1, d3 (wind) 2, d4 3, d1 4                    (d4, d1 tie)
#   q2-og      "energy hydro dams":            d4 1, d3 2, d2 3, d1 4                            (d3, d2, d1 tie)
#   q2-changed "energy hydro dams not solar panels" ("not" is a stopword):
#                                              d4 (hydro, dams) 1, d1 (solar, panels) 2, d3 (solar) 3, d2 4
#     (hydro, dams and panels are in one document, solar in two: idf(1 doc) > idf(2 docs), so d4 > d1 > d3)
# p-MRR term of a document ranked R_og then R_new: R_og >= R_new: (1/R_og)/(1/R_new) - 1, else 1 - (1/R_new)/(1/R_og)
#   q1: d1 1 -> 4 (down, as asked): 1 - (1/4)/(1/1) = 3/4;  d3 2 -> 2: (1/2)/(1/2) - 1 = 0;   q1 = (3/4 + 0)/2 = 3/8
#   q2: d1 4 -> 2 (up, wrongly):    (1/4)/(1/2) - 1 = -1/2; d3 2 -> 3 (down): 1 - (1/3)/(1/2) = 1/3
#                                                                                  q2 = (-1/2 + 1/3)/2 = -1/12
#   p-MRR = (3/8 - 1/12) / 2 = (9/24 - 2/24) / 2 = 7/48 = 0.1458333...
BY_HAND = {"q1": Fraction(3, 8), "q2": Fraction(-1, 12)}
PMRR_BY_HAND = Fraction(7, 48)
RANKS = {  # the rankings above, as scores (rank 1 highest)
    "q1-og": ["d1", "d3", "d4", "d2"],
    "q1-changed": ["d2", "d3", "d4", "d1"],
    "q2-og": ["d4", "d3", "d2", "d1"],
    "q2-changed": ["d4", "d1", "d3", "d2"],
}


def as_run(ranks):
    return {q: {d: float(len(docs) - i) for i, d in enumerate(docs)} for q, docs in ranks.items()}


def test_pmrr_by_hand_equals_mtebs_own_function():
    from leaderboard_mteb.per_query import pmrr_per_pair
    from mteb._evaluators.retrieval_metrics import calculate_pmrr

    assert sum(BY_HAND.values()) / 2 == PMRR_BY_HAND
    run = as_run(RANKS)
    ours = pmrr_per_pair(run, MOVING_CHANGED)
    assert ours == pytest.approx({q: float(v) for q, v in BY_HAND.items()}, abs=1e-15)
    og = {q: r for q, r in run.items() if q.endswith("-og")}
    changed = {q: r for q, r in run.items() if q.endswith("-changed")}
    assert calculate_pmrr(og, changed, MOVING_CHANGED) == pytest.approx(float(PMRR_BY_HAND), abs=1e-15)


def test_bm25_pmrr_on_the_moving_fixture_and_compare(tmp_path):
    folder = followir_moving_folder(tmp_path / "moving")
    results = tmp_path / "results"
    ran = run_cli("compare", "bm25", "bm25-okapi", "--task", str(folder), "--results", str(results), "--format", "json")
    assert ran.returncode == 0, ran.stderr
    bm25 = read(next((results / "bm25").rglob("*.json")))
    assert bm25.task.main_score == "p-MRR"
    values = assert_mean_is_mteb_score(bm25)
    assert values == pytest.approx({q: float(v) for q, v in BY_HAND.items()}, abs=1e-12)  # both directions moved
    assert bm25.main_score == pytest.approx(float(PMRR_BY_HAND), abs=1e-12)
    assert bm25.task_details["per_query_unit"].startswith("og/changed query pair")
    (row,) = json.loads(ran.stdout)["tasks"]  # compared over the two og/changed pairs
    assert row["metric"] == "p-MRR" and row["queries"] == 2 and row["exact"]
    assert row["mean_a"] == pytest.approx(float(PMRR_BY_HAND), abs=1e-12)
    okapi = per_query(read(next((results / "bm25-okapi").rglob("*.json"))), "p-MRR")
    assert row["difference"] == pytest.approx(float(PMRR_BY_HAND) - sum(okapi.values()) / 2, abs=1e-12)
    assert row["ci_low"] <= row["difference"] <= row["ci_high"] and 0 < row["p_value"] <= 1
    shown = run_cli("show", str(results), "--format", "markdown")  # the board's cells: an interval, ≈ or bold
    assert shown.returncode == 0, shown.stderr
    cell = next(line for line in shown.stdout.splitlines() if line.startswith("| bm25 |"))
    assert "0.1458 \\[" in cell and ("≈" in cell or "**" in cell)  # Markdown escapes the bracket (not a link)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    st.dictionaries(
        st.sampled_from(["a", "b", "c"]),
        st.tuples(
            st.dictionaries(st.sampled_from("uvwxyz"), st.integers(0, 3), min_size=1),  # og: ties and gaps
            st.dictionaries(st.sampled_from("uvwxyz"), st.integers(0, 3), min_size=1),  # changed
            st.lists(st.sampled_from("uvwxyz"), min_size=1, max_size=4),  # changed-away documents
        ),
        min_size=1,
    )
)
def test_pmrr_per_pair_mean_equals_mteb_on_any_runs(pairs):
    from leaderboard_mteb.per_query import pmrr_per_pair
    from mteb._evaluators.retrieval_metrics import calculate_pmrr

    og = {f"{q}-og": {d: float(s) for d, s in r.items()} for q, (r, _, _) in pairs.items()}
    changed = {f"{q}-changed": {d: float(s) for d, s in r.items()} for q, (_, r, _) in pairs.items()}
    diff = {q: docs for q, (_, _, docs) in pairs.items()}
    ours = pmrr_per_pair({**og, **changed}, diff)
    assert sum(ours.values()) / len(ours) == pytest.approx(calculate_pmrr(og, changed, diff), abs=1e-12)


# -- robustness@10 and paired accuracy, against mteb's functions ------------------------------------------------


def test_variant_metrics_equal_mtebs():
    from leaderboard_mteb.per_query import paired_accuracy_per_pair, robustness_per_query
    from mteb._evaluators.retrieval_metrics import paired_accuracy, robustness_at_10

    ndcg = {"a_0": 0.5, "a_1": 0.25, "a_2": 1.0, "b_0": 0.75, "b_1": 0.9}
    qrels = dict.fromkeys(ndcg, {"d": 1})
    scores = {q: {"ndcg_cut_10": v} for q, v in ndcg.items()}
    assert robustness_per_query(ndcg, qrels) == {"a": 0.25, "b": 0.75}  # the lowest over each base query's variants
    assert robustness_at_10(qrels, {}, scores) == pytest.approx((0.25 + 0.75) / 2)
    recall = {"p1_q1": 1.0, "p1_q2": 1.0, "p2_q1": 1.0, "p2_q2": 0.0, "p3_q1": 0.0, "p3_q2": 0.0}
    pairs = paired_accuracy_per_pair(recall, recall)
    assert pairs == {"p1": 1.0, "p2": 0.0, "p3": 0.0}  # both questions of a pair right, or nothing
    mteb_scores = {q: {"recall_1": v} for q, v in recall.items()}
    assert paired_accuracy(recall, {}, mteb_scores) == pytest.approx(sum(pairs.values()) / 3)


def test_mean_check_tolerance():
    from leaderboard_mteb.per_query import PerQueryMismatch, check_mean

    values = {"q1": 0.5, "q2": 0.25}
    assert check_mean("T", "default", "ndcg_at_10", values, 0.37500) == 0.375
    assert check_mean("T", "default", "ndcg_at_10", values, 0.37500 + 4e-6) == 0.375  # mteb's 5-decimal rounding
    with pytest.raises(PerQueryMismatch, match="task T, subset default: .* p-MRR .* mteb reported"):
        check_mean("T", "default", "p-MRR", values, 0.375 + 4e-6)  # p-MRR is not rounded: 1e-6


def test_a_mismatch_with_mtebs_score_fails_the_run(tmp_path, monkeypatch):
    import leaderboard_mteb.per_query as per_query_module

    import leaderboard
    from leaderboard.errors import BadInput

    real = per_query_module.pmrr_per_pair

    def off_by_a_little(runs, changed):
        return {q: v + 1e-4 for q, v in real(runs, changed).items()}

    monkeypatch.setattr(per_query_module, "pmrr_per_pair", off_by_a_little)
    folder = followir_moving_folder(tmp_path / "moving")
    with pytest.raises(BadInput, match=r"mteb task mteb-local-moving, subset default: .* p-MRR .* mteb reported"):
        leaderboard.evaluate(["bm25"], [str(folder)], output=tmp_path / "out")
    assert not list((tmp_path / "out").rglob("*.json"))  # nothing written


# -- an IFIR-style folder: nDCG@20 per query, compare, complexity strata ----------------------------------------


def test_ifir_folder_per_query_compare_and_strata(tmp_path):
    folder = ifir_folder(tmp_path / "ifir")
    results = tmp_path / "results"
    ran = run_cli(
        "compare", "bm25", "bm25-okapi", "--task", "IFIRAila", "--results", str(results),
        "--data-dir", f"IFIRAila={folder}",
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert "95% CI" in ran.stdout and "p (Holm)" in ran.stdout and "IFIRAila" in ran.stdout
    for model in ("bm25", "bm25-okapi"):
        result = read(next((results / model).rglob("IFIRAila.json")))
        values = assert_mean_is_mteb_score(result)
        assert len(values) == 9 and result.task_details["per_query_unit"] == "query"
        assert len(set(values.values())) > 1  # BM25 misses on some queries: the values vary
        strata = [s for s in result.scores["test"] if s.startswith("cw=")]
        assert len(strata) > 1 and "complexity" in result.task_details  # the engine's query-complexity strata
    okapi = per_query(read(next((results / "bm25-okapi").rglob("IFIRAila.json"))), "ndcg_at_20")
    assert okapi["w_v1"] < 1.0  # "witness" meets "witnesses." only through bm25's stemmer


def test_nevir_folder_paired_accuracy_per_pair(tmp_path):
    from mteb_fixtures import nevir_folder

    folder = nevir_folder(tmp_path / "nevir")
    ran = run_cli(
        "run", "-m", "bm25", "-t", "NevIR", "--output", str(tmp_path / "out"),
        env={"LEADERBOARD_MTEB_DATA_NEVIR": str(folder)},
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    result = read(next((tmp_path / "out").rglob("NevIR.json")))
    values = assert_mean_is_mteb_score(result)
    assert values == {"p1": 1.0, "p2": 0.0} and result.main_score == 0.5  # p2's q2 picks q1's passage
    assert result.task_details["per_query_unit"].startswith("q1/q2 query pair")
    assert not [s for s in result.scores["test"] if s.startswith("cw=")]  # a pair has no one query text


# -- several mteb subsets (mFollowIR's languages): units keyed by subset, membership per subset --------------------


class StubHandle:
    """What add_per_query reads of an evaluated mteb task: its loaded dataset (queries, judged documents)."""

    def __init__(self, subsets):
        self.dataset = {
            subset: {
                "test": {
                    "queries": {
                        "id": [q + s for q in pairs for s in ("-og", "-changed")],
                        "text": ["w"] * 2 * len(pairs),
                    },
                    "relevant_docs": {q + s: {"d1": 1} for q in pairs for s in ("-og", "-changed")},
                }
            }
            for subset, pairs in subsets.items()
        }


def pmrr_report(task, subsets, monkeypatch):
    """add_per_query on runs where each pair's changed-away d1 drops from rank 1 to 2: p-MRR 1/2 per pair."""
    import leaderboard_mteb.per_query as per_query_module

    from leaderboard.contract.task import DataSource, ExternalData, ScoreReport

    monkeypatch.setattr(
        per_query_module, "changed_documents", lambda handle, subset: {q: ["d1"] for q in subsets[subset]}
    )
    runs = {
        subset: {
            "test": {
                q + s: ({"d1": 2.0, "d2": 1.0} if s == "-og" else {"d1": 1.0, "d2": 2.0})
                for q in pairs
                for s in ("-og", "-changed")
            }
        }
        for subset, pairs in subsets.items()
    }
    scores = {"test": {s: {"p-MRR": 0.5} for s in subsets} | {"default": {"p-MRR": 0.5}}}
    report = ScoreReport(scores, details={})
    data = ExternalData(DataSource("local", "stub"), StubHandle(subsets))
    task.add_per_query(report, data, runs, list(subsets))
    return report, data


def test_subsets_of_equal_size_store_units_per_subset(monkeypatch):
    from leaderboard_mteb.tasks import MtebTask

    report, data = pmrr_report(MtebTask("mFollowIR"), {"fas": ["1", "2"], "rus": ["1", "3"]}, monkeypatch)
    assert report.per_query == {k: {"p-MRR": 0.5} for k in ("fas/1", "fas/2", "rus/1", "rus/3")}
    assert report.subset_queries == {"fas": ["fas/1", "fas/2"], "rus": ["rus/1", "rus/3"]}
    assert report.scores["test"]["default"]["p-MRR"] == 0.5 and data.query_texts["rus/3"] == "w"
    assert report.details["mteb_reported"]["test"] == {"fas": {"p-MRR": 0.5}, "rus": {"p-MRR": 0.5}}


def test_subsets_of_unequal_size_store_no_units(monkeypatch):
    from leaderboard_mteb.tasks import MtebTask

    report, _ = pmrr_report(MtebTask("mFollowIR"), {"fas": ["1", "2"], "rus": ["1"]}, monkeypatch)
    assert report.per_query == {} and "mean over the subsets" in report.details["per_query"]  # said, not hidden
    assert report.scores["test"]["default"]["p-MRR"] == 0.5  # the mean of the checked subset means
