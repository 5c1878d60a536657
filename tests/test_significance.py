"""Paired bootstrap, randomization test and Holm against hand computation and scipy's own routines."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from leaderboard.metrics.significance import (
    Interval,
    bootstrap_ci,
    holm,
    paired_arrays,
    paired_bootstrap,
    randomization_test,
)

# Differences are multiples of 1/8, so every sign-flipped mean is exact in floating point.
A = [0.75, 0.5, 1.0, 0.25, 0.875, 0.5, 0.625, 1.0]
B = [0.5, 0.5, 0.75, 0.375, 0.5, 0.25, 0.625, 0.5]


def exact_sign_flip_p(a: list[float], b: list[float]) -> float:
    """Enumerate all 2^n sign flips of the paired differences: P(|mean| >= |observed mean|)."""
    d = np.subtract(a, b)
    observed = abs(d.mean())
    flips = [abs((np.array(signs) * d).mean()) for signs in itertools.product((1, -1), repeat=d.size)]
    return sum(f >= observed for f in flips) / len(flips)


def test_randomization_exact_enumeration_n8():
    result = randomization_test(A, B)
    assert result.exact and result.n_resamples == 256 and result.n == 8
    assert result.mean_difference == pytest.approx(np.mean(np.subtract(A, B)), abs=1e-15)
    # d = (.25, 0, .25, -.125, .375, .25, 0, .5): sum 1.5; in eighths (2,0,2,-1,3,2,0,4), sum 12 of at most 14:
    # |sum| >= 12 only with no flip or only the 1 flipped (x2 for the mirror), x4 for the zeros: 16 of 256.
    assert exact_sign_flip_p(A, B) == 16 / 256
    assert result.p_value == pytest.approx(16 / 256, abs=1e-12)


def test_randomization_exact_on_another_fixture():
    a = [1.0, 0.0, 0.5, 0.25, 1.0, 0.0]
    b = [0.0, 0.0, 0.25, 0.5, 0.5, 0.25]
    assert randomization_test(a, b).p_value == pytest.approx(exact_sign_flip_p(a, b), abs=1e-12)
    assert randomization_test(b, a).p_value == pytest.approx(randomization_test(a, b).p_value, abs=1e-12)


def test_randomization_sampled_is_deterministic_and_near_exact():
    rng = np.random.default_rng(7)
    a, b = rng.random(16), rng.random(16)
    exact = randomization_test(a, b, n_resamples=2**16)
    assert exact.exact
    first = randomization_test(a, b, n_resamples=5000, seed=3)
    assert not first.exact and first.n_resamples == 5000
    assert first == randomization_test(a, b, n_resamples=5000, seed=3)
    assert first.p_value == pytest.approx(exact.p_value, abs=0.02)


def test_identical_systems():
    result = randomization_test(A, A)
    assert result.mean_difference == 0.0 and result.p_value == 1.0
    boot = paired_bootstrap(A, A)
    assert (boot.estimate, boot.low, boot.high) == (0.0, 0.0, 0.0)


def test_constant_shift_has_a_point_interval():
    boot = paired_bootstrap([x + 0.25 for x in B], B)
    assert boot.estimate == pytest.approx(0.25) and boot.low == pytest.approx(0.25) and boot.high == pytest.approx(0.25)


def test_paired_bootstrap_equals_scipy_paired_resampling():
    rng = np.random.default_rng(1)
    a, b = rng.random(30), rng.random(30)
    ours = paired_bootstrap(a, b, n_resamples=2000, seed=5)
    ref = stats.bootstrap(
        (a, b),
        lambda x, y, axis: x.mean(axis=axis) - y.mean(axis=axis),
        paired=True,
        n_resamples=2000,
        method="percentile",
        rng=np.random.default_rng(5),
    )
    assert ours.low == pytest.approx(ref.confidence_interval.low, abs=1e-12)
    assert ours.high == pytest.approx(ref.confidence_interval.high, abs=1e-12)
    assert ours.estimate == pytest.approx(a.mean() - b.mean(), abs=1e-15)
    assert ours.low < ours.estimate < ours.high
    assert ours == paired_bootstrap(a, b, n_resamples=2000, seed=5)
    assert ours != paired_bootstrap(a, b, n_resamples=2000, seed=6)


def test_bootstrap_ci_by_hand_percentiles():
    values = np.array([0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0])
    result = bootstrap_ci(values, n_resamples=4000, seed=0)
    assert isinstance(result, Interval) and result.estimate == 0.625 and result.n == 8
    # The same resamples by hand: scipy draws indices with rng.integers, percentiles of the means.
    ref = stats.bootstrap((values,), np.mean, n_resamples=4000, method="percentile", rng=np.random.default_rng(0))
    assert (result.low, result.high) == pytest.approx((ref.confidence_interval.low, ref.confidence_interval.high))
    # Normal approximation of the sampling distribution: 0.625 +- 1.96 * sqrt(p(1-p)/n) = [0.29, 0.96].
    assert result.low == pytest.approx(0.29, abs=0.07) and result.high == pytest.approx(0.96, abs=0.07)


def test_mappings_are_aligned_by_query_id():
    a = {"q2": 1.0, "q1": 0.0, "q3": 0.5}
    b = {"q1": 0.0, "q3": 0.25, "q2": 0.5}
    x, y = paired_arrays(a, b)
    assert x.tolist() == [0.0, 1.0, 0.5] and y.tolist() == [0.0, 0.5, 0.25]
    with pytest.raises(ValueError, match="different queries"):
        paired_arrays(a, {"q1": 0.0})
    with pytest.raises(ValueError):
        paired_arrays([1.0, 2.0], [1.0])
    with pytest.raises(ValueError):
        paired_arrays([], [])


def test_holm_known_values():
    # sorted p: .01, .02, .03, .04 (m=4) -> 4*.01=.04, 3*.02=.06, 2*.03=.06, 1*.04=.04 -> max-accumulate .06
    adjusted = holm({"c": 0.03, "a": 0.01, "d": 0.04, "b": 0.02})
    assert list(adjusted) == ["c", "a", "d", "b"]  # input order kept
    assert adjusted == pytest.approx({"a": 0.04, "b": 0.06, "c": 0.06, "d": 0.06})
    # capped at 1, and monotone in the raw p-values
    capped = holm({"x": 0.4, "y": 0.5, "z": 0.001})
    assert capped == pytest.approx({"z": 0.003, "x": 0.8, "y": 0.8})
    assert holm({"only": 0.7}) == {"only": 0.7}
    assert holm({"a": 0.6, "b": 0.9}) == {"a": 1.0, "b": 1.0}
    assert holm({}) == {}
    with pytest.raises(ValueError):
        holm({"bad": 1.5})


def test_sign_flip_test_for_many_models_equals_the_pairwise_test():
    """The board's vectorised test: exact enumeration equals the hand count and scipy's, model by model."""
    from leaderboard.metrics.significance import sign_flip_test

    others = np.array([B, A, [x + 0.125 for x in B]])  # the last: a constant shift of B
    p = sign_flip_test([np.array(A)], [others])
    assert p[0] == pytest.approx(exact_sign_flip_p(A, B)) == pytest.approx(randomization_test(A, B).p_value)
    assert p[1] == 1.0  # identical to the best
    shifted = list(others[2])
    assert p[2] == pytest.approx(exact_sign_flip_p(A, shifted))


def test_sign_flip_test_over_two_tasks_weights_each_task_equally():
    """Two tasks: the statistic is the mean over tasks of each task's mean difference (the aggregate's)."""
    from leaderboard.metrics.significance import sign_flip_test

    best = [np.array(A[:6]), np.array(A[6:])]
    other = [np.array([B[:6]]), np.array([B[6:]])]
    d = np.concatenate([(np.array(A[:6]) - B[:6]) / 6, (np.array(A[6:]) - B[6:]) / 2]) / 2  # task-weighted
    observed = abs(d.sum())
    flips = [abs((np.array(s) * d).sum()) for s in itertools.product((1, -1), repeat=d.size)]
    hand = sum(f >= observed - 1e-12 for f in flips) / len(flips)
    assert sign_flip_test(best, other)[0] == pytest.approx(hand)
