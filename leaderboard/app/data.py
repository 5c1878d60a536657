"""The board's data layer: indexed results + benchmark declarations -> rankings, views and listings.

Pure Python and numpy, no Gradio, so it is testable on its own. Nothing here names a task, a
family, a domain or a query type: benchmarks say which tasks rank and by which metric, and each
result says which views its task has (``task.views``). Every lookup of a score tolerates its absence
(a missing value is ``None``, shown as "—"), so no single result file can break the board.
"""

from __future__ import annotations

import math
import threading
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from leaderboard.app import benchmarks as declarations
from leaderboard.app import stats
from leaderboard.contract.benchmark import Benchmark, BenchmarkTask
from leaderboard.records.index import Index, build_index

MISSING = "—"
SIGNIFICANCE_LEVEL = 0.05
ModelKey = tuple[str, str]  # (name, revision)


def finite(value: Any) -> float | None:
    """A score as a float, or None for anything that is not a finite number (never raises)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def interval(value: Any) -> tuple[float, float] | None:
    if isinstance(value, (list, tuple)) and len(value) == 2:
        low, high = finite(value[0]), finite(value[1])
        if low is not None and high is not None:
            return low, high
    return None


def model_key(row: dict[str, Any]) -> ModelKey:
    return str(row["model"]["name"]), str(row["model"]["revision"] or "")


# -- one model's line on a benchmark ----------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    """A per-task column of a benchmark table."""

    key: str
    spec: BenchmarkTask
    label: str  # the benchmark's label for the column, else the task name
    metric_label: str  # how the metric is named in the header (always present)
    description: str  # the metric's description from the task's declaration (judge, coverage, ...)

    @property
    def direction(self) -> str:
        return self.spec.direction


@dataclass
class Line:
    key: ModelKey
    info: dict[str, Any]  # the model block of its newest result summary
    harness: str
    updated: str
    values: dict[str, float | None] = field(default_factory=dict)  # column key -> value
    intervals: dict[str, tuple[float, float] | None] = field(default_factory=dict)
    paths: dict[str, str] = field(default_factory=dict)  # task -> the result file used
    missing: list[str] = field(default_factory=list)  # what keeps it off the ranking, per task
    covered: int = 0  # tasks of the aggregate it has complete results for
    aggregate: float | None = None
    aggregate_interval: tuple[float, float] | None = None
    side: dict[str, float | None] = field(default_factory=dict)  # the benchmark's other means ("also"), by label
    rank: int | None = None
    p_value: float | None = None  # paired test against #1 (None: not tested)

    @property
    def name(self) -> str:
        return self.key[0]

    @property
    def marker(self) -> str:
        """'≈' not significantly different from #1, '†' not tested, '' significantly different (or #1)."""
        if self.rank is None or self.rank == 1:
            return ""
        if self.p_value is None:
            return "†"
        return "≈" if self.p_value >= SIGNIFICANCE_LEVEL else ""


@dataclass
class Ranking:
    benchmark: Benchmark
    columns: list[Column]
    ranked: list[Line]
    unranked: list[Line]
    aggregated: int  # number of tasks in the aggregate
    interval_note: str = ""
    test_note: str = ""

    @property
    def lines(self) -> list[Line]:
        return self.ranked + self.unranked

    def best(self, column: str) -> float | None:
        """The best value of a column among ranked models (direction-aware)."""
        values = [v for line in self.ranked if (v := line.values.get(column)) is not None]
        if not values:
            return None
        spec = next((c for c in self.columns if c.key == column), None)
        lower = spec.direction == "lower" if spec else self.direction == "lower"
        return min(values) if lower else max(values)

    @property
    def direction(self) -> str:
        return next(c.direction for c in self.columns if c.spec.in_aggregate)


# -- the board --------------------------------------------------------------------------------------


