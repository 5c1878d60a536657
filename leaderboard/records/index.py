"""An index of validated results: each file is validated once, then read back from a small summary.

Validating a result means importing pydantic and building the result model, about 0.1 s, and
about 10 ms per file. ``show`` and the app read many files many times, so each folder keeps an
index (under the cache folder, keyed by the folder's absolute path) of every file's size, mtime
and inode with either its summary or the reason it was skipped. An unchanged file is never
re-validated; a changed, new or removed file is noticed by its stat alone.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from leaderboard.fileio import atomic_open, cache_home
from leaderboard.records.listing import result_files

if TYPE_CHECKING:
    from leaderboard.records.result import Result

INDEX_VERSION = "1"


def summary(result: Result) -> dict[str, Any]:
    """What listings need of a result, in plain JSON."""
    meta = result.model.metadata
    ci = result.confidence_intervals.get(result.task.main_split, {}).get("default", {}).get(result.task.main_score)
    return {
        "model": {
            "name": result.model.name,
            "revision": result.model.revision,
            "kind": result.model.kind.value,
            "n_parameters": meta.get("n_parameters"),
            "takes_instructions": bool(meta.get("takes_instructions")),
            "reference": meta.get("reference"),
        },
        "task": {
            "name": result.task.name,
            "family": result.task.family,
            "version": result.task.version,
            "main_score": result.task.main_score,
            "direction": result.direction,
            "content_hash": result.task.source.content_hash,
        },
        "main_score": result.main_score,
        "main_ci": ci,
        "complete": result.is_complete,
        "queries": result.counts.get("queries", result.counts.get("candidate_sets")),
        "created_at": result.created_at.isoformat(),
        "harness": result.harness.version,
        "imported": result.imported_from is not None,
    }


@dataclass
class Entry:
    path: str  # relative to the indexed folder
    stat: list[int]  # size, mtime_ns, inode
    summary: dict[str, Any] | None = None
    reason: str | None = None  # why the file was skipped


@dataclass
class Index:
    root: Path
    entries: dict[str, Entry] = field(default_factory=dict)

    @property
    def rows(self) -> list[tuple[Path, dict[str, Any]]]:
        return [(self.root / e.path, e.summary) for e in self.entries.values() if e.summary is not None]

    @property
    def skipped(self) -> list[tuple[Path, str]]:
        return [(self.root / e.path, e.reason or "invalid") for e in self.entries.values() if e.summary is None]


def index_file(root: Path) -> Path:
    key = hashlib.sha256(str(Path(root).resolve()).encode()).hexdigest()[:24]
    return cache_home() / "index" / f"{key}.json"


def _stat(path: Path) -> list[int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _load(path: Path) -> dict[str, Entry]:
    try:
        data = json.loads(path.read_text("utf-8"))
        if data.get("version") != INDEX_VERSION:
            return {}
        return {e["path"]: Entry(**e) for e in data["entries"]}
    except (OSError, ValueError, TypeError, KeyError):
        return {}  # a missing or damaged index is rebuilt, never trusted


def _validate(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    from leaderboard.errors import BadInput
    from leaderboard.records.files import read_result

    try:
        return summary(read_result(path)), None
    except BadInput as exc:
        return None, str(exc)


def build_index(root: Path, *, persist: bool = True) -> Index:
    """Every result file under ``root``: unchanged files from the stored index, others validated now."""
    root = Path(root)
    stored = _load(index_file(root)) if persist else {}
    index = Index(root)
    for path in result_files(root):
        rel = path.relative_to(root).as_posix()
        stat = _stat(path)
        if stat is None:
            continue
        old = stored.get(rel)
        if old is not None and old.stat == stat:
            index.entries[rel] = old
            continue
        found, reason = _validate(path)
        index.entries[rel] = Entry(rel, stat, found, reason)
    if persist and (
        index.entries.keys() != stored.keys() or any(stored.get(k) is not v for k, v in index.entries.items())
    ):
        _save(index)
    return index


def _save(index: Index) -> None:
    target = index_file(index.root)
    try:
        with atomic_open(target, "w") as handle:
            json.dump(
                {
                    "version": INDEX_VERSION,
                    "root": str(index.root.resolve()),
                    "entries": [vars(e) for e in index.entries.values()],
                },
                handle,
            )
    except OSError:
        pass  # a read-only cache folder only costs speed


def clear_index(root: Path) -> None:
    try:
        os.unlink(index_file(root))
    except OSError:
        pass
