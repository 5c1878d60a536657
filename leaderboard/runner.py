"""The runner: resolves a model and a task, runs the task's evaluation kind, writes the result.

It owns everything around the model and the task: I/O, progress, timings, skipping, provenance.
"""

from __future__ import annotations

import datetime as dt
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from . import provenance, results
from .dense import EmbeddingMemo
from .errors import BadInput, LeaderboardError
from .evaluation import Context, retrieve, score_candidates
from .instructions import used_strings
from .pipeline import FirstStageRuns, Pipeline
from .pipeline import parse as parse_pipeline
from .model import Model, ModelRequest
from .plugins import Registry, Resolved
from .progress import step
from .task import CandidateData, CandidateTask, EvaluationKind, ExternalTask, RetrievalData, RetrievalTask, ScoreReport, Task, TaskRequest


@dataclass
class RunOptions:
    output: Path = Path("results")
    batch_size: int = 32
    device: str | None = None
    max_length: int | None = None
    limit: int | None = None  # evaluate only the first N queries (quick checks; recorded)
    overwrite: bool = False
    seed: int = 0
    use_cache: bool = True  # on-disk embedding cache (--no-cache turns it off)
    data_dirs: dict[str, str] = field(default_factory=dict)  # task spec -> local data folder


@dataclass
class RunOutcome:
    model: str
    task: str
    status: str  # "written" or "skipped"
    path: Path
    result: dict[str, Any]


@dataclass
class Timer:
    timings: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.timings[name] = round(self.timings.get(name, 0.0) + time.perf_counter() - start, 6)


def _call_plugin(resolved: Resolved, request: Any, what: str) -> Any:
    reg = resolved.registration
    try:
        return reg.factory(request)
    except (BadInput, LeaderboardError):
        raise
    except Exception as exc:
        raise LeaderboardError(f"{what} plugin {reg.plugin!r} failed to create {request.name!r}: {type(exc).__name__}: {exc}") from exc


def load_model(registry: Registry, spec: str, options: RunOptions, loaded: dict[str, tuple[Model, Resolved]] | None = None) -> tuple[Model, Resolved]:
    """Build a model (or a pipeline of two); ``loaded`` reuses models already built in this run."""
    loaded = {} if loaded is None else loaded
    if spec in loaded:
        return loaded[spec]
    pipeline = parse_pipeline(spec)
    if pipeline is not None:
        first, first_resolved = load_model(registry, pipeline.first, options, loaded)
        reranker, _ = load_model(registry, pipeline.reranker, options, loaded)
        loaded[spec] = (Pipeline(pipeline, first, reranker), first_resolved)
        return loaded[spec]
    resolved = registry.resolve("model", spec)
    request = ModelRequest(spec, resolved.argument, options.batch_size, options.device, options.max_length)
    with step(f"loading model {spec}"):
        model = _call_plugin(resolved, request, "model")
    if not isinstance(model, Model):
        raise LeaderboardError(f"model plugin {resolved.registration.plugin!r} returned {type(model).__name__} for {spec!r}, not a leaderboard.model.Model")
    loaded[spec] = (model, resolved)
    return model, resolved


def make_task(registry: Registry, spec: str, options: RunOptions) -> tuple[Task, Resolved]:
    resolved = registry.resolve("task", spec)
    task = _call_plugin(resolved, TaskRequest(spec, resolved.argument, options.data_dirs.get(spec), options.seed), "task")
    if not isinstance(task, Task):
        raise LeaderboardError(f"task plugin {resolved.registration.plugin!r} returned {type(task).__name__} for {spec!r}, not a leaderboard.task.Task")
    return task, resolved


def _limit(data: Any, limit: int | None) -> Any:
    if limit is None:
        return data
    if isinstance(data, RetrievalData):
        keep = list(data.queries)[:limit]
        data.queries = {q: data.queries[q] for q in keep}
        data.qrels = {q: data.qrels[q] for q in keep}
    elif isinstance(data, CandidateData):
        data.sets = data.sets[:limit]
    return data


def _settings(task: Task, model: Model, options: RunOptions) -> dict[str, Any]:
    strings = used_strings(model, task.metadata.instruction)
    return {
        "batch_size": options.batch_size,
        "max_length": model.metadata.max_length,
        "device": options.device,
        "dtype": getattr(model, "dtype", None),
        "seed": options.seed,
        "limit": options.limit,
        "top_k": task.metadata.top_k if task.metadata.evaluation == EvaluationKind.RETRIEVAL else None,
        "instruction": strings.pop("instruction"),
        "prompts": strings,
        "model_settings": model.settings(),
        "libraries": provenance.library_versions(),
    }


def _plugin_version(registry: Registry, plugin: str) -> str | None:
    info = registry.plugins.get(plugin)
    return info.version if info else None


