"""The public plugin contract: hooks, the model contract, the task contract, benchmarks and judges.

Everything a plugin needs is importable from here (and from ``leaderboard`` itself). Built-in
plugins use exactly this contract. Names load on first use, so importing ``hookimpl`` stays cheap.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from leaderboard.contract.hookspecs import hookimpl

_HOME = {
    **dict.fromkeys(
        ("DenseModel", "Model", "ModelKind", "ModelMetadata", "ModelRequest", "Reranker", "Role", "Run", "SparseModel"),
        "leaderboard.contract.model",
    ),
    **dict.fromkeys(
        (
            "CandidateData",
            "CandidateSet",
            "CandidateTask",
            "DataSource",
            "EvaluationKind",
            "ExternalData",
            "ExternalTask",
            "Metric",
            "RetrievalData",
            "RetrievalTask",
            "Scores",
            "ScoreReport",
            "Task",
            "TaskMetadata",
            "TaskRequest",
            "View",
        ),
        "leaderboard.contract.task",
    ),
    **dict.fromkeys(("Benchmark", "BenchmarkTask"), "leaderboard.contract.benchmark"),
    **dict.fromkeys(("Judge", "JudgeItem", "JudgeRequest", "JudgeUnavailable"), "leaderboard.contract.judge"),
}
__all__ = ["hookimpl", *sorted(_HOME)]

if TYPE_CHECKING:
    from leaderboard.contract.benchmark import Benchmark, BenchmarkTask  # noqa: F401
    from leaderboard.contract.judge import Judge, JudgeItem, JudgeRequest, JudgeUnavailable  # noqa: F401
    from leaderboard.contract.model import (  # noqa: F401
        DenseModel,
        Model,
        ModelKind,
        ModelMetadata,
        ModelRequest,
        Reranker,
        Role,
        Run,
        SparseModel,
    )
    from leaderboard.contract.task import (  # noqa: F401
        CandidateData,
        CandidateSet,
        CandidateTask,
        DataSource,
        EvaluationKind,
        ExternalData,
        ExternalTask,
        Metric,
        RetrievalData,
        RetrievalTask,
        ScoreReport,
        Scores,
        Task,
        TaskMetadata,
        TaskRequest,
        View,
    )


def __getattr__(name: str) -> Any:
    if name in _HOME:
        return getattr(import_module(_HOME[name]), name)
    raise AttributeError(f"module 'leaderboard.contract' has no attribute {name!r}")
