"""An index of validated results: each file is validated once, then read back from small records.

Validating a result means importing pydantic and building the result model, about 10 ms per file.
``show`` and the app read many files many times, so each folder keeps an index (an SQLite file
under the cache folder, keyed by the folder's absolute path) holding, per file, its size, mtime,
inode and sha256 with either what readers need of it or the reason it was skipped. An unchanged
file is never re-validated: its stat is enough, and a file rewritten with the same bytes (a pull
rewrites every file it fetches) is recognised by its sha256.

Per file the index keeps four records, so a reader loads only what it needs:

* ``summary``: small, loaded for every file (``show``, the board's listing): model, task, main
  score and its interval, coverage, dates, and the main split's "default" scores.
* ``detail``: every score, interval and subset size, for the app's per-task views.
* ``per_query``: the result's per-query values, decoded and checked against their sha256 once,
  as ``{"ids": [sorted query ids], "values": {metric: [one value per id]}, "subsets": {subset:
  [positions in ids]}}`` (for intervals and significance tests; absent when the result has none or
  they are damaged; "subsets" lists only subsets whose membership the result stores).
* ``task``: the task's declaration (metrics with their descriptions, views, paper, citation).

SQLite (standard library) rather than one JSON file: rows are updated one by one when a file
changes, and a reader fetches the details of one task without parsing the whole index.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import stat as stat_module
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from leaderboard.fileio import cache_home
from leaderboard.records.listing import result_files

if TYPE_CHECKING:
    from leaderboard.records.result import Result

INDEX_VERSION = "6"
# Per-query fields larger than this many queries stay in the result file only (the app then shows no
# per-query interval or test for that result); every task in this project is far below it.
PER_QUERY_LIMIT = 200_000
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entries (
    path TEXT PRIMARY KEY,
    size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, inode INTEGER NOT NULL, sha256 TEXT,
    task TEXT, summary TEXT, detail TEXT, per_query TEXT, task_meta TEXT, reason TEXT
);
CREATE INDEX IF NOT EXISTS entries_by_task ON entries (task);
"""


def summary(result: Result) -> dict[str, Any]:
    """What listings need of a result, in plain JSON."""
    meta = result.model.metadata
    split = result.task.main_split
    ci = result.confidence_intervals.get(split, {}).get("default", {}).get(result.task.main_score)
    coverage = result.coverage
    reason = coverage.reason if coverage is not None else None
    if not result.is_complete and not reason and result.settings.limit is not None:
        reason = f"--limit {result.settings.limit}"
    return {
        "model": {
            "name": result.model.name,
            "revision": result.model.revision,
            "kind": result.model.kind.value,
            "n_parameters": meta.get("n_parameters"),
            "takes_instructions": bool(meta.get("takes_instructions")),
            "reference": meta.get("reference"),
            "plugin": result.model.plugin,
            "plugin_version": result.model.plugin_version,
        },
        "task": {
            "name": result.task.name,
            "family": result.task.family,
            "version": result.task.version,
            "main_score": result.task.main_score,
            "direction": result.direction,
            "content_hash": result.task.source.content_hash,
            "data_revision": result.task.source.revision,
            "split": split,
        },
        "main_score": result.main_score,
        "main_ci": ci,
        "default_ci": dict(result.confidence_intervals.get(split, {}).get("default", {})),
        "complete": result.is_complete,
        "coverage_reason": reason,
        "queries": result.counts.get("queries", result.counts.get("candidate_sets")),
        "total_queries": coverage.total_queries if coverage is not None else None,
        "created_at": result.created_at.isoformat(),
        "harness": result.harness.version,
        "harness_commit": result.harness.git_commit,
        "imported": result.imported_from is not None,
        "task_options": dict(getattr(result.settings, "task_options", None) or {}),
        "has_per_query": result.per_query is not None,
        "default": dict(result.scores.get(split, {}).get("default", {})),
    }


def detail(result: Result) -> dict[str, Any]:
    """Every score, interval and subset size (for per-task views)."""
    return {
        "scores": result.scores,
        "confidence_intervals": result.confidence_intervals,
        "subset_sizes": result.subset_sizes,
    }


def task_declaration(result: Result) -> dict[str, Any]:
    """The task as the result declares it, without its data source (the same for every model)."""
    return result.task.model_dump(mode="json", exclude={"source"})


@dataclass
class Entry:
    path: str  # relative to the indexed folder
    stat: list[int]  # size, mtime_ns, inode
    summary: dict[str, Any] | None = None
    reason: str | None = None  # why the file was skipped
    sha256: str | None = None  # of the file's bytes


@dataclass
class _Record:
    """What validating one file produced: a summary and its larger parts, or the reason it was skipped."""

    entry: Entry
    task: str | None = None
    detail: str | None = None  # JSON text
    per_query: str | None = None
    task_meta: str | None = None


