"""An index of validated results: each file is validated once, then read back from small records.

Validating a result takes about 1 ms per file (``records.plain_read``: no pydantic).
``show`` and the app read many files many times, so each folder keeps an index (an SQLite file
under the cache folder, keyed by the folder's absolute path) holding, per file, its size, mtime,
inode and sha256 with either what readers need of it or the reason it was skipped. An unchanged
file is never re-validated: its stat is enough, and a file rewritten with the same bytes (a pull
rewrites every file it fetches) is recognised by its sha256.

Per file the index keeps four records, so a reader loads only what it needs:

* ``summary``: small, loaded for every file (``show``, the board's listing): model, task, main
  score and its interval, coverage, dates, and the main split's "default" scores.
* ``detail``: every score, interval and subset size, for the app's per-task views.
* ``per_query``: the result's per-query values, decoded and checked against their sha256 once, in
  the columns of ``records.per_query_columns`` (for intervals and significance tests; absent when the
  result has none or they are damaged; "subsets" lists only subsets whose membership the result stores).
* ``task``: the task's declaration (metrics with their descriptions, views, paper, citation).

SQLite (standard library) rather than one JSON file: rows are updated one by one when a file
changes, and a reader fetches the details of one task without parsing the whole index.

**A row is used only when proven to match its file.** The index is a cache that anything can
damage or edit, so on read (issue 23):

* each row is *sealed*: the sha256 of its path, stat, the file's sha256 and its summary text is
  stored with it, and a row whose seal does not match (edited, truncated) is re-validated from the file;
* each summary is checked for the shape and types readers rely on (``summary_problems``), else the
  file is re-validated;
* the stat (size, mtime_ns, inode, ctime_ns: ctime cannot be set back by a writer) proves the
  file unchanged, except when it is *ambiguous*: a file whose mtime is within ``RACY_NS`` of the
  moment its row was written may have been rewritten in the same clock tick (git's "racily clean"
  case), so its sha256 is compared.

A damaged database follows the policy the embedding cache shares (``leaderboard.sqlite_damage``):
moved aside, named on stderr, rebuilt from the result files, which are the truth. One of another
version (an older harness) is replaced silently: that is an upgrade, not damage.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import sqlite3
import stat as stat_module
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from leaderboard.fileio import cache_home
from leaderboard.records.listing import result_files
from leaderboard.records.per_query_columns import columns_json
from leaderboard.records.result_checks import Record, direction, is_complete, main_split
from leaderboard.sqlite_damage import is_damage, move_aside

# 9: per-query columns keep metrics computed on some queries (None elsewhere); 10: the per-query rule (issue 31);
# 11: summaries of imported results (the data key, the import's source, model_meta's columns) and the
# training tasks in the detail
INDEX_VERSION = "11"
RACY_NS = 2_000_000_000  # a file modified this close to its row's writing is compared by sha256 (2 s: FAT's tick)
# Per-query fields larger than this many queries stay in the result file only (the app then shows no
# per-query interval or test for that result); every task in this project is far below it.
PER_QUERY_LIMIT = 200_000
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entries (
    path TEXT PRIMARY KEY,
    size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, inode INTEGER NOT NULL, ctime_ns INTEGER NOT NULL,
    sha256 TEXT, indexed_ns INTEGER NOT NULL, parts TEXT NOT NULL, seal TEXT NOT NULL,
    task TEXT, summary TEXT, detail TEXT, per_query TEXT, task_meta TEXT, reason TEXT
);
CREATE INDEX IF NOT EXISTS entries_by_task ON entries (task);
"""


