"""Cohen's kappa against hand computation (and scikit-learn where it is installed)."""

from __future__ import annotations

import math

import pytest

from leaderboard.metrics.agreement import cohen_kappa

CASES = [
    # binary: 10 items, 7 agreements; A says yes 6 times, B 5 times.
    # p_o = .7, p_e = .6 * .5 + .4 * .5 = .5, kappa = (.7 - .5) / .5 = .4
    ([1, 1, 1, 1, 1, 1, 0, 0, 0, 0], [1, 1, 1, 1, 0, 0, 1, 0, 0, 0], 0.4),
    # categorical: 6 items, 5 agreements (item 3 differs); A: x3 y2 z1, B: x2 y2 z2.
    # p_o = 5/6, p_e = (3*2 + 2*2 + 1*2) / 36 = 1/3, kappa = (5/6 - 1/3) / (2/3) = .75
    (["x", "x", "x", "y", "y", "z"], ["x", "x", "z", "y", "y", "z"], 0.75),
    # perfect agreement with two labels: 1.0
    (["yes", "no", "yes"], ["yes", "no", "yes"], 1.0),
    # systematic disagreement: p_o = 0, p_e = .5, kappa = -1
    ([0, 1, 0, 1], [1, 0, 1, 0], -1.0),
    # a label only one judge uses: A: a a b b, B: a c b b. p_o = 3/4, p_e = (2*1 + 2*2) / 16 = 3/8, kappa = .6
    (["a", "a", "b", "b"], ["a", "c", "b", "b"], 0.6),
]


@pytest.mark.parametrize("a, b, expected", CASES)
def test_kappa_by_hand(a, b, expected):
    assert cohen_kappa(a, b) == pytest.approx(expected, abs=1e-12)
    assert cohen_kappa(b, a) == pytest.approx(expected, abs=1e-12)  # symmetric


@pytest.mark.parametrize("a, b, expected", CASES)
def test_kappa_matches_scikit_learn(a, b, expected):
    metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn not installed")
    assert cohen_kappa(a, b) == pytest.approx(metrics.cohen_kappa_score(a, b), abs=1e-12)


def test_undefined_and_bad_input():
    assert math.isnan(cohen_kappa([1, 1, 1], [1, 1, 1]))
    with pytest.raises(ValueError):
        cohen_kappa([1, 0], [1])
    with pytest.raises(ValueError):
        cohen_kappa([], [])