@dataclass
class Index:
    root: Path
    entries: dict[str, Entry] = field(default_factory=dict)
    database: Path | None = None  # where the larger records live; None: kept in memory
    _memory: dict[str, _Record] = field(default_factory=dict, repr=False)

    @property
    def rows(self) -> list[tuple[Path, dict[str, Any]]]:
        return [(self.root / e.path, e.summary) for e in self.entries.values() if e.summary is not None]

    def summaries(self) -> list[tuple[str, dict[str, Any]]]:
        """(path relative to the folder, summary) of every valid result: no Path objects, for large folders."""
        return [(e.path, e.summary) for e in self.entries.values() if e.summary is not None]

    @property
    def skipped(self) -> list[tuple[Path, str]]:
        return [(self.root / e.path, e.reason or "invalid") for e in self.entries.values() if e.summary is None]

    # -- the larger records, on demand ------------------------------------------------------------
    def details(self, paths: Iterable[str]) -> dict[str, dict[str, Any]]:
        """Relative path -> every score, interval and subset size of that result."""
        return {p: json.loads(text) for p, text in self._column("detail", paths).items()}

    def per_query(self, paths: Iterable[str]) -> dict[str, dict[str, Any]]:
        """Relative path -> {"ids": [...], "values": {metric: [...]}} (only results with usable per-query values)."""
        return {p: json.loads(text) for p, text in self._column("per_query", paths).items()}

    def tasks(self) -> dict[str, dict[str, Any]]:
        """Task name -> its declaration, from the newest valid complete result of that task (a partial one
        only when there is no complete one: its data-dependent views, such as complexity strata over the
        queries it kept, do not describe the whole task)."""
        newest: dict[str, tuple[bool, str, str]] = {}
        for e in self.entries.values():
            if e.summary is not None:
                name = e.summary["task"]["name"]
                rank = (bool(e.summary.get("complete")), e.summary["created_at"], e.path)
                if name not in newest or rank > newest[name]:
                    newest[name] = rank
        found = self._column("task_meta", [path for _, _, path in newest.values()])
        return {name: json.loads(found[path]) for name, (_, _, path) in newest.items() if path in found}

    def _column(self, column: str, paths: Iterable[str]) -> dict[str, str]:
        wanted = [p for p in dict.fromkeys(paths) if p in self.entries]
        if self.database is None:
            return {p: v for p in wanted if (v := getattr(self._memory.get(p), column, None)) is not None}
        out: dict[str, str] = {}
        try:
            with _connect(self.database) as db:
                for start in range(0, len(wanted), 500):  # SQLite limits the number of bound parameters
                    chunk = wanted[start : start + 500]
                    marks = ",".join("?" * len(chunk))
                    query = f"SELECT path, {column} FROM entries WHERE path IN ({marks}) AND {column} IS NOT NULL"
                    out.update(db.execute(query, chunk).fetchall())
        except sqlite3.Error:
            return {}  # the index went away or was damaged under us: views show "—" until the next build
        return out


def index_file(root: Path) -> Path:
    key = hashlib.sha256(str(Path(root).resolve()).encode()).hexdigest()[:24]
    return cache_home() / "index" / f"{key}.sqlite"


def _stat(path: Path) -> tuple[list[int], str | None] | None:
    """(size, mtime_ns, inode) and why the path cannot be a result (None when it is a regular file)."""
    try:
        st = path.stat()
    except FileNotFoundError:
        if path.is_symlink():
            return [0, 0, 0], "a broken symbolic link, not a result file"
        return None  # removed while we listed the folder
    except OSError as exc:
        return [0, 0, 0], f"cannot be read: {exc.strerror or exc}"
    key = [st.st_size, st.st_mtime_ns, st.st_ino]
    if not stat_module.S_ISREG(st.st_mode):
        return key, "not a regular file (a folder, pipe or device named *.json)"
    return key, None


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _validate(path: Path, rel: str, key: list[int]) -> _Record:
    from leaderboard.records.files import read_result

    try:
        result = read_result(path)
        per_query = result.per_query
        return _Record(
            Entry(rel, key, summary(result)),
            task=result.task.name,
            detail=json.dumps(detail(result), allow_nan=False),
            per_query=_per_query_columns(per_query) if per_query and per_query.count <= PER_QUERY_LIMIT else None,
            task_meta=json.dumps(task_declaration(result), allow_nan=False),
        )
    except Exception as exc:  # any file, however hostile, becomes a skipped entry with its reason
        reason = str(exc) if type(exc).__name__ == "BadInput" else f"{type(exc).__name__}: {exc}"
        return _Record(Entry(rel, key, None, reason or type(exc).__name__))