def summary(record: Record) -> dict[str, Any]:
    """What listings need of a result (its plain record, ``records.result_checks``), in plain JSON."""
    model, task, settings = record["model"], record["task"], record["settings"]
    meta = model["metadata"]
    split = main_split(record)
    intervals = record["confidence_intervals"].get(split, {}).get("default", {})
    coverage = record["coverage"]
    complete = is_complete(record)
    reason = coverage["reason"] if coverage is not None else None
    if not complete and not reason and settings["limit"] is not None:
        reason = f"--limit {settings['limit']}"
    counts = record["counts"]
    return {
        "model": {
            "name": model["name"],
            "revision": model["revision"],
            "kind": str(getattr(model["kind"], "value", model["kind"])),  # an enum from the model, text from plain
            "n_parameters": meta.get("n_parameters"),
            "max_length": meta.get("max_length"),  # the board's Max tokens and Dimension columns
            "embedding_dim": meta.get("embedding_dim"),
            "takes_instructions": bool(meta.get("takes_instructions")),
            "reference": meta.get("reference"),
            "plugin": model["plugin"],
            "plugin_version": model["plugin_version"],
            # model columns an imported mteb result fills from model_meta.json (issue 29), and the name
            # mteb lists this harness's model under (its imported runs are shown beside it)
            "license": meta.get("license"),
            "open_weights": meta.get("open_weights"),
            "release_date": meta.get("release_date"),
            "mteb_name": meta.get("mteb_name"),
        },
        "task": {
            "name": task["name"],
            "family": task["family"],
            "version": task["version"],
            "main_score": task["main_score"],
            "direction": direction(record),
            "content_hash": task["source"]["content_hash"],
            "data_revision": task["source"]["revision"],
            "data_key": data_key(record),
            "mteb_task": record["task_details"].get("mteb_task"),
            "split": split,
        },
        "main_score": record["main_score"],
        "main_ci": intervals.get(task["main_score"]),
        "default_ci": dict(intervals),
        "complete": complete,
        "coverage_reason": reason,
        "queries": counts.get("queries", counts.get("candidate_sets")),
        "total_queries": coverage["total_queries"] if coverage is not None else None,
        # "" for an imported result whose file has no date: sorts before every dated result, shows as none
        "created_at": record["created_at"].isoformat() if record["created_at"] is not None else "",
        "harness": record["harness"]["version"],
        "harness_commit": record["harness"]["git_commit"],
        "imported": record["imported_from"] is not None,
        "imported_from": _imported(record["imported_from"]),
        "task_options": dict(settings.get("task_options") or {}),
        "has_per_query": record["per_query"] is not None,
        "default": dict(record["scores"].get(split, {}).get("default", {})),
    }


def data_key(record: Record) -> str | None:
    """What a result's data is compared by: an mteb task's dataset revision (mteb's runs, imported or run here
    from the hub, name the revision they loaded), else the sha256 of the data loaded (None: unknown)."""
    source = record["task"]["source"]
    mteb = record["imported_from"] is not None or record["task_details"].get("framework") == "mteb"
    if mteb and source["kind"] == "hub":
        return f"revision:{source['revision']}" if source["revision"] else None
    return source["content_hash"]  # type: ignore[no-any-return]


def _imported(found: Any) -> dict[str, Any] | None:
    """What the board says of an imported result: which mteb ran it, where its file is, whether it is `external`."""
    if found is None:
        return None
    return {k: found.get(k) for k in ("format", "mteb_version", "file", "url", "external")}


def detail(record: Record) -> dict[str, Any]:
    """Every score, interval and subset size (for per-task views), and the task's mean CW when recorded."""
    complexity = record["task_details"].get("complexity")
    return {
        "scores": record["scores"],
        "confidence_intervals": record["confidence_intervals"],
        "subset_sizes": record["subset_sizes"],
        # an imported mteb model's training tasks with their similar ones (its zero-shot status), None: unknown
        "training_tasks": record["model"]["metadata"].get("training_tasks"),
        # the paper's mean CW of the evaluated queries (engine/strata.py), shown on the board's About page
        "complexity": {k: complexity[k] for k in ("mean_cw", "queries", "definition") if k in complexity}
        if isinstance(complexity, dict)
        else None,
    }


def task_declaration(record: Record) -> dict[str, Any]:
    """The task as the result declares it, without its data source (the same for every model).

    Written with ``json.dumps``, which writes its tuples as lists and its str enums as their values."""
    return {k: v for k, v in record["task"].items() if k != "source"}


@dataclass
class Entry:
    path: str  # relative to the indexed folder
    stat: list[int]  # size, mtime_ns, inode, ctime_ns
    summary: dict[str, Any] | None = None
    reason: str | None = None  # why the file was skipped
    sha256: str | None = None  # of the file's bytes
    indexed_ns: int = 0  # when the row was written (wall clock, as mtime)
    parts: dict[str, str] = field(default_factory=dict)  # larger column -> sha256 of its text (sealed with the row)


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
                    for path, text in db.execute(query, chunk):
                        sealed = self.entries[path].parts.get(column)  # the hash the sealed row holds
                        if isinstance(text, str) and sealed is not None and _text_sha256(text) == sealed:
                            out[path] = text  # edited text is left out: that view shows "—" until the next build
        except sqlite3.Error:
            return {}  # the index went away or was damaged under us: views show "—" until the next build
        return out


