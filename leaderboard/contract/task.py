"""The task contract: what a task plugin declares, loads and scores.

A task never talks to the model or writes files. It declares metadata, loads its data
(recording source, revision and content hash) and turns model output into metric values.
The runner owns model calls, progress, caching and result files.

Pick the base class for how the task is evaluated; the class *is* the declaration:

* ``RetrievalTask``  -> the runner retrieves the top ``metadata.top_k`` from ``load().corpus``.
* ``CandidateTask``  -> the runner scores each query against its own small candidate set.
* ``ExternalTask``   -> another framework (mteb) runs the loop through ``evaluate_model``.

Each returns a ``ScoreReport``: the scores and the per-query values behind them (a task that returns
anything else, or no per-query values, stops at its first run with an error saying what to return).
Where the main score lives: ``scores[metadata.splits[0]]["default"][metadata.main_score]``.

A task's version (``TaskMetadata.version``) must change whenever its output for the same data changes:
a score, a subset or its members, an interval, a per-query value, a task detail or a declared metric.
Results of different versions are never compared or ranked together, and ``validate`` refuses a result
whose version is not the installed task's. The repository's baselines (``submissions/``) are re-run in
CI, so a changed output without a new version fails there.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any, Literal

from leaderboard.contract.model import Run

Scores = dict[str, dict[str, dict[str, float]]]  # split -> subset -> metric -> value


class EvaluationKind(str, Enum):
    """Recorded in results; set by the task's base class, never declared separately."""

    RETRIEVAL = "retrieval"  # retrieve top-k from a corpus
    CANDIDATES = "candidates"  # score a small candidate set per query
    EXTERNAL = "external"  # another framework runs the evaluation loop
    RERANK = "rerank"  # only in version 1 result files (mteb reranking tasks); no task declares it now


@dataclass(frozen=True)
class Metric:
    name: str
    direction: Literal["higher", "lower"] = "higher"
    description: str = ""
    # The values the metric can take (None: unbounded on that side). Readers refuse values outside it.
    low: float | None = 0.0
    high: float | None = 1.0
    # How tables and the board name it, e.g. "nDCG@10" or "LSNC@10 (lexical-v1)" (empty: its name;
    # ``leaderboard.metrics.labels.metric_label`` reads it).
    label: str = ""


# The view the engine adds to every retrieval result with per-query values (not declared by tasks):
# the main score per content-word bucket (subsets "cw=<low>-<high>"). The app shows it with every benchmark.
COMPLEXITY_VIEW_TITLE = "Main score by query complexity (content words)"


@dataclass(frozen=True)
class View:
    """A table or chart the leaderboard app draws for a task, from the results alone.

    ``kind``: "table" (rows = models, columns = the subsets or metrics), "curve" (a line per model
    along ``subsets`` or ``metrics`` in the given order) or "bars". Exactly one of ``subsets`` and
    ``metrics`` has several entries: that is the axis; ``labels`` maps an entry to its display label.
    """

    kind: Literal["table", "curve", "bars"]
    title: str
    subsets: tuple[str, ...] = ("default",)
    metrics: tuple[str, ...] = ()
    split: str = "test"
    labels: dict[str, str] = field(default_factory=dict)
    description: str = ""
    y_range: tuple[float, float] | None = None

    @property
    def over_subsets(self) -> bool:
        """True when the axis runs over subsets (several subsets, one metric)."""
        return len(self.subsets) > 1

    @property
    def axis(self) -> list[tuple[str, str]]:
        """(subset, metric) per axis entry, in the declared order."""
        if self.over_subsets:
            return [(s, self.metrics[0]) for s in self.subsets]
        return [(self.subsets[0], m) for m in self.metrics]

    def label(self, subset: str, metric: str) -> str:
        """The display label of an axis entry (the entry itself when none is declared)."""
        entry = subset if self.over_subsets else metric
        return self.labels.get(entry, entry)


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
    # --task-option KEY=VALUE, already checked against TaskMetadata.options; recorded in the result.
    options: dict[str, str] = field(default_factory=dict)


@dataclass
class TaskMetadata:
    """What a task declares. ``version``: change it whenever the task's output for the same data changes
    (scores, subsets and their members, intervals, per-query values, task details, the metrics declared);
    results of different versions are never compared or ranked together."""

    name: str
    family: str
    description: str
    reference: str
    metrics: list[Metric]
    main_score: str
    version: str = "1"  # a new one whenever the output for the same data changes (see the class docstring)
    citation: str | None = None
    splits: list[str] = field(default_factory=lambda: ["test"])
    subsets: list[str] = field(default_factory=lambda: ["default"])
    instruction: str | None = None  # given to instruction-aware models
    top_k: int = 100  # depth of the retrieved list for retrieval tasks
    supports_limit: bool = True  # may `--limit N` cut it to its first N queries (or sets)?
    # Options the task accepts through --task-option KEY=VALUE: name -> what it does (and its default).
    options: dict[str, str] = field(default_factory=dict)
    views: list[View] = field(default_factory=list)  # what the app draws for this task

    def to_json(self, evaluation: EvaluationKind) -> dict[str, Any]:
        data = asdict(self)
        data["evaluation"] = evaluation.value
        data["views"] = [asdict(v) for v in self.views]
        return data


