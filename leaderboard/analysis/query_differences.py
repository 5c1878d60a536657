"""The queries where A and B differ most: ``leaderboard compare --queries N``.

From two results' per-query values of one metric (``records.per_query_columns``), paired on the
queries both have it on: the N queries where A is better by the widest margin and the N where B
is, direction-aware (a lower-is-better metric counts B - A as A's gain), each with the subsets the
results put it in. Ties are broken by query id (numbers as numbers: "107" before "1053"), so the list
is the same on every run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from leaderboard.records.natural_order import natural_key
from leaderboard.records.per_query_columns import strata


@dataclass
class QueryDifference:
    query_id: str
    subsets: list[str]  # the subsets (besides "default") the result puts the query in
    value_a: float
    value_b: float
    difference: float  # A - B
    text: str | None = None  # the query's text, when the data was given

    @property
    def order(self) -> list[tuple[int, int, str]]:
        return natural_key(self.query_id)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def memberships(stored: Mapping[str, Any]) -> dict[str, list[str]]:
    """query id -> the subsets (besides "default") the result's columns put it in, in the result's order."""
    ids = stored.get("ids") or []
    found: dict[str, list[str]] = {q: [] for q in ids}
    for subset, positions in (stored.get("subsets") or {}).items():
        for p in positions if isinstance(positions, list) else ():
            if isinstance(p, int) and 0 <= p < len(ids):
                found[ids[p]].append(subset)
    return found


def largest_differences(
    stored_a: Mapping[str, Any] | None,
    stored_b: Mapping[str, Any] | None,
    metric: str,
    direction: str,
    n: int,
) -> tuple[list[QueryDifference], list[QueryDifference]] | str:
    """(the n queries where A is better by most, the n where B is), each with A's and B's values; or why not.

    A query where the two are equal is in neither list."""
    parts_a, parts_b = strata(stored_a, metric), strata(stored_b, metric)
    if isinstance(parts_a, str) or isinstance(parts_b, str):
        return parts_a if isinstance(parts_a, str) else str(parts_b)
    values_a = {q: v for ids, values in parts_a for q, v in zip(ids, values)}
    values_b = {q: v for ids, values in parts_b for q, v in zip(ids, values)}
    both = sorted(set(values_a) & set(values_b))
    if not both:
        return f"no query has {metric} in both results"
    members = memberships(stored_a or {})
    sign = 1.0 if direction != "lower" else -1.0
    rows = [
        QueryDifference(q, members.get(q, []), values_a[q], values_b[q], values_a[q] - values_b[q])
        for q in both
        if values_a[q] != values_b[q]
    ]
    a_better = sorted((r for r in rows if sign * r.difference > 0), key=lambda r: (-sign * r.difference, r.order))
    b_better = sorted((r for r in rows if sign * r.difference < 0), key=lambda r: (sign * r.difference, r.order))
    return a_better[:n], b_better[:n]
