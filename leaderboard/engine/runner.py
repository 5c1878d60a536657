"""The runner: one (model, task) pair from resolved objects to a written result file.

It owns everything around the model and the task: skipping, timings, provenance and the
result record. The model x task loop, shared models and caches belong to ``engine.api``.
"""

from __future__ import annotations

import functools
import time
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from leaderboard import provenance
from leaderboard.contract.model import Model, ModelKind, ModelMetadata, Reranker, kind_of
from leaderboard.contract.task import (
    CandidateData,
    CandidateTask,
    ExternalTask,
    RetrievalData,
    RetrievalTask,
    ScoreReport,
    Task,
    TaskRequest,
)
from leaderboard.engine.dense import EmbeddingMemo, SearchOptions
from leaderboard.engine.evaluation import Context, retrieve, score_candidates
from leaderboard.engine.instructions import used_strings
from leaderboard.engine.options import RunOptions
from leaderboard.engine.pipeline import FirstStageRuns, Pipeline
from leaderboard.engine.strata import add_complexity_strata, complexity_view
from leaderboard.errors import BadInput, LeaderboardError, Note, shorten
from leaderboard.progress import step
from leaderboard.records import files
from leaderboard.records.per_query import partial_metrics
from leaderboard.records.result import SCHEMA_VERSION, Result, encode_per_query, now
from leaderboard.registry import Registry, Resolved


@dataclass
class RunOutcome:
    model: str
    task: str
    status: str  # "written" or "skipped"
    path: Path
    result: Result


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
            _plugin_call(self.model.load, f"model {self.spec!r}: load()")  # a pipeline loads both stages
        self.loaded = True
        self.load_seconds = time.perf_counter() - start
        return self.load_seconds


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


def embedding_memo(model: Model, options: RunOptions) -> EmbeddingMemo:
    """An in-run memo, backed by the on-disk cache for dense models (and a pipeline's dense stage)."""
    from leaderboard.contract.model import DenseModel

    target = model.first if isinstance(model, Pipeline) else model
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


def search_options(options: RunOptions) -> SearchOptions:
    return SearchOptions(
        shard_rows=options.shard_rows,
        shard_dir=Path(options.shard_dir) if options.shard_dir else None,
        dtype=options.dtype,
        keep_shards=options.keep_shards,
    )


def _plugin_call(function: Any, what: str, *args: Any) -> Any:
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
    return _plugin_call(reg.factory, f"{what} plugin {reg.plugin!r} creating {request.name!r}", request)


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


def _limit(data: Any, limit: int | None) -> Any:
    if limit is None:
        return data
    if isinstance(data, RetrievalData):
        keep = list(data.queries)[:limit]
        data.queries = {q: data.queries[q] for q in keep}
        data.qrels = {q: data.qrels[q] for q in keep if q in data.qrels}
    elif isinstance(data, CandidateData):
        data.sets = data.sets[:limit]
    return data


def _settings(task: Task, model: Model, options: RunOptions) -> dict[str, Any]:
    strings = used_strings(model, task.metadata.instruction)
    return {
        "batch_size": options.batch_size,
        "max_length": model.metadata.max_length,
        "device": options.device,
        "dtype": options.dtype,  # as requested (None: the model's own); what it ran in is in model.metadata
        "seed": options.seed,
        "limit": options.limit,
        "top_k": task.metadata.top_k if isinstance(task, RetrievalTask) else None,
        "instruction": strings.pop("instruction"),
        "prompts": strings,
        "model_settings": model.settings(),
        "task_options": dict(options.task_options),
        "libraries": provenance.library_versions(),
    }


