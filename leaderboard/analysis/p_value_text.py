"""How a p-value is written, by ``leaderboard compare`` (every format) and the app's comparison view alike.

Four decimals ("0.2648"), 1.2e-05 below 1e-4, and "≤" before a sampled test's floor: with N
sampled sign flips the smallest two-sided p is 2 / (N + 1) (0.0002 for 10,000), so a p there
is an upper bound ("≤0.0002"), Holm's adjusted p of that row too. Free of heavy imports: the CLI's
formats import it at start.
"""

from __future__ import annotations


def at_floor(p_value: float, resamples: int, exact: bool) -> bool:
    """A sampled test's smallest two-sided p, 2 / (resamples + 1), was reached: the true p may be smaller."""
    return not exact and p_value <= 2 / (resamples + 1) * (1 + 1e-9)


def format_p(value: float, upper_bound: bool = False) -> str:
    """A p-value as the CLI and the app write it; ``upper_bound`` (the floor was reached): "≤" first."""
    text = f"{value:.4f}" if value >= 1e-4 else f"{value:.1e}"
    return f"≤{text}" if upper_bound else text
