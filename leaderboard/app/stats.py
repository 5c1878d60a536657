"""Intervals and significance for a whole board at once, from per-query scores.

The board needs, for every ranked model, a 95% bootstrap interval of its aggregate and a paired
test against the first-ranked model. ``leaderboard.metrics.significance`` does both for one pair
through scipy (about 15 ms and 50 ms per model on 366 queries); a board of hundreds of models would
take minutes. Here every model shares one resampling, so each statistic is one matrix product:

* ``stratified_bootstrap``: the aggregate is the mean over tasks (strata) of each task's mean over
  its queries. Each resample draws every task's queries with replacement (counts from a
  multinomial), and the resampled aggregate of all models is ``values @ weights``. Percentile
  interval, as ``significance.bootstrap_ci`` (which the tests compare it with on one task).
* ``sign_flip_test``: the paired randomization test of ``significance.randomization_test``
  (scipy's ``permutation_test(permutation_type="samples")``): under the null each query's two
  scores are exchangeable, i.e. the per-query difference flips sign. With several tasks the
  statistic is the aggregate difference, a weighted mean of per-query differences. Every sign
  pattern is enumerated when 2^n <= n_resamples (an exact p-value, equal to scipy's; a test checks
  it); otherwise random patterns, p = (hits + 1) / (n_resamples + 1), two-sided as
  2 * min(one-sided), capped at 1, as scipy. Models whose difference is far outside the null are
  settled by Hoeffding's bound for Rademacher sums, P(|sum e_q a_q| >= t) <= 2 exp(-t^2 / (2 sum a_q^2)),
  without resampling: when the bound is below ``SCREEN`` the exact p-value is too.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

BOOTSTRAP_RESAMPLES = 2_000
FLIP_RESAMPLES = 10_000
CONFIDENCE = 0.95
SCREEN = 1e-4  # Hoeffding bound below which a difference is significant without resampling
_CHUNK = 512  # resamples per matrix product (bounds memory: chunk x queries floats)


def _weights(sizes: Sequence[int]) -> np.ndarray:
    """Per-query weights so that mean(weights * values) over all queries = mean over tasks of task means."""
    total, tasks = sum(sizes), len(sizes)
    return np.concatenate([np.full(n, total / (tasks * n)) for n in sizes])


def stratified_bootstrap(
    strata: Sequence[np.ndarray],
    n_resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = 0,
    confidence: float = CONFIDENCE,
) -> tuple[np.ndarray, np.ndarray]:
    """strata: one (models x queries) array per task, same models in the same order. -> (low, high) per model."""
    models = strata[0].shape[0]
    rng = np.random.default_rng(seed)
    resampled = np.zeros((models, n_resamples))
    for values in strata:
        n = values.shape[1]
        for start in range(0, n_resamples, _CHUNK):
            size = min(_CHUNK, n_resamples - start)
            counts = rng.multinomial(n, np.full(n, 1.0 / n), size=size)  # size x n: how often each query is drawn
            resampled[:, start : start + size] += values @ counts.T / (n * len(strata))
    alpha = (1 - confidence) / 2
    low, high = np.quantile(resampled, [alpha, 1 - alpha], axis=1)
    return low, high


def sign_flip_test(
    best: Sequence[np.ndarray],
    others: Sequence[np.ndarray],
    n_resamples: int = FLIP_RESAMPLES,
    seed: int = 0,
) -> np.ndarray:
    """Two-sided p-values of "mean aggregate difference = 0" between ``best`` and each of ``others``.

    best: one (queries,) array per task; others: one (models x queries) array per task, aligned.
    """
    sizes = [len(b) for b in best]
    weights = _weights(sizes)
    diffs = np.concatenate([b[None, :] - o for b, o in zip(best, others)], axis=1) * weights  # models x N
    models, n = diffs.shape
    observed = diffs.mean(axis=1)
    p = np.ones(models)
    squares = (diffs**2).sum(axis=1)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        bound = np.where(squares > 0, 2 * np.exp(-((n * observed) ** 2) / (2 * squares)), 1.0)
    settled = bound < SCREEN
    p[settled] = bound[settled]
    todo = np.flatnonzero(~settled & (squares > 0))  # squares == 0: identical scores, p = 1
    if todo.size == 0:
        return p
    exact = 2**n <= n_resamples
    total = 2**n if exact else n_resamples
    gamma = np.abs(np.finfo(float).eps * 100 * observed[todo])  # scipy's tolerance for equal statistics
    less = np.zeros(todo.size)
    greater = np.zeros(todo.size)
    for signs in _sign_chunks(n, exact, n_resamples, seed):
        null = signs @ diffs[todo].T / n  # chunk x models
        less += (null <= observed[todo] + gamma).sum(axis=0)
        greater += (null >= observed[todo] - gamma).sum(axis=0)
    adjustment = 0 if exact else 1
    one_sided = np.minimum(less, greater) + adjustment
    p[todo] = np.clip(2 * one_sided / (total + adjustment), 0.0, 1.0)
    return p


def _sign_chunks(n: int, exact: bool, n_resamples: int, seed: int):
    if exact:
        patterns = np.array(list(itertools.product((1.0, -1.0), repeat=n)))
        for start in range(0, len(patterns), _CHUNK):
            yield patterns[start : start + _CHUNK]
        return
    rng = np.random.default_rng(seed)
    for start in range(0, n_resamples, _CHUNK):
        size = min(_CHUNK, n_resamples - start)
        yield rng.choice((-1.0, 1.0), size=(size, n))