OVERALL = "Overall (mean rank)"


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
    _tasks: dict[str, dict[str, Any]] | None = None
    _by_task: dict[str, list[dict[str, Any]]] | None = None
    _rankings: dict[str, Ranking] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _locks: dict[str, threading.Lock] = field(default_factory=dict)
    _per_query: dict[str, dict[str, Any] | None] = field(default_factory=dict)  # {"ids", "values"} by path

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

    def benchmark(self, name: str | None) -> Benchmark | None:
        return next((b for b in self.benchmarks if b.name == name), None)

    @property
    def shown_tasks(self) -> set[str]:
        return {t.task for b in self.benchmarks for t in b.tasks}

    @property
    def shown_rows(self) -> list[dict[str, Any]]:
        """Results of tasks on the board (the public board never lists demo or ad-hoc tasks)."""
        tasks = self.shown_tasks
        return [r for r in self.rows if r["task"]["name"] in tasks]

    @property
    def tasks(self) -> dict[str, dict[str, Any]]:
        """Task name -> its declaration (metrics, views, paper), from its newest result."""
        if self._tasks is None:
            self._tasks = self.index.tasks()
        return self._tasks

    @property
    def last_result(self) -> str | None:
        return max((r["created_at"] for r in self.shown_rows), default=None)

    def counts(self) -> dict[str, int]:
        rows = self.shown_rows
        return {
            "models": len({model_key(r) for r in rows}),
            "results": len(rows),
            "tasks": len({r["task"]["name"] for r in rows}),
            "skipped": len(self.index.skipped),
        }

    # -- rankings -----------------------------------------------------------------------------------
    def ranking(self, name: str, with_stats: bool = True) -> Ranking | None:
        benchmark = self.benchmark(name)
        if benchmark is None:
            return None
        key = f"{name}\0{with_stats}"
        if key in self._rankings:  # computed: no lock (another ranking may be computing in the background)
            return self._rankings[key]
        with self._lock:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:  # one computation per ranking, however many pages ask at once
            if key not in self._rankings:
                ranking = rank(self, benchmark)
                if with_stats:
                    add_statistics(self, ranking)
                self._rankings[key] = ranking
            return self._rankings[key]

    def overall(self) -> tuple[list[str], list[dict[str, Any]]]:
        """Mean rank over every benchmark, for models ranked in all of them (lower is better)."""
        names = self.overall_benchmarks
        ranks: dict[ModelKey, dict[str, int]] = {}
        infos: dict[ModelKey, Line] = {}
        for name in names:
            ranking = self.ranking(name, with_stats=False)
            for line in ranking.ranked if ranking else []:
                ranks.setdefault(line.key, {})[name] = line.rank or 0
                infos[line.key] = line
        rows: list[dict[str, Any]] = [
            {"line": infos[key], "ranks": got, "mean_rank": sum(got.values()) / len(got)}
            for key, got in ranks.items()
            if len(got) == len(names)
        ]
        rows.sort(key=lambda r: (r["mean_rank"], r["line"].name))
        for position, row in enumerate(rows, start=1):
            row["rank"] = position
        return names, rows

    # -- data behind the views ----------------------------------------------------------------------
    def warm(self, pause: float = 2.0) -> None:
        """Compute every ranking (a background thread calls this after a load), so switching is instant.

        The first benchmark (the one a page opens on) comes first; the others after a pause, so that
        they do not compete with serving the first pages.
        """
        names = [b.name for b in self.benchmarks]
        for position, name in enumerate(names):
            if position == 1 and pause:
                time.sleep(pause)
            self.ranking(name)
        if OVERALL in self.benchmark_names:
            self.overall()

    def per_query(self, paths: Iterable[str]) -> dict[str, dict[str, Any] | None]:
        """Per-query values by result path, {"ids": [...], "values": {metric: [...]}}; None when absent or damaged."""
        paths = list(dict.fromkeys(paths))
        todo = [p for p in paths if p not in self._per_query]
        stored = self.index.per_query(todo) if todo else {}
        found: dict[str, dict[str, Any] | None] = {}
        for path in todo:
            entry = stored.get(path)
            usable = isinstance(entry, dict) and isinstance(entry.get("ids"), list)
            found[path] = entry if usable and isinstance(entry.get("values"), dict) else None  # type: ignore[union-attr]
        self._per_query.update(found)  # one update: safe beside a ranking computed in another thread
        return {p: self._per_query.get(p) for p in paths}

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


