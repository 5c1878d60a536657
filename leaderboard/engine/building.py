"""Building and checking what a run names, before any weights or data load.

A model or task comes from a plugin (a registered name) or is given as a Python object; either
way it is checked here once (its kind against its base class, its task name, the options it was
given, the device it asks for), so a mistake is refused with a clear message before anything
costly starts, and every entry point (``run``, ``evaluate``, Ray workers, the submission checks)
refuses the same things. Plugin code is called through ``plugin_call``, so a plugin's crash is
reported as that plugin's, never as the harness's.
"""

from __future__ import annotations

import functools
import time
import warnings
from dataclasses import dataclass, field
from typing import Any

from leaderboard.contract.model import Model, ModelKind, ModelMetadata, Reranker, kind_of
from leaderboard.contract.task import RetrievalTask, Task, TaskRequest
from leaderboard.engine.options import RunOptions
from leaderboard.engine.pipeline import Pipeline
from leaderboard.errors import BadInput, LeaderboardError, Note, shorten
from leaderboard.progress import step
from leaderboard.registry import Registry, Resolved


@dataclass
class LoadedModel:
    """A model with who made it: the plugin(s) and versions a result records."""

    model: Model
    spec: str
    plugin: str
    plugin_version: str | None
    components: list[dict[str, Any]] = field(default_factory=list)  # a pipeline's stages
    load_seconds: float = 0.0
    loaded: bool = False

    def ensure_loaded(self) -> float:
        """Load weights once, just before first use; returns the seconds it took (0 after the first call)."""
        if self.loaded:
            return 0.0
        start = time.perf_counter()
        with step(f"loading model {self.spec}"):
            plugin_call(self.model.load, f"model {self.spec!r}: load()")  # a pipeline loads both stages
        self.loaded = True
        self.load_seconds = time.perf_counter() - start
        return self.load_seconds


def object_model(model: Model) -> LoadedModel:
    """A model given as a Python object (not a registered name): its plugin is the module that defines it."""
    if isinstance(model, Pipeline):  # stages given as objects never passed through build_model's checks
        check_kind(model.first, f"the first stage of pipeline {model.metadata.name!r}")
        check_kind(model.reranker, f"the reranker of pipeline {model.metadata.name!r}")
    check_kind(model, f"model object {type(model).__name__}")
    return LoadedModel(model, model.metadata.name, f"python:{type(model).__module__.split('.')[0]}", None)


def check_kind(model: Model, who: str) -> None:
    """``metadata.kind`` follows the base class, which decides how the model is evaluated and recorded.

    A kind left out is filled in (metadata set on the class, not attached through ``Model.__setattr__``);
    a declared kind that says otherwise is refused."""
    expected = ModelKind.PIPELINE if isinstance(model, Pipeline) else kind_of(model)
    metadata = getattr(model, "metadata", None)
    if expected is None:
        raise LeaderboardError(
            f"{who} is a {type(model).__name__}: subclass DenseModel, SparseModel or Reranker from leaderboard"
        )
    if not isinstance(metadata, ModelMetadata):
        raise LeaderboardError(
            f"{who} is a {type(model).__name__} without metadata: set self.metadata = ModelMetadata(name=...)"
        )
    if metadata.kind is None:
        metadata.kind = expected
    if metadata.kind != expected:
        declared = metadata.kind
        shown = declared.value if isinstance(declared, ModelKind) else repr(declared)[:40]
        raise LeaderboardError(
            f"{who} is a {type(model).__name__} (a {expected.value} model) but its metadata.kind says {shown}: "
            f"leave kind out (the base class decides it) or declare kind=ModelKind.{expected.name}"
        )


def kind_value(model: Model) -> str:
    """The model's kind as results record it ("dense"), once ``check_kind`` has seen the model."""
    kind = model.metadata.kind
    if kind is None:
        raise LeaderboardError(f"model {model.metadata.name!r} has no kind: its checks were skipped")
    return kind.value


def check_model_options(model: Model, spec: str, options: RunOptions) -> None:
    """A --device that does not exist is bad input; an option the model does not use gets a one-line note."""
    uses = type(model).uses_options
    given = {"device": options.device, "dtype": options.dtype, "max_length": options.max_length}
    unused = [
        f"--{name.replace('_', '-')}"
        for name, value in given.items()
        if value is not None and uses is not None and name not in uses
    ]
    if unused:
        warnings.warn(f"model {shorten(spec)} does not use {' or '.join(unused)}: ignored.", Note, stacklevel=2)
    if options.device is not None and (uses is None or "device" in uses):
        check_device(options.device)


