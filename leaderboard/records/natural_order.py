"""Ordering of ids and labels where the numbers inside them compare as numbers ("107" before "1053")."""

from __future__ import annotations

import re

_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str) -> list[tuple[int, int, str]]:
    """'cw=3-10' before 'cw=11-12', query '107' before '1053': runs of digits compare as numbers, the rest as text."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in _DIGITS.split(text) if part]
