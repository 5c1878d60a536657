"""Violation@K and the violator's relative rank, against values worked out by hand."""

from __future__ import annotations

import pytest

from leaderboard.metrics.violations import violation_in_top_k, violations_per_query, violator_relative_rank

# trec order: score descending, ties by document id descending.
RUN = {
    # q1 order: d5 (0.9), d4 (0.8), d3 (0.7), d2 (0.5), d1 (0.5) -- d2 before d1 on the tie
    "q1": {"d1": 0.5, "d2": 0.5, "d3": 0.7, "d4": 0.8, "d5": 0.9},
    # q2 order: b (1.0), a (0.2)
    "q2": {"a": 0.2, "b": 1.0},
    "q3": {},
}


def test_violation_in_top_k_by_hand():
    violating = {"q1": {"d3"}, "q2": {"b"}, "q3": {"x"}, "q4": set(), "q5": {"y"}}
    assert violation_in_top_k(RUN, violating, 1) == {"q1": 0.0, "q2": 1.0, "q3": 0.0, "q4": 0.0, "q5": 0.0}
    assert violation_in_top_k(RUN, violating, 3)["q1"] == 1.0  # d3 is third
    assert violation_in_top_k(RUN, violating, 2)["q1"] == 0.0
    # The tie at 0.5: d2 ranks 4th and d1 5th, so d1 is outside the top 4.
    assert violation_in_top_k(RUN, {"q1": {"d1"}}, 4) == {"q1": 0.0}
    assert violation_in_top_k(RUN, {"q1": {"d2"}}, 4) == {"q1": 1.0}
    with pytest.raises(ValueError):
        violation_in_top_k(RUN, violating, 0)


def test_violations_per_query_k_1_5_10():
    table = violations_per_query(RUN, {"q1": {"d1"}, "q2": {"a"}})
    assert table == {
        "q1": {"violation_at_1": 0.0, "violation_at_5": 1.0, "violation_at_10": 1.0},
        "q2": {"violation_at_1": 0.0, "violation_at_5": 1.0, "violation_at_10": 1.0},
    }


def test_violator_relative_rank_by_hand():
    satisfying = {"q1": ["d4", "d1"], "q2": ["a"], "q3": ["s"], "q4": ["d4"], "q5": [], "q6": ["s"]}
    violating = {"q1": ["d2"], "q2": ["b"], "q3": ["v"], "q4": ["zz"], "q5": ["v"], "q6": ["d5"]}
    run = {**RUN, "q4": RUN["q1"], "q6": {"d5": 1.0, "d6": 0.5}}
    assert violator_relative_rank(run, satisfying, violating) == {
        "q1": 4.0 - 2.0,  # best satisfying d4 at 2, violator d2 at 4
        "q2": 1.0 - 2.0,  # the violator ranks first
        "q3": 0.0,  # nothing retrieved: both rank 0 + 1
        "q4": 6.0 - 2.0,  # violator not retrieved: 5 retrieved + 1
        "q6": 1.0 - 3.0,  # satisfying not retrieved: 2 retrieved + 1; q5 has no satisfying passage
    }
