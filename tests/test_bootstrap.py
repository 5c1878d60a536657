"""The one bootstrap (``leaderboard.metrics.bootstrap``) against scipy.stats.bootstrap and a hand-written loop."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from leaderboard.metrics.bootstrap import (
    N_RESAMPLES,
    draw_counts,
    stratified_bootstrap,
    stratified_resamples,
)


def test_one_stratum_equals_scipy_within_monte_carlo_error():
    rng = np.random.default_rng(3)
    values = rng.beta(2, 5, size=(4, 150))  # four systems, 150 queries
    low, high = stratified_bootstrap([values], seed=11)
    for row, lo, hi in zip(values, low, high):
        ref = stats.bootstrap(
            (row,), np.mean, n_resamples=N_RESAMPLES, method="percentile", rng=np.random.default_rng(99)
        ).confidence_interval
        # sd of a 2.5% quantile over 10,000 resamples ~ 0.0005 here; 0.003 is ~6 sd
        assert lo == pytest.approx(ref.low, abs=0.003) and hi == pytest.approx(ref.high, abs=0.003)


def test_strata_are_resampled_on_their_own_and_macro_averaged():
    """Two strata of different sizes: the hand loop (resample each stratum's items, average the stratum means)."""
    rng = np.random.default_rng(5)
    small, large = rng.random((1, 6)), rng.random((1, 40))
    resampled = stratified_resamples([small, large], n_resamples=500, seed=2)
    hand = np.random.default_rng(2)
    expected = np.zeros(500)
    for stratum in (small, large):  # the same draws, in the same order, as stratified_resamples
        n = stratum.shape[1]
        picks = hand.integers(0, n, size=(500, n))
        expected += stratum[0][picks].mean(axis=1) / 2
    assert resampled[0] == pytest.approx(expected, abs=1e-12)
    # the statistic is the macro mean: its centre is (mean(small) + mean(large)) / 2, not the pooled mean
    assert resampled[0].mean() == pytest.approx((small.mean() + large.mean()) / 2, abs=0.01)


def test_draw_counts_are_draws_with_replacement():
    counts = draw_counts(7, 1000, np.random.default_rng(0))
    assert counts.shape == (1000, 7) and (counts.sum(axis=1) == 7).all()
    assert counts.mean() == pytest.approx(1.0, abs=0.05)  # each item drawn once per resample on average


def test_draw_counts_drawn_in_blocks_are_the_draws_of_one_call(monkeypatch):
    """``draw_counts`` scatters a block of resamples at a time (bounded scratch memory): the counts are those of
    all picks drawn at once, for strata smaller and larger than a block."""
    from leaderboard.metrics import bootstrap

    monkeypatch.setattr(bootstrap, "_BLOCK", 100)
    for n, size in ((3, 101), (37, 50), (150, 7)):  # 33, 2 and 1 resamples per block, and a last partial block
        picks = np.random.default_rng(n).integers(0, n, size=(size, n))
        expected = np.stack([np.bincount(row, minlength=n) for row in picks])
        assert np.array_equal(draw_counts(n, size, np.random.default_rng(n)), expected)


def test_one_row_draws_the_very_resamples_scipy_draws():
    """Same seed, same draws: the interval equals scipy.stats.bootstrap's to rounding (chunked or not)."""
    values = np.random.default_rng(8).random(3000)  # 3,000 items: the draws come in several chunks
    low, high = stratified_bootstrap([values[None, :]], n_resamples=2000, seed=4)
    ref = stats.bootstrap((values,), np.mean, n_resamples=2000, method="percentile", rng=np.random.default_rng(4))
    assert (low[0], high[0]) == pytest.approx((ref.confidence_interval.low, ref.confidence_interval.high), abs=1e-12)


def test_bad_strata_are_refused():
    with pytest.raises(ValueError):
        stratified_bootstrap([])
    with pytest.raises(ValueError):
        stratified_bootstrap([np.ones((2, 3)), np.ones((3, 3))])


@settings(max_examples=100, deadline=None)
@given(
    value=st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False),
    sizes=st.lists(st.integers(1, 60), min_size=1, max_size=4),
    rows=st.integers(1, 3),
)
def test_an_interval_over_equal_values_is_that_value_at_both_ends(value, sizes, rows):
    """Every stratum holds one value (the same in all): each row's interval is exactly it, never low above high
    (the sum of draw counts times the value scattered the resamples over a few units in the last place)."""
    strata = [np.full((rows, n), value) for n in sizes]
    for weights in (None, [1 / len(sizes)] * len(sizes)):
        low, high = stratified_bootstrap(strata, n_resamples=200, seed=1, weights=weights)
        assert low.tolist() == high.tolist() == [value] * rows


@settings(max_examples=50, deadline=None)
@given(
    data=st.lists(
        st.lists(st.floats(0, 1, allow_nan=False, allow_subnormal=False), min_size=1, max_size=30),
        min_size=1,
        max_size=3,
    ),
    constant=st.floats(0, 1, allow_nan=False),
)
def test_every_interval_has_low_at_most_high(data, constant):
    """Any per-query values (one stratum per list) in a row beside a row of equal values: low <= high in every
    row, and the equal row's interval is its value."""
    strata = [np.stack([np.asarray(values), np.full(len(values), constant)]) for values in data]
    low, high = stratified_bootstrap(strata, n_resamples=200, seed=4)
    assert (low <= high).all()
    assert low[1] == high[1] == constant
