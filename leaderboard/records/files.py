"""Result files: atomic writes, the file layout and a run's identity.

Every result is read and checked by ``records.reader`` (re-exported here: ``read_result``,
``build_result``); this module moves results between memory and disk and says where they go.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from leaderboard.errors import BadInput
from leaderboard.fileio import atomic_open
from leaderboard.records.reader import problems as validation_errors
from leaderboard.records.reader import read_result as read_result
from leaderboard.records.reader import result_of
from leaderboard.records.result import Result

# Re-exported (``X as X``): reading a file's text needs no pydantic (the reader uses it).
from leaderboard.records.result_text import MAX_RESULT_BYTES as MAX_RESULT_BYTES
from leaderboard.records.result_text import read_result_text as read_result_text

# Settings that only change speed, not scores: excluded from a result's identity.
OPERATIONAL_SETTINGS = ("batch_size", "device", "libraries")
# A path component longer than this (bytes) is cut and completed with a hash: file systems allow 255.
MAX_COMPONENT_BYTES = 100
NAME_HASH_CHARS = 10

__all__ = [
    "Result",
    "build_result",
    "destination",
    "identity",
    "read_result",
    "read_result_text",
    "result_path",
    "slug",
    "validation_errors",
    "write_result",
]


def build_result(record: dict[str, Any], where: str = "result") -> Result:
    """A Result from a plain record, or BadInput listing what is wrong with it (``records.reader``)."""
    return result_of(record, where)


def write_json_atomic(path: Path, data: Any) -> None:
    with atomic_open(path, "w") as handle:
        json.dump(data, handle, indent=2, ensure_ascii=False, allow_nan=False)
        handle.write("\n")


def write_result(path: Path, result: Result) -> None:
    write_json_atomic(path, result.to_json())


def slug(name: str) -> str:
    """A file-system-safe name: 'org/model' -> 'org__model' (the MTEB results layout)."""
    out = re.sub(r"\s*>>(\d*)\s*", r"__rerank\1__", name).replace("/", "__")
    return "".join(c if c.isalnum() or c in "-_.+" else "_" for c in out).strip("._") or "unnamed"


def path_component(name: str) -> str:
    """A folder or file name for ``name`` that no other name maps to, at most ~100 bytes.

    The slug when it is the name itself and short; otherwise the slug (cut to fit) + "~" + a hash
    of the exact name. A slug never contains "~", so a hashed component never equals a plain one:
    'a/b' -> 'a__b~<hash>' while a model literally named 'a__b' keeps 'a__b'.
    """
    plain = slug(name)
    if plain == name and len(plain.encode()) <= MAX_COMPONENT_BYTES:
        return plain
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:NAME_HASH_CHARS]
    room = MAX_COMPONENT_BYTES - NAME_HASH_CHARS - 1
    return f"{plain.encode()[:room].decode('utf-8', 'ignore')}~{digest}"  # a letter cut in half is dropped


def result_path(
    output: Path, model_name: str, revision: str | None, task_name: str, partial: str | None = None
) -> Path:
    """<output>/<model>/<revision>/<task>.json; a partial result (e.g. --limit) gets its own name beside it.

    Each part is ``path_component`` of the exact name: distinct names never share a path, and no
    part exceeds what a file system allows, whatever the name's length.
    """
    tag = f".partial-{path_component(partial)}" if partial else ""
    revision_part = "no_revision" if revision is None else path_component(revision)
    return Path(output) / path_component(model_name) / revision_part / f"{path_component(task_name)}{tag}.json"


def legacy_result_path(
    output: Path, model_name: str, revision: str | None, task_name: str, partial: str | None = None
) -> Path:
    """Where earlier versions wrote the result: plain slugs (not injective: "a/b" and "a__b" shared it)."""
    tag = f".partial-{slug(partial)}" if partial else ""
    return Path(output) / slug(model_name) / slug(revision or "no_revision") / f"{slug(task_name)}{tag}.json"


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # e.g. a legacy name too long for the file system: no such file
        return False


def destination(
    output: Path, record: dict[str, Any], *, overwrite: bool, partial: str | None = None
) -> tuple[Path, Result | None]:
    """Where a new result for ``record`` goes, and the existing identical result when there is one.

    Looks at this version's path, then at the path earlier versions used. Returns (path, result)
    when the existing file is the same run (skip it, unless ``overwrite``), (path, None) when the
    result is to be written at ``path``. Raises BadInput when the existing file holds different
    settings and ``overwrite`` is off, or when it holds another model's (or task's) result: that one
    is never replaced, with or without ``overwrite``.
    """
    name, revision, task = record["model"]["name"], record["model"]["revision"], record["task"]["name"]
    # A run with --task-option is another protocol: it is written beside the default one, never over it.
    options = record["settings"].get("task_options") or {}
    variant = task + "".join(f"@{k}={v}" for k, v in sorted(options.items()))
    path = result_path(output, name, revision, variant, partial)
    legacy = legacy_result_path(output, name, revision, variant, partial)
    for candidate in [path] if legacy == path else [path, legacy]:
        if not _is_file(candidate):
            continue
        try:
            existing = read_result(candidate)
        except BadInput:
            if candidate == path and overwrite:
                return path, None  # a damaged file at this run's own (injective) path: replaced on request
            raise
        subject = (existing.model.name, existing.model.revision, existing.task.name)
        if subject != (name, revision, task):
            if candidate != path:
                continue  # an earlier version's file for another model that shared the slug: not ours
            raise BadInput(
                f"{candidate} holds a result for model {existing.model.name!r} (revision {existing.model.revision!r}) "
                f"on task {existing.task.name!r}, not for {name!r} (revision {revision!r}) on {task!r}; it is never "
                "replaced. Write to another folder with --output."
            )
        if identity(existing) == identity_of(record) and not overwrite:
            return candidate, existing
        if not overwrite:
            raise BadInput(
                f"{candidate} already holds a result for {name} on {task} with different settings or data "
                f"(data hash {existing.task.source.content_hash}). Pass --overwrite to replace it, or --output to "
                "write elsewhere."
            )
        return candidate, None  # replaced in place, in whichever layout it was found
    return path, None


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
