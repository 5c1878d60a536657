"""Is system A better than system B on the same queries? Paired bootstrap, randomization test, Holm.

Inputs are two systems' per-query scores on the same queries: equal-length sequences in the same
query order, or mappings query id -> score over the same query ids (aligned by id here).

* ``bootstrap_ci``     one system's mean with a percentile bootstrap interval.
* ``paired_bootstrap`` the mean difference mean(a - b) with a percentile bootstrap interval. The
  queries are resampled as pairs; we bootstrap the per-query differences d = a - b with the
  harness's one bootstrap (``bootstrap.stratified_bootstrap``, one stratum). It draws the same
  resamples as ``scipy.stats.bootstrap((a, b), paired=True)`` for the same seed, so the interval
  equals scipy's (the tests check it), in a fraction of scipy's time.
* ``randomization_test`` two-sided p-value of the mean difference under the paired null (each
  query's two scores are exchangeable), i.e. sign flips of d: ``sign_flip_test`` for one pair,
  the test of ``scipy.stats.permutation_test(permutation_type="samples")``. With 2^n <= n_resamples
  every flip is enumerated (an exact p-value, equal to scipy's); otherwise flips are sampled and the
  observed one counted too: p = (hits + 1) / (n_resamples + 1), two-sided as 2 * the smaller
  one-sided p, capped at 1, as scipy (equal to scipy's within Monte-Carlo error). Written out
  rather than calling scipy's because scipy's is too slow for ``leaderboard compare`` and the app's
  comparison view, which run it per task and per subset (docs/development/perf.md).
* ``holm`` Holm-Bonferroni adjusted p-values for a family of comparisons.
* ``sign_flip_test`` the same randomization test for many models against one at once (the board's
  ≈ marker), over one or several tasks (strata); see its docstring.

Intervals come from ``leaderboard.metrics.bootstrap`` (the one bootstrap), and every test uses its
``N_RESAMPLES``.

Everything is deterministic given ``seed``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from leaderboard.metrics.bootstrap import CONFIDENCE, N_RESAMPLES, stratified_bootstrap
from leaderboard.metrics.draws import Packed, kept

SCREEN = 1e-4  # Hoeffding bound below which a difference is significant without resampling
_CHUNK = 512  # sign patterns per matrix product (bounds memory: chunk x queries floats)
Scores = Sequence[float] | np.ndarray | Mapping[str, float]


@dataclass(frozen=True)
class Interval:
    estimate: float  # the mean (bootstrap_ci) or the mean difference a - b (paired_bootstrap)
    low: float
    high: float
    confidence: float
    n: int  # queries
    n_resamples: int
    method: str


@dataclass(frozen=True)
class RandomizationTest:
    mean_difference: float  # mean(a - b)
    p_value: float  # two-sided
    n: int
    n_resamples: int  # sign flips drawn; 2^n when exact
    exact: bool  # every one of the 2^n sign flips was enumerated


def _vector(values: Sequence[float] | np.ndarray) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"expected a non-empty 1-d sequence of scores, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError("scores must be finite")
    return array


def paired_arrays(a: Scores, b: Scores) -> tuple[np.ndarray, np.ndarray]:
    """Two aligned score vectors; mappings are aligned by query id and must cover the same ids."""
    if isinstance(a, Mapping) or isinstance(b, Mapping):
        if not (isinstance(a, Mapping) and isinstance(b, Mapping)):
            raise TypeError("pass both systems as mappings (query id -> score) or both as sequences")
        if set(a) != set(b):
            only = sorted(set(a) ^ set(b))
            raise ValueError(f"the two systems were scored on different queries (e.g. {only[:3]})")
        ids = sorted(a)
        a, b = [a[q] for q in ids], [b[q] for q in ids]
    x, y = _vector(a), _vector(b)
    if x.shape != y.shape:
        raise ValueError(f"paired scores need the same queries: {x.size} vs {y.size} values")
    return x, y


def _interval(values: np.ndarray, n_resamples: int, seed: int, confidence: float) -> tuple[float, float]:
    if np.ptp(values) == 0:  # every resample has the same mean
        return float(values[0]), float(values[0])
    low, high = stratified_bootstrap([values[None, :]], n_resamples, seed, confidence)
    return float(low[0]), float(high[0])


def bootstrap_ci(
    values: Sequence[float] | np.ndarray, n_resamples: int = N_RESAMPLES, seed: int = 0, confidence: float = CONFIDENCE
) -> Interval:
    """One system's mean score with a percentile bootstrap interval over queries."""
    x = _vector(values)
    low, high = _interval(x, n_resamples, seed, confidence)
    return Interval(float(x.mean()), low, high, confidence, x.size, n_resamples, "percentile bootstrap of the mean")


