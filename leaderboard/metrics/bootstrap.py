"""The harness's one bootstrap: 95% percentile intervals of means over queries (records), stratified.

Every interval we report (a board cell, a board aggregate, a MultiConIR rate, ``compare``'s
difference) is a percentile bootstrap of a mean over queries, with ``N_RESAMPLES`` resamples:

* ``stratified_bootstrap``: the statistic is the macro average over strata (tasks of a benchmark,
  domains of MultiConIR) of each stratum's mean over its items, and every resample draws each
  stratum's items with replacement on its own (stratified: a stratum's size never changes). Many
  rows (models, metrics) share one resampling, so each resample of every row is one matrix product
  of the values with the draw counts: a board of hundreds of models costs one product per column.
  This is written out because ``scipy.stats.bootstrap`` resamples one statistic at a time and has no
  strata; with one stratum and one row it is the same percentile bootstrap, and
  ``tests/test_bootstrap.py`` checks it equals scipy's within Monte-Carlo error (and it draws the
  very resamples scipy draws for the same seed, so one row's interval equals scipy's to rounding:
  ``compare``'s paired interval, ``tests/test_significance.py``).

Everything is deterministic given ``seed``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from leaderboard.metrics.draws import Packed, kept

N_RESAMPLES = 10_000  # the one resample count of every bootstrap and sign-flip test in the harness
CONFIDENCE = 0.95
_CELLS = 1_000_000  # draw counts used at once (chunk x items): 8 MB as float64, the matrix product's operand
_BLOCK = 1 << 18  # draws scattered at once by ``draw_counts``: its scratch arrays stay at a few megabytes


def macro_mean(groups: Sequence[np.ndarray]) -> np.ndarray:
    """Mean over groups of each group's mean over its rows (axis 0): (records x metrics) arrays -> per metric."""
    return np.asarray(np.mean([g.mean(axis=0) for g in groups], axis=0))


def draw_counts(n: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """size x n: how often each of n items is drawn in each of ``size`` resamples of n draws with replacement.

    Drawn a block of resamples at a time: the same draws as in one call (a generator's stream does not depend
    on how its draws are split), without the scratch arrays of a whole chunk at once (three int64 arrays of the
    chunk's size: about 100 MB at 4 million counts, the peaks of a board server's memory)."""
    counts = np.empty((size, n), dtype=np.int32)  # a count is at most n
    rows = max(1, _BLOCK // n)
    for start in range(0, size, rows):
        block = min(rows, size - start)
        picks = rng.integers(0, n, size=(block, n))
        picks += (np.arange(block) * n)[:, None]
        counts[start : start + block] = np.bincount(picks.ravel(), minlength=block * n).reshape(block, n)
    return counts


def stratified_resamples(
    strata: Sequence[np.ndarray],
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
    weights: Sequence[float] | None = None,
) -> np.ndarray:
    """rows x n_resamples: the weighted mean over strata of each stratum's mean, per bootstrap resample.

    strata: one (rows x items) array per stratum, the same rows in the same order (items may differ).
    weights: one per stratum, summing to 1 (default: 1/len, the macro mean). A benchmark of tasks of
    which one is itself a macro mean over domains (MultiConIR) gives each domain 1/(tasks x domains).
    """
    if not strata:
        raise ValueError("stratified_resamples needs at least one stratum")
    rows = strata[0].shape[0]
    if any(s.ndim != 2 or s.shape[0] != rows or s.shape[1] == 0 for s in strata):
        raise ValueError("each stratum must be a (rows x items) array with the same rows and at least one item")
    shares = [1 / len(strata)] * len(strata) if weights is None else [float(w) for w in weights]
    if len(shares) != len(strata):
        raise ValueError("stratified_resamples needs one weight per stratum")
    chunks = iter(count_chunks([s.shape[1] for s in strata], n_resamples, seed))
    resampled = np.zeros((rows, n_resamples))
    for values, share in zip(strata, shares):
        n = values.shape[1]
        divisor = n * len(strata) if weights is None else n / share  # the former exactly as before
        for start, size in _spans(n, n_resamples):
            counts = next(chunks).array()  # float64: a float product runs in BLAS, an int one not
            resampled[:, start : start + size] += values @ counts.T / divisor
    return resampled


def _spans(n: int, n_resamples: int) -> list[tuple[int, int]]:
    """(first resample, resamples) of each chunk of draws of a stratum of n items (bounds memory)."""
    chunk = max(1, min(n_resamples, _CELLS // n))
    return [(start, min(chunk, n_resamples - start)) for start in range(0, n_resamples, chunk)]


def count_chunks(sizes: Sequence[int], n_resamples: int, seed: int) -> list[Packed]:
    """The draw counts of a stratified resampling of strata of these sizes, chunk by chunk, stratum by stratum.

    Kept between calls (``draws.kept``): every page of a board column, and a comparison of that column's
    subset, draws the very same counts again."""

    def make() -> Iterator[np.ndarray]:
        rng = np.random.default_rng(seed)
        for n in sizes:
            for _, size in _spans(n, n_resamples):
                yield draw_counts(n, size, rng)

    return kept(("counts", tuple(int(n) for n in sizes), int(n_resamples), seed), make)


def stratified_bootstrap(
    strata: Sequence[np.ndarray],
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
    confidence: float = CONFIDENCE,
    weights: Sequence[float] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval of the (weighted) macro mean, per row: strata are (rows x items) arrays -> (low, high).

    A row whose every stratum holds one value throughout has one possible resample: its interval is that
    macro mean at both ends, exactly. (Summing draw counts times equal values in floating point scatters the
    resamples over a few units in the last place, so their quantiles could come out one below the other.)
    For every row, low <= high."""
    resampled = stratified_resamples(strata, n_resamples, seed, weights)
    alpha = (1 - confidence) / 2
    low, high = np.quantile(resampled, [alpha, 1 - alpha], axis=1)
    low, high = np.minimum(low, high), np.maximum(low, high)
    constant = np.logical_and.reduce([np.ptp(s, axis=1) == 0 for s in strata])
    if constant.any():
        exact = _constant_mean([s[:, 0] for s in strata], weights)
        low, high = np.where(constant, exact, low), np.where(constant, exact, high)
    return low, high


def _constant_mean(firsts: Sequence[np.ndarray], weights: Sequence[float] | None) -> np.ndarray:
    """The (weighted) macro mean of strata that each hold one value: that value itself where every stratum
    holds the same one (a weighted sum of equal values need not round back to it)."""
    first = np.asarray(firsts[0], dtype=float)
    shares = [1 / len(firsts)] * len(firsts) if weights is None else [float(w) for w in weights]
    same = np.logical_and.reduce([f == first for f in firsts])
    mixed = np.sum([share * f for share, f in zip(shares, firsts)], axis=0)
    return np.where(same, first, mixed)
