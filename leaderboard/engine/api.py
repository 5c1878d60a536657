"""``leaderboard.evaluate``: the Python API, and the one owner of a run.

It owns the model x task loop, models shared between pipelines, first-stage reuse, the embedding
memo and cache policy, and timings, in this process or on a Ray cluster (``ray=``): the loop, the
skip check and the writing stay here either way; Ray only computes. The CLI's ``run`` is a thin
layer over it::

    import leaderboard
    outcomes = leaderboard.evaluate(["bm25"], ["demo"], output="results")
    print(outcomes[0].result.main_score)

Models and tasks may also be given as objects (any ``leaderboard.Model``, ``leaderboard.Pipeline`` or
``leaderboard.Task``), so a plugin under development runs without being installed::

    leaderboard.evaluate([leaderboard.Pipeline(MyRetriever(), MyReranker(), depth=20)], [MyTask()])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from leaderboard.contract.model import Model
from leaderboard.contract.task import Task
from leaderboard.engine.building import (
    LoadedModel,
    bound_variants,
    build_model,
    check_variant,
    object_model,
    task_of,
)
from leaderboard.engine.dense import EmbeddingMemo
from leaderboard.engine.options import RunOptions
from leaderboard.engine.pipeline import FirstStageRuns, Pipeline
from leaderboard.engine.runner import Prepared, RunOutcome, compute, embedding_memo, finish, prepare
from leaderboard.errors import BadInput, LeaderboardError
from leaderboard.fileio import unwritable
from leaderboard.registry import Registry, get_registry

if TYPE_CHECKING:
    from leaderboard.engine.distributed import RayBackend

__all__ = ["Pipeline", "RunOptions", "RunOutcome", "Session", "evaluate"]


@dataclass
class Session:
    """State shared by every (model, task) pair of one evaluation."""

    registry: Registry
    options: RunOptions
    built: dict[str, LoadedModel] = field(default_factory=dict)
    memos: dict[int, EmbeddingMemo] = field(default_factory=dict)  # per model: a text is encoded once per run
    first_stage: FirstStageRuns = field(default_factory=FirstStageRuns)
    output_checked: bool = False

    def check_output(self) -> None:
        """A results folder that cannot be written fails before any work, naming the folder."""
        if self.output_checked:
            return
        why = unwritable(self.options.output)
        if why is not None:
            raise BadInput(
                f"Cannot write results to {str(self.options.output)!r} (--output): {why}; choose a folder you can "
                "write to."
            )
        self.output_checked = True

    def model(self, spec: str | Model) -> LoadedModel:
        if isinstance(spec, Model):
            key = f"<object {id(spec)}>"
            if key not in self.built:
                self.built[key] = object_model(spec)
            return self.built[key]
        return build_model(self.registry, spec, self.options, self.built)

    def memo(self, handle: LoadedModel) -> EmbeddingMemo:
        if id(handle) not in self.memos:
            self.memos[id(handle)] = embedding_memo(handle.model, self.options)
        return self.memos[id(handle)]

    def run(self, model: str | Model, task: str | Task) -> RunOutcome:
        self.check_output()
        handle = self.model(model)
        prepared = prepare(self.registry, handle, task, self.options)
        if isinstance(prepared, RunOutcome):
            return prepared
        record = compute(prepared, handle, self.options, self.memo(handle), self.first_stage)
        return finish(prepared, record, handle.model, self.options)

    def run_all(self, models: Sequence[str | Model], tasks: Sequence[str | Task]) -> list[RunOutcome]:
        """Every (model, task) pair, in order: here, or with ``options.ray`` as jobs on a Ray cluster."""
        self.check_output()
        self.check_variants(models, tasks)
        if self.options.ray is None:
            return [self.run(model, task) for model in models for task in tasks]
        from leaderboard.engine.distributed import RayBackend
        from leaderboard.progress import current

        outcomes: list[RunOutcome] = []
        with RayBackend(self.options, current()) as backend:
            # Models one after the other (one encoder pool at a time), a model's tasks as concurrent jobs;
            # a later pipeline receives the first-stage runs computed so far.
            for model in models:
                outcomes += self._run_on(backend, model, tasks)
        return outcomes

    def check_variants(self, models: Sequence[str | Model], tasks: Sequence[str | Task]) -> None:
        """A protocol variant named on a task outside its paper's benchmark is refused before anything runs
        (``prepare`` checks each pair again). A model or task that cannot be built is left to its own turn,
        which says what is wrong with it in the order of the run."""
        variants = []
        for model in models:
            try:
                handle = self.model(model)
            except LeaderboardError:
                continue
            if bound_variants(handle.model):
                variants.append(handle)
        if not variants:
            return
        for task in tasks:
            try:
                name = task_of(self.registry, task, self.options).metadata.name
            except LeaderboardError:
                continue
            for handle in variants:
                check_variant(self.registry, handle.model, name)

    def _run_on(self, backend: RayBackend, model: str | Model, tasks: Sequence[str | Task]) -> list[RunOutcome]:
        handle = self.model(model)
        steps = [prepare(self.registry, handle, task, self.options) for task in tasks]  # the skip check is here
        todo = [step for step in steps if isinstance(step, Prepared)]
        written: dict[int, RunOutcome] = {}

        def write(i: int, record: dict[str, Any]) -> None:  # only the driver writes, as each job finishes
            written[i] = finish(todo[i], record, handle.model, self.options)

        backend.compute(model, handle, todo, self.first_stage, write)
        pending = iter(range(len(todo)))
        return [step if isinstance(step, RunOutcome) else written[next(pending)] for step in steps]


def evaluate(  # noqa: PLR0913 (the Python API: one keyword per field of RunOptions)
    models: Sequence[str | Model],
    tasks: Sequence[str | Task],
    *,
    registry: Registry | None = None,
    output: str | Path = RunOptions.output,
    batch_size: int = RunOptions.batch_size,
    device: str | None = RunOptions.device,
    max_length: int | None = RunOptions.max_length,
    limit: int | None = RunOptions.limit,
    overwrite: bool = RunOptions.overwrite,
    seed: int = RunOptions.seed,
    use_cache: bool = RunOptions.use_cache,
    data_dirs: Mapping[str, str] | None = None,
    dtype: str | None = RunOptions.dtype,
    task_options: Mapping[str, str] | None = None,
    shard_dir: str | None = RunOptions.shard_dir,
    keep_shards: bool = RunOptions.keep_shards,
    shard_rows: int = RunOptions.shard_rows,
    corpus_sample: int | None = RunOptions.corpus_sample,
    ray: str | None = RunOptions.ray,
    ray_encoders: int | None = RunOptions.ray_encoders,
    ray_start_timeout: float | None = RunOptions.ray_start_timeout,
    allow_partial: bool = RunOptions.allow_partial,
) -> list[RunOutcome]:
    """Evaluate each model on each task and write one result file per pair, as ``leaderboard run`` does.

    A pair whose identical result is already in ``output`` is skipped, not run again. The keywords are
    the fields of ``RunOptions``, with its defaults.

    Args:
        models: Registered names (``"bm25"``, ``"bm25 >>20 ce:<id>"``) or ``Model`` objects, a
            ``Pipeline`` of two included.
        tasks: Registered task names, data folders (``"beir:DIR"``) or ``Task`` objects.
        registry: The plugins to resolve names with (default: every installed plugin).
        output: The results folder.
        batch_size: Texts per batch a model encodes or scores.
        device: The torch device, e.g. ``"cpu"`` or ``"cuda:0"`` (default: the model's choice).
        max_length: Truncate model inputs to this many tokens.
        limit: Evaluate only the first N queries; the result is partial.
        overwrite: Run again and replace existing results.
        seed: Seed of sampling and of the bootstrap.
        use_cache: Read and write the on-disk embedding cache.
        data_dirs: Task name to local data folder (as ``--data-dir TASK=DIR``).
        dtype: Weights dtype: ``"float32"``, ``"float16"`` or ``"bfloat16"`` (default: the model's own).
        task_options: Task settings (as ``--task-option KEY=VALUE``), recorded in the result.
        shard_dir: Folder for corpus embedding shards (default: the cache folder).
        keep_shards: Keep the shard files after the search.
        shard_rows: Distinct texts per shard.
        corpus_sample: Search a seeded sample of N documents; the result is partial.
        ray: Run on a Ray cluster: its address, or ``"auto"``.
        ray_encoders: Encoder actors per corpus on Ray (default: one per node or GPU).
        ray_start_timeout: Seconds a Ray cluster has to register a worker before the run fails (default:
            ``LEADERBOARD_RAY_START_S`` or 120).
        allow_partial: Write a result found incomplete while scoring as a partial result.

    Returns:
        One ``RunOutcome`` per (model, task) pair, in order: ``status`` is ``"written"`` or ``"skipped"``.

    Raises:
        BadInput: A user's mistake (an unknown name, a bad option, data that does not load), with a
            message that says what to change.
    """
    if isinstance(models, (str, Model)) or isinstance(tasks, (str, Task)):
        raise BadInput("evaluate(models, tasks): pass lists, e.g. evaluate(['bm25'], ['demo'])")
    options = RunOptions(
        output=Path(output),
        batch_size=batch_size,
        device=device,
        max_length=max_length,
        limit=limit,
        overwrite=overwrite,
        seed=seed,
        use_cache=use_cache,
        data_dirs=dict(data_dirs or {}),
        dtype=dtype,
        task_options=dict(task_options or {}),
        shard_dir=shard_dir,
        keep_shards=keep_shards,
        shard_rows=shard_rows,
        corpus_sample=corpus_sample,
        ray=ray,
        ray_encoders=ray_encoders,
        ray_start_timeout=ray_start_timeout,
        allow_partial=allow_partial,
    )
    return Session(registry or get_registry(), options).run_all(models, tasks)
