"""The results index: each result file is validated once, then read back from small records.

``show``, the board and the app read many result files many times, so each folder keeps an index
(an SQLite file under the cache folder, keyed by the folder's absolute path) holding, per file,
its size, mtime, inode and sha256 with either what readers need of it or the reason it was
skipped. An unchanged file is never re-validated: its stat is enough, and a file rewritten with
the same bytes (a pull rewrites every file it fetches) is recognised by its sha256.

This module is the API others call: ``build_index`` lists a folder and brings its index up to date,
``Index`` serves the summaries and, on demand, the larger records. Each job behind it has its own
module: ``records.index_rows`` (what is stored of a result), ``records.index_checks`` (validating
files, in worker processes when there are many, and checking stored summaries) and
``records.index_store`` (the SQLite database).

**A row is used only when proven to match its file.** The index is a cache that anything can
damage or edit, so on read:

* each row is *sealed* (``index_store.seal_of``), and a row whose seal does not match (edited,
  truncated) is re-validated from the file;
* each summary is checked for the shape and types readers rely on (``summary_problems``), else the
  file is re-validated;
* the stat (size, mtime_ns, inode, ctime_ns: ctime cannot be set back by a writer) proves the
  file unchanged, except when it is *ambiguous*: a file whose mtime is within ``RACY_NS`` of the
  moment its row was written may have been rewritten in the same clock tick (git's "racily clean"
  case), so its sha256 is compared.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat as stat_module
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from leaderboard.records import index_columns
from leaderboard.records.index_checks import BATCH, checked, summary_problems
from leaderboard.records.index_columns import text_sha256 as _text_sha256
from leaderboard.records.index_rows import Entry, Row, data_key, detail, protocol_of, summary, task_declaration
from leaderboard.records.index_store import (
    index_file,
    open_stored,
    remove,
    save,
    sealed_texts,
    shared_text,
)
from leaderboard.records.index_store import seal_of as _seal  # noqa: F401 (tests re-seal a forged row through here)
from leaderboard.records.listing import result_files

__all__ = [
    "Entry",
    "Index",
    "build_index",
    "clear_index",
    "data_key",
    "detail",
    "index_file",
    "protocol_of",
    "summary",
    "summary_problems",
    "task_declaration",
]

RACY_NS = 2_000_000_000  # a file modified this close to its row's writing is compared by sha256 (2 s: FAT's tick)


@dataclass
class Index:
    root: Path
    entries: dict[str, Entry] = field(default_factory=dict)
    database: Path | None = None  # where the larger records live (but those in _memory); None: all in memory
    _memory: dict[str, Row] = field(default_factory=dict, repr=False)
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
                text = shared_text(self.database, key)
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
        yield from sealed_texts(self.database, column, wanted, extract, self.entries)


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
    db, stored = open_stored(index_file(root), slim) if persist else (None, {})
    index = Index(root, database=index_file(root) if db is not None else None)
    prefix = len(str(root).rstrip(os.sep)) + 1
    fresh: list[Row] = []
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
            fresh.append(Row(Entry(rel, key, None, not_a_file, indexed_ns=now_ns)))
            index.entries[rel] = fresh[-1].entry
        else:
            index.entries[rel] = Entry(rel, key)  # placeholder: keeps the listing's order
            todo.append((path, rel, key, old.sha256 if old is not None else None))
    for (_, rel, key, _), (digest, record) in zip(todo, checked(todo)):
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
        if db is not None and len(fresh) >= BATCH:  # written as they come: memory bounded by a batch
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


def _slim_all(records: list[Row], slim: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    for r in records:
        if r.entry.summary is not None:
            r.entry.summary = slim(r.entry.summary)


def _saved(
    db: sqlite3.Connection,
    index: Index,
    fresh: list[Row],
    moved: list[Entry],
    removed: Iterable[str],
    slim: Callable[[dict[str, Any]], dict[str, Any]],
) -> sqlite3.Connection | None:
    """Write a batch (then slim its summaries); when the database fails, this batch and the rest are kept in
    memory (None returned)."""
    try:
        save(db, fresh, moved, removed)
        return db
    except sqlite3.Error:
        db.close()
        index._memory.update((r.entry.path, r) for r in fresh)
        return None
    finally:
        _slim_all(fresh, slim)


def clear_index(root: Path) -> None:
    remove(index_file(root))
