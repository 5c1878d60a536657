"""Retrieval metrics against values computed by hand, and against pytrec_eval directly."""

import math

import pytest
import pytrec_eval

from leaderboard.metrics.retrieval import mean_scores, per_query_scores, trec_order, truncate

QRELS = {"q1": {"a": 2, "b": 1}, "q2": {"d": 1}, "q3": {"g": 1}}
RUN = {
    "q1": {"a": 0.9, "c": 0.8, "b": 0.7},
    "q2": {"e": 0.5, "d": 0.5, "f": 0.1},  # tie: trec_eval puts 'e' before 'd' (id descending)
    # q3 retrieved nothing: it must count as 0, not vanish from the mean
}


def test_values_computed_by_hand():
    per_query = per_query_scores(QRELS, RUN, k_values=(1, 3))
    q1, q2, q3 = per_query["q1"], per_query["q2"], per_query["q3"]
    # q1: relevant at ranks 1 (gain 2) and 3 (gain 1); trec_eval nDCG uses linear gains, log2(rank+1) discounts
    idcg = 2 / math.log2(2) + 1 / math.log2(3)
    assert q1["ndcg_at_3"] == pytest.approx((2 + 1 / math.log2(4)) / idcg)
    assert q1["ndcg_at_1"] == pytest.approx(1.0)
    assert q1["precision_at_3"] == pytest.approx(2 / 3)
    assert q1["recall_at_1"] == pytest.approx(1 / 2)
    assert q1["recall_at_3"] == pytest.approx(1.0)
    assert q1["map_at_3"] == pytest.approx((1 + 2 / 3) / 2)
    assert q1["mrr_at_10"] == pytest.approx(1.0)
    # q2: the tie puts the relevant 'd' at rank 2
    assert q2["mrr_at_10"] == pytest.approx(0.5)
    assert q2["ndcg_at_3"] == pytest.approx(1 / math.log2(3))
    assert q2["precision_at_1"] == 0.0
    assert all(v == 0.0 for v in q3.values())
    means = mean_scores(per_query)
    assert means["mrr_at_10"] == pytest.approx((1 + 0.5 + 0) / 3)
    assert means["ndcg_at_3"] == pytest.approx(((2 + 0.5) / idcg + 1 / math.log2(3)) / 3)


def test_mrr_is_cut_at_ten():
    qrels = {"q": {"rel": 1}}
    run = {"q": {f"n{i:02d}": 1.0 - i / 100 for i in range(10)} | {"rel": 0.5}}  # relevant at rank 11
    assert per_query_scores(qrels, run)["q"]["mrr_at_10"] == 0.0
    full = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    assert full["q"]["recip_rank"] == pytest.approx(1 / 11)  # what an uncut MRR would have said


def test_equals_pytrec_eval_on_queries_it_scores():
    per_query = per_query_scores(QRELS, RUN)
    reference = pytrec_eval.RelevanceEvaluator(QRELS, {"ndcg_cut.10", "map_cut.100", "recall.5", "P.10"}).evaluate(RUN)
    for qid, values in reference.items():
        assert per_query[qid]["ndcg_at_10"] == values["ndcg_cut_10"]
        assert per_query[qid]["map_at_100"] == values["map_cut_100"]
        assert per_query[qid]["recall_at_5"] == values["recall_5"]
        assert per_query[qid]["precision_at_10"] == values["P_10"]


def test_trec_order_and_truncate():
    assert [d for d, _ in trec_order({"a": 1.0, "b": 1.0, "c": 2.0})] == ["c", "b", "a"]
    assert truncate({"q": {"a": 1.0, "b": 1.0, "c": 2.0}}, 2) == {"q": {"c": 2.0, "b": 1.0}}