def _query_instruction_settings(model: Model, instructions: dict[str, str]) -> dict[str, Any]:
    """What a result records when each query brings its own instruction (the texts are in the data)."""
    import hashlib
    import json

    applied = model.metadata.takes_instructions
    distinct = sorted(set(instructions.values()))
    digest = hashlib.sha256(json.dumps(instructions, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
    return {
        "instruction": "per query, from the data" if applied else None,
        "query_instructions": {
            "applied": applied,
            "queries": len(instructions),
            "distinct": len(distinct),
            "sha256": digest,
            "examples": [text[:300] for text in distinct[:3]],
        },
    }


def check_compatible(task: Task, model: Model) -> None:
    """Refuse before any weights load: a reranker alone cannot search a corpus."""
    if isinstance(task, RetrievalTask) and isinstance(model, Reranker):
        raise BadInput(
            f"Model {model.metadata.name!r} is a reranker: it scores given candidates and cannot search a corpus "
            f'on its own. Put a first-stage retriever in front of it, e.g. --model "bm25 >> {model.metadata.name}".'
        )


def _evaluate(task: Task, model: Model, data: Any, ctx: Context) -> Any:
    if isinstance(task, RetrievalTask):
        run = retrieve(model, data.corpus, data.queries, task.metadata.top_k, ctx)
        with step("scoring"):
            return task.compute_scores(data, run)
    if isinstance(task, CandidateTask):
        scores = score_candidates(model, data.sets, ctx)
        with step("computing metrics"):
            return task.compute_scores(data, scores)
    if isinstance(task, ExternalTask):
        return task.evaluate_model(model, data, ctx.batch_size)
    raise LeaderboardError(
        f"task {task.metadata.name!r} is a {type(task).__name__}: subclass RetrievalTask, CandidateTask or ExternalTask"
    )


RETURN_A_REPORT = (
    "return ScoreReport(scores, per_query={query id: {metric: value}}) (leaderboard.ScoreReport): the per-query "
    "values are the numbers behind every score's interval and paired test"
)


def checked_report(name: str, task: Task, report: object) -> ScoreReport:
    """What the task returned, if it is a ``ScoreReport``: bare scores stop the task's first run, not its write."""
    if isinstance(report, ScoreReport):
        return report
    method = "evaluate_model" if isinstance(task, ExternalTask) else "compute_scores"
    raise LeaderboardError(
        f"task {name!r}: {method}() returned {type(report).__name__}, not a ScoreReport; {RETURN_A_REPORT}"
    )


def require_per_query(name: str, report: ScoreReport, complete: bool) -> None:
    """A complete run carries per-query values, unless the task says why it has none (``details["per_query"]``)."""
    reason = report.details.get("per_query")
    if complete and not report.per_query and not (isinstance(reason, str) and reason.strip()):
        raise LeaderboardError(
            f"task {name!r} returned a ScoreReport without per-query values; {RETURN_A_REPORT}. A task whose "
            'values cannot exist per query says why in details={"per_query": "<reason>"}.'
        )


def _counts(data: Any, ctx: Context) -> dict[str, int]:
    counts = {
        "texts_requested": ctx.stats.requested,
        "texts_encoded": ctx.stats.unique,
        "pairs_scored": ctx.pairs_scored,
    }
    if ctx.first_stage_reused is not None:
        counts["first_stage_reused"] = int(ctx.first_stage_reused)
    if isinstance(data, RetrievalData):
        counts.update(queries=len(data.queries), documents=len(data.corpus))
    elif isinstance(data, CandidateData):
        counts.update(candidate_sets=len(data.sets), candidates=sum(len(s.candidates) for s in data.sets))
    return counts


def _coverage(data: Any, options: RunOptions, total: int | None, corpus_total: int | None = None) -> dict[str, Any]:
    queries = (
        len(data.queries)
        if isinstance(data, RetrievalData)
        else len(data.sets)
        if isinstance(data, CandidateData)
        else None
    )
    limited = options.limit is not None and total is not None and queries is not None and queries < total
    reasons = [f"--limit {options.limit}"] if limited else []
    if corpus_total is not None and len(data.corpus) < corpus_total:
        reasons.append(f"--corpus-sample {options.corpus_sample}: {len(data.corpus)} of {corpus_total} documents")
    return {
        "complete": not reasons,
        "queries": queries,
        "total_queries": total,
        "reason": "; ".join(reasons) or None,
    }


def _sample(data: Any, options: RunOptions) -> int | None:
    """Apply --corpus-sample to a retrieval task's corpus; the full corpus size (None when not asked)."""
    if options.corpus_sample is None:
        return None
    if not isinstance(data, RetrievalData):
        raise BadInput("--corpus-sample applies to retrieval tasks (a corpus to search); this task has none.")
    from leaderboard.engine.sampling import sample_corpus

    return sample_corpus(data, options.corpus_sample, options.seed)


def _partial_tag(options: RunOptions) -> str:
    """The name part that keeps a partial result apart from the full one (and from other partial runs)."""
    parts = [f"limit{options.limit}"] if options.limit is not None else []
    if options.corpus_sample is not None:
        parts.append(f"sample{options.corpus_sample}-seed{options.seed}")
    return "-".join(parts) or "partial"


def _size(data: Any) -> int | None:
    if isinstance(data, RetrievalData):
        return len(data.queries)
    if isinstance(data, CandidateData):
        return len(data.sets)
    return None


def _missing_parts(splits: list[str], subsets: list[str], scores: dict) -> str:
    """The declared splits (and subsets within each) that the scores lack, as 'split/subset, ...'."""
    missing = []
    for split in splits:
        if split not in scores:
            missing.append(split)
            continue
        missing.extend(f"{split}/{subset}" for subset in subsets if subset not in scores[split])
    return ", ".join(missing)


def _partial_path(path: Path, options: RunOptions, record: dict, model: Model, meta: Any, tag: str) -> Path:
    """Where a result found partial only after scoring goes; an existing different run there is kept."""
    target = files.result_path(options.output, model.metadata.name, model.metadata.revision, meta.name, partial=tag)
    if target == path:
        return target
    # An identical earlier run there is replaced (this one is newer); a different one needs --overwrite.
    target, _ = files.destination(options.output, record, overwrite=options.overwrite, partial=tag)
    return target


def _load_data(task: Task, spec: str, options: RunOptions) -> Any:
    """The task's data; bad or missing data names the task and the --data-dir TASK=DIR form that fixes it."""
    try:
        return _plugin_call(task.load, f"task {task.metadata.name!r}: load()")
    except BadInput as exc:
        exc.args = (_data_message(str(exc), spec, options.data_dirs),)
        raise  # the same exception (DataUnavailable keeps its label)


def _data_message(message: str, spec: str, data_dirs: Mapping[str, str]) -> str:
    folder = data_dirs.get(spec)
    sharing = sorted(task for task, other in data_dirs.items() if other == folder) if folder else []
    if len(sharing) > 1:  # a bare --data-dir DIR went to every task: only one of them can read it
        own = " ".join(f"--data-dir {task}=DIR" for task in sharing)
        hint = f"--data-dir {folder} was given to every task ({', '.join(sharing)}); give each its own folder: {own}."
    elif folder or f"{spec}=" in message:
        hint = ""  # the user named this task's folder: the task's own message says what is wrong with it
    else:
        hint = f"This task's folder is given as --data-dir {spec}=DIR."
    return " ".join(part for part in (f"task {spec}: {message}", hint) if part)


@dataclass
class Prepared:
    """A (model, task) pair ready to evaluate: data loaded, record started, destination chosen."""

    task: Task
    data: Any
    record: dict[str, Any]
    path: Path
    partial: str | None
    timer: Timer


def prepare(
    registry: Registry, handle: LoadedModel, task_spec: str | Task, options: RunOptions
) -> Prepared | RunOutcome:
    """Load the task's data and decide where the result goes; a finished identical run is skipped here."""
    model = handle.model
    timer = Timer()
    task = task_of(registry, task_spec, options)
    meta = task.metadata
    if options.limit is not None and not meta.supports_limit:
        raise BadInput(
            f"--limit is not supported for {meta.name}: the task runs as a whole (use a smaller local dataset instead)."
        )
    check_compatible(task, model)
    with timer.phase("data_load"), step(f"loading {meta.name}"):
        data = _load_data(task, task_spec if isinstance(task_spec, str) else meta.name, options)
        total = _size(data)
        data = _limit(data, options.limit)
        corpus_total = _sample(data, options)
    record: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "harness": provenance.harness_info(),
        "task": {**meta.to_json(task.evaluation), "source": vars(data.source).copy()},
        "model": {
            "name": model.metadata.name,
            "kind": kind_value(model),
            "revision": model.metadata.revision,
            "plugin": handle.plugin,
            "plugin_version": handle.plugin_version,
            "metadata": model.metadata.to_json(),
            "components": handle.components,
        },
        "settings": _settings(task, model, options),
        "coverage": _coverage(data, options, total, corpus_total),
    }
    if corpus_total is not None and len(data.corpus) < corpus_total:  # only when it cut: a full run stays one
        record["settings"]["corpus_sample"] = options.corpus_sample
    if getattr(data, "query_instructions", None):
        record["settings"].update(_query_instruction_settings(model, data.query_instructions))
    partial = None if record["coverage"]["complete"] else _partial_tag(options)
    # This version's path or an earlier version's; raises when it holds another run (another model's: always).
    path, existing = files.destination(options.output, record, overwrite=options.overwrite, partial=partial)
    if existing is not None:
        return RunOutcome(model.metadata.name, meta.name, "skipped", path, existing)
    return Prepared(task, data, record, path, partial, timer)


def compute(
    prepared: Prepared,
    handle: LoadedModel,
    options: RunOptions,
    memo: EmbeddingMemo | None = None,
    first_stage: FirstStageRuns | None = None,
    search: SearchOptions | None = None,
) -> dict[str, Any]:
    """Evaluate and complete the record (not yet validated or written). Runs in a Ray worker under --ray."""
    search = search or search_options(options)
    with _shard_writer(prepared, handle, search):  # before the model loads: a second writer waits first
        return _compute(prepared, handle, options, memo, first_stage, search)


@contextmanager
def _shard_writer(prepared: Prepared, handle: LoadedModel, search: SearchOptions) -> Iterator[None]:
    """The shard folder's writer lock (``corpus_store.writer_lock``) for a run that will write corpus shards."""
    from leaderboard.contract.model import DenseModel
    from leaderboard.engine.corpus_store import writer_lock

    target = handle.model.first if isinstance(handle.model, Pipeline) else handle.model
    corpus = getattr(prepared.data, "corpus", None)
    on_disk = (
        isinstance(prepared.task, RetrievalTask)
        and isinstance(target, DenseModel)
        and corpus is not None
        and (search.always_on_disk or len(corpus) > search.shard_rows)  # a one-shard corpus stays in memory
    )
    if not on_disk:
        yield
        return
    meta = target.metadata
    key = {
        "model": meta.name,
        "revision": meta.revision,
        "task": prepared.task.metadata.name,
        "data": prepared.data.source.content_hash,
        "dtype": search.dtype,
    }
    with writer_lock(search.shard_dir, key):
        yield


def _compute(
    prepared: Prepared,
    handle: LoadedModel,
    options: RunOptions,
    memo: EmbeddingMemo | None,
    first_stage: FirstStageRuns | None,
    search: SearchOptions,
) -> dict[str, Any]:
    model, task, data, record, timer = handle.model, prepared.task, prepared.data, prepared.record, prepared.timer
    meta = task.metadata
    timer.timings["model_load"] = round(handle.ensure_loaded(), 6)
    # load() may fill in parameter counts and the dtype the weights are in (metadata.dtype).
    record["model"]["metadata"] = model.metadata.to_json()
    disk = memo.disk if memo is not None else None
    before = (disk.stats.hits, disk.stats.misses, disk.stats.corrupt) if disk else (0, 0, 0)
    ctx = Context(
        options.batch_size,
        meta.instruction,
        memo=memo if memo is not None else EmbeddingMemo(),
        first_stage=first_stage if first_stage is not None else FirstStageRuns(),
        task_key=(meta.name, data.source.content_hash),
        search=search,
        query_instructions=getattr(data, "query_instructions", None) or {},
    )
    with timer.phase("evaluation"):
        report = _evaluate(task, model, data, ctx)
    report = checked_report(meta.name, task, report)
    record["task"]["metrics"] = meta.to_json(task.evaluation)["metrics"]  # external tasks learn theirs while evaluating
    cache_counts = {}
    if disk is not None:
        cache_counts = {
            "cache_hits": disk.stats.hits - before[0],
            "cache_misses": disk.stats.misses - before[1],
            "cache_corrupt_recomputed": disk.stats.corrupt - before[2],
        }
    main_split = meta.splits[0]
    try:
        main = report.scores[main_split]["default"][meta.main_score]
    except KeyError:
        raise LeaderboardError(
            f"task {meta.name!r} did not report its main score {meta.main_score!r} for split {main_split!r}"
        ) from None
    if report.incomplete:  # the task's own word: e.g. its judge stopped answering
        if not options.allow_partial:  # a partial result only when asked for (issue 36): nothing is written
            raise BadInput(
                f"{meta.name}: {report.incomplete}. Nothing was written; run again when the cause is fixed, or "
                "pass --allow-partial to write what was computed as a partial result (never ranked or pushed)."
            )
        coverage = record["coverage"]
        coverage["complete"] = False
        coverage["reason"] = "; ".join(filter(None, [coverage["reason"], report.incomplete]))
    missing = _missing_parts(meta.splits, meta.subsets, report.scores)
    if missing:  # checked before strata are added: the declared parts are the task's own
        coverage = record["coverage"]
        coverage["complete"] = False
        coverage["reason"] = "; ".join(filter(None, [coverage["reason"], f"missing from the scores: {missing}"]))
    require_per_query(meta.name, report, record["coverage"]["complete"])
    strata_texts = data.queries if isinstance(task, RetrievalTask) else getattr(data, "query_texts", None)
    if strata_texts and report.per_query:
        add_complexity_strata(report, strata_texts, meta.main_score, main_split)
        if "complexity" in report.details:
            record["task"]["views"] = [*record["task"]["views"], complexity_view(report.details["complexity"])]
    if report.per_query:
        metric_queries = partial_metrics(report.per_query) | report.metric_queries  # the task's own list wins
        record["per_query"] = encode_per_query(
            report.per_query, report.subset_queries, metric_queries, report.macro_over
        ).model_dump(mode="json")
    timer.timings["total"] = round(sum(v for k, v in timer.timings.items() if k != "total"), 6)
    record.update(
        scores=report.scores,
        main_score=main,
        counts=_counts(data, ctx) | cache_counts,
        timings=timer.timings,
        confidence_intervals=report.confidence_intervals,
        subset_sizes=report.subset_sizes,
        task_details=report.details,
        hardware=provenance.hardware_info(options.device),
        created_at=now(),
    )
    return record


def finish(prepared: Prepared, record: dict[str, Any], model: Model, options: RunOptions) -> RunOutcome:
    """Validate the record and write it atomically: the only place a result file is written."""
    meta = prepared.task.metadata
    path = prepared.path
    if not record["coverage"]["complete"] and prepared.partial is None:  # found incomplete while scoring
        path = _partial_path(path, options, record, model, meta, "incomplete")
    result = files.build_result(record, where=f"the result of {model.metadata.name} on {meta.name}")
    files.write_result(path, result)
    return RunOutcome(model.metadata.name, meta.name, "written", path, result)


def run_one(
    registry: Registry,
    handle: LoadedModel,
    task_spec: str | Task,
    options: RunOptions,
    memo: EmbeddingMemo | None = None,
    first_stage: FirstStageRuns | None = None,
) -> RunOutcome:
    prepared = prepare(registry, handle, task_spec, options)
    if isinstance(prepared, RunOutcome):
        return prepared
    record = compute(prepared, handle, options, memo, first_stage)
    return finish(prepared, record, handle.model, options)
