"""The benchmark contract: a named group of tasks with a stated aggregate.

A benchmark is a declaration, not code that runs: it names its tasks, the metric read from each
(and its direction) and how they combine into the one number the leaderboard ranks by. The
declaration travels with the results (``push`` writes it into the results dataset), so the app
can rank without any task plugin installed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal


@dataclass(frozen=True)
class BenchmarkTask:
    task: str  # the task's registered name
    metric: str  # the metric this benchmark reads from the task's results
    direction: Literal["higher", "lower"] = "higher"
    label: str = ""  # column header on the board, e.g. "Robust04 MAP@1000"
    split: str = "test"
    subset: str = "default"
    in_aggregate: bool = True  # False: shown beside the aggregate, not part of it


@dataclass(frozen=True)
class SideAggregate:
    """A second number shown beside the aggregate: the mean of ``tasks``' values. Never the default ranking; the
    board ranks by it when a reader picks it (its label is the choice)."""

    label: str  # e.g. "mean p-MRR"
    formula: str
    tasks: tuple[BenchmarkTask, ...]


@dataclass(frozen=True)
class BenchmarkView:
    """One of a task's declared views (``TaskMetadata.views``, by title) that the board shows with the benchmark."""

    task: str
    title: str


@dataclass(frozen=True)
class Benchmark:
    name: str
    description: str
    reference: str  # the paper
    tasks: tuple[BenchmarkTask, ...]
    # How the aggregate is computed: "mean" of the tasks marked in_aggregate (all one direction).
    aggregate: Literal["mean"] = "mean"
    aggregate_label: str = ""  # e.g. "mean nDCG@10 over 12 domains"
    formula: str = ""  # the aggregate stated as a formula, shown on the board
    citation: str = ""
    # BibTeX of the benchmark's paper(s), printed by ``leaderboard cite`` (without it, cite builds a @misc
    # entry from ``citation`` and ``reference`` and says so).
    bibtex: str = ""
    public: bool = True  # False: never on the public board (demo data, ad-hoc folders)
    also: tuple[SideAggregate, ...] = ()  # other means shown beside the aggregate (FollowIR's mean p-MRR)
    views: tuple[BenchmarkView, ...] = ()  # task views to show with it (MultiConIR's WR_k curve)
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
