"""The results index's SQLite database: its schema, sealed rows, reads and writes, and damage.

SQLite (standard library) rather than one JSON file: rows are updated one by one when a file
changes, and a reader fetches the details of one task without parsing the whole index. The
database lives under the cache folder, one per indexed folder (``index_file``).

Each row is *sealed*: the sha256 of its path, stat, the file's sha256 and its summary text is
stored with it (and the sha256 of each larger record), so a row that was edited or half-written is
recognised and left out, and its file validated again. A damaged database follows the policy the
embedding cache shares (``leaderboard.sqlite_damage``): moved aside, named on stderr, rebuilt from
the result files, which are the truth. One of another version (an older harness) is replaced
silently: that is an upgrade, not damage.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from leaderboard.fileio import cache_home
from leaderboard.records.index_checks import summary_problems
from leaderboard.records.index_columns import text_sha256 as _text_sha256
from leaderboard.records.index_rows import Entry, Row
from leaderboard.sqlite_damage import is_damage, move_aside

# The index's layout: raised whenever what a row stores changes, so an index written before is rebuilt once.
INDEX_VERSION = "15"

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


PARTS = ("detail", "per_query", "task_meta")


def index_file(root: Path) -> Path:
    key = hashlib.sha256(str(Path(root).resolve()).encode()).hexdigest()[:24]
    return cache_home() / "index" / f"{key}.sqlite"


def seal_of(entry: Entry, summary_text: str | None) -> str:
    """A checksum of what a row claims, so an edited or half-written row is recognised and re-validated."""
    claim = [entry.path, entry.stat, entry.sha256, summary_text is None, entry.reason, entry.indexed_ns, entry.parts]
    # The summary's text after the rest (JSON has no raw NUL to end it early): not escaped into the JSON,
    # which cost more than the hash at 35,000 rows.
    text = json.dumps(claim, separators=(",", ":"), sort_keys=True) + "\0" + (summary_text or "")
    return _text_sha256(text)


def connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=30)
    # A cache of the files, which are the truth: no fsync per commit (three of them cost a cold `show`
    # more than validating its files). A crash of the process still leaves it whole (SQLite's journal);
    # a power loss may damage it, and a damaged index is moved aside and rebuilt (module docstring).
    db.execute("PRAGMA synchronous = OFF")
    return db


def open_index(path: Path) -> sqlite3.Connection | None:
    """The folder's index database, created when missing; a damaged one is moved aside (the shared policy),
    one of another version replaced."""
    for attempt in range(2):
        db = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            db = connect(path)
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
                remove(path)  # written by another harness version: rebuilt, nothing to report
            elif attempt == 0 and is_damage(exc):
                moved_aside(path, exc)
            else:
                break
    return None  # a read-only or broken cache folder only costs speed: index in memory


class _OtherVersion(sqlite3.DatabaseError):
    pass


def moved_aside(path: Path, exc: BaseException) -> None:
    move_aside(path, exc, "the results index", "the results are read from their files again")


def remove(path: Path) -> None:
    for suffix in ("", "-journal", "-wal", "-shm"):
        with contextlib.suppress(OSError):
            os.unlink(f"{path}{suffix}")


def stored(db: sqlite3.Connection, slim: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Entry]:
    """Every row that is what this harness wrote: sealed, of the right shape; others are left out (re-validated).
    Each summary as ``slim`` keeps it (``records.index._slimmer``).

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
        if seal != seal_of(entry, text):
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


def open_stored(
    path: Path, slim: Callable[[dict[str, Any]], dict[str, Any]]
) -> tuple[sqlite3.Connection | None, dict[str, Entry]]:
    """The database at ``path`` (None: none can be used) and the rows it holds that prove themselves
    (``stored``); one found damaged while read is moved aside and opened afresh, empty."""
    db = open_index(path)
    if db is None:
        return None, {}
    try:
        return db, stored(db, slim)
    except sqlite3.Error as exc:
        db.close()
        if is_damage(exc):
            moved_aside(path, exc)
        return open_index(path), {}


def _summary_text(entry: Entry) -> str | None:
    return json.dumps(entry.summary, allow_nan=False) if entry.summary is not None else None


def save(db: sqlite3.Connection, fresh: list[Row], moved: list[Entry], removed: Iterable[str]) -> None:
    """One transaction: a reader sees each row whole (a new file's row, with the shared parts it names)."""
    removed = list(removed)
    with db:
        db.executemany("DELETE FROM entries WHERE path = ?", [(p,) for p in removed])
        resealed = []
        for e in moved:  # sealed with the summary text the row holds (the entry's may be slimmed)
            (text,) = db.execute("SELECT summary FROM entries WHERE path = ?", (e.path,)).fetchone() or (None,)
            resealed.append((*e.stat, e.indexed_ns, seal_of(e, text), e.path))
        db.executemany(
            "UPDATE entries SET size = ?, mtime_ns = ?, inode = ?, ctime_ns = ?, indexed_ns = ?, seal = ? "
            "WHERE path = ?",
            resealed,
        )
        rows = []
        for r in fresh:
            text = _summary_text(r.entry)
            r.entry.parts = {name: _text_sha256(value) for name in PARTS if (value := getattr(r, name)) is not None}
            rows.append(
                (r.entry.path, *r.entry.stat, r.entry.sha256, r.entry.indexed_ns, json.dumps(r.entry.parts),
                 seal_of(r.entry, text), r.task, text, r.detail, r.per_query, r.task_meta, r.entry.reason,
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


def sealed_texts(
    database: Path, column: str, paths: list[str], extract: list[str] | None, entries: Mapping[str, Entry]
) -> Iterator[tuple[str, str, Any]]:
    """(path, the column's text, SQLite's ``json_extract`` of the ``extract`` JSON paths: a JSON array, None
    without them) of each of ``paths`` whose row holds the text its seal (in ``entries``) names. Streamed,
    one row at a time: a ranking reads thousands of details of tens of kilobytes each."""
    # json_valid first: a row edited into broken JSON must not fail the whole query (its seal leaves it out)
    extracted = (
        f", CASE WHEN json_valid({column}) THEN json_extract({column}, {','.join('?' * len(extract))}) END"
        if extract
        else ", NULL"
    )
    try:
        with contextlib.closing(connect(database)) as db:
            for start in range(0, len(paths), 500):  # SQLite limits the number of bound parameters
                chunk = paths[start : start + 500]
                marks = ",".join("?" * len(chunk))
                query = (
                    f"SELECT path, {column}{extracted} FROM entries WHERE path IN ({marks}) AND {column} IS NOT NULL"
                )
                for path, text, more in db.execute(query, [*(extract or ()), *chunk]):
                    sealed = entries[path].parts.get(column)  # the hash the sealed row holds
                    if isinstance(text, str) and sealed is not None and _text_sha256(text) == sealed:
                        yield path, text, more  # edited text is left out: that view shows "—" until the next build
    except sqlite3.Error:
        return  # the index went away or was damaged under us: views show "—" until the next build


def shared_text(database: Path, key: str) -> Any:
    """The stored text of a shared per-query part (ids, subsets) by its key; None when missing or unreadable."""
    try:
        with contextlib.closing(connect(database)) as db:
            row = db.execute("SELECT text FROM shared WHERE sha256 = ?", (key,)).fetchone()
        return row[0] if row is not None else None
    except sqlite3.Error:
        return None
