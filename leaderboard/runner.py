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
from .dense import EncodeStats
from .errors import BadInput, LeaderboardError
from .evaluation import retrieve
from .model import Model, ModelRequest
from .plugins import Registry, Resolved
from .progress import step
from .task import EvaluationKind, RetrievalData, RetrievalTask, ScoreReport, Task, TaskRequest


@dataclass
class RunOptions:
    output: Path = Path("results")
    batch_size: int = 32
    device: str | None = None
    max_length: int | None = None
    limit: int | None = None  # evaluate only the first N queries (quick checks; recorded)
    overwrite: bool = False
    seed: int = 0
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


def load_model(registry: Registry, spec: str, options: RunOptions) -> tuple[Model, Resolved]:
    resolved = registry.resolve("model", spec)
    request = ModelRequest(spec, resolved.argument, options.batch_size, options.device, options.max_length)
    with step(f"loading model {spec}"):
        model = _call_plugin(resolved, request, "model")
    if not isinstance(model, Model):
        raise LeaderboardError(f"model plugin {resolved.registration.plugin!r} returned {type(model).__name__} for {spec!r}, not a leaderboard.model.Model")
    return model, resolved


def make_task(registry: Registry, spec: str, options: RunOptions) -> tuple[Task, Resolved]:
    resolved = registry.resolve("task", spec)
    task = _call_plugin(resolved, TaskRequest(spec, resolved.argument, options.data_dirs.get(spec)), "task")
    if not isinstance(task, Task):
        raise LeaderboardError(f"task plugin {resolved.registration.plugin!r} returned {type(task).__name__} for {spec!r}, not a leaderboard.task.Task")
    return task, resolved


def _limit(data: RetrievalData, limit: int | None) -> RetrievalData:
    if limit is None:
        return data
    keep = list(data.queries)[:limit]
    data.queries = {q: data.queries[q] for q in keep}
    data.qrels = {q: data.qrels[q] for q in keep}
    return data


def _settings(task: Task, model: Model, options: RunOptions) -> dict[str, Any]:
    return {
        "batch_size": options.batch_size,
        "max_length": model.metadata.max_length,
        "device": options.device,
        "dtype": getattr(model, "dtype", None),
        "seed": options.seed,
        "limit": options.limit,
        "top_k": task.metadata.top_k if task.metadata.evaluation == EvaluationKind.RETRIEVAL else None,
        "instruction": None,
        "prompts": {},
        "model_settings": model.settings(),
        "libraries": provenance.library_versions(),
    }


def _plugin_version(registry: Registry, plugin: str) -> str | None:
    info = registry.plugins.get(plugin)
    return info.version if info else None


def run_one(registry: Registry, model: Model, model_resolved: Resolved, task_spec: str, options: RunOptions, model_load_seconds: float = 0.0) -> RunOutcome:
    timer = Timer({"model_load": round(model_load_seconds, 6)})
    task, task_resolved = make_task(registry, task_spec, options)
    meta = task.metadata
    with timer.phase("data_load"), step(f"loading {meta.name}"):
        data = task.load()
    if meta.evaluation != EvaluationKind.RETRIEVAL or not isinstance(task, RetrievalTask):
        raise LeaderboardError(f"task {meta.name!r} asks for evaluation kind {meta.evaluation.value!r}, which this runner cannot perform yet")
    data = _limit(data, options.limit)
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
    stats = EncodeStats()
    with timer.phase("retrieval"):
        run = retrieve(model, data.corpus, data.queries, meta.top_k, options.batch_size, stats)
    with timer.phase("scoring"), step("scoring"):
        report = task.compute_scores(data, run)
    report = report if isinstance(report, ScoreReport) else ScoreReport(report)
    scores = report.scores
    first_split = meta.splits[0]
    try:
        main = scores[first_split]["default"][meta.main_score]
    except KeyError:
        raise LeaderboardError(f"task {meta.name!r} did not report its main score {meta.main_score!r} for split {first_split!r}") from None
    timer.timings["total"] = round(sum(v for k, v in timer.timings.items() if k != "total"), 6)
    result.update(
        scores=scores,
        main_score=main,
        counts={
            "queries": len(data.queries),
            "documents": len(data.corpus),
            "texts_requested": stats.requested,
            "texts_encoded": stats.unique,
        },
        timings=timer.timings,
        **({"confidence_intervals": report.confidence_intervals} if report.confidence_intervals else {}),
        **({"subset_sizes": report.subset_sizes} if report.subset_sizes else {}),
        **({"task_details": report.details} if report.details else {}),
        hardware=provenance.hardware_info(options.device),
        created_at=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
    )
    results.write_result(path, result)
    return RunOutcome(model.metadata.name, meta.name, "written", path, result)
