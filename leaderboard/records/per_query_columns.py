"""A result's per-query values as columns: the one form every reader of per-query values works on.

``{"ids": [sorted query ids], "values": {metric: [its value per id, None where the metric is not
computed on that query]}, "subsets": {subset: [positions in ids]}, "macro_over": [subset names]}``

The results index stores it once per file (JSON), ``of_result`` builds it from a ``Result``, and
``strata`` gives the per-query values behind one score: a subset's queries that have the metric
(ComLQ's LSNC: the negation queries its judge labelled, ``ScoreReport.metric_queries``), split
into the subsets the score macro-averages (MultiConIR's default scores average its domains,
``ScoreReport.macro_over``) or one stratum. The board's cell intervals, ``compare``, ``show
--subsets``, the flat table's intervals and the per-query DataFrame all read values through it, so
one number has one set of queries behind it everywhere. Pure Python: the index imports it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

Stratum = tuple[tuple[str, ...], list[float]]  # query ids (sorted) and the metric's value on each


def columns(field: Any) -> dict[str, Any] | None:
    """The columns of a result's ``per_query`` field (plain or model); None when its values are damaged.

    Damaged membership (subsets) costs the subsets, not the values; a subset naming a query without
    values is inconsistent and left out (its cells get no interval rather than a smaller one)."""
    from leaderboard.records.per_query_codec import decode_per_query, decode_subset_queries, macro_over

    try:
        values = decode_per_query(field)
    except (ValueError, TypeError, RecursionError):
        return None
    ids = sorted(values)
    try:
        members = decode_subset_queries(field)
    except (ValueError, TypeError, RecursionError):
        members = {}
    position = {q: i for i, q in enumerate(ids)}
    subsets = {name: sorted(position[q] for q in qs) for name, qs in members.items() if all(q in position for q in qs)}
    metrics = sorted({m for row in values.values() if isinstance(row, dict) for m in row})
    out: dict[str, list[float | None]] = {}
    for metric in metrics:
        column = [values[q].get(metric) if isinstance(values[q], dict) else None for q in ids]
        if all(v is None or _finite(v) for v in column) and any(v is not None for v in column):
            out[metric] = [None if v is None else float(v) for v in column]
    macro = [s for s in macro_over(field) if s in subsets]
    return {"ids": ids, "values": out, "subsets": subsets, "macro_over": macro}


def columns_json(field: Any) -> str | None:
    stored = columns(field)
    return None if stored is None else json.dumps(stored, allow_nan=False)


def of_result(result: Any) -> dict[str, Any] | None:
    """The columns of a ``Result``'s per-query values (None when it has none, or they are damaged)."""
    return None if result.per_query is None else columns(result.per_query)


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _positions(stored: Mapping[str, Any], subset: str, n: int) -> list[int] | str:
    if subset == "default":
        return list(range(n))
    positions = (stored.get("subsets") or {}).get(subset)
    if not isinstance(positions, list) or not positions:
        return f"the result does not say which queries form {subset}"
    # ints (JSON's: exactly int, never bool) within the ids; map and min/max: C speed (a board page reads 1,700)
    if not set(map(type, positions)) <= {int} or min(positions) < 0 or max(positions) >= n:
        return f"the result's membership of {subset} is damaged"
    return positions


def subset_ids(stored: Mapping[str, Any] | None, subset: str) -> tuple[str, ...] | str:
    """The ids of the queries that form ``subset`` (all for "default"), whatever metrics they have; or why not."""
    ids = (stored or {}).get("ids")
    if not isinstance(ids, list) or not ids:
        return "the result has no per-query values"
    positions = _positions(stored or {}, subset, len(ids))
    return positions if isinstance(positions, str) else tuple(ids[p] for p in positions)


def strata(stored: Mapping[str, Any] | None, metric: str, subset: str = "default") -> list[Stratum] | str:
    """The per-query values behind ``metric`` on ``subset`` (main split), or why there are none.

    One stratum, except for a default score the result macro-averages over subsets (``macro_over``):
    one per subset, the score being the mean of their means."""
    if not stored:
        return "the result has no per-query values"
    ids, column = stored.get("ids"), (stored.get("values") or {}).get(metric)
    if not isinstance(ids, list) or not isinstance(column, list) or len(column) != len(ids) or not ids:
        return f"the result has no per-query values of {metric}"
    macro = stored.get("macro_over") or [] if subset == "default" else []
    out = []
    for part in macro or [subset]:
        positions = _positions(stored, part, len(ids))
        if isinstance(positions, str):
            return positions
        kept = [p for p in positions if column[p] is not None] if None in column else positions
        if kept:
            out.append((tuple(map(ids.__getitem__, kept)), list(map(float, map(column.__getitem__, kept)))))
    if not out:
        where = "" if subset == "default" else f" on {subset}"
        return f"the result has no per-query values of {metric}{where}"
    return out


def mean(parts: list[Stratum]) -> float:
    """The score the strata give: the mean over strata of each stratum's mean (one stratum: its mean)."""
    return math.fsum(math.fsum(values) / len(values) for _, values in parts) / len(parts)


def query_ids(parts: list[Stratum]) -> tuple[tuple[str, ...], ...]:
    return tuple(ids for ids, _ in parts)
