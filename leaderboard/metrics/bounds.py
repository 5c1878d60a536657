"""The range each metric's value must lie in (used by `leaderboard validate`)."""

from __future__ import annotations

UNBOUNDED = (None, None)


def bounds(name: str) -> tuple[float | None, float | None]:
    """(low, high) for a metric name; None means unbounded on that side."""
    if name.startswith("margin") or "nauc_" in name:
        return UNBOUNDED  # score differences; normalised AUC correlations
    if name in ("p-MRR", "decline") or name.endswith("_p-MRR"):
        return (-1.0, 1.0)
    return (0.0, 1.0)  # rates, precision/recall/nDCG/MAP/MRR, LSNC, win and flip rates
