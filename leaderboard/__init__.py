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

from typing import TYPE_CHECKING, Any

from leaderboard.lazy_names import listed, resolve

# The public names, each once (``leaderboard.lazy_names`` reads this block; it imports nothing at run time).
if TYPE_CHECKING:
    from leaderboard.analysis.per_query_frame import per_query_frame as per_query_frame
    from leaderboard.contract import *  # noqa: F403 (the contract's names, as listed there)
    from leaderboard.engine.api import RunOptions as RunOptions, RunOutcome as RunOutcome, evaluate as evaluate
    from leaderboard.engine.pipeline import Pipeline as Pipeline
    from leaderboard.errors import (
        BadInput as BadInput,
        DataUnavailable as DataUnavailable,
        LeaderboardError as LeaderboardError,
    )

    __version__: str


def __getattr__(name: str) -> Any:
    if name == "__version__":  # importlib.metadata costs ~25 ms: only when asked
        from leaderboard.provenance import harness_version

        globals()["__version__"] = harness_version()
        return globals()["__version__"]
    return resolve(__name__, name, globals())


def __dir__() -> list[str]:
    return listed(__name__, globals())