def load(
    root: Path,
    benchmarks: Iterable[Any] | None = None,
    *,
    public: bool = True,
    revision: str | None = None,
    persist: bool = True,
) -> Board:
    """The board for a results folder: its index (built or updated now) and its benchmark declarations."""
    root = Path(root)
    index = build_index(root, persist=persist)
    declared, problems = declarations.load(root, benchmarks)
    rows = []
    for path, summary in index.summaries():  # this index's own dicts: annotated in place, not copied
        summary["_path"] = path
        rows.append(summary)
    board = Board(root, index, [], problems, public, revision, rows=rows)
    board.benchmarks = _visible_benchmarks(board, declared)
    return board


def _visible_benchmarks(board: Board, declared: list[Benchmark]) -> list[Benchmark]:
    if board.public:
        return [b for b in declared if b.public]
    # A local board also shows non-public benchmarks and, for each task in no benchmark, a one-task
    # board of its own (labelled as such), so a user sees what they just ran.
    covered = {t.task for b in declared for t in b.tasks}
    extra = []
    for task in sorted({r["task"]["name"] for r in board.rows} - covered):
        newest = max(board.results_of(task), key=lambda r: r["created_at"])
        spec = BenchmarkTask(task, newest["task"]["main_score"], newest["task"]["direction"])
        extra.append(
            Benchmark(
                name=f"{task} (task in no benchmark)",
                description=f"The task {task} on its own: it belongs to no declared benchmark (local view only).",
                reference="",
                tasks=(spec,),
                public=False,
            )
        )
    return declared + extra


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


# -- ranking ----------------------------------------------------------------------------------------


def _metric_info(board: Board, task: str, metric: str) -> dict[str, Any]:
    declared = board.tasks.get(task, {})
    return next((m for m in declared.get("metrics", []) if isinstance(m, dict) and m.get("name") == metric), {})


def _metric_label(board: Board, spec: BenchmarkTask) -> str:
    """A metric's display name: from a view's labels when the task declares one, else its name."""
    for view in board.tasks.get(spec.task, {}).get("views", []):
        label = (view.get("labels") or {}).get(spec.metric) if isinstance(view, dict) else None
        if isinstance(label, str) and label:
            return label
    return spec.metric


def columns_of(board: Board, benchmark: Benchmark) -> list[Column]:
    return [
        Column(
            key=f"c{i}",
            spec=spec,
            label=spec.label or spec.task,
            metric_label=_metric_label(board, spec),
            description=str(_metric_info(board, spec.task, spec.metric).get("description") or ""),
        )
        for i, spec in enumerate(benchmark.tasks)
    ]


def _reference_hashes(rows: list[dict[str, Any]]) -> str | None:
    """The data version most complete results of a task were computed on (others are not comparable)."""
    hashes = Counter(r["task"]["content_hash"] for r in rows if r["complete"] and r["task"]["content_hash"])
    return hashes.most_common(1)[0][0] if hashes else None


def value_of(row: dict[str, Any], spec: BenchmarkTask, detail: dict[str, Any] | None) -> float | None:
    """The benchmark's metric in a result: from its summary when on the main split's default subset."""
    if spec.split == row["task"].get("split") and spec.subset == "default":
        return finite((row.get("default") or {}).get(spec.metric))
    scores = (detail or {}).get("scores") or {}
    return finite(((scores.get(spec.split) or {}).get(spec.subset) or {}).get(spec.metric))


