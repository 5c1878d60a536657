"""A result's per-query values checked as arrays: the verdict of ``per_query_checks``, fast, or no verdict.

Every reader checks that a result's per-query values are numbers in range and average to its
scores (``per_query_checks.per_query_problems``). Written value by value, that costs a real ComLQ
result (2,909 queries, 6 metrics, 51 subsets) about 40 ms, more than everything else a first start
does with the file. Here the same checks run on one float64 column per metric:

* ``verified`` is True only when every check of ``per_query_problems`` passes, computed the same way
  (each mean with ``math.fsum``, which is exactly rounded, so the very same comparisons); on any
  doubt, or anything wrong, it says False and the caller runs the canonical checks, whose verdict and
  messages are the only ones ever shown. It never accepts what they refuse (tested on real results
  and on mutations of them).
* ``columns`` gives ``per_query_columns.columns`` of a verified field from the same arrays, without
  decoding the field a second time.

numpy is imported only for fields of ``MIN_QUERIES`` or more queries (or when already loaded):
``show`` on a few small results stays as light as it was.
"""

from __future__ import annotations

import itertools
import math
import sys
import threading
from collections.abc import Callable, Mapping
from typing import Any

MIN_QUERIES = 256
TOLERANCE = 1e-9  # per_query_checks.MEAN_TOLERANCE (imported lazily there; equal by a test)
_memo = threading.local()  # the table of the field verified last, for ``columns`` right after


class _Table:
    """Per-query values as arrays: sorted ids, and per metric its values (NaN where it has none)."""

    def __init__(self, values: Mapping[str, Any]):
        import numpy as np

        self.ids = sorted(values)
        self.position = {q: i for i, q in enumerate(self.ids)}
        rows = [values[q] for q in self.ids]
        if set(map(type, rows)) != {dict}:
            raise ValueError("a row is not an object of metric values")
        self.metrics = sorted({m for row in rows for m in row})
        self.columns: dict[str, Any] = {}
        self.sparse: set[str] = set()  # metrics without a value on some query
        self.members: dict[str, list[str]] | None = None  # the field's subsets, once decoded
        for metric in self.metrics:
            column = list(map(dict.get, rows, itertools.repeat(metric)))  # row.get(metric), at C speed
            kinds = set(map(type, column))
            if not kinds <= {float, int, type(None)}:
                raise ValueError(f"{metric}: a value is not a number")
            array = np.array(column, dtype=np.float64)  # None -> NaN; ints exactly as float() makes them
            # rows that have the metric (C speed): a None in the column is either absent or a null value
            given = sum(map(dict.__contains__, rows, itertools.repeat(metric))) if type(None) in kinds else len(rows)
            if given != int(np.count_nonzero(~np.isnan(array))):  # a null or a NaN given as a value
                raise ValueError(f"{metric}: a value is null or NaN")
            self.columns[metric] = array
            if given < len(rows):
                self.sparse.add(metric)

    def present(self, metric: str) -> Any:
        import numpy as np

        return ~np.isnan(self.columns[metric])


def _enabled(values: Mapping[str, Any]) -> bool:
    return len(values) >= MIN_QUERIES or "numpy" in sys.modules


def verified(
    values: Mapping[str, Any],
    field: Mapping[str, Any],
    record: Mapping[str, Any],
    split: str,
    metric_range: Callable[[str], tuple[float | None, float | None]],
) -> bool:
    """True only when ``per_query_problems`` finds no problem in ``values`` (the decoded field); False: ask it."""
    _memo.table = None
    if not values or not _enabled(values):
        return False
    try:
        table = _Table(values)
        ok = _values_ok(table, metric_range) and _counted_ok(table, record, split)
        ok = ok and _membership_ok(table, field) and _means_ok(table, field, record, split)
    except Exception:  # any doubt: the canonical checks decide
        return False
    if ok:
        _memo.table = (field.get("sha256"), field.get("data"), table)
    return ok


def _values_ok(table: _Table, metric_range: Callable[[str], tuple[float | None, float | None]]) -> bool:
    import numpy as np

    for metric, array in table.columns.items():
        found = array[~np.isnan(array)]
        if found.size == 0 or not np.isfinite(found).all():  # NaN/inf given as values, or a column of nulls
            return False
        low, high = metric_range(metric)
        if (low is not None and found.min() < low) or (high is not None and found.max() > high):
            return False
    return True


def _counted_ok(table: _Table, record: Mapping[str, Any], split: str) -> bool:
    counted = record.get("subset_sizes", {}).get(split, {}).get("default")
    return counted is None or counted == len(table.ids)


