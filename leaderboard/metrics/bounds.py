"""The range each metric's value must lie in (used by `leaderboard validate`)."""

from __future__ import annotations

import functools

UNBOUNDED = (None, None)
_NAUC_STATISTICS = ("_max", "_std", "_diff1")


@functools.lru_cache(maxsize=4096)  # a few hundred names, checked on every value of every file read
def bounds(name: str) -> tuple[float | None, float | None]:
    """(low, high) for a metric name; None means unbounded on that side."""
    if name.startswith("margin") or "nauc_" in name or "naucs_" in name or name.endswith(_NAUC_STATISTICS):
        # score differences; normalised AUC correlations ("naucs_": mteb 1.x's name for them; mteb 2.x wrote
        # MRR's as "mrr_at_10_max", "..._std", "..._diff1", without the prefix)
        return UNBOUNDED
    if name in ("p-MRR", "decline") or name.endswith("_p-MRR"):
        return (-1.0, 1.0)
    return (0.0, 1.0)  # rates, precision/recall/nDCG/MAP/MRR, LSNC, win and flip rates