@dataclass
class ScoreReport:
    """What a task returns: its scores and, in ``per_query``, the per-query values behind them.

    A complete run without per-query values is refused at its first run, unless ``details["per_query"]``
    says why they cannot exist (a main metric with no per-query definition)."""

    scores: Scores
    confidence_intervals: dict[str, dict[str, dict[str, list[float]]]] = field(default_factory=dict)
    subset_sizes: dict[str, dict[str, int]] = field(default_factory=dict)  # split -> subset -> queries/records
    details: dict[str, Any] = field(default_factory=dict)  # task-specific provenance (judge, coverage, ...)
    # Per-query (per-record) values of the main metrics, main split: query id -> metric -> value.
    # Stored with the result (compressed) for significance tests and complexity stratification.
    per_query: dict[str, dict[str, float]] = field(default_factory=dict)
    # Which queries form each subset of the main split: subset name (as in ``scores``) -> the ids of its
    # queries (keys of ``per_query``; "default", all of them, need not be listed). Stored with the
    # per-query values; the app resamples a subset's own queries for that subset's interval, and a
    # subset without membership gets no interval. ``metrics.breakdown.subset_members`` builds it from
    # the same groups that ``subset_means`` averages over.
    subset_queries: dict[str, list[str]] = field(default_factory=dict)
    # Which queries each metric of ``per_query`` is computed on, for a metric computed on some queries only:
    # metric -> their ids (ComLQ's LSNC: the negation queries its judge labelled). Its scores, intervals and
    # comparisons use exactly those; a metric not listed must have a value for every query. The engine
    # records the queries that have a value for a metric not listed here and not on every query.
    metric_queries: dict[str, list[str]] = field(default_factory=dict)
    # When the main split's "default" scores are a macro mean over subsets (the mean of each subset's mean,
    # MultiConIR's over its five domains): those subsets, each listed in ``subset_queries``. Intervals and
    # paired tests then resample each subset on its own and weigh it 1/len. Empty: means over queries.
    macro_over: list[str] = field(default_factory=list)
    # Why the task could not compute everything it should have (its judge stopped answering: the judge's own
    # message, naming its endpoint). The engine then writes the result only as a partial one, and only when the
    # user asked for that (``leaderboard run --allow-partial``); otherwise the run stops with this reason.
    incomplete: str | None = None


@dataclass
class RetrievalData:
    corpus: Mapping[str, str]  # a dict, or a read-only mapping that reads texts from disk on demand
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]
    source: DataSource
    extra: dict[str, Any] = field(default_factory=dict)  # task-specific fields (query types, ...)
    # Per-query instructions (query id -> instruction), for data that gives each query its own (MAIR):
    # an instruction-taking model gets a query's own instead of TaskMetadata.instruction.
    query_instructions: dict[str, str] = field(default_factory=dict)


class Task(ABC):
    metadata: TaskMetadata
    evaluation: EvaluationKind  # set by each base class below

    @abstractmethod
    def load(self) -> Any:
        """Load and validate the task's data.

        Returns:
            The data of the task's kind: ``RetrievalData``, ``CandidateData`` or ``ExternalData``.

        Raises:
            BadInput: The data is wrong; the message names the file, line and field.
            DataUnavailable: The data cannot be had here; the message names ``--data-dir``.
        """


class RetrievalTask(Task):
    evaluation = EvaluationKind.RETRIEVAL

    @abstractmethod
    def load(self) -> RetrievalData: ...

    @abstractmethod
    def compute_scores(self, data: RetrievalData, run: Run) -> ScoreReport:
        """Turn a model's run into metric values, with the per-query values behind them.

        Args:
            data: What ``load`` returned.
            run: Query id to {document id: score}: each query's top documents.

        Returns:
            The scores, per split and subset, and the per-query values of the main metrics.
        """


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
    evaluation = EvaluationKind.CANDIDATES

    @abstractmethod
    def load(self) -> CandidateData: ...

    @abstractmethod
    def compute_scores(self, data: CandidateData, scores: dict[str, list[float]]) -> ScoreReport:
        """Turn the model's scores of each candidate set into metric values.

        Args:
            data: What ``load`` returned.
            scores: Candidate-set key to one score per candidate, in the candidates' order.

        Returns:
            The scores, per split and subset, and the per-query (per-record) values behind them.
        """


@dataclass
class ExternalData:
    """Data held by an external evaluation framework, with what the result must record of it."""

    source: DataSource
    handle: Any  # the framework's own task object
    extra: dict[str, Any] = field(default_factory=dict)
    # The raw text (no instruction) behind each key of ScoreReport.per_query, set by evaluate_model where a
    # unit has one query text: the engine stratifies external tasks by query complexity from it.
    query_texts: dict[str, str] = field(default_factory=dict)


class ExternalTask(Task):
    """A task whose evaluation loop belongs to another framework (mteb), reached through a model bridge.

    The runner still owns result files, identity, timings and provenance.
    """

    evaluation = EvaluationKind.EXTERNAL

    @abstractmethod
    def load(self) -> ExternalData: ...

    @abstractmethod
    def evaluate_model(self, model: Any, data: ExternalData, batch_size: int) -> ScoreReport:
        """Run the other framework's evaluation of ``model`` on the data.

        Args:
            model: The model, wrapped for the other framework by the task's bridge.
            data: What ``load`` returned.
            batch_size: The run's batch size.

        Returns:
            The scores and, where the framework's output allows, the per-query values behind them.
        """
