"""Checks that a result's per-query values are the ones behind its scores.

A result's ``per_query`` field holds, per counted query, the values of its main metrics: the
numbers intervals and significance tests resample. A file whose values were edited and re-sealed
with a matching sha256 would otherwise put any claim on the board, so every reader (``show``,
``validate``, ``push``, ``compare``, the app) accepts a result only when its values are:

* numbers, finite, and inside the metric's declared range (``Result.metric_range``);
* one row per counted query: as many rows as ``subset_sizes[<main split>]["default"]`` when the
  task declares that size;
* averaging to the stored score: for each metric with a stored ``default`` score on the main split,
  the mean over the queries that have a value equals it within ``MEAN_TOLERANCE`` (absolute); where
  the field says the default scores are a macro mean (``macro_over``: MultiConIR's over domains), the
  mean over those subsets of each subset's mean;
* when the field says which queries form each subset, averaging to each subset's stored score;
* when the field says which queries a metric is computed on (``metric_queries``: ComLQ's LSNC on the
  queries its judge labelled), present on exactly those queries; every other metric on every query.

Data that cannot be decoded or does not match its own sha256 refuses a result that must carry its
values (``result_checks.per_query_required``: a complete result run by this harness);
in any other file (version 1, imported, partial) it is not a claim about the scores: readers drop
it and show no interval.

One implementation, on columns: the values become one ``array("d")`` per metric (NaN where a query
has none), checked with built-ins that run at C speed (``map``, ``min``, ``math.fsum``, which is
exactly rounded, so a mean does not depend on the order of its values). A real ComLQ result (2,909
queries, 6 metrics, 51 subsets) checked value by value cost more than everything else a cold
``show`` does with the file. A column is walked value by value only when it fails, to name each
bad value. Not numpy: importing it costs a cold ``show`` more than the checks themselves.
"""

from __future__ import annotations

import itertools
import math
import operator
import threading
from array import array
from collections.abc import Callable, Iterable, Mapping
from typing import Any, cast

Range = Callable[[str], tuple[float | None, float | None]]
Picker = Callable[[Any], Any]  # takes some queries' values from a column

MEAN_TOLERANCE = 1e-9
_LISTED = 3  # problems named per kind before "and N more"
_NAN = float("nan")
_memo = threading.local()  # the table of the field checked last, for ``columns`` right after


