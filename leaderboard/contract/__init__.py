"""The public plugin contract: hooks, the model contract, the task contract, benchmarks and judges.

Everything a plugin needs is importable from here (and from ``leaderboard`` itself). Built-in
plugins use exactly this contract. Names load on first use, so importing ``hookimpl`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from leaderboard.lazy_names import listed, resolve

# The public names, each once (``leaderboard.lazy_names`` reads this block; it imports nothing at run time).
if TYPE_CHECKING:
    from leaderboard.contract.benchmark import Benchmark as Benchmark, BenchmarkTask as BenchmarkTask
    from leaderboard.contract.hookspecs import hookimpl as hookimpl
    from leaderboard.contract.judge import (
        Judge as Judge,
        JudgeItem as JudgeItem,
        JudgeRequest as JudgeRequest,
        JudgeUnavailable as JudgeUnavailable,
    )
    from leaderboard.contract.model import (
        DenseModel as DenseModel,
        Model as Model,
        ModelKind as ModelKind,
        ModelMetadata as ModelMetadata,
        ModelRequest as ModelRequest,
        ProtocolVariant as ProtocolVariant,
        Reranker as Reranker,
        Role as Role,
        Run as Run,
        SparseModel as SparseModel,
    )
    from leaderboard.contract.task import (
        CandidateData as CandidateData,
        CandidateSet as CandidateSet,
        CandidateTask as CandidateTask,
        DataSource as DataSource,
        EvaluationKind as EvaluationKind,
        ExternalData as ExternalData,
        ExternalTask as ExternalTask,
        Metric as Metric,
        RetrievalData as RetrievalData,
        RetrievalTask as RetrievalTask,
        ScoreReport as ScoreReport,
        Scores as Scores,
        Task as Task,
        TaskMetadata as TaskMetadata,
        TaskRequest as TaskRequest,
        View as View,
    )


def __getattr__(name: str) -> Any:
    return resolve(__name__, name, globals())


def __dir__() -> list[str]:
    return listed(__name__, globals())