def _per_query_columns(field: Any) -> str | None:
    """Per-query values as sorted ids and one list per metric; None when damaged (the result stays valid)."""
    import math

    from leaderboard.records.result import decode_per_query, decode_subset_queries

    try:
        values = decode_per_query(field)
    except (ValueError, TypeError):
        return None
    ids = sorted(values)
    try:
        members = decode_subset_queries(field)
    except (ValueError, TypeError):
        members = {}  # damaged membership costs the subsets' intervals, not the values
    position = {q: i for i, q in enumerate(ids)}
    # A subset naming a query without values is inconsistent: it gets no interval rather than a smaller one.
    subsets = {name: [position[q] for q in qs] for name, qs in members.items() if all(q in position for q in qs)}
    metrics = sorted({m for row in values.values() if isinstance(row, dict) for m in row})
    columns: dict[str, list[float | None]] = {}
    for metric in metrics:
        column = [values[q].get(metric) if isinstance(values[q], dict) else None for q in ids]
        ok = all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in column)
        if ok:
            columns[metric] = [float(v) for v in column]  # type: ignore[arg-type]
    return json.dumps({"ids": ids, "values": columns, "subsets": subsets}, allow_nan=False)


def _connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, timeout=30)


def _open(path: Path) -> sqlite3.Connection | None:
    """The folder's index database, created when missing; a damaged or foreign one is replaced."""
    for attempt in range(2):
        db = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            db = _connect(path)
            db.executescript(_SCHEMA)
            found = db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
            if found is None:
                db.execute("INSERT OR REPLACE INTO meta VALUES ('version', ?)", (INDEX_VERSION,))
                db.commit()
            elif found[0] != INDEX_VERSION:
                raise sqlite3.DatabaseError(f"index version {found[0]}")
            return db
        except (sqlite3.Error, OSError):
            if db is not None:
                db.close()
            if attempt == 0:
                _remove(path)  # rebuilt from the result files, which are the truth
    return None  # a read-only or broken cache folder only costs speed: index in memory


def _remove(path: Path) -> None:
    for suffix in ("", "-journal", "-wal", "-shm"):
        with contextlib.suppress(OSError):
            os.unlink(f"{path}{suffix}")


def _stored(db: sqlite3.Connection) -> dict[str, Entry]:
    entries = {}
    for path, size, mtime, inode, digest, text, reason in db.execute(
        "SELECT path, size, mtime_ns, inode, sha256, summary, reason FROM entries"
    ):
        entries[path] = Entry(path, [size, mtime, inode], json.loads(text) if text else None, reason, digest)
    return entries


def build_index(root: Path, *, persist: bool = True) -> Index:
    """Every result file under ``root``: unchanged files from the stored index, others validated now."""
    root = Path(root)
    db = _open(index_file(root)) if persist else None
    try:
        stored = _stored(db) if db is not None else {}
    except (sqlite3.Error, ValueError):
        stored = {}
    index = Index(root, database=index_file(root) if db is not None else None)
    prefix = len(str(root).rstrip(os.sep)) + 1
    fresh: list[_Record] = []
    moved: list[Entry] = []  # same bytes, new stat (rewritten by a pull): only the stat is updated
    for path in result_files(root):
        rel = str(path)[prefix:].replace(os.sep, "/")  # relative_to, without pathlib's cost on 10,000 files
        found = _stat(path)
        if found is None:
            continue
        key, not_a_file = found
        old = stored.get(rel)
        if old is not None and old.stat == key:
            index.entries[rel] = old
            continue
        if not_a_file:
            record = _Record(Entry(rel, key, None, not_a_file))
        else:
            digest = _digest(path)
            if old is not None and digest is not None and old.sha256 == digest:
                old.stat = key
                index.entries[rel] = old
                moved.append(old)
                continue
            record = _validate(path, rel, key)
            record.entry.sha256 = digest
        index.entries[rel] = record.entry
        fresh.append(record)
    if db is None:
        index._memory = {r.entry.path: r for r in fresh}
        return index
    try:
        _save(db, fresh, moved, removed=stored.keys() - index.entries.keys())
    except sqlite3.Error:
        index.database, index._memory = None, {r.entry.path: r for r in fresh}
    finally:
        db.close()
    return index


def _save(db: sqlite3.Connection, fresh: list[_Record], moved: list[Entry], removed: Iterable[str]) -> None:
    with db:  # one transaction: a reader never sees half an update
        db.executemany("DELETE FROM entries WHERE path = ?", [(p,) for p in removed])
        db.executemany(
            "UPDATE entries SET size = ?, mtime_ns = ?, inode = ? WHERE path = ?", [(*e.stat, e.path) for e in moved]
        )
        db.executemany(
            "INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    r.entry.path,
                    *r.entry.stat,
                    r.entry.sha256,
                    r.task,
                    json.dumps(r.entry.summary, allow_nan=False) if r.entry.summary is not None else None,
                    r.detail,
                    r.per_query,
                    r.task_meta,
                    r.entry.reason,
                )
                for r in fresh
            ],
        )


def clear_index(root: Path) -> None:
    _remove(index_file(root))
