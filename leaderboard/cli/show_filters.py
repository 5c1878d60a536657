"""``show --task`` / ``--benchmark``: which tasks of a results folder to show, checked against what exists."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from leaderboard.errors import BadInput


def chosen_tasks(tasks: Sequence[str], benchmarks: Sequence[str], present: Iterable[str], directory: Path) -> set[str]:
    """The task names to show: each --task (as named in the folder's results, case aside) and every task of
    each --benchmark (a registered one); None given: every task. An unknown name is bad input that lists the
    known ones, so a typo never passes for "no results"."""
    present = sorted(set(present))
    chosen: set[str] = set()
    by_fold = {name.casefold(): name for name in present}  # "ComLQ" is comlq, as `run -t` reads it
    for name in tasks:
        found = name if name in present else by_fold.get(name.casefold())
        if found is None:
            from leaderboard.registry import did_you_mean

            known = ", ".join(present) or "none"
            raise BadInput(
                f"--task {name!r}: no results of that task under {directory}.{did_you_mean(name, present)} "
                f"Its tasks: {known}."
            )
        chosen.add(found)
    if benchmarks:
        chosen |= _benchmark_tasks(benchmarks)
    return chosen


def _benchmark_tasks(names: Sequence[str]) -> set[str]:
    from leaderboard.registry import get_registry

    registry = get_registry()
    tasks: set[str] = set()
    for name in names:
        try:
            registration = registry.resolve("benchmark", name).registration  # unknown: lists the known ones
        except BadInput as exc:
            raise BadInput(f"--benchmark: {exc}") from None
        try:
            declared = registration.factory()
        except Exception as exc:  # a broken plugin's benchmark: named, never a traceback
            failure = f"{type(exc).__name__}: {exc}"
            raise BadInput(f"--benchmark {name!r}: its plugin failed to declare it ({failure}).") from None
        tasks |= {task.task for task in declared.tasks}
    return tasks


def only_tasks(index: Any, tasks: set[str]) -> Any:
    """A view of ``index`` holding the valid results of ``tasks`` (and every skipped file, still reported)."""
    kept = {
        key: entry
        for key, entry in index.entries.items()
        if entry.summary is None or entry.summary["task"]["name"] in tasks
    }
    return dataclasses.replace(index, entries=kept)
