"""A result's per-query values checked as columns: the verdict of ``per_query_checks``, fast, or no verdict.

Every reader checks that a result's per-query values are numbers in range and average to its
scores (``per_query_checks.per_query_problems``). Written value by value, that costs a real ComLQ
result (2,909 queries, 6 metrics, 51 subsets) about 40 ms, more than everything else a first start
does with the file. Here the same checks run on one float64 column per metric:

* ``verified`` is True only when every check of ``per_query_problems`` passes, computed the same way
  (each mean with ``math.fsum``, which is exactly rounded, so the very same comparisons); on any
  doubt, or anything wrong, it says False and the caller runs the canonical checks, whose verdict and
  messages are the only ones ever shown. It never accepts what they refuse (tested on real results
  and on mutations of them).
* ``columns`` gives ``per_query_columns.columns`` of a verified field from the same columns, without
  decoding the field a second time.

The columns are the standard library's ``array("d")`` (C doubles), checked with built-ins that run at
C speed (``map``, ``min``, ``math.fsum``), not numpy: importing numpy costs a cold ``show`` more than
the checks themselves, and ``show`` must stay within 3x of ``import click, rich``. A field of fewer
than ``MIN_QUERIES`` queries goes straight to the canonical checks (as cheap there) unless numpy is
already loaded (a server: then the columns it reuses save decoding the field twice).
"""

from __future__ import annotations

import itertools
import math
import operator
import sys
import threading
from array import array
from collections.abc import Callable, Mapping
from typing import Any, cast

MIN_QUERIES = 256
TOLERANCE = 1e-9  # per_query_checks.MEAN_TOLERANCE (imported lazily there; equal by a test)
_NAN = float("nan")
_memo = threading.local()  # the table of the field verified last, for ``columns`` right after


class _Table:
    """Per-query values as columns: sorted ids, and per metric its values (NaN where it has none)."""

    def __init__(self, values: Mapping[str, Any]):
        self.ids = sorted(values)
        self.position = {q: i for i, q in enumerate(self.ids)}
        rows = [values[q] for q in self.ids]
        if set(map(type, rows)) != {dict}:
            raise ValueError("a row is not an object of metric values")
        self.metrics = sorted({m for row in rows for m in row})
        self.columns: dict[str, array[float]] = {}
        self.sparse: set[str] = set()  # metrics without a value on some query
        self.members: dict[str, list[str]] | None = None  # the field's subsets, once decoded
        for metric in self.metrics:
            column = list(map(dict.get, rows, itertools.repeat(metric)))  # row.get(metric), at C speed
            kinds = set(map(type, column))
            if not kinds <= {float, int, type(None)}:
                raise ValueError(f"{metric}: a value is not a number")
            if type(None) in kinds:
                # rows that have the metric (C speed): a None in the column is either absent or a null value
                given = sum(map(dict.__contains__, rows, itertools.repeat(metric)))
                values_of = array("d", [_NAN if v is None else v for v in column])
            else:
                given = len(rows)
                # ints exactly as float() makes them; one too large raises OverflowError (the canonical checks decide)
                values_of = array("d", cast(list[float], column))
            if given != len(values_of) - sum(map(math.isnan, values_of)):  # a null or a NaN given as a value
                raise ValueError(f"{metric}: a value is null or NaN")
            self.columns[metric] = values_of
            if given < len(rows):
                self.sparse.add(metric)

    def present(self, metric: str) -> list[bool]:
        return [v == v for v in self.columns[metric]]  # NaN != NaN: no value on that query

    def found(self, metric: str) -> Any:
        """The metric's values where it has one."""
        column = self.columns[metric]
        return [v for v in column if v == v] if metric in self.sparse else column


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
    for metric in table.columns:
        found = table.found(metric)
        if not found or not all(map(math.isfinite, found)):  # NaN/inf given as values, or a column of nulls
            return False
        low, high = metric_range(metric)
        if (low is not None and min(found) < low) or (high is not None and max(found) > high):
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
    from leaderboard.records.per_query_codec import decode_metric_queries

    declared = decode_metric_queries(field)
    for metric in set(table.metrics) | set(declared):
        if metric not in table.columns:
            return False  # listed, without any value
        if metric in declared:
            if any(q not in table.position for q in declared[metric]):
                return False
            expected = [False] * len(table.ids)
            for q in declared[metric]:
                expected[table.position[q]] = True
        else:
            expected = [True] * len(table.ids)
        if table.present(metric) != expected:
            return False
    return True


def _picker(positions: list[int]) -> Callable[[Any], Any]:
    """A function that takes these positions from a column, in one C call (``itemgetter``)."""
    if len(positions) == 1:  # itemgetter of one position gives the value itself, not a tuple
        return lambda column: (column[positions[0]],)
    return operator.itemgetter(*positions) if positions else lambda column: ()


def _positions(table: _Table, members: list[str]) -> list[int]:
    """The positions of a subset's queries that have values (a query listed twice: counted twice)."""
    found = list(map(table.position.get, members))
    if None in found:
        return [p for p in found if p is not None]
    return cast(list[int], found)


def _mean(table: _Table, metric: str, pick: Callable[[Any], Any] | None = None) -> float | None:
    """The mean of the metric's values that ``pick`` takes (all: None), as ``math.fsum`` gives it; None: no value."""
    column = table.columns[metric]
    chosen: Any = column if pick is None else pick(column)
    if metric in table.sparse:
        chosen = [v for v in chosen if v == v]  # NaN: no value on that query
    return math.fsum(chosen) / len(chosen) if len(chosen) else None


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
    scores = record["scores"].get(split, {})
    membership = _members(table, field)
    macro = field.get("macro_over") or []
    default = scores.get("default", {})
    if macro:
        if any(s not in membership for s in macro):
            return False
        strata = [_picker(_positions(table, membership[s])) for s in macro]
        for metric in sorted(set(table.metrics) & set(default)):
            means = [m for m in (_mean(table, metric, pick) for pick in strata) if m is not None]
            if means and not _close(math.fsum(means) / len(means), default[metric]):
                return False
    else:
        for metric in sorted(set(table.metrics) & set(default)):
            if not _close(_mean(table, metric, None), default[metric]):
                return False
    for subset, members in membership.items():
        if subset in scores and subset != "default":
            pick = _picker(_positions(table, members))
            for metric in sorted(set(table.metrics) & set(scores[subset])):
                if not _close(_mean(table, metric, pick), scores[subset][metric]):
                    return False
    return True


def columns(field: Mapping[str, Any], arrays: bool = False) -> dict[str, Any] | None:
    """``per_query_columns.columns(field)``, from the columns of the field verified last when it is this one.

    ``arrays``: its values as float64 ``array("d")`` columns, NaN where the canonical lists hold None (the
    index stores them so); lists when the field is not the one verified last."""
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
    for metric, column in table.columns.items():
        if arrays:
            out[metric] = column
            continue
        values = column.tolist()
        out[metric] = [None if v != v else v for v in values] if metric in table.sparse else values
    macro = [s for s in macro_over(field) if s in subsets]
    return {"ids": table.ids, "values": out, "subsets": subsets, "macro_over": macro}
