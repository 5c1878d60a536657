"""``compare --queries``: tied differences are listed by query id with numbers compared as numbers."""

from __future__ import annotations

from leaderboard.analysis.query_differences import largest_differences
from leaderboard.records.natural_order import natural_key


def test_tied_queries_are_listed_in_numeric_id_order():
    ids = ["1053", "107", "9", "20", "q10", "q9"]
    a = {"ids": ids, "values": {"ndcg_at_10": [1.0] * len(ids)}}
    b = {"ids": ids, "values": {"ndcg_at_10": [0.5] * len(ids)}}
    found = largest_differences(a, b, "ndcg_at_10", "higher", 10)
    assert not isinstance(found, str)
    a_better, b_better = found
    assert [r.query_id for r in a_better] == ["9", "20", "107", "1053", "q9", "q10"]  # as strings: "1053" first
    assert b_better == []
    lower = largest_differences(a, b, "ndcg_at_10", "lower", 3)  # B better on a lower-is-better metric
    assert not isinstance(lower, str) and [r.query_id for r in lower[1]] == ["9", "20", "107"]


def test_natural_key_orders_numbers_inside_labels():
    assert sorted(["1053", "107", "2"], key=natural_key) == ["2", "107", "1053"]
    assert sorted(["cw=11-12", "cw=3-10"], key=natural_key) == ["cw=3-10", "cw=11-12"]
