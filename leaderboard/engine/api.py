"""``leaderboard.evaluate``: the Python API, and the one owner of a run.

It owns the model x task loop, models shared between pipelines, first-stage reuse, the embedding
cache policy and timings. The CLI's ``run`` is a thin layer over it::

    import leaderboard
    outcomes = leaderboard.evaluate(["bm25"], ["demo"], output="results")
    print(outcomes[0].result.main_score)

A model may also be given as an object (any ``leaderboard.Model``), e.g. one under development.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from leaderboard.contract.model import DenseModel, Model
from leaderboard.engine.dense import EmbeddingMemo
from leaderboard.engine.pipeline import FirstStageRuns
from leaderboard.engine.runner import LoadedModel, RunOptions, RunOutcome, build_model, run_one
from leaderboard.errors import BadInput
from leaderboard.registry import Registry, get_registry

DTYPES = ("float32", "float16", "bfloat16")

__all__ = ["RunOptions", "RunOutcome", "Session", "evaluate"]


@dataclass
class Session:
    """State shared by every (model, task) pair of one evaluation."""

    registry: Registry
    options: RunOptions
    built: dict[str, LoadedModel] = field(default_factory=dict)
    memos: dict[int, EmbeddingMemo] = field(default_factory=dict)  # per model: a text is encoded once per run
    first_stage: FirstStageRuns = field(default_factory=FirstStageRuns)

    def model(self, spec: str | Model) -> LoadedModel:
        if isinstance(spec, Model):
            key = f"<object {id(spec)}>"
            if key not in self.built:
                module = type(spec).__module__.split(".")[0]
                self.built[key] = LoadedModel(spec, spec.metadata.name, f"python:{module}", None)
            return self.built[key]
        return build_model(self.registry, spec, self.options, self.built)

    def memo(self, handle: LoadedModel) -> EmbeddingMemo:
        if id(handle) not in self.memos:
            self.memos[id(handle)] = _memo_for(handle.model, self.options)
        return self.memos[id(handle)]

    def run(self, model: str | Model, task: str) -> RunOutcome:
        handle = self.model(model)
        return run_one(self.registry, handle, task, self.options, self.memo(handle), self.first_stage)

    def run_all(self, models: Sequence[str | Model], tasks: Sequence[str]) -> list[RunOutcome]:
        """Every (model, task) pair, in order: here, or as Ray jobs with ``options.ray``."""
        if self.options.ray is None:
            return [self.run(model, task) for model in models for task in tasks]
        from leaderboard.engine.distributed import run_all
        from leaderboard.progress import current

        handles = [(model, self.model(model)) for model in models]
        return run_all(handles, list(tasks), self.registry, self.options, current())


def _memo_for(model: Model, options: RunOptions) -> EmbeddingMemo:
    """An in-run memo, backed by the on-disk cache for dense models (and a pipeline's dense stage)."""
    target = getattr(model, "first", model)
    if not options.use_cache or not isinstance(target, DenseModel):
        return EmbeddingMemo()
    from leaderboard.engine.cache import EmbeddingCache

    settings = target.settings() | {
        "query_prompt": target.metadata.query_prompt,
        "document_prompt": target.metadata.document_prompt,
    }
    if options.dtype is not None:  # other weights, other vectors (absent for the default: old caches stay valid)
        settings["dtype"] = options.dtype
    return EmbeddingMemo(EmbeddingCache(target.metadata.name, target.metadata.revision, settings))


def make_options(**options: Any) -> RunOptions:
    known = {f.name for f in fields(RunOptions)}
    unknown = sorted(set(options) - known)
    if unknown:
        raise BadInput(f"unknown option(s) {', '.join(unknown)}; expected some of {', '.join(sorted(known))}")
    if "output" in options:
        options["output"] = Path(options["output"])
    if options.get("dtype") not in (None, *DTYPES):
        raise BadInput(f"dtype {options['dtype']!r}: expected one of {', '.join(DTYPES)}.")
    return RunOptions(**options)


def evaluate(
    models: Sequence[str | Model], tasks: Sequence[str], *, registry: Registry | None = None, **options: Any
) -> list[RunOutcome]:
    """Evaluate each model on each task; one ``RunOutcome`` (written or skipped) per pair, in order.

    ``options`` are the fields of ``RunOptions`` (output, batch_size, device, max_length, limit,
    overwrite, seed, use_cache, data_dirs). Raises ``BadInput`` for a user's mistake.
    """
    if isinstance(models, (str, Model)) or isinstance(tasks, str):
        raise BadInput("evaluate(models, tasks): pass lists, e.g. evaluate(['bm25'], ['demo'])")
    session = Session(registry or get_registry(), make_options(**options))
    return session.run_all(models, tasks)
