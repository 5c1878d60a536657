"""One benchmark's ranking: each model's complete results, its columns, the declared aggregate and the rank."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from leaderboard.app.data import imported_runs
from leaderboard.app.data.filters import source_of
from leaderboard.app.data.imported_runs import EXTERNAL_REASON, MtebCell, data_key, preference
from leaderboard.app.data.values import ModelKey, finite, interval
from leaderboard.contract.benchmark import Benchmark, BenchmarkTask
from leaderboard.mteb.imported import imported_from, is_external, source_label, task_names, training_of, zero_shot

SIGNIFICANCE_LEVEL = 0.05
KeyOf = Callable[[dict[str, Any]], ModelKey]  # a result row -> the model (and revision) it belongs to


class RankingSource(Protocol):
    """What a ranking reads of a board (``board.Board`` is one): declarations, results by task, details."""

    @property
    def tasks(self) -> dict[str, dict[str, Any]]: ...

    @property
    def by_task(self) -> dict[str, list[dict[str, Any]]]: ...

    def cells(self, paths: Iterable[str], wanted: Iterable[tuple[str, str, str]]) -> dict[str, dict[str, Any]]: ...

    def detail_parts(self, paths: Iterable[str], names: Iterable[str]) -> dict[str, dict[str, Any]]: ...


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
    interval_notes: dict[str, str] = field(default_factory=dict)  # column key -> why its cell has no interval
    paths: dict[str, str] = field(default_factory=dict)  # task -> the result file used
    missing: list[str] = field(default_factory=list)  # what keeps it off the ranking, per task
    covered: int = 0  # tasks of the aggregate it has complete results for
    aggregate: float | None = None
    aggregate_interval: tuple[float, float] | None = None
    side: dict[str, float | None] = field(default_factory=dict)  # the benchmark's other means ("also"), by label
    # their intervals, where every task a mean averages has per-query values (``statistics``)
    side_intervals: dict[str, tuple[float, float] | None] = field(default_factory=dict)
    rank: int | None = None
    p_value: float | None = None  # paired test against #1 (None: not tested)
    label: str = ""  # the name shown: the model's name, with its revision where two shown rows share the name
    other_revisions: list[str] = field(default_factory=list)  # revisions with results here that this row is not
    # Imported runs (``imported_runs``): the source of an imported row ("run by mteb 2.18, imported") and its
    # file, per column; for a run of this harness, mteb's run of the same cell; the zero-shot status.
    imported: str | None = None
    sources: dict[str, str] = field(default_factory=dict)  # column key -> link to the imported file
    chosen: dict[str, dict[str, Any]] = field(default_factory=dict)  # column key -> the result row used
    mteb: dict[str, MtebCell] = field(default_factory=dict)
    zero_shot: bool | None = None
    # "evaluated by the queue" when every result behind the row carries an attestation by the queue's key that
    # holds (queue/attestation.py); None: pushed (or the board has no queue key). Set by the board.
    attested: str | None = None
    # Column key -> the data a value shown but not ranked was computed on ("dataset revision e39ff896"): a result
    # on other data than the ranked ones, readable (greyed) rather than hidden.
    other_data: dict[str, str] = field(default_factory=dict)
    # Column key -> other models whose imported source file for that cell is byte-identical to this row's (the
    # same git blob): an upstream copy the board flags on both rows (``_identical_sources``).
    identical: dict[str, list[str]] = field(default_factory=dict)
    # Ranked rows whose every aggregated cell comes from the same files are one row (``_one_row_per_copy``): the row
    # shown names the others (``copies``); each other row names it (``copy_of``), keeps its rank, and is not drawn.
    copies: list[str] = field(default_factory=list)
    copy_of: str = ""

    @property
    def name(self) -> str:
        return self.key[0]

    @property
    def revision(self) -> str:
        return self.key[1]

    @property
    def marker(self) -> str:
        """'≈' not significantly different from #1, '†' not tested (an imported row never is, #1 included),
        '' significantly different (or #1)."""
        if self.rank is None:
            return ""
        if self.imported is not None:
            return "†"
        if self.rank == 1:
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
    by_direction: str = ""  # ranked by another of the benchmark's aggregates (``aggregates``): its direction
    # ranked models whose scores come from byte-identical files of a ranked row (``Line.copy_of``): not drawn
    copied: list[Line] = field(default_factory=list)
    # What views derive from a ranking once (its rows and values never change once ranked): the
    # statistics computed so far (page_statistics), what every page of its table shares (views.board).
    memo: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def lines(self) -> list[Line]:
        """Every model's row (the copies of a ranked row last: a model page, a picker, a link finds them)."""
        return self.ranked + self.unranked + self.copied

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
        return self.by_direction or next(c.direction for c in self.columns if c.spec.in_aggregate)

    @property
    def aggregate_label(self) -> str:
        """How the aggregate column is named: the benchmark's label, else "mean of N tasks" or the one metric."""
        if self.benchmark.aggregate_label:
            return self.benchmark.aggregate_label
        if self.aggregated > 1:
            return f"mean of {self.aggregated} tasks"
        aggregated = [c for c in self.columns if c.spec.in_aggregate]
        return (aggregated or self.columns)[0].metric_label if self.columns else "score"


def aggregate_title(ranking: Ranking) -> str:
    """How the Score column is titled: the benchmark's label, else "mean of N tasks", else the first column's
    metric (``Ranking.aggregate_label`` names the aggregated column's, for the notes)."""
    benchmark = ranking.benchmark
    return benchmark.aggregate_label or (
        f"mean of {ranking.aggregated} task{'s' if ranking.aggregated != 1 else ''}"
        if ranking.aggregated > 1
        else ranking.columns[0].metric_label
    )


def table_columns(ranking: Ranking) -> list[Column]:
    """The task columns a table shows; a one-task aggregate's own column is the Score column, so it is not repeated."""
    aggregated = [c for c in ranking.columns if c.spec.in_aggregate]
    if len(aggregated) == 1:
        return [c for c in ranking.columns if c is not aggregated[0]]
    return list(ranking.columns)


def _metric_info(board: RankingSource, task: str, metric: str) -> dict[str, Any]:
    declared = board.tasks.get(task, {})
    return next((m for m in declared.get("metrics", []) if isinstance(m, dict) and m.get("name") == metric), {})


def _metric_label(board: RankingSource, spec: BenchmarkTask) -> str:
    """A metric's display name, as the CLI's and the paper tables name it (``metrics.labels``: nDCG@10)."""
    from leaderboard.metrics.labels import metric_label

    return metric_label(board.tasks.get(spec.task), spec.metric)


def columns_of(board: RankingSource, benchmark: Benchmark) -> list[Column]:
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


def _reference_data(rows: list[dict[str, Any]]) -> str | None:
    """The data most complete results of a task were computed on (``imported_runs.data_key``: an mteb task's
    dataset revision, else the data's sha256); results on other data are not comparable."""
    keys = Counter(key for r in rows if r["complete"] and not is_external(r) and (key := data_key(r)))
    return keys.most_common(1)[0][0] if keys else None


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


def newest_revisions(newest: dict[ModelKey, dict[str, Any]]) -> dict[str, ModelKey]:
    """Model name -> the revision shown by default: the one whose newest result was created last.

    ``newest``: each (name, revision)'s newest result row among the tasks considered. An `external`
    revision loses to any other; an undated one to any dated; then the newer mteb version of an
    import; a tie goes to the larger revision string, so the choice never depends on file order
    (``imported_runs.preference``).
    """
    chosen: dict[str, ModelKey] = {}
    for key, row in newest.items():
        current = chosen.get(key[0])
        if current is None or preference(row, key[1]) > preference(newest[current], current[1]):
            chosen[key[0]] = key
    return chosen


def rank(board: RankingSource, benchmark: Benchmark, all_revisions: bool = False) -> Ranking:
    """Complete-coverage models ranked by the declared aggregate; the others listed, unranked, with what is missing.

    One row per model: by default its newest revision here (``newest_revisions``: the revision whose
    newest result on this benchmark's tasks was created last); ``all_revisions`` shows every revision
    as its own row. Rows that share a name carry their revision in ``Line.label``.
    """
    columns = columns_of(board, benchmark)
    per_task = board.by_task
    model_key = imported_runs.key_function(r for c in columns for r in per_task.get(c.spec.task, []))
    newest = _newest_results(columns, per_task, model_key)
    lines = _shown_lines(newest, all_revisions)
    details = _details(board, benchmark, columns, per_task)
    for column in columns:
        _fill_column(column, per_task.get(column.spec.task, []), lines, details, model_key)
    _identical_sources(columns, lines)
    _side_aggregates(benchmark, lines, per_task, details, model_key)
    _zero_shot(board, columns, lines, per_task, newest)
    for line in lines.values():  # where its numbers come from, for the source filter (info is the line's copy)
        line.info["source"] = source_of(line.imported)
    aggregated = [c for c in columns if c.spec.in_aggregate]
    ranked, unranked = _by_coverage(lines.values(), aggregated)
    lower = bool(aggregated) and aggregated[0].direction == "lower"
    ranked, copied = _one_row_per_copy(by_aggregate(ranked, lower), aggregated)
    set_ranks(ranked)
    by_name = {line.name: line for line in ranked}
    for line in copied:
        line.rank = by_name[line.copy_of].rank
    unranked.sort(key=lambda line: (-line.covered, line.name))
    own = {c.spec.task: per_task.get(c.spec.task, []) for c in columns}  # not every task's rows: the columns'
    imported_runs.add_comparisons(lines.values(), columns, own, model_key, lambda r, s: value_of(r, s, None))
    return Ranking(benchmark, columns, ranked, unranked, len(aggregated), copied=copied)


# -- ranks: one rule for the board, a derived ranking, a subset of tasks and Overall ----------------------------


def competition_ranks(values: Sequence[Any]) -> list[int]:
    """The rank of each value of a list already in rank order, equal values sharing the better rank ("1, 2, 2, 4")."""
    ranks: list[int] = []
    previous: Any = _NO_VALUE
    position = 0
    for index, value in enumerate(values, start=1):
        if value != previous:
            position, previous = index, value
        ranks.append(position)
    return ranks


_NO_VALUE = object()  # before the first value (which may be None)


def by_aggregate(lines: Iterable[Line], lower: bool) -> list[Line]:
    """Rows in rank order: the best aggregate first (``lower``: the smallest), then by name."""
    return sorted(lines, key=lambda line: ((line.aggregate or 0.0) if lower else -(line.aggregate or 0.0), line.name))


def set_ranks(lines: list[Line]) -> None:
    """Each row's rank, for rows in rank order (equal aggregates share a rank)."""
    for line, position in zip(lines, competition_ranks([line.aggregate for line in lines])):
        line.rank = position


# -- the steps of ``rank`` -------------------------------------------------------------------------------------


def _newest_results(
    columns: list[Column], per_task: dict[str, list[dict[str, Any]]], model_key: KeyOf
) -> dict[ModelKey, dict[str, Any]]:
    """Each (model, revision)'s newest result on the benchmark's tasks (``imported_runs.preference``)."""
    newest: dict[ModelKey, dict[str, Any]] = {}
    preferred: dict[ModelKey, tuple[Any, ...]] = {}  # newest[key]'s preference, computed once per row
    for task in dict.fromkeys(c.spec.task for c in columns):  # a task of several columns: its rows once
        for row in per_task.get(task, []):
            key = model_key(row)
            order = preference(row, key[1])
            if key not in newest or order > preferred[key]:
                newest[key], preferred[key] = row, order
    return newest


def _shown_lines(newest: dict[ModelKey, dict[str, Any]], all_revisions: bool) -> dict[ModelKey, Line]:
    """A row per model (its newest revision), or per revision: its label, its other revisions, its source."""
    shown = set(newest) if all_revisions else set(newest_revisions(newest).values())
    names = Counter(key[0] for key in shown)
    hidden: dict[str, list[str]] = {}
    for key in newest:
        if key not in shown:
            hidden.setdefault(key[0], []).append(key[1])
    lines: dict[ModelKey, Line] = {}
    for key, row in newest.items():
        if key in shown:
            label = f"{key[0]} @ {key[1] or 'no revision'}" if names[key[0]] > 1 else key[0]
            line = Line(key, row["model"], str(row.get("harness") or ""), row["created_at"], label=label)
            line.other_revisions = sorted(hidden.get(key[0], []))
            line.imported = source_label(row) or None
            lines[key] = line
    return lines


def _details(
    board: RankingSource, benchmark: Benchmark, columns: list[Column], per_task: dict[str, list[dict[str, Any]]]
) -> dict[str, dict[str, Any]]:
    """The scores the summaries do not hold (another split or subset) of the columns and the side means, by path."""
    specs = [c.spec for c in columns] + [t for side in getattr(benchmark, "also", ()) or () for t in side.tasks]
    needed = [(r["_path"], spec) for spec in specs for r in per_task.get(spec.task, []) if _needs_detail(r, spec)]
    cells = {(spec.split, spec.subset, spec.metric) for _, spec in needed}  # only these scores of each detail
    return board.cells([path for path, _ in needed], cells) if needed else {}


def _fill_column(
    column: Column,
    rows: list[dict[str, Any]],
    lines: dict[ModelKey, Line],
    details: dict[str, dict[str, Any]],
    model_key: KeyOf,
) -> None:
    """Each row's cell of one column: the result ``_choose`` picks, else a value on other data (greyed) or none,
    with what keeps the row off the ranking."""
    reference = _reference_data(rows)
    by_model: dict[ModelKey, list[dict[str, Any]]] = {}
    for row in rows:
        by_model.setdefault(model_key(row), []).append(row)
    for key, line in lines.items():
        found = by_model.get(key, [])
        chosen, why = _choose(found, column.spec, reference, details)
        if chosen is None:
            other = _on_other_data(found, column.spec, reference, details) if reference else None
            _fill_missing(line, column, other, details)
            if column.spec.in_aggregate:
                line.missing.append(f"{column.spec.task}: {why}")
        else:
            _fill_chosen(line, column, chosen, details)


def _fill_missing(line: Line, column: Column, other: dict[str, Any] | None, details: dict[str, dict[str, Any]]) -> None:
    """A cell without a comparable result: the value of a run on other data where there is one (shown, greyed, with
    its data; never ranked), else none."""
    value = value_of(other, column.spec, details.get(other["_path"])) if other else None
    line.values[column.key] = value
    line.intervals[column.key] = None
    if other is not None and value is not None:
        line.other_data[column.key] = _data_text(data_key(other))
        _shows(line, column, other)


def _fill_chosen(line: Line, column: Column, chosen: dict[str, Any], details: dict[str, dict[str, Any]]) -> None:
    """A cell of the result chosen: its value and interval; it counts towards the aggregate unless `external`."""
    spec = column.spec
    detail = details.get(chosen["_path"])
    line.values[column.key] = value_of(chosen, spec, detail)
    line.intervals[column.key] = interval_of(chosen, spec, detail)
    line.paths[spec.task] = chosen["_path"]
    _shows(line, column, chosen)
    if is_external(chosen):  # shown, never ranked (the authors' number, like a reported one)
        if spec.in_aggregate:
            line.missing.append(f"{spec.task}: {EXTERNAL_REASON}")
    elif spec.in_aggregate:
        line.covered += 1


def _shows(line: Line, column: Column, row: dict[str, Any]) -> None:
    """The result a cell shows, with the link to its file where it was imported."""
    line.chosen[column.key] = row
    url = (imported_from(row) or {}).get("url")
    if isinstance(url, str):
        line.sources[column.key] = url


def _by_coverage(lines: Iterable[Line], aggregated: list[Column]) -> tuple[list[Line], list[Line]]:
    """The rows complete on every aggregated task, each with its aggregate (their mean), and the others."""
    ranked, unranked = [], []
    for line in lines:
        if line.covered == len(aggregated):
            values = [line.values[c.key] for c in aggregated]
            line.aggregate = sum(v for v in values if v is not None) / len(values)
            ranked.append(line)
        else:
            unranked.append(line)
    return ranked, unranked


def _one_row_per_copy(ranked: list[Line], aggregated: list[Column]) -> tuple[list[Line], list[Line]]:
    """Ranked rows whose every aggregated cell comes from byte-identical imported files (``_identical_sources``)
    are one row, the first in rank order: one score read from one set of files, however many models upstream filed
    it under. Returns the rows ranked and the copies left out (each naming its row)."""
    if not aggregated:
        return ranked, []
    groups: dict[tuple[str, ...], list[Line]] = {}
    for line in ranked:
        if not all(c.key in line.identical for c in aggregated):
            continue
        blobs = tuple(str((imported_from(line.chosen[c.key]) or {}).get("blob")) for c in aggregated)
        groups.setdefault(blobs, []).append(line)
    copied: list[Line] = []
    for same in groups.values():
        first, *others = same
        for line in others:
            if line.name == first.name:  # two revisions of one model: their own rows
                continue
            first.copies.append(line.name)
            line.copy_of = first.name
            copied.append(line)
    for line in [first for same in groups.values() for first in same[:1] if first.copies]:  # found by any name
        line.info = {**line.info, "copies": list(line.copies)}
    kept = {id(line) for line in copied}
    return [line for line in ranked if id(line) not in kept], copied


def _on_other_data(
    rows: list[dict[str, Any]], spec: BenchmarkTask, reference: str, details: dict[str, dict[str, Any]]
) -> dict[str, Any] | None:
    """A model's newest complete default-protocol run on data other than the reference, with the metric (None:
    none): what its cell shows, greyed, when it has no run on the reference data."""
    found = [
        r
        for r in rows
        if r["complete"]
        and not r.get("task_options")
        and not is_external(r)
        and data_key(r) not in (reference, None)
        and value_of(r, spec, details.get(r["_path"])) is not None
    ]
    return max(found, key=lambda r: preference(r, "")) if found else None


def _identical_sources(columns: list[Column], lines: dict[ModelKey, Line]) -> None:
    """Flag cells of different models whose imported source files are byte-identical (one git blob): mteb's
    results repository holds such copies (GritLM-7B's and e5-mistral-7b-instruct's IFIR files), an upstream
    error that would otherwise read as two models tying."""
    for column in columns:
        by_blob: dict[str, list[Line]] = {}
        for line in lines.values():
            blob = (imported_from(line.chosen.get(column.key) or {}) or {}).get("blob")
            if isinstance(blob, str) and blob:
                by_blob.setdefault(blob, []).append(line)
        for same in by_blob.values():
            names = {line.name for line in same}
            if len(names) > 1:
                for line in same:
                    line.identical[column.key] = sorted(names - {line.name})


def _zero_shot(
    board: RankingSource,
    columns: list[Column],
    lines: dict[ModelKey, Line],
    per_task: dict[str, list[dict[str, Any]]],
    newest: dict[ModelKey, dict[str, Any]],
) -> None:
    """Each line's zero-shot status on the benchmark's tasks (``mteb.imported.zero_shot``), shown and filtered by."""
    names = task_names((c.spec.task for c in columns), per_task)
    paths = {key: newest[key]["_path"] for key, line in lines.items() if line.imported}  # the model's training data
    found = board.detail_parts(paths.values(), ["training_tasks"]) if paths else {}
    for key, line in lines.items():
        line.zero_shot = zero_shot(training_of(found.get(paths.get(key, ""))), names)
        line.info = {**line.info, "zero_shot": line.zero_shot}  # a copy: the summary is shared by every benchmark


def _side_aggregates(
    benchmark: Benchmark,
    lines: dict[ModelKey, Line],
    per_task: dict[str, list[dict[str, Any]]],
    details: dict[str, dict[str, Any]],
    model_key: KeyOf,
) -> None:
    """Means shown beside the aggregate, ranked by only when a reader picks one (``aggregates``): all values or none."""
    sides = list(getattr(benchmark, "also", ()) or ())
    # Each task's rows by model and its reference data, once: per line they cost a pass over every row
    # (at 35,000 imported results, FollowIR's 5,000 lines x 5,000 rows: minutes).
    by_model: dict[str, dict[ModelKey, list[dict[str, Any]]]] = {}
    reference: dict[str, str | None] = {}
    for task in {spec.task for side in sides for spec in side.tasks}:
        rows = per_task.get(task, [])
        reference[task] = _reference_data(rows)
        for row in rows:
            by_model.setdefault(task, {}).setdefault(model_key(row), []).append(row)
    for side in sides:
        for line in lines.values():
            values = []
            for spec in side.tasks:
                rows = by_model.get(spec.task, {}).get(line.key, [])
                chosen, _ = _choose(rows, spec, reference[spec.task], details)
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
    runs = [r for r in default if not is_external(r)]
    if not runs:  # only the authors' own numbers: shown (never ranked, whatever data they name), newest first
        shown = [r for r in default if value_of(r, spec, details.get(r["_path"])) is not None]
        return (max(shown, key=lambda r: preference(r, "")), "") if shown else (None, EXTERNAL_REASON)
    known = [r for r in runs if data_key(r) is not None or not imported_from(r)]
    if not known:
        return None, "its mteb file names no dataset revision: it cannot be compared (never ranked)"
    same_data = [r for r in known if reference is None or data_key(r) in (reference, None)]
    if not same_data:
        found = sorted({_data_text(data_key(r)) for r in known})
        return None, f"computed on other data ({', '.join(found)}) than the ranked results ({_data_text(reference)})"
    with_metric = [r for r in same_data if value_of(r, spec, details.get(r["_path"])) is not None]
    if not with_metric:
        where = "" if spec.subset == "default" else f" on {spec.subset}"
        return None, f"the result has no {spec.metric}{where} in split {spec.split}"
    return max(with_metric, key=lambda r: preference(r, "")), ""


def _data_text(key: str | None) -> str:
    """A data key as a reader reads it: "dataset revision e39ff896", "data sha256:1a2b3c4d"."""
    if key is None:
        return "unknown data"
    if key.startswith("revision:"):
        return f"dataset revision {key.removeprefix('revision:')[:8]}"
    return f"data {key[:15]}"