class Table:
    """Per-query values as columns: sorted ids, and per metric its values (NaN where it has none).

    Building it checks every value (a number, finite, in its metric's range); ``problems`` names each
    value that is not, in the order of the rows and of their keys, and such a value counts as absent."""

    def __init__(self, values: Mapping[str, Any], metric_range: Range, where: str = "per_query"):
        self.ids = sorted(values)
        self.position = {q: i for i, q in enumerate(self.ids)}
        self.columns: dict[str, array[float]] = {}
        self.sparse: set[str] = set()  # metrics without a value on some query
        self.members: dict[str, list[str]] | None = None  # the field's subsets, once decoded
        self.where = where
        rows = [values[q] for q in self.ids]
        # (row in the file's order, key in the row's order, message): sorted so, whatever column found it
        found: list[tuple[int, int, str]] = []
        if set(map(type, rows)) - {dict}:
            order = {q: i for i, q in enumerate(values)}
            for i, (q, row) in enumerate(zip(self.ids, rows, strict=True)):
                if isinstance(row, Mapping) and type(row) is not dict:
                    rows[i] = dict(row)
                elif not isinstance(row, Mapping):
                    got = type(row).__name__
                    found.append((order[q], -1, f"{where}/{q}: expected an object of metric values, got {got}"))
                    rows[i] = {}
        metrics = sorted({m for row in rows for m in row})
        for metric in metrics:
            low, high = metric_range(metric)
            column = list(map(dict.get, rows, itertools.repeat(metric)))  # row.get(metric), at C speed
            checked = _clean_column(column, low, high)
            if checked is not None and checked[1]:  # a None: the row lacks the metric, or gives null as its value
                lacking = len(rows) - sum(map(dict.__contains__, rows, itertools.repeat(metric)))
                checked = checked if lacking == checked[1] else None
            if checked is None:
                checked = self._walk(values, rows, metric, low, high, found)
            numbers, absent = checked
            if absent == len(numbers):
                continue  # no value of this metric passed: the metric has none
            self.columns[metric] = numbers
            if absent:
                self.sparse.add(metric)
        self.problems = [message for _, _, message in sorted(found)]
        self.metrics = sorted(self.columns)

    def _walk(
        self,
        values: Mapping[str, Any],
        rows: list[dict[str, Any]],
        metric: str,
        low: float | None,
        high: float | None,
        found: list[tuple[int, int, str]],
    ) -> tuple[array[float], int]:
        """A column that failed the fast checks, value by value: each bad value named, and left out."""
        order = {q: i for i, q in enumerate(values)}
        column = array("d", [_NAN]) * len(rows)
        for i, (q, row) in enumerate(zip(self.ids, rows, strict=True)):
            if metric not in row:
                continue
            value, where = row[metric], (order[q], list(row).index(metric))
            problem = _value_problem(value, low, high)
            if problem:
                found.append((*where, f"{self.where}/{q}/{metric}: {problem}"))
            else:
                column[i] = float(value)
        return column, sum(map(math.isnan, column))

    def present(self, metric: str) -> list[bool]:
        return [v == v for v in self.columns[metric]]  # NaN != NaN: no value on that query

    def having(self, metric: str) -> set[str]:
        """The ids of the queries that have a value of the metric."""
        return set(itertools.compress(self.ids, self.present(metric)))

    def valued(self) -> set[str]:
        """The ids of the queries that have a value of some metric."""
        dense = [metric for metric in self.metrics if metric not in self.sparse]
        if dense:
            return set(self.ids)
        return set().union(*(self.having(metric) for metric in self.metrics))

    def clean(self) -> dict[str, dict[str, float]]:
        """The values that passed, as {query: {metric: value}}."""
        out: dict[str, dict[str, float]] = {}
        for metric in self.metrics:
            for q, value in zip(self.ids, self.columns[metric], strict=True):
                if value == value:
                    out.setdefault(q, {})[metric] = value
        return out

    def mean(self, metric: str, pick: Picker | None = None) -> tuple[float, int] | None:
        """(mean, count) of the metric's values that ``pick`` takes (all: None), None when it has none there."""
        column = self.columns[metric]
        chosen: Any = column if pick is None else pick(column)
        if metric in self.sparse:
            chosen = [v for v in chosen if v == v]  # NaN: no value on that query
        return (math.fsum(chosen) / len(chosen), len(chosen)) if len(chosen) else None

    def picker(self, members: Iterable[str]) -> Picker:
        """What takes these queries' values from a column (a query listed twice: counted twice; one without
        values: left out), in one C call (``itemgetter``), built once for all the metrics."""
        found = list(map(self.position.get, members))
        positions = [p for p in found if p is not None] if None in found else cast(list[int], found)
        if len(positions) == 1:  # itemgetter of one position gives the value itself, not a tuple
            return lambda column: (column[positions[0]],)
        return operator.itemgetter(*positions) if positions else lambda column: ()

    def has_values_on_exactly(self, metric: str, ids: list[str]) -> bool:
        """Whether the metric has a value on these queries and no other (C speed where it does)."""
        column = self.columns[metric]
        given = len(column) - (sum(map(math.isnan, column)) if metric in self.sparse else 0)
        unique = set(ids)
        if len(unique) != given or not unique <= self.position.keys():
            return False
        return all(v == v for v in self.picker(unique)(column))


def _clean_column(column: list[Any], low: float | None, high: float | None) -> tuple[array[float], int] | None:
    """(the column as doubles, NaN where absent; how many are absent) when every value given is a finite number
    in range; None when some value is not (or may not be): the column is then walked value by value."""
    kinds = set(map(type, column))
    if not kinds <= {float, int, type(None)}:
        return None
    try:
        # ints exactly as float() makes them; one too large raises OverflowError: walked, and named
        numbers = array("d", [_NAN if v is None else v for v in column] if type(None) in kinds else column)
    except OverflowError:
        return None
    absent = column.count(None)
    given = [v for v in numbers if v == v] if absent else numbers
    if len(given) != len(column) - absent or not all(map(math.isfinite, given)):
        return None  # a NaN or an infinity given as a value
    if given and ((low is not None and min(given) < low) or (high is not None and max(given) > high)):
        return None
    return numbers, absent


