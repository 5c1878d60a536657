"""Evaluation harness and leaderboard for retrieval models (retrievers and rerankers).

The public API, importable from here:

* the plugin contract (``hookimpl``, ``DenseModel``, ``RetrievalTask``, ...; see ``leaderboard.contract``);
* ``evaluate(models, tasks, *, output=..., batch_size=..., ...)``: run models on tasks and write result files
  (typed keywords, one per field of ``RunOptions``);
* ``BadInput``: the exception a plugin raises for a user's mistake (exit code 2); ``DataUnavailable``,
  a kind of it, for data that cannot be downloaded here (the message names ``--data-dir``).
* ``per_query_frame(results, metrics=None)``: the per-query values of one result or many (a ``Result``,
  a file, a folder, or a list) as a pandas DataFrame: model, revision, task, result_path, query_id,
  subsets, metric, value (``leaderboard.records.per_query_frame``).
* ``leaderboard.toolkit``: what plugins may use besides the contract (metrics, data helpers, hashing, ...).

Names are loaded on first use, so ``leaderboard --help`` imports neither numpy, pydantic nor pluggy.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_LAZY = {
    "hookimpl": "leaderboard.contract.hookspecs",  # pluggy and the contract: not for `show` or `--help`
    "evaluate": "leaderboard.engine.api",
    "RunOptions": "leaderboard.engine.api",
    "RunOutcome": "leaderboard.engine.api",
    "BadInput": "leaderboard.errors",
    "DataUnavailable": "leaderboard.errors",
    "LeaderboardError": "leaderboard.errors",
    "per_query_frame": "leaderboard.records.per_query_frame",
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

__all__ = ["__version__", *_LAZY]

if TYPE_CHECKING:
    from leaderboard.contract import *  # noqa: F403
    from leaderboard.contract.hookspecs import hookimpl  # noqa: F401

    __version__: str
    from leaderboard.engine.api import RunOptions, RunOutcome, evaluate  # noqa: F401
    from leaderboard.errors import BadInput, DataUnavailable, LeaderboardError  # noqa: F401
    from leaderboard.records.per_query_frame import per_query_frame  # noqa: F401


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
