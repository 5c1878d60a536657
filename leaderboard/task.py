"""The task contract: what a task plugin declares, loads and scores.

A task never talks to the model or writes files. It declares metadata, loads its data
(recording source, revision and content hash) and turns model output into metric values.
The runner owns model calls, progress, caching and result files.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any, Literal

from .model import Run

Scores = dict[str, dict[str, dict[str, float]]]  # split -> subset -> metric -> value


class EvaluationKind(str, Enum):
    RETRIEVAL = "retrieval"  # retrieve top-k from a corpus
    CANDIDATES = "candidates"  # score a small candidate set per query
    RERANK = "rerank"  # rerank a given top-k list per query (mteb's reranking-style tasks)


@dataclass(frozen=True)
class Metric:
    name: str
    direction: Literal["higher", "lower"] = "higher"
    description: str = ""


@dataclass
class DataSource:
    kind: Literal["local", "hub", "url", "embedded"]
    uri: str
    revision: str | None = None  # pinned revision (hub commit, release tag) when there is one
    content_hash: str | None = None  # sha256 of what was actually loaded; set by the loader


@dataclass(frozen=True)
class TaskRequest:
    name: str
    argument: str | None = None
    data_dir: str | None = None  # overrides a task's default local data location
    seed: int = 0  # for anything random in scoring (bootstrap resamples)


@dataclass
class TaskMetadata:
    name: str
    family: str
    description: str
    reference: str
    evaluation: EvaluationKind
    metrics: list[Metric]
    main_score: str
    version: str = "1"
    citation: str | None = None
    splits: list[str] = field(default_factory=lambda: ["test"])
    subsets: list[str] = field(default_factory=lambda: ["default"])
    instruction: str | None = None  # given to instruction-aware models
    top_k: int = 100  # depth of the retrieved list for RETRIEVAL tasks

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["evaluation"] = self.evaluation.value
        return data


@dataclass
class ScoreReport:
    """What a task may return instead of bare scores, when it has more to say."""

    scores: Scores
    confidence_intervals: dict[str, dict[str, dict[str, list[float]]]] = field(default_factory=dict)
    subset_sizes: dict[str, dict[str, int]] = field(default_factory=dict)  # split -> subset -> queries/records
    details: dict[str, Any] = field(default_factory=dict)  # task-specific provenance (judge, coverage, ...)


@dataclass
class RetrievalData:
    corpus: dict[str, str]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]
    source: DataSource
    extra: dict[str, Any] = field(default_factory=dict)  # task-specific fields (query types, ...)


class Task(ABC):
    metadata: TaskMetadata

    @abstractmethod
    def load(self) -> Any:
        """Load and validate the data; raise BadInput naming file/line/field on bad data."""


class RetrievalTask(Task):
    @abstractmethod
    def load(self) -> RetrievalData: ...

    @abstractmethod
    def compute_scores(self, data: RetrievalData, run: Run) -> Scores | ScoreReport:
        """Turn a run (top-k per query) into metric values."""


@dataclass
class CandidateSet:
    """One query and the few candidates it is scored against (EvaluationKind.CANDIDATES)."""

    key: str  # unique within the task, e.g. "Books/17/k3"
    query: str
    candidates: list[str]


@dataclass
class CandidateData:
    sets: list[CandidateSet]
    source: DataSource
    extra: dict[str, Any] = field(default_factory=dict)


class CandidateTask(Task):
    @abstractmethod
    def load(self) -> CandidateData: ...

    @abstractmethod
    def compute_scores(self, data: CandidateData, scores: dict[str, list[float]]) -> Scores | ScoreReport:
        """scores: candidate-set key -> one score per candidate, in the candidates' order."""


@dataclass
class ExternalData:
    """Data held by an external evaluation framework, with what the result must record of it."""

    source: DataSource
    handle: Any  # the framework's own task object
    extra: dict[str, Any] = field(default_factory=dict)


class ExternalTask(Task):
    """A task whose evaluation loop belongs to another framework (mteb), reached through a model bridge.

    The runner still owns result files, identity, timings and provenance.
    """

    @abstractmethod
    def load(self) -> ExternalData: ...

    @abstractmethod
    def evaluate_model(self, model: Any, data: ExternalData, batch_size: int) -> ScoreReport: ...
