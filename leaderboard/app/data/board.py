"""The board of one results folder: its index, benchmarks and rows, with rankings computed once (cached, locked)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from leaderboard.app.data.comparison import ModelComparison, compare_models
from leaderboard.app.data.filters import license_of
from leaderboard.app.data.overall import Overall, overall_ranking
from leaderboard.app.data.ranking import Ranking, rank
from leaderboard.app.data.statistics import add_statistics
from leaderboard.app.data.values import ModelKey, model_key
from leaderboard.contract.benchmark import Benchmark
from leaderboard.records.index import Index

OVERALL = "Overall (mean rank)"
STANDALONE = " (task in no benchmark)"  # the suffix of a local board's one-task board of a task in no benchmark
PER_QUERY_KEPT = 64  # results whose per-query values stay decoded (Board.per_query)


@dataclass
class Board:
    """Everything the app shows, built from one results folder; rankings are computed on first use."""

    root: Path
    index: Index
    benchmarks: list[Benchmark]  # the visible ones, in declaration order
    benchmark_problems: list[tuple[str, str]]
    public: bool
    revision: str | None = None
    loaded_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    rows: list[dict[str, Any]] = field(default_factory=list)  # valid result summaries (+ "_path")
    standalone: frozenset[str] = frozenset()  # the one-task boards of tasks in no benchmark (a local board's)
    _tasks: dict[str, dict[str, Any]] | None = None
    _by_task: dict[str, list[dict[str, Any]]] | None = None
    _shown_cache: dict[str, Any] | None = None
    _rankings: dict[str, Ranking] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _locks: dict[str, threading.Lock] = field(default_factory=dict)
    # {"ids", "values", ...} by path, the most recently read (a comparison's pair, a page's rows) only: at 2,909
    # queries each holds a megabyte of Python floats, and what is computed from them is kept on its own
    _per_query: OrderedDict[str, dict[str, Any] | None] = field(default_factory=OrderedDict)
    _comparisons: dict[tuple[str, ModelKey, ModelKey, bool], ModelComparison] = field(default_factory=dict)
    _cells: dict[tuple[tuple[str, str, str], ...], dict[str, dict[str, Any]]] = field(default_factory=dict)
    queue_key: Any = None  # the queue's keyring (security.attestation.Keyring), from the requests dataset; None: none
    _verdicts: dict[str, Any] = field(default_factory=dict)

    # -- what is shown ------------------------------------------------------------------------------
    @property
    def skipped(self) -> list[tuple[str, str]]:
        """(file relative to the results folder, full reason): never a server path."""
        files = [(_relative(path, self.root), _relative_text(reason, self.root)) for path, reason in self.index.skipped]
        return files + self.benchmark_problems

    @property
    def benchmark_names(self) -> list[str]:
        names = [b.name for b in self.benchmarks]
        return names + ([OVERALL] if len(self.overall_benchmarks) >= 2 else [])

    @property
    def overall_benchmarks(self) -> list[str]:
        """The overall view ranks over public benchmarks only (never demo or one-task local boards)."""
        return [b.name for b in self.benchmarks if b.public]

    @property
    def declared_benchmarks(self) -> list[str]:
        """The benchmarks shown, without the one-task boards of tasks in no benchmark."""
        return [b.name for b in self.benchmarks if b.name not in self.standalone]

    def benchmark(self, name: str | None) -> Benchmark | None:
        return next((b for b in self.benchmarks if b.name == name), None)

    @property
    def shown_tasks(self) -> set[str]:
        return {t.task for b in self.benchmarks for t in b.tasks}

    @property
    def shown_rows(self) -> list[dict[str, Any]]:
        """Results of tasks on the board (the public board never lists demo or ad-hoc tasks)."""
        rows: list[dict[str, Any]] = self._shown()["rows"]
        return rows

    def _shown(self) -> dict[str, Any]:
        """The shown rows and what the pages say about them, computed once per set of shown tasks: every
        event reads them (the filters' model kinds, the status line), and at 10,000 files each pass costs
        tens of milliseconds."""
        tasks = frozenset(self.shown_tasks)
        found = self._shown_cache
        if found is None or found["tasks"] != tasks:
            rows = [r for r in self.rows if r["task"]["name"] in tasks]
            found = {
                "tasks": tasks,
                "rows": rows,
                "kinds": sorted({str(r["model"]["kind"]) for r in rows}),
                "licenses": sorted({license_of(r["model"]) for r in rows}),
                "last": max((r["created_at"] for r in rows), default=None),
                "counts": {
                    "models": len({r["model"]["name"] for r in rows}),  # revisions of one model are one model
                    "revisions": len({model_key(r) for r in rows}),
                    "results": len(rows),
                    "tasks": len({r["task"]["name"] for r in rows}),
                },
            }
            self._shown_cache = found
        return found

    @property
    def kinds(self) -> list[str]:
        """The model kinds among the shown results (the kind filter's choices)."""
        return list(self._shown()["kinds"])

    @property
    def licenses(self) -> list[str]:
        """The licenses among the shown results' models (the license filter's choices; "unknown": none recorded)."""
        return list(self._shown()["licenses"])

    @property
    def tasks(self) -> dict[str, dict[str, Any]]:
        """Task name -> its declaration (metrics, views, paper), from its newest result."""
        if self._tasks is None:
            self._tasks = self.index.tasks()
        return self._tasks

    @property
    def last_result(self) -> str | None:
        last: str | None = self._shown()["last"]
        return last

    def counts(self) -> dict[str, int]:
        return {**self._shown()["counts"], "skipped": len(self.index.skipped)}

    # -- rankings -----------------------------------------------------------------------------------
    def ranking(self, name: str, with_stats: bool = True, all_revisions: bool = False) -> Ranking | None:
        """A benchmark's ranking (computed once, then cached): one row per model (its newest revision),
        or every revision as its own row with ``all_revisions``."""
        benchmark = self.benchmark(name)
        if benchmark is None:
            return None
        key = f"{name}\0{with_stats}\0{all_revisions}"
        if key in self._rankings:  # computed: no lock (another ranking may be computing in the background)
            return self._rankings[key]
        with self._lock:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:  # one computation per ranking, however many pages ask at once
            if key not in self._rankings:
                ranking = rank(self, benchmark, all_revisions=all_revisions)
                self.mark_attested(ranking.lines)
                if with_stats:
                    add_statistics(self, ranking)
                self._rankings[key] = ranking
            return self._rankings[key]

    def attestation(self, path: str) -> Any:
        """The queue's verdict on one result file (attestation.Verdict), checked once per board."""
        from leaderboard.security.attestation import check

        if path not in self._verdicts:  # the index names a result by its path under the results folder
            self._verdicts[path] = check(self.root / path, self.queue_key)
        return self._verdicts[path]

    def mark_attested(self, lines: Iterable[Any]) -> None:
        """Rows whose every result the queue attested say so; without the queue's key no row does."""
        from leaderboard.security.attestation import EVALUATED_BY_THE_QUEUE

        if self.queue_key is None:
            return
        for line in lines:
            paths = list(line.paths.values())
            if paths and all(self.attestation(p).attested for p in paths):
                line.attested = EVALUATED_BY_THE_QUEUE

    def comparison(self, benchmark: str, a: ModelKey, b: ModelKey, subsets: bool = True) -> ModelComparison:
        """Models a and b on a benchmark's tasks (and, with ``subsets``, each subset), computed once per pair.

        ``comparison.compare_models``; the task rows alone are fast (one test per task), the subsets cost
        one test each, so the page asks for them on demand. A pair with subsets also answers without.
        """
        full = (benchmark, a, b, True)
        if not subsets and full in self._comparisons:
            found = self._comparisons[full]
            return ModelComparison(found.a, found.b, found.tasks, {}, found.skipped, found.declarations)
        key = (benchmark, a, b, subsets)
        if key not in self._comparisons:  # a pair costs seconds on large tasks; a reader often comes back to it
            self._comparisons[key] = compare_models(self, benchmark, a, b, subsets=subsets)
        return self._comparisons[key]

    def overall_ranking(self, chosen: Iterable[str] | None = None, all_revisions: bool = False) -> Overall:
        """Mean rank over a chosen set of benchmarks (default: the public ones with ranked models), ``overall.py``."""
        return overall_ranking(self, chosen, all_revisions)

    # -- data behind the views ----------------------------------------------------------------------
    def per_query(self, paths: Iterable[str]) -> dict[str, dict[str, Any] | None]:
        """Per-query values by result path; None when absent or damaged.

        Each is the index's record: {"ids": [sorted query ids], "values": {metric: [one per id]},
        "subsets": {subset: [positions in ids]}} ("subsets" only where the result names its subsets' queries).
        """
        paths = list(dict.fromkeys(paths))
        with self._lock:
            found = {p: self._per_query[p] for p in paths if p in self._per_query}
        todo = [p for p in paths if p not in found]
        stored = self.index.per_query(todo) if todo else {}
        for path in todo:
            entry = stored.get(path)
            usable = isinstance(entry, dict) and isinstance(entry.get("ids"), list)
            found[path] = entry if usable and isinstance(entry.get("values"), dict) else None  # type: ignore[union-attr]
        with self._lock:  # rankings are computed in other threads too
            for path in paths:
                self._per_query[path] = found[path]
                self._per_query.move_to_end(path)
            while len(self._per_query) > PER_QUERY_KEPT:
                self._per_query.popitem(last=False)
        return {p: found[p] for p in paths}

    def results_of(self, task: str) -> list[dict[str, Any]]:
        return self.by_task.get(task, [])

    @property
    def by_task(self) -> dict[str, list[dict[str, Any]]]:
        if self._by_task is None:
            grouped: dict[str, list[dict[str, Any]]] = {}
            for row in self.rows:
                grouped.setdefault(row["task"]["name"], []).append(row)
            self._by_task = grouped
        return self._by_task

    def details(self, paths: Iterable[str]) -> dict[str, dict[str, Any]]:
        return self.index.details(paths)

    def detail_parts(self, paths: Iterable[str], names: Iterable[str]) -> dict[str, dict[str, Any]]:
        """Those top-level entries of each result's detail (``Index.detail_parts``)."""
        return self.index.detail_parts(paths, names)

    def cells(self, paths: Iterable[str], wanted: Iterable[tuple[str, str, str]]) -> dict[str, dict[str, Any]]:
        """Each result's ``wanted`` (split, subset, metric) scores and intervals, in its detail's shape: kept,
        as a benchmark's rankings (newest revisions, every revision) and its switches all read the same."""
        key = tuple(sorted(set(wanted)))
        with self._lock:
            known = self._cells.setdefault(key, {})
        todo = [p for p in dict.fromkeys(paths) if p not in known]
        if todo:
            found = self.index.cells(todo, key)
            known.update({p: found.get(p, {}) for p in todo})  # one update: safe beside another thread's
        return {p: known[p] for p in paths if p in known}


def label_of(board: Board, name: str) -> str:
    """How a benchmark is named in the selector: non-public ones say so."""
    benchmark = board.benchmark(name)
    return f"{name} · not public (local view)" if benchmark is not None and not benchmark.public else name


def _relative(path: Path | str, root: Path) -> str:
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        return Path(path).name


def _relative_text(text: str, root: Path) -> str:
    """A reason with the server's folder removed (readers name files by their full path)."""
    for prefix in (str(root.resolve()), str(root)):
        text = text.replace(prefix.rstrip("/") + "/", "")
    return text
