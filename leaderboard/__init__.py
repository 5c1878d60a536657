"""Evaluation harness and leaderboard for retrieval models (retrievers and rerankers).

The public API, importable from here:

* the plugin contract (``hookimpl``, ``DenseModel``, ``RetrievalTask``, ...; see ``leaderboard.contract``);
* ``evaluate(models, tasks, *, output=..., batch_size=..., ...)``: run models on tasks and write result files
  (typed keywords, one per field of ``RunOptions``); models and tasks by registered name or as objects;
* ``Pipeline(first_stage, reranker, depth=100)``: two model objects as one retrieve-then-rerank model;
* ``BadInput``: the exception a plugin raises for a user's mistake (exit code 2); ``DataUnavailable``,
  a kind of it, for data that cannot be downloaded here (the message names ``--data-dir``).
* ``per_query_frame(results, metrics=None)``: the per-query values of one result or many (a ``Result``,
  a file, a folder, or a list) as a pandas DataFrame: model, revision, task, result_path, query_id,
  subsets, metric, value (``leaderboard.analysis.per_query_frame``).
* ``leaderboard.toolkit``: what plugins may use besides the contract (metrics, data helpers, hashing, ...).

Names are loaded on first use, so ``leaderboard --help`` imports neither numpy, pydantic nor pluggy.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_LAZY = {
    "hookimpl": "leaderboard.contract.hookspecs",  # pluggy and the contract: not for `show` or `--help`
    "evaluate": "leaderboard.engine.api",
    "Pipeline": "leaderboard.engine.pipeline",
    "RunOptions": "leaderboard.engine.api",
    "RunOutcome": "leaderboard.engine.api",
    "BadInput": "leaderboard.errors",
    "DataUnavailable": "leaderboard.errors",
    "LeaderboardError": "leaderboard.errors",
    "per_query_frame": "leaderboard.analysis.per_query_frame",
}
_CONTRACT = (
    "Benchmark",
    "BenchmarkTask",
    "CandidateData",
    "CandidateSet",
    "CandidateTask",
    "DataSource",
    "DenseModel",
    "EvaluationKind",
    "ExternalData",
    "ExternalTask",
    "Judge",
    "JudgeItem",
    "JudgeRequest",
    "Metric",
    "Model",
    "ModelKind",
    "ModelMetadata",
    "ModelRequest",
    "Reranker",
    "RetrievalData",
    "RetrievalTask",
    "Role",
    "Run",
    "ScoreReport",
    "Scores",
    "SparseModel",
    "Task",
    "TaskMetadata",
    "TaskRequest",
    "View",
)
_LAZY.update({name: "leaderboard.contract" for name in _CONTRACT})

# Written out, not computed, so type checkers see every public name (tests/test_facades.py keeps it equal to _LAZY).
__all__ = [
    "__version__",
    "BadInput",
    "Benchmark",
    "BenchmarkTask",
    "CandidateData",
    "CandidateSet",
    "CandidateTask",
    "DataSource",
    "DataUnavailable",
    "DenseModel",
    "evaluate",
    "EvaluationKind",
    "ExternalData",
    "ExternalTask",
    "hookimpl",
    "Judge",
    "JudgeItem",
    "JudgeRequest",
    "LeaderboardError",
    "Metric",
    "Model",
    "ModelKind",
    "ModelMetadata",
    "ModelRequest",
    "per_query_frame",
    "Pipeline",
    "Reranker",
    "RetrievalData",
    "RetrievalTask",
    "Role",
    "Run",
    "RunOptions",
    "RunOutcome",
    "ScoreReport",
    "Scores",
    "SparseModel",
    "Task",
    "TaskMetadata",
    "TaskRequest",
    "View",
]

if TYPE_CHECKING:  # explicit re-exports ("X as X"): what `mypy --strict` accepts from a plugin's imports
    from leaderboard.analysis.per_query_frame import (
        per_query_frame as per_query_frame,
    )
    from leaderboard.contract.benchmark import (
        Benchmark as Benchmark,
    )
    from leaderboard.contract.benchmark import (
        BenchmarkTask as BenchmarkTask,
    )
    from leaderboard.contract.hookspecs import (
        hookimpl as hookimpl,
    )
    from leaderboard.contract.judge import (
        Judge as Judge,
    )
    from leaderboard.contract.judge import (
        JudgeItem as JudgeItem,
    )
    from leaderboard.contract.judge import (
        JudgeRequest as JudgeRequest,
    )
    from leaderboard.contract.model import (
        DenseModel as DenseModel,
    )
    from leaderboard.contract.model import (
        Model as Model,
    )
    from leaderboard.contract.model import (
        ModelKind as ModelKind,
    )
    from leaderboard.contract.model import (
        ModelMetadata as ModelMetadata,
    )
    from leaderboard.contract.model import (
        ModelRequest as ModelRequest,
    )
    from leaderboard.contract.model import (
        Reranker as Reranker,
    )
    from leaderboard.contract.model import (
        Role as Role,
    )
    from leaderboard.contract.model import (
        Run as Run,
    )
    from leaderboard.contract.model import (
        SparseModel as SparseModel,
    )
    from leaderboard.contract.task import (
        CandidateData as CandidateData,
    )
    from leaderboard.contract.task import (
        CandidateSet as CandidateSet,
    )
    from leaderboard.contract.task import (
        CandidateTask as CandidateTask,
    )
    from leaderboard.contract.task import (
        DataSource as DataSource,
    )
    from leaderboard.contract.task import (
        EvaluationKind as EvaluationKind,
    )
    from leaderboard.contract.task import (
        ExternalData as ExternalData,
    )
    from leaderboard.contract.task import (
        ExternalTask as ExternalTask,
    )
    from leaderboard.contract.task import (
        Metric as Metric,
    )
    from leaderboard.contract.task import (
        RetrievalData as RetrievalData,
    )
    from leaderboard.contract.task import (
        RetrievalTask as RetrievalTask,
    )
    from leaderboard.contract.task import (
        ScoreReport as ScoreReport,
    )
    from leaderboard.contract.task import (
        Scores as Scores,
    )
    from leaderboard.contract.task import (
        Task as Task,
    )
    from leaderboard.contract.task import (
        TaskMetadata as TaskMetadata,
    )
    from leaderboard.contract.task import (
        TaskRequest as TaskRequest,
    )
    from leaderboard.contract.task import (
        View as View,
    )
    from leaderboard.engine.api import (
        RunOptions as RunOptions,
    )
    from leaderboard.engine.api import (
        RunOutcome as RunOutcome,
    )
    from leaderboard.engine.api import (
        evaluate as evaluate,
    )
    from leaderboard.engine.pipeline import (
        Pipeline as Pipeline,
    )
    from leaderboard.errors import (
        BadInput as BadInput,
    )
    from leaderboard.errors import (
        DataUnavailable as DataUnavailable,
    )
    from leaderboard.errors import (
        LeaderboardError as LeaderboardError,
    )

    __version__: str


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("retrieval-leaderboard")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0+unknown"


def __getattr__(name: str) -> Any:
    if name == "__version__":  # importlib.metadata costs ~25 ms: only when asked
        globals()["__version__"] = _version()
        return globals()["__version__"]
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'leaderboard' has no attribute {name!r}")
