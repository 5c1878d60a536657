"""Value helpers of the board: a score or interval read leniently from a result (never raises), a model's key."""

from __future__ import annotations

import math
from typing import Any

MISSING = "—"
ModelKey = tuple[str, str]  # (name, revision)


def finite(value: Any) -> float | None:
    """A score as a float, or None for anything that is not a finite number (never raises)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def interval(value: Any) -> tuple[float, float] | None:
    if isinstance(value, (list, tuple)) and len(value) == 2:
        low, high = finite(value[0]), finite(value[1])
        if low is not None and high is not None:
            return low, high
    return None


def model_key(row: dict[str, Any]) -> ModelKey:
    return str(row["model"]["name"]), str(row["model"]["revision"] or "")
