"""Loading a board from a results folder: the index (built or updated) and the benchmark declarations."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from leaderboard.app.data import benchmarks as declarations
from leaderboard.app.data.board import STANDALONE, Board
from leaderboard.contract.benchmark import Benchmark, BenchmarkTask
from leaderboard.records.index import build_index


def load(
    root: Path,
    benchmarks: Iterable[Any] | None = None,
    *,
    public: bool = True,
    revision: str | None = None,
    persist: bool = True,
    queue_key: Any = None,
) -> Board:
    """The board for a results folder: its index (built or updated now) and its benchmark declarations."""
    root = Path(root)
    declared, problems = declarations.load(root, benchmarks)
    index = build_index(root, persist=persist, default_metrics=_shown_metrics(declared))
    rows = []
    for path, summary in index.summaries():  # this index's own dicts: annotated in place, not copied
        summary["_path"] = path
        rows.append(summary)
    board = Board(root, index, [], problems, public, revision, rows=rows, queue_key=queue_key)
    board.benchmarks = _visible_benchmarks(board, declared)
    board.standalone = frozenset(b.name for b in board.benchmarks if b.name.endswith(STANDALONE) and not b.public)
    _share_tasks(rows)
    return board


def _shown_metrics(benchmarks: list[Benchmark]) -> dict[str, set[str]]:
    """Task -> the metrics benchmarks show of it: all the board keeps of each summary's default scores (with
    its main score, which a task's own board ranks by; ``build_index``)."""
    shown: dict[str, set[str]] = {}
    for benchmark in benchmarks:
        for spec in [*benchmark.tasks, *(t for side in benchmark.also for t in side.tasks)]:
            shown.setdefault(spec.task, set()).add(spec.metric)
    return shown


def _share_tasks(rows: list[dict[str, Any]]) -> None:
    """One task record per distinct one (thousands of results of a task hold the same): read only, as every
    summary."""
    tasks: dict[tuple[tuple[str, Any], ...], dict[str, Any]] = {}
    for row in rows:
        with contextlib.suppress(TypeError):  # an unhashable value: that record is kept as it is
            row["task"] = tasks.setdefault(tuple(sorted(row["task"].items())), row["task"])


def _visible_benchmarks(board: Board, declared: list[Benchmark]) -> list[Benchmark]:
    if not declared:  # no (usable) benchmarks.json: any results folder still shows its tasks
        return [_task_board(board, task, public=True) for task in sorted({r["task"]["name"] for r in board.rows})]
    if board.public:
        return [b for b in declared if b.public]
    # A local board also shows non-public benchmarks and, for each task in no benchmark, a one-task
    # board of its own (labelled as such), so a user sees what they just ran.
    covered = {t.task for b in declared for t in b.tasks}
    extra = [
        _task_board(board, task, public=False) for task in sorted({r["task"]["name"] for r in board.rows} - covered)
    ]
    return declared + extra


def _task_board(board: Board, task: str, public: bool) -> Benchmark:
    """One task as its own board, ranked by the main score its newest result declares (with its direction).

    ``public``: the folder declares no benchmarks at all, so each task is a board of the folder's own;
    otherwise a local view of a task that no declared benchmark names.
    """
    newest = max(board.results_of(task), key=lambda r: r["created_at"])
    spec = BenchmarkTask(task, newest["task"]["main_score"], newest["task"]["direction"])
    if public:
        return Benchmark(
            name=task,
            description=(
                f"The task {task} on its own, ranked by its declared main score ({spec.metric}): the results "
                "folder declares no benchmarks (no benchmarks.json), so each task with results is a board."
            ),
            reference="",
            tasks=(spec,),
        )
    return Benchmark(
        name=f"{task}{STANDALONE}",
        description=f"The task {task} on its own: it belongs to no declared benchmark (local view only).",
        reference="",
        tasks=(spec,),
        public=False,
    )