@functools.cache
def check_device(device: str) -> None:
    """Refuse a torch device this machine does not have, before any weights load (exit 2, not a crash)."""
    try:
        import torch
    except ImportError:  # no torch, no torch models: the model itself says what it needs
        return
    shown = shorten(device, 40)
    try:
        parsed = torch.device(device)
    except (RuntimeError, TypeError):
        raise BadInput(f"--device {shown!r}: not a torch device; expected e.g. cpu, cuda, cuda:0 or mps.") from None
    if parsed.type == "cuda":
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if count == 0:
            raise BadInput(f"--device {shown}: this machine has no CUDA GPU that torch can use; use --device cpu.")
        if parsed.index is not None and parsed.index >= count:
            raise BadInput(f"--device {shown}: this machine has {count} CUDA GPU(s), numbered from 0.")
    elif parsed.type == "mps" and not torch.backends.mps.is_available():
        raise BadInput(f"--device {shown}: Apple's MPS is not available on this machine; use --device cpu.")
    elif parsed.type not in ("cpu", "cuda", "mps"):
        raise BadInput(f"--device {shown}: the harness runs models on cpu, cuda or mps.")


def plugin_call(function: Any, what: str, *args: Any) -> Any:
    """Call plugin code; a plugin's own crash becomes an internal error that names it."""
    try:
        return function(*args)
    except (LeaderboardError, KeyboardInterrupt):
        raise
    except Exception as exc:
        raise LeaderboardError(f"{what} failed: {type(exc).__name__}: {exc}") from exc


def _plugin_version(registry: Registry, plugin: str) -> str | None:
    info = registry.plugins.get(plugin)
    return info.version if info else None


def build_model(registry: Registry, spec: str, options: RunOptions, built: dict[str, LoadedModel]) -> LoadedModel:
    """Build a model (or a pipeline of two) without loading weights; ``built`` shares models within a run."""
    from leaderboard.contract.model import ModelRequest
    from leaderboard.engine.pipeline import parse as parse_pipeline

    if spec in built:
        return built[spec]
    pipeline = parse_pipeline(spec)
    if pipeline is not None:
        first = build_model(registry, pipeline.first, options, built)
        reranker = build_model(registry, pipeline.reranker, options, built)
        components = [
            {
                "role": role,
                "name": part.model.metadata.name,
                "revision": part.model.metadata.revision,
                "plugin": part.plugin,
                "plugin_version": part.plugin_version,
            }
            for role, part in (("first_stage", first), ("reranker", reranker))
        ]
        plugins = " >> ".join(dict.fromkeys((first.plugin, reranker.plugin)))
        built[spec] = LoadedModel(
            Pipeline(first.model, reranker.model, pipeline.depth, labels=(pipeline.first, pipeline.reranker)),
            spec,
            plugins,
            None,
            components,
            loaded=first.loaded and reranker.loaded,
        )
        return built[spec]
    resolved = registry.resolve("model", spec)
    request = ModelRequest(
        spec, resolved.argument, options.batch_size, options.device, options.max_length, options.dtype
    )
    model = _create(resolved, request, "model")
    if not isinstance(model, Model):
        raise LeaderboardError(
            f"model plugin {resolved.registration.plugin!r} returned {type(model).__name__} for {spec!r}, "
            "not a leaderboard.Model"
        )
    check_kind(model, f"model {spec!r} (plugin {resolved.registration.plugin!r})")
    check_model_options(model, spec, options)
    plugin = resolved.registration.plugin
    built[spec] = LoadedModel(model, spec, plugin, _plugin_version(registry, plugin))
    return built[spec]


def _create(resolved: Resolved, request: Any, what: str) -> Any:
    reg = resolved.registration
    return plugin_call(reg.factory, f"{what} plugin {reg.plugin!r} creating {request.name!r}", request)


def name_problem(name: object) -> str | None:
    """Why a task's name cannot be one (None: it can). Names are plain words, never paths: a plugin that
    builds its name and its data location from the --task argument (``mair:<Task>``) then cannot be
    led outside its data folder, and no name reads as a path in a result, a file name or a message."""
    import unicodedata

    if not isinstance(name, str) or not name.strip():
        return "is empty"
    if "/" in name or "\\" in name or ".." in name:
        return "is a path (it holds '/', '\\' or '..'); a task name is a plain name such as my-task-v2"
    if any(unicodedata.category(c).startswith("C") for c in name):
        return "holds a control or formatting character"
    return None