def _evaluate(task: Task, model: Model, data: Any, ctx: Context) -> Any:
    kind = task.metadata.evaluation
    if kind == EvaluationKind.RETRIEVAL and isinstance(task, RetrievalTask):
        run = retrieve(model, data.corpus, data.queries, task.metadata.top_k, ctx)
        with step("scoring"):
            return task.compute_scores(data, run)
    if kind == EvaluationKind.CANDIDATES and isinstance(task, CandidateTask):
        scores = score_candidates(model, data.sets, ctx)
        with step("computing metrics"):
            return task.compute_scores(data, scores)
    if isinstance(task, ExternalTask):
        return task.evaluate_model(model, data, ctx.batch_size)
    raise LeaderboardError(f"task {task.metadata.name!r} declares evaluation kind {kind.value!r} but is a {type(task).__name__}")


def _counts(data: Any, ctx: Context) -> dict[str, int]:
    counts = {"texts_requested": ctx.stats.requested, "texts_encoded": ctx.stats.unique, "pairs_scored": ctx.pairs_scored}
    if ctx.first_stage_reused is not None:
        counts["first_stage_reused"] = int(ctx.first_stage_reused)
    if isinstance(data, RetrievalData):
        counts.update(queries=len(data.queries), documents=len(data.corpus))
    elif isinstance(data, CandidateData):
        counts.update(candidate_sets=len(data.sets), candidates=sum(len(s.candidates) for s in data.sets))
    return counts


def run_one(registry: Registry, model: Model, model_resolved: Resolved, task_spec: str, options: RunOptions, model_load_seconds: float = 0.0,
            memo: EmbeddingMemo | None = None, first_stage: FirstStageRuns | None = None) -> RunOutcome:
    timer = Timer({"model_load": round(model_load_seconds, 6)})
    task, _ = make_task(registry, task_spec, options)
    meta = task.metadata
    if options.limit is not None and isinstance(task, ExternalTask):
        raise BadInput(f"--limit is not supported for {meta.name}: mteb runs the whole task (use a smaller local dataset instead).")
    with timer.phase("data_load"), step(f"loading {meta.name}"):
        data = _limit(task.load(), options.limit)
    result: dict[str, Any] = {
        "schema_version": results.SCHEMA_VERSION,
        "harness": provenance.harness_info(),
        "task": {**meta.to_json(), "source": vars(data.source).copy()},
        "model": {
            "name": model.metadata.name,
            "kind": model.metadata.kind.value,
            "revision": model.metadata.revision,
            "plugin": model_resolved.registration.plugin,
            "plugin_version": _plugin_version(registry, model_resolved.registration.plugin),
            "metadata": model.metadata.to_json(),
        },
        "settings": _settings(task, model, options),
    }
    path = results.result_path(options.output, model.metadata.name, model.metadata.revision, meta.name)
    if path.exists() and not options.overwrite:
        existing = results.read_result(path)
        if results.identity(existing) == results.identity(result):
            return RunOutcome(model.metadata.name, meta.name, "skipped", path, existing)
        raise BadInput(
            f"{path} already holds a result for {model.metadata.name} on {meta.name} with different settings or data "
            f"(data hash {existing['task']['source']['content_hash']}). Pass --overwrite to replace it, or --output to write elsewhere."
        )
    disk = memo.disk if memo is not None else None
    before = (disk.stats.hits, disk.stats.misses, disk.stats.corrupt) if disk else None
    ctx = Context(options.batch_size, meta.instruction, memo=memo if memo is not None else EmbeddingMemo(),
                  first_stage=first_stage if first_stage is not None else FirstStageRuns(), task_key=(meta.name, data.source.content_hash))
    with timer.phase("evaluation"):
        report = _evaluate(task, model, data, ctx)
    report = report if isinstance(report, ScoreReport) else ScoreReport(report)
    scores = report.scores
    result["task"]["metrics"] = meta.to_json()["metrics"]  # external tasks learn theirs while evaluating
    cache_counts = {}
    if disk is not None:
        cache_counts = {"cache_hits": disk.stats.hits - before[0], "cache_misses": disk.stats.misses - before[1], "cache_corrupt_recomputed": disk.stats.corrupt - before[2]}
    first_split = meta.splits[0]
    try:
        main = scores[first_split]["default"][meta.main_score]
    except KeyError:
        raise LeaderboardError(f"task {meta.name!r} did not report its main score {meta.main_score!r} for split {first_split!r}") from None
    timer.timings["total"] = round(sum(v for k, v in timer.timings.items() if k != "total"), 6)
    result.update(
        scores=scores,
        main_score=main,
        counts=_counts(data, ctx) | cache_counts,
        timings=timer.timings,
        **({"confidence_intervals": report.confidence_intervals} if report.confidence_intervals else {}),
        **({"subset_sizes": report.subset_sizes} if report.subset_sizes else {}),
        **({"task_details": report.details} if report.details else {}),
        hardware=provenance.hardware_info(options.device),
        created_at=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
    )
    results.write_result(path, result)
    return RunOutcome(model.metadata.name, meta.name, "written", path, result)
