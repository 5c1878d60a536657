"""Validating result files for the index, and checking what a stored row claims.

A new or changed file is read and validated here (``records.reader``, no pydantic) into the
records ``records.index_rows`` extracts; any file, however hostile, becomes a skipped row with its
reason. Validating a large real result is costly, so a first start over many new files validates
them in worker processes (one per core) in batches: memory stays bounded by a batch, and the
caller writes each batch whole. A stored summary is checked for the shape and types readers rely
on (``summary_problems``) before it is believed, since the index is a cache anything can edit.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from leaderboard.records import index_columns, per_query_checks
from leaderboard.records.index_rows import Entry, Row, detail, summary, task_declaration

# Per-query fields larger than this many queries stay in the result file only (the app then shows no
# per-query interval or test for that result); every task in this project is far below it.
PER_QUERY_LIMIT = 200_000
# A first start over many new files validates them in worker processes; fewer are not worth starting them.
PARALLEL_MIN = 256
BATCH = 256  # files validated per worker task and written per transaction


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _validate(path: Path, rel: str, key: list[int]) -> Row:
    """The file read and validated into its index records, or a skipped row that says why."""
    from leaderboard.records.reader import read_record

    try:
        record = read_record(path)
        per_query = record["per_query"]
        small = per_query and per_query["count"] <= PER_QUERY_LIMIT
        columns = per_query_checks.columns(per_query, arrays=True) if small else None
        stored, shared = index_columns.encode(columns) if columns is not None else (None, {})
        return Row(
            Entry(rel, key, summary(record)),
            task=record["task"]["name"],
            detail=json.dumps(detail(record), allow_nan=False),
            per_query=stored,
            task_meta=json.dumps(task_declaration(record), allow_nan=False),
            shared=shared,
        )
    except Exception as exc:  # any file, however hostile, becomes a skipped entry with its reason
        reason = str(exc) if type(exc).__name__ == "BadInput" else f"{type(exc).__name__}: {exc}"
        return Row(Entry(rel, key, None, reason or type(exc).__name__))


def _check(path: Path, rel: str, key: list[int], old_sha256: str | None) -> tuple[str | None, Row | None]:
    """The file's sha256, and its validation unless those bytes are the ones its stored row holds."""
    digest = _digest(path)
    if old_sha256 is not None and digest == old_sha256:
        return digest, None
    return digest, _validate(path, rel, key)


def _check_many(items: list[tuple[Path, str, list[int], str | None]]) -> list[tuple[str | None, Row | None]]:
    return [_check(*item) for item in items]


def checked(todo: list[tuple[Path, str, list[int], str | None]]) -> Iterator[tuple[str | None, Row | None]]:
    """``_check`` of each item, in order: in worker processes (one per core) when there are many."""
    workers = min(os.cpu_count() or 1, 8)
    done = 0
    if len(todo) >= PARALLEL_MIN and workers > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        batches = [todo[i : i + BATCH // 8] for i in range(0, len(todo), BATCH // 8)]
        try:  # spawn: the caller may run threads (a server), which a fork would copy mid-way
            with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
                for results in pool.map(_check_many, batches):
                    yield from results
                    done += len(results)
        except (OSError, RuntimeError, ImportError):  # no worker processes here (a sandbox): validate in this one
            pass
    for item in todo[done:]:
        yield _check(*item)


# What readers take from a summary without checking: field -> accepted types (None: may be null).
_NUMBER = (int, float)


_SUMMARY_SHAPE: dict[str, tuple[type, ...]] = {
    "model": (dict,),
    "task": (dict,),
    "main_score": _NUMBER,
    "complete": (bool,),
    "created_at": (str,),
    "default": (dict,),
    "default_ci": (dict,),
}


_MODEL_SHAPE: dict[str, tuple[type, ...]] = {"name": (str,), "kind": (str,)}


_TASK_SHAPE: dict[str, tuple[type, ...]] = {"name": (str,), "main_score": (str,), "direction": (str,)}


def summary_problems(value: Any) -> list[str]:
    """Why a stored summary cannot be what ``summary`` wrote (empty when its shape and types are right).

    Checked by hand, not with pydantic: the index exists so that ``show`` need not import it.
    """
    if not isinstance(value, dict):
        return [f"summary: expected an object, got {type(value).__name__}"]
    problems = []
    for where, part, shape in (
        ("summary", value, _SUMMARY_SHAPE),
        ("summary.model", value.get("model"), _MODEL_SHAPE),
        ("summary.task", value.get("task"), _TASK_SHAPE),
    ):
        if not isinstance(part, dict):
            continue  # reported by the level above
        for name, kinds in shape.items():
            field_value = part.get(name)
            if not isinstance(field_value, kinds) or (kinds == _NUMBER and isinstance(field_value, bool)):
                problems.append(f"{where}.{name}: expected {'/'.join(k.__name__ for k in kinds)}")
    if not problems:
        if not math.isfinite(value["main_score"]):
            problems.append("summary.main_score: not finite")
        if value["main_score"] != value["default"].get(value["task"]["main_score"], value["main_score"]):
            problems.append("summary.main_score: differs from the default scores")
        ci = value.get("main_ci")
        if ci is not None and not (
            isinstance(ci, list) and len(ci) == 2 and all(isinstance(v, _NUMBER) and math.isfinite(v) for v in ci)
        ):
            problems.append("summary.main_ci: expected [low, high] or null")
        if not set(map(type, value["default"].values())) <= {int, float}:  # JSON's numbers; map: C speed
            problems.append("summary.default: expected numbers")
    return problems