def interval_of(row: dict[str, Any], spec: BenchmarkTask, detail: dict[str, Any] | None) -> tuple[float, float] | None:
    if spec.subset == "default" and spec.split == row["task"].get("split"):
        if spec.metric == row["task"]["main_score"]:
            return interval(row.get("main_ci"))
        return interval((row.get("default_ci") or {}).get(spec.metric))
    found = ((detail or {}).get("confidence_intervals") or {}).get(spec.split) or {}
    return interval((found.get(spec.subset) or {}).get(spec.metric))


def _needs_detail(row: dict[str, Any], spec: BenchmarkTask) -> bool:
    """The summary holds the main split's default subset (scores and intervals); anything else is in the detail."""
    return not (spec.split == row["task"].get("split") and spec.subset == "default")


def rank(board: Board, benchmark: Benchmark) -> Ranking:
    """Complete-coverage models ranked by the declared aggregate; the others listed, unranked, with what is missing."""
    columns = columns_of(board, benchmark)
    lines: dict[ModelKey, Line] = {}
    newest: dict[ModelKey, dict[str, Any]] = {}
    per_task = board.by_task
    for column in columns:
        for row in per_task.get(column.spec.task, []):
            key = model_key(row)
            if key not in newest or row["created_at"] > newest[key]["created_at"]:
                newest[key] = row
    for key, row in newest.items():
        lines[key] = Line(key, row["model"], str(row.get("harness") or ""), row["created_at"])
    specs = [c.spec for c in columns] + [t for side in getattr(benchmark, "also", ()) or () for t in side.tasks]
    wanted = [r["_path"] for spec in specs for r in per_task.get(spec.task, []) if _needs_detail(r, spec)]
    details = board.details(wanted) if wanted else {}
    for column in columns:
        spec = column.spec
        rows = per_task.get(spec.task, [])
        reference = _reference_hashes(rows)
        by_model: dict[ModelKey, list[dict[str, Any]]] = {}
        for row in rows:
            by_model.setdefault(model_key(row), []).append(row)
        for key, line in lines.items():
            chosen, why = _choose(by_model.get(key, []), spec, reference, details)
            if chosen is None:
                line.values[column.key] = None
                line.intervals[column.key] = None
                if spec.in_aggregate:
                    line.missing.append(f"{spec.task}: {why}")
                continue
            detail = details.get(chosen["_path"])
            line.values[column.key] = value_of(chosen, spec, detail)
            line.intervals[column.key] = interval_of(chosen, spec, detail)
            line.paths[spec.task] = chosen["_path"]
            if spec.in_aggregate:
                line.covered += 1
    _side_aggregates(benchmark, lines, per_task, details)
    aggregated = [c for c in columns if c.spec.in_aggregate]
    ranked, unranked = [], []
    for line in lines.values():
        if line.covered == len(aggregated):
            values = [line.values[c.key] for c in aggregated]
            line.aggregate = sum(v for v in values if v is not None) / len(values)
            ranked.append(line)
        else:
            unranked.append(line)
    lower = bool(aggregated) and aggregated[0].direction == "lower"
    ranked.sort(key=lambda line: ((line.aggregate or 0.0) if lower else -(line.aggregate or 0.0), line.name))
    previous, position = None, 0
    for index, line in enumerate(ranked, start=1):
        if line.aggregate != previous:  # equal aggregates share a rank
            position, previous = index, line.aggregate
        line.rank = position
    unranked.sort(key=lambda line: (-line.covered, line.name))
    return Ranking(benchmark, columns, ranked, unranked, len(aggregated))