def _membership_ok(table: _Table, field: Mapping[str, Any]) -> bool:
    """Where the field lists the queries a metric is computed on, it has values on exactly those; every
    other metric on every query (``per_query_checks.metric_membership_problems``)."""
    if field.get("metric_queries") is None:
        return True
    import numpy as np

    from leaderboard.records.per_query_codec import decode_metric_queries

    declared = decode_metric_queries(field)
    for metric in set(table.metrics) | set(declared):
        if metric not in table.columns:
            return False  # listed, without any value
        expected = np.zeros(len(table.ids), dtype=bool)
        if metric in declared:
            if any(q not in table.position for q in declared[metric]):
                return False
            expected[[table.position[q] for q in declared[metric]]] = True
        else:
            expected[:] = True
        if not np.array_equal(table.present(metric), expected):
            return False
    return True


def _mean(table: _Table, metric: str, positions: Any = None) -> float | None:
    """The mean of the metric's values on these positions (all: None), as ``math.fsum`` gives it; None: no value."""
    import numpy as np

    array = table.columns[metric] if positions is None else table.columns[metric][positions]
    if metric in table.sparse:
        array = array[~np.isnan(array)]  # NaN: no value on that query
    return math.fsum(array.tolist()) / array.size if array.size else None


def _members(table: _Table, field: Mapping[str, Any]) -> dict[str, list[str]]:
    from leaderboard.records.per_query_codec import decode_subset_queries

    if table.members is None:
        table.members = decode_subset_queries(field) if field.get("subsets") is not None else {}
    return table.members


def _close(mean: float | None, stored: Any) -> bool:
    return mean is None or math.isclose(mean, stored, rel_tol=0.0, abs_tol=TOLERANCE)


def _means_ok(table: _Table, field: Mapping[str, Any], record: Mapping[str, Any], split: str) -> bool:
    """Each stored score with per-query values is their mean (``per_query_checks``: the default scores, a
    macro mean over ``macro_over``'s subsets where the field says so, and each subset it names)."""
    import numpy as np

    scores = record["scores"].get(split, {})
    membership = _members(table, field)
    macro = field.get("macro_over") or []
    default = scores.get("default", {})
    if macro:
        if any(s not in membership for s in macro):
            return False
        strata = [np.array([table.position[q] for q in membership[s] if q in table.position], int) for s in macro]
        for metric in sorted(set(table.metrics) & set(default)):
            means = [m for m in (_mean(table, metric, positions) for positions in strata) if m is not None]
            if means and not _close(math.fsum(means) / len(means), default[metric]):
                return False
    else:
        for metric in sorted(set(table.metrics) & set(default)):
            if not _close(_mean(table, metric, None), default[metric]):
                return False
    for subset, members in membership.items():
        if subset in scores and subset != "default":
            positions = np.array([table.position[q] for q in members if q in table.position], int)  # twice: twice
            for metric in sorted(set(table.metrics) & set(scores[subset])):
                if not _close(_mean(table, metric, positions), scores[subset][metric]):
                    return False
    return True


def columns(field: Mapping[str, Any], arrays: bool = False) -> dict[str, Any] | None:
    """``per_query_columns.columns(field)``, from the arrays of the field verified last when it is this one.

    ``arrays``: its values as float64 arrays, NaN where the canonical lists hold None (the index stores them
    so); lists when the field is not the one verified last."""
    from leaderboard.records.per_query_columns import columns as canonical

    found = getattr(_memo, "table", None)
    _memo.table = None
    if found is None or found[0] != field.get("sha256") or found[1] is not field.get("data"):
        return canonical(field)
    table: _Table = found[2]
    from leaderboard.records.per_query_codec import macro_over

    try:
        members = _members(table, field)
    except (ValueError, TypeError, RecursionError):
        members = {}  # damaged membership costs the subsets, not the values (as ``columns``)
    subsets = {}
    for name, qs in members.items():
        positions: list[Any] = list(map(table.position.get, qs))
        if None not in positions:  # a subset naming a query without values is left out (as ``columns``)
            subsets[name] = sorted(positions)
    out: dict[str, Any] = {}
    for metric, array in table.columns.items():
        if arrays:
            out[metric] = array
            continue
        values = array.tolist()
        out[metric] = [None if v != v else v for v in values] if metric in table.sparse else values
    macro = [s for s in macro_over(field) if s in subsets]
    return {"ids": table.ids, "values": out, "subsets": subsets, "macro_over": macro}