def make_task(registry: Registry, spec: str, options: RunOptions) -> tuple[Task, Resolved]:
    resolved = registry.resolve("task", spec)
    request = TaskRequest(
        spec, resolved.argument, options.data_dirs.get(spec), options.seed, dict(options.task_options)
    )
    task = _create(resolved, request, "task")
    if not isinstance(task, Task):
        raise LeaderboardError(
            f"task plugin {resolved.registration.plugin!r} returned {type(task).__name__} for {spec!r}, "
            "not a leaderboard.Task"
        )
    return check_task(task, f"--task {shorten(repr(spec), 120)}", options), resolved


def check_task(task: Task, who: str, options: RunOptions) -> Task:
    """A task's name and the options it was given, checked before anything is loaded."""
    name = getattr(getattr(task, "metadata", None), "name", None)
    problem = name_problem(name)
    if problem:  # a task argument never becomes a path (mair:/etc, mteb:../x)
        raise BadInput(f"{who}: the task's name {shorten(repr(name))} {problem}.")
    unknown = sorted(set(options.task_options) - set(task.metadata.options))
    if unknown:
        accepted = ", ".join(f"{k} ({v})" for k, v in task.metadata.options.items()) or "none"
        raise BadInput(
            f"--task-option {', '.join(shorten(k, 60) for k in unknown)}: not an option of task {task.metadata.name};"
            f" it accepts: {accepted}."
        )
    return task


def task_of(registry: Registry, spec: str | Task, options: RunOptions) -> Task:
    """The task a run names: built by its plugin from a registered name, or given as an object."""
    if isinstance(spec, Task):
        return check_task(spec, f"task object {type(spec).__name__}", options)
    if not isinstance(spec, str):
        raise BadInput(f"a task is a registered name or a leaderboard.Task object, not {type(spec).__name__}")
    return make_task(registry, spec, options)[0]


def check_compatible(task: Task, model: Model) -> None:
    """Refuse before any weights load: a reranker alone cannot search a corpus."""
    if isinstance(task, RetrievalTask) and isinstance(model, Reranker):
        raise BadInput(
            f"Model {model.metadata.name!r} is a reranker: it scores given candidates and cannot search a corpus "
            f'on its own. Put a first-stage retriever in front of it, e.g. --model "bm25 >> {model.metadata.name}".'
        )


def _stages(model: Model) -> list[Model]:
    """The model, or a pipeline's two stages (each may be a variant)."""
    return [model.first, model.reranker] if isinstance(model, Pipeline) else [model]


def bound_variants(model: Model) -> list[Model]:
    """The stages of ``model`` that are protocol variants bound to their papers' benchmarks."""
    found = []
    for stage in _stages(model):
        variant = getattr(stage.metadata, "variant", None)
        if variant is not None and not getattr(variant, "runs_anywhere", False):
            found.append(stage)
    return found


def benchmark_tasks(registry: Registry, names: tuple[str, ...]) -> dict[str, list[str]]:
    """name -> the tasks of each named benchmark installed here (a declaration that fails is left out)."""
    found: dict[str, list[str]] = {}
    for name in names:
        registration = registry.entries["benchmark"].get(name)
        if registration is None:
            continue
        try:
            benchmark = registration.factory()
        except Exception:  # one plugin's broken declaration: the variant is then refused, naming its benchmarks
            continue
        rows = [*benchmark.tasks, *(row for side in benchmark.also for row in side.tasks)]
        found[name] = list(dict.fromkeys(row.task for row in rows))
    return found


def check_variant(registry: Registry, model: Model, task: str) -> None:
    """Refuse (exit 2, one line) a protocol variant on a task outside its paper's benchmark(s): there the
    protocol is not the paper's, and the board would show it as if it were."""
    for stage in bound_variants(model):
        variant = stage.metadata.variant
        assert variant is not None
        tasks = benchmark_tasks(registry, variant.benchmarks)
        if any(task in listed for listed in tasks.values()):
            continue
        named = "; ".join(
            f"{name}: {', '.join(tasks[name])}" if name in tasks else f"{name} (not installed here)"
            for name in variant.benchmarks
        )
        raise BadInput(
            f"model {stage.metadata.name!r} is {variant.protocol}, a protocol variant of {variant.of} that runs "
            f"only on its paper's benchmark ({named}), not on {task}; run {variant.of} there instead."
        )