def _value_problem(value: Any, low: float | None, high: float | None) -> str | None:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return f"{str(value)[:40]!r} is not a number"
    try:
        number = float(value)
    except OverflowError:  # an integer of hundreds of digits: not shown whole
        return f"{str(value)[:40]}... is not finite"
    if not math.isfinite(number):
        return f"{value} is not finite"
    if (low is not None and number < low) or (high is not None and number > high):
        return f"{value} is outside the metric's range {_shown(low, high)}"
    return None


def _shown(low: float | None, high: float | None) -> str:
    return f"[{'-inf' if low is None else low}, {'inf' if high is None else high}]"


def value_problems(
    values: Mapping[str, Any], metric_range: Range, where: str = "per_query"
) -> tuple[list[str], dict[str, dict[str, float]]]:
    """Problems with each value (type, finite, range) and the values that passed, as {query: {metric: value}}."""
    table = Table(values, metric_range, where)
    return table.problems, table.clean()


def mean_problems(
    clean: Mapping[str, Mapping[str, float]],
    stored: Mapping[str, float],
    queries: Iterable[str] | None = None,
    where: str = "per_query",
    scores_where: str = "scores",
) -> list[str]:
    """Each stored score that has per-query values must be their mean (over ``queries`` when given)."""
    table = Table(clean, lambda name: (None, None))
    pick = None if queries is None else table.picker(queries)
    return _mean_problems(table, stored, pick, where, scores_where)


def _mean_problems(
    table: Table, stored: Mapping[str, float], pick: Picker | None, where: str, scores_where: str
) -> list[str]:
    problems = []
    for metric in sorted(set(table.metrics) & set(stored)):
        found = table.mean(metric, pick)
        if found is None:
            continue
        mean, count = found
        if not math.isclose(mean, stored[metric], rel_tol=0.0, abs_tol=MEAN_TOLERANCE):
            problems.append(
                f"{where}: the mean of {count} per-query {metric} values is {mean!r}, but "
                f"{scores_where}/{metric} = {stored[metric]!r} (they must agree within {MEAN_TOLERANCE:g})"
            )
    return problems


def _macro_mean_problems(table: Table, stored: Mapping[str, float], strata: list[Picker], split: str) -> list[str]:
    """Each stored default score must be the mean over ``strata`` of each stratum's mean (a macro mean)."""
    problems = []
    for metric in sorted(set(table.metrics) & set(stored)):
        means = [found[0] for found in (table.mean(metric, pick) for pick in strata) if found is not None]
        if not means:
            continue
        mean = math.fsum(means) / len(means)
        if not math.isclose(mean, stored[metric], rel_tol=0.0, abs_tol=MEAN_TOLERANCE):
            problems.append(
                f"per_query: the mean over {len(means)} subsets (macro_over) of the per-query {metric} values is "
                f"{mean!r}, but scores/{split}/default/{metric} = {stored[metric]!r} (they must agree within "
                f"{MEAN_TOLERANCE:g})"
            )
    return problems