def paired_bootstrap(
    a: Scores, b: Scores, n_resamples: int = N_RESAMPLES, seed: int = 0, confidence: float = CONFIDENCE
) -> Interval:
    """mean(a - b) with a percentile bootstrap interval over queries resampled as pairs."""
    x, y = paired_arrays(a, b)
    d = x - y
    low, high = _interval(d, n_resamples, seed, confidence)
    method = "percentile bootstrap of the per-query differences a - b (paired resampling)"
    return Interval(float(d.mean()), low, high, confidence, d.size, n_resamples, method)


def randomization_test(a: Scores, b: Scores, n_resamples: int = N_RESAMPLES, seed: int = 0) -> RandomizationTest:
    """Two-sided paired randomization (sign-flip) test of mean(a - b) = 0."""
    x, y = paired_arrays(a, b)
    observed = float(np.mean(x - y))
    exact = 2**x.size <= n_resamples  # scipy's own rule for enumerating every sign flip
    drawn = 2**x.size if exact else n_resamples
    if np.all(x == y):  # every flip gives 0, so p = 1 exactly; no need to enumerate
        return RandomizationTest(observed, 1.0, x.size, drawn, exact)
    p = sign_flip_test([x], [y[None, :]], n_resamples=n_resamples, seed=seed, screen=0.0)[0]
    return RandomizationTest(observed, float(p), x.size, drawn, exact)


def stratified_paired(
    a: Sequence[np.ndarray],
    b: Sequence[np.ndarray],
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
    confidence: float = CONFIDENCE,
) -> tuple[Interval, RandomizationTest]:
    """The paired interval and test of a macro mean: a[i], b[i] are one stratum's aligned scores.

    The statistic is the mean over strata of each stratum's mean(a - b) (MultiConIR's default scores
    are macro means over its domains). The bootstrap resamples each stratum on its own (its size is
    fixed), the sign flips weigh each query by its stratum's share; with one stratum these are
    ``paired_bootstrap`` and ``randomization_test`` exactly.
    """
    pairs = [paired_arrays(x, y) for x, y in zip(a, b)]
    if len(pairs) == 1:
        x, y = pairs[0]
        return paired_bootstrap(x, y, n_resamples, seed, confidence), randomization_test(x, y, n_resamples, seed)
    differences = [x - y for x, y in pairs]
    n = sum(d.size for d in differences)
    observed = float(np.mean([d.mean() for d in differences]))
    if all(np.ptp(d) == 0 for d in differences):
        low = high = observed
    else:
        lows, highs = stratified_bootstrap([d[None, :] for d in differences], n_resamples, seed, confidence)
        low, high = float(lows[0]), float(highs[0])
    method = "percentile bootstrap of the macro mean of per-query differences a - b, stratified (paired)"
    interval = Interval(observed, low, high, confidence, n, n_resamples, method)
    exact = 2**n <= n_resamples
    drawn = 2**n if exact else n_resamples
    if all(np.all(d == 0) for d in differences):
        return interval, RandomizationTest(observed, 1.0, n, drawn, exact)
    p = sign_flip_test([x for x, _ in pairs], [y[None, :] for _, y in pairs], n_resamples, seed, screen=0.0)[0]
    return interval, RandomizationTest(observed, float(p), n, drawn, exact)


def holm(p_values: Mapping[str, float]) -> dict[str, float]:
    """Holm-Bonferroni adjusted p-values, in the input's key order.

    scipy.stats offers only Benjamini-Hochberg/Yekutieli (false_discovery_control), which controls
    the false discovery rate; Holm controls the family-wise error rate, so it is written out here:
    the i-th smallest p (0-based, of m) becomes max over j <= i of min(1, (m - j) * p_(j)).
    """
    for name, p in p_values.items():
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p-value for {name!r} must be in [0, 1], got {p}")
    m = len(p_values)
    adjusted, running = {}, 0.0
    for rank, name in enumerate(sorted(p_values, key=p_values.__getitem__)):
        running = max(running, min(1.0, (m - rank) * p_values[name]))  # max keeps the sequence monotone
        adjusted[name] = running
    return {name: adjusted[name] for name in p_values}