def index_file(root: Path) -> Path:
    key = hashlib.sha256(str(Path(root).resolve()).encode()).hexdigest()[:24]
    return cache_home() / "index" / f"{key}.sqlite"


def _stat(path: Path) -> tuple[list[int], str | None] | None:
    """(size, mtime_ns, inode, ctime_ns) and why the path cannot be a result (None when it is a regular file)."""
    try:
        st = path.stat()
    except FileNotFoundError:
        if path.is_symlink():
            return [0, 0, 0, 0], "a broken symbolic link, not a result file"
        return None  # removed while we listed the folder
    except OSError as exc:
        return [0, 0, 0, 0], f"cannot be read: {exc.strerror or exc}"
    key = [st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns]
    if not stat_module.S_ISREG(st.st_mode):
        return key, "not a regular file (a folder, pipe or device named *.json)"
    return key, None


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _validate(path: Path, rel: str, key: list[int]) -> _Record:
    from leaderboard.records.plain_read import read_plain

    try:
        record = read_plain(path)
        per_query = record["per_query"]
        return _Record(
            Entry(rel, key, summary(record)),
            task=record["task"]["name"],
            detail=json.dumps(detail(record), allow_nan=False),
            per_query=columns_json(per_query) if per_query and per_query["count"] <= PER_QUERY_LIMIT else None,
            task_meta=json.dumps(task_declaration(record), allow_nan=False),
        )
    except Exception as exc:  # any file, however hostile, becomes a skipped entry with its reason
        reason = str(exc) if type(exc).__name__ == "BadInput" else f"{type(exc).__name__}: {exc}"
        return _Record(Entry(rel, key, None, reason or type(exc).__name__))


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
        if not all(isinstance(v, _NUMBER) and not isinstance(v, bool) for v in value["default"].values()):
            problems.append("summary.default: expected numbers")
    return problems


_PARTS = ("detail", "per_query", "task_meta")


def _text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _seal(entry: Entry, summary_text: str | None) -> str:
    """A checksum of what a row claims, so an edited or half-written row is recognised and re-validated."""
    claim = [entry.path, entry.stat, entry.sha256, summary_text, entry.reason, entry.indexed_ns, entry.parts]
    return _text_sha256(json.dumps(claim, separators=(",", ":"), sort_keys=True))


def _connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=30)
    # A cache of the files, which are the truth: no fsync per commit (three of them cost a cold `show`
    # more than validating its files). A crash of the process still leaves it whole (SQLite's journal);
    # a power loss may damage it, and a damaged index is moved aside and rebuilt (module docstring).
    db.execute("PRAGMA synchronous = OFF")
    return db


def _open(path: Path) -> sqlite3.Connection | None:
    """The folder's index database, created when missing; a damaged one is moved aside (the shared policy),
    one of another version replaced."""
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
                raise _OtherVersion(found[0])
            return db
        except (sqlite3.Error, OSError) as exc:
            if db is not None:
                db.close()
            if attempt == 0 and isinstance(exc, _OtherVersion):
                _remove(path)  # written by another harness version: rebuilt, nothing to report
            elif attempt == 0 and is_damage(exc):
                _moved_aside(path, exc)
            else:
                break
    return None  # a read-only or broken cache folder only costs speed: index in memory


class _OtherVersion(sqlite3.DatabaseError):
    pass


def _moved_aside(path: Path, exc: BaseException) -> None:
    move_aside(path, exc, "the results index", "the results are read from their files again")


def _remove(path: Path) -> None:
    for suffix in ("", "-journal", "-wal", "-shm"):
        with contextlib.suppress(OSError):
            os.unlink(f"{path}{suffix}")


