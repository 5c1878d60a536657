"""95% bootstrap confidence intervals over records (percentile method, fixed seed).

Every rate we report is a mean over records of a per-record value (a 0/1 outcome, a margin, a
flip fraction), so one routine serves them all. Over several domains the statistic is the
macro average of per-domain means, and records are resampled within each domain (stratified).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

N_RESAMPLES = 1000
CONFIDENCE = 0.95


def macro_mean(groups: Sequence[np.ndarray]) -> np.ndarray:
    return np.mean([g.mean(axis=0) for g in groups], axis=0)


def bootstrap_interval(
    groups: Sequence[np.ndarray], seed: int = 0, n_resamples: int = N_RESAMPLES, confidence: float = CONFIDENCE
) -> tuple[np.ndarray, np.ndarray]:
    """groups: one (records x metrics) array per stratum. Returns (low, high) per metric."""
    rng = np.random.default_rng(seed)
    draws = np.zeros((n_resamples, groups[0].shape[1]))
    for g in groups:
        n = g.shape[0]
        for start in range(0, n_resamples, 100):  # chunks keep memory at 100 x n x metrics
            stop = min(start + 100, n_resamples)
            idx = rng.integers(0, n, size=(stop - start, n))
            draws[start:stop] += g[idx].mean(axis=1)
    draws /= len(groups)
    alpha = (1 - confidence) / 2
    return np.quantile(draws, alpha, axis=0), np.quantile(draws, 1 - alpha, axis=0)