def _side_aggregates(
    benchmark: Benchmark,
    lines: dict[ModelKey, Line],
    per_task: dict[str, list[dict[str, Any]]],
    details: dict[str, dict[str, Any]],
) -> None:
    """Means shown beside the aggregate and never ranked by (e.g. FollowIR's mean p-MRR): all values or none."""
    for side in getattr(benchmark, "also", ()) or ():
        for line in lines.values():
            values = []
            for spec in side.tasks:
                rows = [r for r in per_task.get(spec.task, []) if model_key(r) == line.key]
                chosen, _ = _choose(rows, spec, _reference_hashes(per_task.get(spec.task, [])), details)
                values.append(value_of(chosen, spec, details.get(chosen["_path"])) if chosen else None)
            present = [v for v in values if v is not None]
            line.side[side.label] = sum(present) / len(present) if present and len(present) == len(values) else None


def _choose(
    rows: list[dict[str, Any]], spec: BenchmarkTask, reference: str | None, details: dict[str, dict[str, Any]]
) -> tuple[dict[str, Any] | None, str]:
    """A model's result for a benchmark task: complete, on the reference data, with the metric; newest first."""
    if not rows:
        return None, "no result"
    complete = [r for r in rows if r["complete"]]
    if not complete:
        reasons = sorted({str(r.get("coverage_reason") or "partial") for r in rows})
        return None, f"partial result only ({', '.join(reasons)}; never ranked)"
    # A benchmark compares the task's own protocol: results run with --task-option (another judge,
    # BEIR's identical-id rule off, ...) are shown in provenance but never ranked against it.
    default = [r for r in complete if not r.get("task_options")]
    if not default:
        options = sorted({f"{k}={v}" for r in complete for k, v in (r.get("task_options") or {}).items()})
        return None, f"only run with non-default task options ({', '.join(options)}; never ranked)"
    same_data = [r for r in default if reference is None or r["task"]["content_hash"] in (reference, None)]
    if not same_data:
        return None, "computed on other data than the other models"
    with_metric = [r for r in same_data if value_of(r, spec, details.get(r["_path"])) is not None]
    if not with_metric:
        where = "" if spec.subset == "default" else f" on {spec.subset}"
        return None, f"the result has no {spec.metric}{where} in split {spec.split}"
    return max(with_metric, key=lambda r: r["created_at"]), ""


# -- intervals and significance ---------------------------------------------------------------------


def add_statistics(board: Board, ranking: Ranking) -> None:
    """Bootstrap intervals from per-query scores, and the paired test of each ranked model against #1."""
    aggregated = [c for c in ranking.columns if c.spec.in_aggregate]
    paths = [line.paths[c.spec.task] for line in ranking.lines for c in ranking.columns if c.spec.task in line.paths]
    decoded = board.per_query(paths)

    # Per task column: the query ids most results share, and each line's values on them.
    vectors: dict[str, dict[ModelKey, np.ndarray]] = {}
    for column in ranking.columns:
        spec = column.spec
        found: dict[ModelKey, tuple[tuple[str, ...], list[float]]] = {}
        for line in ranking.lines:
            path = line.paths.get(spec.task)
            stored = decoded.get(path) if path is not None else None
            values = stored["values"].get(spec.metric) if stored else None
            if isinstance(values, list) and values and len(values) == len(stored["ids"]):  # type: ignore[index]
                found[line.key] = (tuple(stored["ids"]), values)  # type: ignore[index]
        if not found:
            continue
        ids = Counter(i for i, _ in found.values()).most_common(1)[0][0]  # aligned: ids are sorted in the index
        vectors[column.key] = {key: np.asarray(v, dtype=float) for key, (i, v) in found.items() if i == ids}
    _task_intervals(ranking, vectors)
    _aggregate_intervals(ranking, aggregated, vectors)
    _significance(ranking, aggregated, vectors)


def _task_intervals(ranking: Ranking, vectors: dict[str, dict[ModelKey, np.ndarray]]) -> None:
    """A task cell without a stored interval gets one from its per-query scores."""
    for column in ranking.columns:
        have = vectors.get(column.key, {})
        todo = [line for line in ranking.lines if line.intervals.get(column.key) is None and line.key in have]
        if todo:
            low, high = stats.stratified_bootstrap([np.stack([have[line.key] for line in todo])])
            for line, lo, hi in zip(todo, low, high):
                line.intervals[column.key] = (float(lo), float(hi))


