"""An index of validated results: each file is validated once, then read back from small records.

Validating a result takes about 1 ms per file (``records.reader``: no pydantic).
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
  result has none or they are damaged; "subsets" lists only subsets whose membership the result stores),
  stored compactly (``records.index_columns``: values as float64 bytes, the ids and subsets that every
  result of a task shares kept once in a ``shared`` table).
* ``task``: the task's declaration (metrics with their descriptions, views, paper, citation).

SQLite (standard library) rather than one JSON file: rows are updated one by one when a file
changes, and a reader fetches the details of one task without parsing the whole index.

**Building at scale.** Validating a real result (ComLQ: 2,909 queries, 52 subsets) takes tens of
milliseconds, so a first start over thousands of new files validates them in worker processes (one
per core) and writes them in batches: memory stays bounded by a batch, and every row written is whole
and sealed (a reader that comes while the build runs sees fewer rows, and validates the rest itself).

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
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from leaderboard.fileio import cache_home
from leaderboard.records import index_columns, per_query_checks
from leaderboard.records.index_columns import text_sha256 as _text_sha256
from leaderboard.records.listing import result_files
from leaderboard.records.result_checks import Record, direction, is_complete, main_split
from leaderboard.sqlite_damage import is_damage, move_aside

# 9: per-query columns keep metrics computed on some queries (None elsewhere); 10: the per-query rule (issue 31);
# 11: summaries of imported results (the data key, the import's source, model_meta's columns) and the
# training tasks in the detail; 12: per-query columns stored compactly, ids and subsets shared (index_columns);
# 13: a named variant's protocol, variant_of and differences in its model summary;
# 14: an import's source blob (the board flags byte-identical files of different models)
INDEX_VERSION = "14"
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
    task TEXT, summary TEXT, detail TEXT, per_query TEXT, task_meta TEXT, reason TEXT, refs TEXT
);
CREATE INDEX IF NOT EXISTS entries_by_task ON entries (task);
CREATE TABLE IF NOT EXISTS shared (sha256 TEXT PRIMARY KEY, text TEXT NOT NULL);
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
            # a named variant of another model: the protocol it follows and how it differs (its settings)
            **protocol_of(settings.get("model_settings")),
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


def protocol_of(model_settings: Any) -> dict[str, Any]:
    """A variant's ``protocol``, ``variant_of`` and ``differences`` from its settings (plain text only); {} else."""
    if not isinstance(model_settings, dict) or not isinstance(model_settings.get("variant_of"), str):
        return {}
    differences = model_settings.get("differences")
    return {
        "variant_of": model_settings["variant_of"],
        "protocol": str(model_settings.get("protocol") or ""),
        "differences": [str(d) for d in differences] if isinstance(differences, list) else [],
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
    """What the board says of an imported result: which mteb ran it, where its file is (and its git blob: two
    models' byte-identical files are flagged), whether it is `external`."""
    if found is None:
        return None
    return {k: found.get(k) for k in ("format", "mteb_version", "file", "url", "blob", "external")}


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
    per_query: str | None = None  # index_columns' text
    task_meta: str | None = None
    shared: dict[str, str] = field(default_factory=dict)  # the shared parts per_query names: key -> text


@dataclass
class Index:
    root: Path
    entries: dict[str, Entry] = field(default_factory=dict)
    database: Path | None = None  # where the larger records live (but those in _memory); None: all in memory
    _memory: dict[str, _Record] = field(default_factory=dict, repr=False)
    _shared: dict[str, Any] = field(default_factory=dict, repr=False)  # shared per-query parts, parsed

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
        return {p: json.loads(text) for p, text, _ in self._rows("detail", paths)}

    def cells(self, paths: Iterable[str], wanted: Iterable[tuple[str, str, str]]) -> dict[str, dict[str, Any]]:
        """Relative path -> its detail record holding only the ``wanted`` (split, subset, metric) scores and
        intervals: what a ranking reads of thousands of results, taken out by SQLite (``json_extract``)
        rather than by parsing each whole detail (ComLQ's: 1,288 scores) in Python."""
        names = [(part, *cell) for part in ("scores", "confidence_intervals") for cell in dict.fromkeys(wanted)]
        plain = [item for item in names if all(_plain_label(name) for name in item)]
        others = [item for item in names if item not in plain]  # labels a JSON path cannot name: parsed here
        json_paths = ["$" + "".join(f'."{name}"' for name in item) for item in plain]
        out: dict[str, dict[str, Any]] = {}
        for path, text, extracted in self._rows("detail", paths, json_paths + json_paths[:1] if plain else None):
            values = json.loads(extracted) if isinstance(extracted, str) else None
            if isinstance(values, list) and len(values) == len(plain) + 1:  # 2+ paths: always a JSON array
                parsed = _only(json.loads(text), others) if others else {}
                for (part, split, subset, metric), value in zip(plain, values):
                    if value is not None:
                        parsed.setdefault(part, {}).setdefault(split, {}).setdefault(subset, {})[metric] = value
            else:  # rows kept in memory, or labels only Python can read
                parsed = _only(json.loads(text), names)
            out[path] = parsed
        return out

    def detail_parts(self, paths: Iterable[str], names: Iterable[str]) -> dict[str, dict[str, Any]]:
        """Relative path -> those top-level entries of its detail record (e.g. an import's training tasks),
        taken out by SQLite: thousands of imported rows are not parsed whole for one field."""
        names = list(dict.fromkeys(names))
        if not names or not all(_plain_label(name) for name in names):
            return {p: {n: d[n] for n in names if n in d} for p, d in self.details(paths).items()}
        json_paths = [f'$."{name}"' for name in names]
        out: dict[str, dict[str, Any]] = {}
        for path, text, extracted in self._rows("detail", paths, json_paths + json_paths[:1]):
            values = json.loads(extracted) if isinstance(extracted, str) else None
            if isinstance(values, list) and len(values) == len(names) + 1:
                out[path] = {name: value for name, value in zip(names, values) if value is not None}
            else:  # rows kept in memory
                detail = json.loads(text)
                out[path] = {name: detail[name] for name in names if name in detail}
        return out

    def per_query(self, paths: Iterable[str]) -> dict[str, dict[str, Any]]:
        """Relative path -> {"ids": [...], "values": {metric: [...]}, ...} (only results with usable per-query
        values). The ids and subsets are one object shared by every result that has them: read only."""
        found = {p: index_columns.decode(text, self._shared_part) for p, text, _ in self._rows("per_query", paths)}
        return {p: columns for p, columns in found.items() if columns is not None}

    def _shared_part(self, key: str) -> Any:
        """A shared per-query part (ids, subsets) by its key, parsed once; None when missing or not matching it."""
        if key not in self._shared:
            text = next((r.shared[key] for r in self._memory.values() if key in r.shared), None)
            if text is None and self.database is not None:
                try:
                    with contextlib.closing(_connect(self.database)) as db:
                        row = db.execute("SELECT text FROM shared WHERE sha256 = ?", (key,)).fetchone()
                    text = row[0] if row is not None else None
                except sqlite3.Error:
                    text = None
            if not isinstance(text, str) or _text_sha256(text) != key:
                return None  # not cached: an index rebuilt under us may hold it on the next read
            self._shared[key] = json.loads(text)
        return self._shared[key]

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
        found = {p: text for p, text, _ in self._rows("task_meta", [path for _, _, path in newest.values()])}
        return {name: json.loads(found[path]) for name, (_, _, path) in newest.items() if path in found}

    def _rows(
        self, column: str, paths: Iterable[str], extract: list[str] | None = None
    ) -> Iterator[tuple[str, str, Any]]:
        """(path, the column's text, SQLite's ``json_extract`` of the ``extract`` JSON paths: a JSON array, None
        without them or for rows kept in memory) of each row whose text is the one its seal names. Streamed,
        one row at a time: a ranking reads thousands of details of tens of kilobytes each."""
        wanted = [p for p in dict.fromkeys(paths) if p in self.entries]
        for p in wanted:
            if (text := getattr(self._memory.get(p), column, None)) is not None:
                yield p, text, None
        wanted = [p for p in wanted if p not in self._memory]
        if self.database is None or not wanted:
            return
        # json_valid first: a row edited into broken JSON must not fail the whole query (its seal leaves it out)
        extracted = (
            f", CASE WHEN json_valid({column}) THEN json_extract({column}, {','.join('?' * len(extract))}) END"
            if extract
            else ", NULL"
        )
        try:
            with contextlib.closing(_connect(self.database)) as db:
                for start in range(0, len(wanted), 500):  # SQLite limits the number of bound parameters
                    chunk = wanted[start : start + 500]
                    marks = ",".join("?" * len(chunk))
                    query = (
                        f"SELECT path, {column}{extracted} FROM entries "
                        f"WHERE path IN ({marks}) AND {column} IS NOT NULL"
                    )
                    for path, text, more in db.execute(query, [*(extract or ()), *chunk]):
                        sealed = self.entries[path].parts.get(column)  # the hash the sealed row holds
                        if isinstance(text, str) and sealed is not None and _text_sha256(text) == sealed:
                            yield path, text, more  # edited text is left out: that view shows "—" until the next build
        except sqlite3.Error:
            return  # the index went away or was damaged under us: views show "—" until the next build


def _plain_label(name: str) -> bool:
    """A label SQLite's JSON path names as written: printable ASCII without quotes (the text escapes others)."""
    return name.isascii() and name.isprintable() and '"' not in name and "\\" not in name


def _only(detail: Any, names: list[tuple[str, str, str, str]]) -> dict[str, Any]:
    """The (part, split, subset, metric) entries of a parsed detail record, in the detail's own shape."""
    out: dict[str, Any] = {}
    for part, split, subset, metric in names:
        try:
            value = detail[part][split][subset][metric]
        except (KeyError, TypeError):
            continue
        out.setdefault(part, {}).setdefault(split, {}).setdefault(subset, {})[metric] = value
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
    from leaderboard.records.reader import read_record

    try:
        record = read_record(path)
        per_query = record["per_query"]
        small = per_query and per_query["count"] <= PER_QUERY_LIMIT
        columns = per_query_checks.columns(per_query, arrays=True) if small else None
        stored, shared = index_columns.encode(columns) if columns is not None else (None, {})
        return _Record(
            Entry(rel, key, summary(record)),
            task=record["task"]["name"],
            detail=json.dumps(detail(record), allow_nan=False),
            per_query=stored,
            task_meta=json.dumps(task_declaration(record), allow_nan=False),
            shared=shared,
        )
    except Exception as exc:  # any file, however hostile, becomes a skipped entry with its reason
        reason = str(exc) if type(exc).__name__ == "BadInput" else f"{type(exc).__name__}: {exc}"
        return _Record(Entry(rel, key, None, reason or type(exc).__name__))


def _check(path: Path, rel: str, key: list[int], old_sha256: str | None) -> tuple[str | None, _Record | None]:
    """The file's sha256, and its validation unless those bytes are the ones its stored row holds."""
    digest = _digest(path)
    if old_sha256 is not None and digest == old_sha256:
        return digest, None
    return digest, _validate(path, rel, key)


def _check_many(items: list[tuple[Path, str, list[int], str | None]]) -> list[tuple[str | None, _Record | None]]:
    return [_check(*item) for item in items]


# A first start over many new files validates them in worker processes; fewer are not worth starting them.
PARALLEL_MIN = 256
_BATCH = 256  # files validated per worker task and written per transaction


def _checked(todo: list[tuple[Path, str, list[int], str | None]]) -> Iterator[tuple[str | None, _Record | None]]:
    """``_check`` of each item, in order: in worker processes (one per core) when there are many."""
    workers = min(os.cpu_count() or 1, 8)
    done = 0
    if len(todo) >= PARALLEL_MIN and workers > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        batches = [todo[i : i + _BATCH // 8] for i in range(0, len(todo), _BATCH // 8)]
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


_PARTS = ("detail", "per_query", "task_meta")


def _seal(entry: Entry, summary_text: str | None) -> str:
    """A checksum of what a row claims, so an edited or half-written row is recognised and re-validated."""
    claim = [entry.path, entry.stat, entry.sha256, summary_text is None, entry.reason, entry.indexed_ns, entry.parts]
    # The summary's text after the rest (JSON has no raw NUL to end it early): not escaped into the JSON,
    # which cost more than the hash at 35,000 rows.
    text = json.dumps(claim, separators=(",", ":"), sort_keys=True) + "\0" + (summary_text or "")
    return _text_sha256(text)


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


def _stored(db: sqlite3.Connection, slim: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Entry]:
    """Every row that is what this harness wrote: sealed, of the right shape; others are left out (re-validated).
    Each summary as ``slim`` keeps it (``_slimmer``).

    Row by row: each summary's text is checked, parsed and slimmed as it is read, never all texts at once (at
    100,000 imported results their texts, about 5.7 kB each with mteb's hundred metrics, held 570 MB at once)."""
    entries: dict[str, Entry] = {}
    parse: Callable[[str], Any] = json.loads
    (count,) = db.execute("SELECT count(*) FROM entries").fetchone()
    if count >= 1000:  # pydantic_core's parser (jiter): the same values in half the time; not worth
        from pydantic_core import from_json as parse  # importing for a few rows (``show`` stays light)
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
        if text is not None:  # a summary that does not parse, or has the wrong shape: left out
            try:
                parsed = parse(text)
            except (ValueError, RecursionError):
                continue
            if parsed is None or summary_problems(parsed):
                continue
            entry.summary = slim(parsed)
        entries[path] = entry
    return entries


def _slimmer(default_metrics: Mapping[str, Iterable[str]] | None) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A summary as a reader keeps it: with ``default_metrics`` (task -> metrics), of its default scores and
    intervals only those metrics and its main score (the board: what its benchmarks show; mteb's files hold
    dozens of metrics, and at 100,000 results the full summaries alone would take a gigabyte)."""
    if default_metrics is None:
        return lambda summary: summary
    wanted = {task: set(metrics) for task, metrics in default_metrics.items()}

    def slim(summary: dict[str, Any]) -> dict[str, Any]:
        keep = wanted.get(summary["task"]["name"], set()) | {summary["task"]["main_score"]}
        for name in ("default", "default_ci"):
            values = summary.get(name)
            if isinstance(values, dict) and not keep.issuperset(values):
                summary[name] = {metric: values[metric] for metric in keep if metric in values}
        return summary

    return slim


def _ambiguous(entry: Entry) -> bool:
    """The file may have changed in the same clock tick its row was written: stat alone cannot tell."""
    return entry.stat[1] + RACY_NS >= entry.indexed_ns


def build_index(
    root: Path, *, persist: bool = True, default_metrics: Mapping[str, Iterable[str]] | None = None
) -> Index:
    """Every result file under ``root``: unchanged files from the stored index, others validated now.

    ``default_metrics`` (task -> metrics): keep only these of each summary's default scores and intervals,
    and its main score (``_slimmer``); the rows written are whole."""
    root = Path(root)
    slim = _slimmer(default_metrics)
    db = _open(index_file(root)) if persist else None
    stored: dict[str, Entry] = {}
    if db is not None:
        try:
            stored = _stored(db, slim)
        except sqlite3.Error as exc:
            db.close()
            if is_damage(exc):
                _moved_aside(index_file(root), exc)
            db = _open(index_file(root))
    index = Index(root, database=index_file(root) if db is not None else None)
    prefix = len(str(root).rstrip(os.sep)) + 1
    fresh: list[_Record] = []
    moved: list[Entry] = []  # same bytes, new stat (rewritten by a pull): only the stat is updated
    todo: list[tuple[Path, str, list[int], str | None]] = []  # files to read (and validate unless unchanged)
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
        elif not_a_file:
            fresh.append(_Record(Entry(rel, key, None, not_a_file, indexed_ns=now_ns)))
            index.entries[rel] = fresh[-1].entry
        else:
            index.entries[rel] = Entry(rel, key)  # placeholder: keeps the listing's order
            todo.append((path, rel, key, old.sha256 if old is not None else None))
    for (_, rel, key, _), (digest, record) in zip(todo, _checked(todo)):
        if record is None:  # the same bytes as its row: proven, the row is re-sealed with this stat
            old = stored[rel]
            if old.stat != key or _ambiguous(old):
                old.stat, old.indexed_ns = key, now_ns
                moved.append(old)
            index.entries[rel] = old
            continue
        record.entry.sha256, record.entry.indexed_ns = digest, now_ns
        index.entries[rel] = record.entry
        fresh.append(record)
        if db is not None and len(fresh) >= _BATCH:  # written as they come: memory bounded by a batch
            db = _saved(db, index, fresh, [], (), slim)
            fresh = []
    if db is None:
        index._memory.update((r.entry.path, r) for r in fresh)
        _slim_all(fresh, slim)
        return index
    db = _saved(db, index, fresh, moved, stored.keys() - index.entries.keys(), slim)
    if db is not None:
        db.close()
    return index


def _slim_all(records: list[_Record], slim: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    for r in records:
        if r.entry.summary is not None:
            r.entry.summary = slim(r.entry.summary)


def _saved(
    db: sqlite3.Connection,
    index: Index,
    fresh: list[_Record],
    moved: list[Entry],
    removed: Iterable[str],
    slim: Callable[[dict[str, Any]], dict[str, Any]],
) -> sqlite3.Connection | None:
    """Write a batch (then slim its summaries); when the database fails, this batch and the rest are kept in
    memory (None returned)."""
    try:
        _save(db, fresh, moved, removed)
        return db
    except sqlite3.Error:
        db.close()
        index._memory.update((r.entry.path, r) for r in fresh)
        return None
    finally:
        _slim_all(fresh, slim)


def _summary_text(entry: Entry) -> str | None:
    return json.dumps(entry.summary, allow_nan=False) if entry.summary is not None else None


def _save(db: sqlite3.Connection, fresh: list[_Record], moved: list[Entry], removed: Iterable[str]) -> None:
    """One transaction: a reader sees each row whole (a new file's row, with the shared parts it names)."""
    removed = list(removed)
    with db:
        db.executemany("DELETE FROM entries WHERE path = ?", [(p,) for p in removed])
        resealed = []
        for e in moved:  # sealed with the summary text the row holds (the entry's may be slimmed)
            (text,) = db.execute("SELECT summary FROM entries WHERE path = ?", (e.path,)).fetchone() or (None,)
            resealed.append((*e.stat, e.indexed_ns, _seal(e, text), e.path))
        db.executemany(
            "UPDATE entries SET size = ?, mtime_ns = ?, inode = ?, ctime_ns = ?, indexed_ns = ?, seal = ? "
            "WHERE path = ?",
            resealed,
        )
        rows = []
        for r in fresh:
            text = _summary_text(r.entry)
            r.entry.parts = {name: _text_sha256(value) for name in _PARTS if (value := getattr(r, name)) is not None}
            rows.append(
                (r.entry.path, *r.entry.stat, r.entry.sha256, r.entry.indexed_ns, json.dumps(r.entry.parts),
                 _seal(r.entry, text), r.task, text, r.detail, r.per_query, r.task_meta, r.entry.reason,
                 json.dumps(sorted(r.shared)))
            )  # fmt: skip
        shared = {key: value for r in fresh for key, value in r.shared.items()}
        db.executemany("INSERT OR IGNORE INTO shared (sha256, text) VALUES (?, ?)", list(shared.items()))
        db.executemany(
            "INSERT OR REPLACE INTO entries (path, size, mtime_ns, inode, ctime_ns, sha256, indexed_ns, parts, seal, "
            "task, summary, detail, per_query, task_meta, reason, refs) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        if removed or fresh:  # parts no row names any more (a result removed or replaced) go too
            db.execute(
                "DELETE FROM shared WHERE sha256 NOT IN "
                "(SELECT value FROM entries, json_each(entries.refs) WHERE entries.refs IS NOT NULL)"
            )


def clear_index(root: Path) -> None:
    _remove(index_file(root))
