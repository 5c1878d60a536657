"""The checks a result's schema cannot express, on the plain record (the validated result as a dict).

The reader (``records.reader``) runs them on the record the shipped core schema's validator
returns, and the pydantic model (``records.result.Result``) on its own ``model_dump()`` when it is
validated directly. They read a record as ``Result.model_dump()`` writes it, which is what the
reader's validator returns (tested).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from leaderboard.records.per_query_checks import per_query_problems

Record = Mapping[str, Any]

SCHEMA_VERSION = "2"
READABLE_VERSIONS = ("1", "2")  # version 1 files (the first release) are a subset of version 2


def scores_problem(scores: Mapping[str, Any]) -> str | None:
    if not scores or any(not subsets for subsets in scores.values()):
        return "scores must hold at least one split with at least one subset"
    return None


def record_problems(record: Record) -> list[str]:
    """Every reason a schema-valid record is not a result (empty: it is one)."""
    imported = record.get("imported_from") is not None
    if not imported and record["task"]["source"]["content_hash"] is None:
        return ["task.source.content_hash is required for a result run here"]
    if not imported and record["settings"]["batch_size"] is None:
        return ["settings.batch_size is required for a result run here"]
    if not imported and record["created_at"] is None:
        return ["created_at is required for a result run here (only an imported file may have no date)"]
    required = per_query_required(record)
    if required and record.get("per_query") is None:
        return [
            "per_query: null, but a complete result run by this harness must carry its per-query values (the "
            "numbers behind its scores, their intervals and tests); re-run it with this version (--overwrite)"
        ]
    return (
        _main_score_problems(record)
        + _range_problems(record)
        + per_query_problems(record, main_split(record), lambda name: metric_range(record, name), required)
    )


def per_query_required(record: Record) -> bool:
    """The rule: a complete result run by this harness carries readable per-query values, or no reader accepts it.

    Exempt: version 1 files (written before the field existed), imported results (``imported_from``:
    mteb's files hold none), partial results (never ranked or pushed), and a result whose task wrote
    why it has none in ``task_details.per_query`` (the mteb bridge: a main metric without a per-query
    definition, or a mean over subsets of unequal sizes); the board shows those without an interval (†).
    """
    reason = record.get("task_details", {}).get("per_query")
    return (
        str(record["schema_version"]) != "1"
        and record.get("imported_from") is None
        and is_complete(record)
        and not (isinstance(reason, str) and reason.strip())
    )


def main_split(record: Record) -> str:
    """The main score lives in the first split, subset "default"."""
    return str(record["task"]["splits"][0])


def declared_metric(record: Record, name: str) -> Mapping[str, Any] | None:
    return next((m for m in record["task"]["metrics"] if m["name"] == name), None)


def metric_range(record: Record, name: str) -> tuple[float | None, float | None]:
    """The values a metric can take: as the task declared it; version 1 and imported files declare none."""
    declared = None
    if record["schema_version"] != "1" and record.get("imported_from") is None:  # the others declare none
        declared = declared_metric(record, name)
    if declared is None:
        from leaderboard.metrics.bounds import bounds

        return bounds(name)
    return declared["low"], declared["high"]


def direction(record: Record) -> str:
    metric = declared_metric(record, record["task"]["main_score"])
    return str(metric["direction"]) if metric else "higher"


def is_complete(record: Record) -> bool:
    """A version 1 file has no coverage record: complete unless it was run with --limit."""
    coverage = record.get("coverage")
    if coverage is not None:
        return bool(coverage["complete"])
    return record["settings"]["limit"] is None


def score(record: Record, metric: str, subset: str = "default", split: str | None = None) -> float | None:
    value: float | None = record["scores"].get(split or main_split(record), {}).get(subset, {}).get(metric)
    return value


def _range_problems(record: Record) -> list[str]:
    problems = []
    ranges: dict[str, tuple[float | None, float | None]] = {}  # a few metrics, hundreds of cells

    def range_of(name: str) -> tuple[float | None, float | None]:
        if name not in ranges:
            ranges[name] = metric_range(record, name)
        return ranges[name]

    for split, subsets in record["scores"].items():
        for subset, values in subsets.items():
            for name, value in values.items():
                low, high = range_of(name)
                if (low is not None and value < low) or (high is not None and value > high):
                    problems.append(f"scores/{split}/{subset}/{name}: {value} is outside {_shown(low, high)}")
    for split, interval_subsets in record.get("confidence_intervals", {}).items():
        for subset, intervals in interval_subsets.items():
            for name, (lower, upper) in intervals.items():
                low, high = range_of(name)
                if lower > upper or (low is not None and lower < low) or (high is not None and upper > high):
                    problems.append(
                        f"confidence_intervals/{split}/{subset}/{name}: [{lower}, {upper}] is not an interval "
                        f"inside {_shown(low, high)}"
                    )
    return problems


def _main_score_problems(record: Record) -> list[str]:
    """main_score is scores[splits[0]]["default"][task.main_score] (an import may lack "default")."""
    name, split = record["task"]["main_score"], main_split(record)
    where = f"scores/{split}/default/{name}"
    value = score(record, name)
    if value is None and record.get("imported_from") is not None:
        candidates = [v[name] for v in record["scores"].get(split, {}).values() if name in v]
        value = next((v for v in candidates if same(v, record["main_score"])), None)
        where = f"a subset of scores/{split} holding {name}"
    if value is None:
        return [f"main_score: the task's main score {name!r} is missing from its own scores ({where})"]
    if not same(value, record["main_score"]):
        return [f"main_score: {record['main_score']} differs from {where} = {value}"]
    return []


def same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)  # equal up to a JSON round trip


def _shown(low: float | None, high: float | None) -> str:
    return f"the metric's range [{'-inf' if low is None else low}, {'inf' if high is None else high}]"
