"""The public plugin contract: hooks, the model contract, the task contract, benchmarks and judges.

Everything a plugin needs is importable from here (and from ``leaderboard`` itself). Built-in
plugins use exactly this contract. Names load on first use, so importing ``hookimpl`` stays cheap.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from leaderboard.contract.hookspecs import hookimpl as hookimpl

_HOME = {
    **dict.fromkeys(
        (
            "DenseModel",
            "Model",
            "ModelKind",
            "ModelMetadata",
            "ModelRequest",
            "ProtocolVariant",
            "Reranker",
            "Role",
            "Run",
            "SparseModel",
        ),
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
# Written out, not computed, so type checkers see every public name (tests/test_facades.py keeps it equal to _HOME).
__all__ = [
    "hookimpl",
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
    "JudgeUnavailable",
    "Metric",
    "Model",
    "ModelKind",
    "ModelMetadata",
    "ModelRequest",
    "ProtocolVariant",
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
]

if TYPE_CHECKING:  # explicit re-exports ("X as X"): what `mypy --strict` accepts from a plugin's imports
    from leaderboard.contract.benchmark import (
        Benchmark as Benchmark,
    )
    from leaderboard.contract.benchmark import (
        BenchmarkTask as BenchmarkTask,
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
    from leaderboard.contract.judge import (
        JudgeUnavailable as JudgeUnavailable,
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
        ProtocolVariant as ProtocolVariant,
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


def __getattr__(name: str) -> Any:
    if name in _HOME:
        return getattr(import_module(_HOME[name]), name)
    raise AttributeError(f"module 'leaderboard.contract' has no attribute {name!r}")