def _aggregate_intervals(
    ranking: Ranking, aggregated: list[Column], vectors: dict[str, dict[ModelKey, np.ndarray]]
) -> None:
    with_queries = [line for line in ranking.ranked if all(line.key in vectors.get(c.key, {}) for c in aggregated)]
    if with_queries and len(aggregated) > 1:  # one task: its column's interval (below) is the same bootstrap
        strata = [np.stack([vectors[c.key][line.key] for line in with_queries]) for c in aggregated]
        low, high = stats.stratified_bootstrap(strata)
        for line, lo, hi in zip(with_queries, low, high):
            line.aggregate_interval = (float(lo), float(hi))
    if len(aggregated) == 1:  # one task: its own interval is the aggregate's
        for line in ranking.ranked:
            if line.aggregate_interval is None:
                line.aggregate_interval = line.intervals.get(aggregated[0].key)
    ranking.interval_note = (
        f"95% intervals: percentile bootstrap over queries ({stats.BOOTSTRAP_RESAMPLES:,} resamples, each task's "
        "queries resampled on their own) when the results carry per-query scores; otherwise the interval stored "
        "in the result (one-task benchmarks), else none."
    )


def _significance(ranking: Ranking, aggregated: list[Column], vectors: dict[str, dict[ModelKey, np.ndarray]]) -> None:
    ranking.test_note = (
        "≈ not significantly different from #1: two-sided paired randomization (sign-flip) test of the aggregate "
        f"difference on the queries both share, {stats.FLIP_RESAMPLES:,} sign flips (every flip when there are "
        f"fewer), p ≥ {SIGNIFICANCE_LEVEL}, each model against #1 without correction for multiple comparisons. "
        "† not tested (per-query scores missing). No mark: significantly different from #1."
    )
    if not ranking.ranked:
        return
    best = ranking.ranked[0]
    if not all(best.key in vectors.get(c.key, {}) for c in aggregated):
        return
    others = [
        line
        for line in ranking.ranked[1:]
        if line.rank != 1 and all(line.key in vectors.get(c.key, {}) for c in aggregated)
    ]
    if not others:
        return
    p_values = stats.sign_flip_test(
        [vectors[c.key][best.key] for c in aggregated],
        [np.stack([vectors[c.key][line.key] for line in others]) for c in aggregated],
    )
    for line, p in zip(others, p_values):
        line.p_value = float(p)


# -- filters ----------------------------------------------------------------------------------------

SIZES = ("< 100M", "100M–1B", "1B–10B", "≥ 10B", "unknown")
OPTIONAL_COLUMNS = ("Coverage", "Missing", "Parameters", "Kind", "Instructions", "Revision", "Harness", "Updated")
DEFAULT_COLUMNS = ("Coverage", "Missing", "Parameters", "Kind", "Instructions")


def size_bucket(parameters: Any) -> str:
    count = finite(parameters)
    if count is None or count <= 0:
        return "unknown"
    for limit, bucket in ((1e8, SIZES[0]), (1e9, SIZES[1]), (1e10, SIZES[2])):
        if count < limit:
            return bucket
    return SIZES[3]


@dataclass(frozen=True)
class Filters:
    kinds: tuple[str, ...] = ()  # empty: every kind
    instructions: str = "any"  # "any", "yes" or "no"
    sizes: tuple[str, ...] = ()  # empty: every size
    search: str = ""

    def keep(self, info: dict[str, Any]) -> bool:
        if self.kinds and info.get("kind") not in self.kinds:
            return False
        takes = bool(info.get("takes_instructions"))
        if (self.instructions == "yes" and not takes) or (self.instructions == "no" and takes):
            return False
        if self.sizes and size_bucket(info.get("n_parameters")) not in self.sizes:
            return False
        return not self.search or self.search.casefold() in str(info.get("name", "")).casefold()