def per_query_problems(record: Mapping[str, Any], split: str, metric_range: Range, required: bool = False) -> list[str]:
    """Every reason ``record["per_query"]`` is not the set of values behind its scores (empty: it is).

    ``record`` is the plain result (``records.result_checks``), ``split`` its main split and
    ``metric_range`` the values each metric can take. ``required``: the result must carry readable
    values (``result_checks.per_query_required``), so damaged data refuses it instead of being dropped."""
    _memo.table = None
    field = record.get("per_query")
    if field is None:
        return []
    from leaderboard.records.per_query_codec import decode_per_query

    try:
        values = decode_per_query(field)
    except (ValueError, TypeError, RecursionError) as exc:
        if required:
            return [f"per_query: {exc}; a complete result run by this harness must carry readable per-query values"]
        return []  # unreadable, not a claim: readers drop it (see the module docstring)
    table = Table(values, metric_range)
    problems = list(table.problems)
    counted = record.get("subset_sizes", {}).get(split, {}).get("default")
    if counted is not None and len(values) != counted:
        problems.append(
            f"per_query: holds {len(values)} queries, but subset_sizes/{split}/default counts {counted} "
            "(one row per counted query)"
        )
    if problems:
        return _listed(problems)
    problems = _metric_membership_problems(table, field)
    if problems:
        return _listed(problems)
    scores = record["scores"].get(split, {})
    membership = _membership(table, field)
    macro = field.get("macro_over") or []
    if macro and membership is not None:
        unknown = [s for s in macro if s not in membership]
        if unknown:
            problems.append(f"per_query/macro_over: the field does not list the queries of {unknown[:3]}")
        else:
            strata = [table.picker(membership[s]) for s in macro]
            problems += _macro_mean_problems(table, scores.get("default", {}), strata, split)
    elif not macro:
        problems += _mean_problems(table, scores.get("default", {}), None, "per_query", f"scores/{split}/default")
    for subset, members in (membership or {}).items():
        if subset in scores and subset != "default":
            problems += _mean_problems(
                table, scores[subset], table.picker(members), f"per_query ({subset})", f"scores/{split}/{subset}"
            )
    if not problems:
        _memo.table = (field.get("sha256"), field.get("data"), table)
    return _listed(problems)


def _metric_membership_problems(table: Table, field: Any) -> list[str]:
    """Where the field lists the queries a metric is computed on, the metric has a value on exactly those,
    and every metric it does not list has one on every query (files without the list are not checked)."""
    if field.get("metric_queries") is None:
        return []
    from leaderboard.records.per_query_codec import decode_metric_queries

    try:
        declared = decode_metric_queries(field)
    except (ValueError, TypeError, RecursionError):
        return []  # unreadable, not a claim: readers take each metric's queries from its values
    problems = []
    everyone = table.valued()
    for metric in sorted(set(table.metrics) | set(declared)):
        if metric in table.columns and metric in declared and table.has_values_on_exactly(metric, declared[metric]):
            continue
        if metric in table.columns and metric not in declared and metric not in table.sparse:
            continue  # on every query
        having = table.having(metric) if metric in table.columns else set()
        expected = set(declared[metric]) if metric in declared else everyone
        if having != expected:
            odd = sorted(having ^ expected)
            problems.append(
                f"per_query/metric_queries/{metric}: the metric has values on {len(having)} queries, but "
                f"{'the field lists' if metric in declared else 'a metric it does not list must cover'} "
                f"{len(expected)} (e.g. {odd[:3]})"
            )
    return problems


def _membership(table: Table, field: Any) -> dict[str, list[str]] | None:
    """Subset -> its query ids, where the field says (files written before membership was stored do not);
    None when it is damaged (no subset interval is drawn from it either)."""
    if table.members is None:
        if field.get("subsets") is None:
            table.members = {}
        else:
            from leaderboard.records.per_query_codec import decode_subset_queries

            try:
                table.members = decode_subset_queries(field)
            except (ValueError, TypeError, RecursionError):
                return None
    return table.members


def _listed(problems: list[str]) -> list[str]:
    if len(problems) <= _LISTED:
        return problems
    return [*problems[:_LISTED], f"per_query: and {len(problems) - _LISTED} more problem(s)"]


def columns(field: Mapping[str, Any], arrays: bool = False) -> dict[str, Any] | None:
    """``per_query_columns.columns(field)``, from the table of the field checked last when it is this one.

    The index stores the columns of every file it reads: taking them from the checks' own table saves
    decoding the field a second time. ``arrays``: values as float64 ``array("d")`` columns, NaN where the
    canonical lists hold None (the index stores them so); lists when the field is not the one checked last."""
    from leaderboard.records.per_query_columns import columns as canonical

    found = getattr(_memo, "table", None)
    _memo.table = None
    if found is None or found[0] != field.get("sha256") or found[1] is not field.get("data"):
        return canonical(field)
    table: Table = found[2]
    from leaderboard.records.per_query_codec import macro_over

    members = _membership(table, field) or {}  # damaged membership costs the subsets, not the values
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