def _stored(db: sqlite3.Connection) -> dict[str, Entry]:
    """Every row that is what this harness wrote: sealed, of the right shape; others are left out (re-validated)."""
    entries = {}
    for row in db.execute(
        "SELECT path, size, mtime_ns, inode, ctime_ns, sha256, indexed_ns, parts, seal, summary, reason FROM entries"
    ):
        path, size, mtime, inode, ctime, digest, indexed_ns, parts_text, seal, text, reason = row
        stat = [size, mtime, inode, ctime]
        if not (isinstance(path, str) and all(isinstance(v, int) for v in (*stat, indexed_ns))):
            continue
        if (text is not None and not isinstance(text, str)) or (reason is not None and not isinstance(reason, str)):
            continue
        try:
            parts = json.loads(parts_text)
        except (TypeError, ValueError, RecursionError):
            continue
        if not isinstance(parts, dict):
            continue
        entry = Entry(path, stat, None, reason, digest, indexed_ns, parts)
        if seal != _seal(entry, text):
            continue
        parsed = None
        if text is not None:
            try:
                parsed = json.loads(text)
            except (ValueError, RecursionError):
                continue
            if summary_problems(parsed):
                continue
        entry.summary = parsed
        entries[path] = entry
    return entries


def _ambiguous(entry: Entry) -> bool:
    """The file may have changed in the same clock tick its row was written: stat alone cannot tell."""
    return entry.stat[1] + RACY_NS >= entry.indexed_ns


def build_index(root: Path, *, persist: bool = True) -> Index:
    """Every result file under ``root``: unchanged files from the stored index, others validated now."""
    root = Path(root)
    db = _open(index_file(root)) if persist else None
    stored: dict[str, Entry] = {}
    if db is not None:
        try:
            stored = _stored(db)
        except sqlite3.Error as exc:
            db.close()
            if is_damage(exc):
                _moved_aside(index_file(root), exc)
            db = _open(index_file(root))
    index = Index(root, database=index_file(root) if db is not None else None)
    prefix = len(str(root).rstrip(os.sep)) + 1
    fresh: list[_Record] = []
    moved: list[Entry] = []  # same bytes, new stat (rewritten by a pull): only the stat is updated
    now_ns = time.time_ns()
    for path in result_files(root):
        rel = str(path)[prefix:].replace(os.sep, "/")  # relative_to, without pathlib's cost on 10,000 files
        found = _stat(path)
        if found is None:
            continue
        key, not_a_file = found
        old = stored.get(rel)
        if old is not None and old.stat == key and not _ambiguous(old):
            index.entries[rel] = old
            continue
        if not_a_file:
            record = _Record(Entry(rel, key, None, not_a_file))
        else:
            digest = _digest(path)
            if old is not None and digest is not None and old.sha256 == digest:
                if old.stat != key or _ambiguous(old):  # proven by the bytes: the row is re-sealed with this stat
                    old.stat, old.indexed_ns = key, now_ns
                    moved.append(old)
                index.entries[rel] = old
                continue
            record = _validate(path, rel, key)
            record.entry.sha256 = digest
        record.entry.indexed_ns = now_ns
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


def _summary_text(entry: Entry) -> str | None:
    return json.dumps(entry.summary, allow_nan=False) if entry.summary is not None else None


def _save(db: sqlite3.Connection, fresh: list[_Record], moved: list[Entry], removed: Iterable[str]) -> None:
    with db:  # one transaction: a reader never sees half an update
        db.executemany("DELETE FROM entries WHERE path = ?", [(p,) for p in removed])
        db.executemany(
            "UPDATE entries SET size = ?, mtime_ns = ?, inode = ?, ctime_ns = ?, indexed_ns = ?, seal = ? "
            "WHERE path = ?",
            [(*e.stat, e.indexed_ns, _seal(e, _summary_text(e)), e.path) for e in moved],
        )
        rows = []
        for r in fresh:
            text = _summary_text(r.entry)
            r.entry.parts = {name: _text_sha256(value) for name in _PARTS if (value := getattr(r, name)) is not None}
            rows.append(
                (r.entry.path, *r.entry.stat, r.entry.sha256, r.entry.indexed_ns, json.dumps(r.entry.parts),
                 _seal(r.entry, text), r.task, text, r.detail, r.per_query, r.task_meta, r.entry.reason)
            )  # fmt: skip
        db.executemany(
            "INSERT OR REPLACE INTO entries (path, size, mtime_ns, inode, ctime_ns, sha256, indexed_ns, parts, seal, "
            "task, summary, detail, per_query, task_meta, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )


def clear_index(root: Path) -> None:
    _remove(index_file(root))
