"""Result files: the versioned schema, atomic writes, validated reads, file layout, identity."""

from __future__ import annotations

import hashlib
import json
import math
import re
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from .errors import BadInput
from .fileio import atomic_open

SCHEMA_VERSION = "1"
# Settings that only change speed, not scores: excluded from a result's identity.
OPERATIONAL_SETTINGS = ("batch_size", "device", "libraries")


@cache
def schema(version: str = SCHEMA_VERSION) -> dict:
    text = resources.files("leaderboard").joinpath("schema", f"result-{version}.json").read_text("utf-8")
    return json.loads(text)


@cache
def _validator(version: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema(version))


def validation_errors(result: Any) -> list[str]:
    """Every schema violation as 'path: message', plus non-finite numbers (JSON Schema allows NaN)."""
    if not isinstance(result, dict):
        return ["<root>: expected a JSON object"]
    version = result.get("schema_version")
    try:
        validator = _validator(str(version))
    except (FileNotFoundError, OSError, ValueError):
        return [f"unknown schema_version {version!r} (an unknown version: this harness reads version {SCHEMA_VERSION})"]
    errors = [
        f"{'/'.join(str(p) for p in err.absolute_path) or '<root>'}: {err.message}"
        for err in sorted(validator.iter_errors(result), key=lambda e: list(map(str, e.absolute_path)))
    ]
    errors += [f"{path}: {value!r} is not a finite number" for path, value in _non_finite(result)]
    return errors


def _non_finite(node: Any, path: str = "") -> list[tuple[str, float]]:
    if isinstance(node, float) and not math.isfinite(node):
        return [(path or "<root>", node)]
    if isinstance(node, dict):
        return [hit for k, v in node.items() for hit in _non_finite(v, f"{path}/{k}" if path else str(k))]
    if isinstance(node, list):
        return [hit for i, v in enumerate(node) for hit in _non_finite(v, f"{path}/{i}")]
    return []


def validate(result: Any, where: str = "result") -> None:
    errors = validation_errors(result)
    if errors:
        raise BadInput(f"{where} does not match the result schema: " + "; ".join(errors[:5]) + (" ..." if len(errors) > 5 else ""))


def write_json_atomic(path: Path, data: Any) -> None:
    with atomic_open(path, "w") as handle:
        json.dump(data, handle, indent=2, ensure_ascii=False, allow_nan=False)
        handle.write("\n")


def write_result(path: Path, result: dict) -> None:
    validate(result, f"result for {path}")
    write_json_atomic(path, result)


def read_result(path: Path) -> dict:
    try:
        data = json.loads(Path(path).read_text("utf-8"))
    except json.JSONDecodeError as exc:
        raise BadInput(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno}); expected a result file.") from None
    validate(data, str(path))
    return data


def slug(name: str) -> str:
    """A file-system-safe name: 'org/model' -> 'org__model' (the MTEB results layout)."""
    out = re.sub(r"\s*>>(\d*)\s*", r"__rerank\1__", name).replace("/", "__")
    return "".join(c if c.isalnum() or c in "-_.+" else "_" for c in out).strip("._") or "unnamed"


def result_path(output: Path, model_name: str, revision: str | None, task_name: str) -> Path:
    return Path(output) / slug(model_name) / slug(revision or "no_revision") / f"{slug(task_name)}.json"


def identity(result: dict) -> str:
    """What makes two runs 'the same run': model, revision, task, data, and score-relevant settings."""
    settings = {k: v for k, v in result["settings"].items() if k not in OPERATIONAL_SETTINGS}
    key = {
        "model": [result["model"]["name"], result["model"]["revision"]],
        "task": [result["task"]["name"], result["task"]["version"], result["task"]["source"]["content_hash"]],
        "settings": settings,
    }
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()
