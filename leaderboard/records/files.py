"""Result files: atomic writes, validated reads, the file layout and a run's identity.

Every result is built and read through ``records.result.Result``; this module only moves it
between memory and disk.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from leaderboard.errors import BadInput
from leaderboard.fileio import atomic_open
from leaderboard.records.result import Result, validation_errors

# Settings that only change speed, not scores: excluded from a result's identity.
OPERATIONAL_SETTINGS = ("batch_size", "device", "libraries")

__all__ = [
    "Result",
    "build_result",
    "identity",
    "read_result",
    "result_path",
    "slug",
    "validation_errors",
    "write_result",
]


def build_result(record: dict[str, Any], where: str = "result") -> Result:
    """A Result from a plain record, or BadInput listing what is wrong with it."""
    try:
        return Result.model_validate(record)
    except ValidationError:
        errors = validation_errors(record)
        raise BadInput(
            f"{where} does not match the result schema: " + "; ".join(errors[:5]) + (" ..." if len(errors) > 5 else "")
        ) from None


def write_json_atomic(path: Path, data: Any) -> None:
    with atomic_open(path, "w") as handle:
        json.dump(data, handle, indent=2, ensure_ascii=False, allow_nan=False)
        handle.write("\n")


def write_result(path: Path, result: Result) -> None:
    write_json_atomic(path, result.to_json())


def read_result(path: Path) -> Result:
    """A validated result, or BadInput naming the file and what is wrong."""
    try:
        data = json.loads(Path(path).read_text("utf-8"))
    except json.JSONDecodeError as exc:
        raise BadInput(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno}); expected a result file.") from None
    return build_result(data, str(path))


def slug(name: str) -> str:
    """A file-system-safe name: 'org/model' -> 'org__model' (the MTEB results layout)."""
    out = re.sub(r"\s*>>(\d*)\s*", r"__rerank\1__", name).replace("/", "__")
    return "".join(c if c.isalnum() or c in "-_.+" else "_" for c in out).strip("._") or "unnamed"


def result_path(
    output: Path, model_name: str, revision: str | None, task_name: str, partial: str | None = None
) -> Path:
    """<output>/<model>/<revision>/<task>.json; a partial result (e.g. --limit) gets its own name beside it."""
    tag = f".partial-{slug(partial)}" if partial else ""
    return Path(output) / slug(model_name) / slug(revision or "no_revision") / f"{slug(task_name)}{tag}.json"


def identity_of(record: dict[str, Any]) -> str:
    """What makes two runs 'the same run': model, revision, task, data, and score-relevant settings."""
    settings = {k: v for k, v in record["settings"].items() if k not in OPERATIONAL_SETTINGS}
    key = {
        "model": [record["model"]["name"], record["model"]["revision"]],
        "task": [record["task"]["name"], record["task"]["version"], record["task"]["source"]["content_hash"]],
        "settings": settings,
    }
    return hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()


def identity(result: Result) -> str:
    return identity_of(result.to_json())