def _weights(sizes: Sequence[int], shares: Sequence[float] | None = None) -> np.ndarray:
    """Per-query weights so that mean(weights * values) over all queries = the weighted mean over strata
    (tasks, or a task's domains) of each stratum's mean; ``shares`` default to 1/len (the macro mean)."""
    total, tasks = sum(sizes), len(sizes)
    if shares is None:
        return np.concatenate([np.full(n, total / (tasks * n)) for n in sizes])
    return np.concatenate([np.full(n, total * share / n) for n, share in zip(sizes, shares)])


def sign_flip_test(
    best: Sequence[np.ndarray],
    others: Sequence[np.ndarray],
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
    screen: float = SCREEN,
    weights: Sequence[float] | None = None,
) -> np.ndarray:
    """Two-sided p-values of "mean aggregate difference = 0" between ``best`` and each of ``others``.

    best: one (queries,) array per task; others: one (models x queries) array per task, aligned.

    The paired randomization test of ``randomization_test`` (scipy's ``permutation_test`` with
    ``permutation_type="samples"``) for many models against one at once: scipy tests one pair at a
    time, minutes for a board of hundreds, so the flips are written out as one matrix product per
    chunk of sign patterns. Under the null each query's two scores are exchangeable, i.e. the
    per-query difference flips sign. With several tasks the statistic is the aggregate difference,
    a weighted mean of per-query differences (``weights``: each stratum's share, default 1/len).
    Every sign pattern is enumerated when 2^n <= n_resamples (an exact p-value, equal to scipy's; a
    test checks it); otherwise random patterns, p = (hits + 1) / (n_resamples + 1), two-sided as
    2 * min(one-sided), capped at 1, as scipy. Models whose difference is far outside the null are
    settled by Hoeffding's bound for Rademacher sums, P(|sum e_q a_q| >= t) <= 2 exp(-t^2 / (2 sum
    a_q^2)), without resampling: when the bound is below ``screen`` the exact p-value is too (the board's ≈
    needs only that; ``randomization_test`` passes ``screen=0`` to report the resampled p itself).
    """
    sizes = [len(b) for b in best]
    diffs = np.concatenate([b[None, :] - o for b, o in zip(best, others)], axis=1) * _weights(sizes, weights)
    models, n = diffs.shape
    observed = diffs.mean(axis=1)
    p = np.ones(models)
    squares = (diffs**2).sum(axis=1)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        bound = np.where(squares > 0, 2 * np.exp(-((n * observed) ** 2) / (2 * squares)), 1.0)
    settled = bound < screen
    p[settled] = bound[settled]
    todo = np.flatnonzero(~settled & (squares > 0))  # squares == 0: identical scores, p = 1
    if todo.size == 0:
        return p
    exact = 2**n <= n_resamples
    total = 2**n if exact else n_resamples
    gamma = np.abs(np.finfo(float).eps * 100 * observed[todo])  # scipy's tolerance for equal statistics
    less = np.zeros(todo.size)
    greater = np.zeros(todo.size)
    tested = diffs[todo]
    for signs in _sign_chunks(n, exact, n_resamples, seed):
        if isinstance(signs, Packed):  # kept draws: one model (a comparison) read from the packed bits
            null = (signs.dot(tested[0])[:, None] if todo.size == 1 else signs.array() @ tested.T) / n
        else:
            null = signs @ tested.T / n  # chunk x models
        less += (null <= observed[todo] + gamma).sum(axis=0)
        greater += (null >= observed[todo] - gamma).sum(axis=0)
    adjustment = 0 if exact else 1
    one_sided = np.minimum(less, greater) + adjustment
    p[todo] = np.clip(2 * one_sided / (total + adjustment), 0.0, 1.0)
    return p


def _sign_chunks(n: int, exact: bool, n_resamples: int, seed: int) -> Iterator[np.ndarray | Packed]:
    if exact:
        patterns = np.array(list(itertools.product((1.0, -1.0), repeat=n)))
        for start in range(0, len(patterns), _CHUNK):
            yield patterns[start : start + _CHUNK]
        return

    def make() -> Iterator[np.ndarray]:
        rng = np.random.default_rng(seed)
        for start in range(0, n_resamples, _CHUNK):
            yield rng.choice((-1.0, 1.0), size=(min(_CHUNK, n_resamples - start), n))

    # Kept between calls (``draws.kept``): every page of a board, and every comparison on a subset of
    # this size, flips the very same signs.
    yield from kept(("signs", n, n_resamples, seed), make, signs=True)
