"""Checks that a result's per-query values are the ones behind its scores (issue 23).

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
values (``result_checks.per_query_required``: a complete result run by this harness, issue 31);
in any other file (version 1, imported, partial) it is not a claim about the scores: readers drop
it and show no interval.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

Range = Callable[[str], tuple[float | None, float | None]]

MEAN_TOLERANCE = 1e-9
_LISTED = 3  # problems named per kind before "and N more"


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def value_problems(
    values: Mapping[str, Any], metric_range: Any, where: str = "per_query"
) -> tuple[list[str], dict[str, dict[str, float]]]:
    """Problems with each value (type, finite, range) and the values that passed, as {query: {metric: value}}."""
    problems: list[str] = []
    clean: dict[str, dict[str, float]] = {}
    ranges: dict[str, tuple[float | None, float | None]] = {}  # a few metrics, thousands of values each
    for qid, row in values.items():
        if not isinstance(row, Mapping):
            problems.append(f"{where}/{qid}: expected an object of metric values, got {type(row).__name__}")
            continue
        for metric, value in row.items():
            if not _number(value):
                problems.append(f"{where}/{qid}/{metric}: {str(value)[:40]!r} is not a number")
                continue
            if not math.isfinite(value):
                problems.append(f"{where}/{qid}/{metric}: {value} is not finite")
                continue
            if metric not in ranges:
                ranges[metric] = metric_range(metric)
            low, high = ranges[metric]
            if (low is not None and value < low) or (high is not None and value > high):
                shown = f"[{'-inf' if low is None else low}, {'inf' if high is None else high}]"
                problems.append(f"{where}/{qid}/{metric}: {value} is outside the metric's range {shown}")
                continue
            clean.setdefault(qid, {})[metric] = float(value)
    return problems, clean


def mean_problems(
    clean: Mapping[str, Mapping[str, float]],
    stored: Mapping[str, float],
    queries: Any = None,
    where: str = "per_query",
    scores_where: str = "scores",
) -> list[str]:
    """Each stored score that has per-query values must be their mean (over ``queries`` when given)."""
    problems = []
    ids = list(clean) if queries is None else [q for q in queries if q in clean]
    metrics = sorted({m for q in ids for m in clean[q]})
    for metric in metrics:
        if metric not in stored:
            continue
        column = [clean[q][metric] for q in ids if metric in clean[q]]
        mean = math.fsum(column) / len(column)
        if not math.isclose(mean, stored[metric], rel_tol=0.0, abs_tol=MEAN_TOLERANCE):
            problems.append(
                f"{where}: the mean of {len(column)} per-query {metric} values is {mean!r}, but "
                f"{scores_where}/{metric} = {stored[metric]!r} (they must agree within {MEAN_TOLERANCE:g})"
            )
    return problems


def per_query_problems(record: Mapping[str, Any], split: str, metric_range: Range, required: bool = False) -> list[str]:
    """Every reason ``record["per_query"]`` is not the set of values behind its scores (empty: it is).

    ``record`` is the plain result (``records.result_checks``), ``split`` its main split and
    ``metric_range`` the values each metric can take. ``required``: the result must carry readable
    values (``result_checks.per_query_required``), so damaged data refuses it instead of being dropped."""
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
    from leaderboard.records.per_query_fast import verified

    if verified(values, field, record, split, metric_range):  # the checks below, as arrays: no problem
        return []
    problems, clean = value_problems(values, metric_range)
    counted = record.get("subset_sizes", {}).get(split, {}).get("default")
    if counted is not None and len(values) != counted:
        problems.append(
            f"per_query: holds {len(values)} queries, but subset_sizes/{split}/default counts {counted} "
            "(one row per counted query)"
        )
    if problems:
        return _listed(problems)
    problems = metric_membership_problems(field, clean)
    if problems:
        return _listed(problems)
    scores = record["scores"].get(split, {})
    membership = _membership(field)
    macro = field.get("macro_over") or []
    if macro and membership is not None:
        unknown = [s for s in macro if s not in membership]
        if unknown:
            problems.append(f"per_query/macro_over: the field does not list the queries of {unknown[:3]}")
        else:
            problems += macro_mean_problems(clean, scores.get("default", {}), [membership[s] for s in macro], split)
    elif not macro:
        problems += mean_problems(
            clean, scores.get("default", {}), where="per_query", scores_where=f"scores/{split}/default"
        )
    for subset, members in (membership or {}).items():
        if subset in scores and subset != "default":
            problems += mean_problems(
                clean, scores[subset], members, where=f"per_query ({subset})", scores_where=f"scores/{split}/{subset}"
            )
    return _listed(problems)


def metric_membership_problems(field: Any, clean: Mapping[str, Mapping[str, float]]) -> list[str]:
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
    metrics = sorted({m for row in clean.values() for m in row} | set(declared))
    for metric in metrics:
        having = {q for q, row in clean.items() if metric in row}
        expected = set(declared[metric]) if metric in declared else set(clean)
        if having != expected:
            odd = sorted(having ^ expected)
            problems.append(
                f"per_query/metric_queries/{metric}: the metric has values on {len(having)} queries, but "
                f"{'the field lists' if metric in declared else 'a metric it does not list must cover'} "
                f"{len(expected)} (e.g. {odd[:3]})"
            )
    return problems


def macro_mean_problems(
    clean: Mapping[str, Mapping[str, float]], stored: Mapping[str, float], strata: list[list[str]], split: str
) -> list[str]:
    """Each stored default score must be the mean over ``strata`` of each stratum's mean (a macro mean)."""
    problems = []
    metrics = sorted({m for row in clean.values() for m in row} & set(stored))
    for metric in metrics:
        means = []
        for members in strata:
            column = [clean[q][metric] for q in members if q in clean and metric in clean[q]]
            if column:
                means.append(math.fsum(column) / len(column))
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


def _membership(field: Any) -> dict[str, list[str]] | None:
    """Subset -> its query ids, where the field says (files written before membership was stored do not);
    None when it is damaged (no subset interval is drawn from it either)."""
    if field.get("subsets") is None:
        return {}
    from leaderboard.records.per_query_codec import decode_subset_queries

    try:
        return decode_subset_queries(field)
    except (ValueError, TypeError, RecursionError):
        return None


def _listed(problems: list[str]) -> list[str]:
    if len(problems) <= _LISTED:
        return problems
    return [*problems[:_LISTED], f"per_query: and {len(problems) - _LISTED} more problem(s)"]
