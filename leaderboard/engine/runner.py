"""The run of one (model, task) pair: from checked objects to a written result file.

``prepare`` loads the task's data and starts the result record (or finds the run already done),
``compute`` evaluates and completes the record, ``finish`` validates and writes it: three steps, so
``compute`` alone can run in a Ray worker while preparing and writing stay with the caller.
Building and checking models and tasks belong to ``engine.building``, coverage and partial runs
to ``engine.coverage``, and the model x task loop, shared models and caches to ``engine.api``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from leaderboard import provenance
from leaderboard.contract.model import Model
from leaderboard.contract.task import CandidateTask, ExternalTask, RetrievalTask, ScoreReport, Task
from leaderboard.engine.building import (
    LoadedModel,
    check_compatible,
    check_variant,
    kind_value,
    plugin_call,
    task_of,
)
from leaderboard.engine.contract_checks import RETURN_A_REPORT, check_data, check_report, dry_score
from leaderboard.engine.coverage import (
    apply_corpus_sample,
    counts_of,
    coverage_of,
    limit_queries,
    missing_parts,
    partial_path,
    partial_tag,
    query_count,
)
from leaderboard.engine.dense import EmbeddingMemo, SearchOptions
from leaderboard.engine.evaluation import Context, retrieve, score_candidates
from leaderboard.engine.instructions import used_strings
from leaderboard.engine.options import RunOptions
from leaderboard.engine.pipeline import FirstStageRuns, Pipeline
from leaderboard.engine.strata import add_complexity_strata, complexity_view
from leaderboard.errors import BadInput, LeaderboardError
from leaderboard.progress import step
from leaderboard.records import files
from leaderboard.records.per_query import partial_metrics
from leaderboard.records.result import SCHEMA_VERSION, Result, encode_per_query, now
from leaderboard.registry import Registry


@dataclass
class RunOutcome:
    """One (model, task) pair's outcome: the result written now, or the identical one found and skipped.

    Attributes:
        model: The model's name, as its result records it.
        task: The task's name.
        status: ``"written"`` (run now) or ``"skipped"`` (an identical result was there).
        path: The result file.
        result: The result, read back as a typed record.
    """

    model: str
    task: str
    status: str  # "written" or "skipped"
    path: Path
    result: Result


@dataclass
class Timer:
    """The seconds each phase of a run took (data load, model load, evaluation), as the result records them."""

    timings: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.timings[name] = round(self.timings.get(name, 0.0) + time.perf_counter() - start, 6)


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


def require_per_query(name: str, report: ScoreReport, complete: bool) -> None:
    """A complete run carries per-query values, unless the task says why it has none (``details["per_query"]``)."""
    reason = report.details.get("per_query")
    if complete and not report.per_query and not (isinstance(reason, str) and reason.strip()):
        raise LeaderboardError(
            f"task {name!r} returned a ScoreReport without per-query values; {RETURN_A_REPORT}. A task whose "
            'values cannot exist per query says why in details={"per_query": "<reason>"}.'
        )


def _load_data(task: Task, spec: str, options: RunOptions) -> Any:
    """The task's data; bad or missing data names the task and the --data-dir TASK=DIR form that fixes it."""
    try:
        return plugin_call(task.load, f"task {task.metadata.name!r}: load()")
    except BadInput as exc:
        given = _folder_given(spec) if spec != task.metadata.name else None
        exc.args = (_data_message(str(exc), spec, options.data_dirs, given),)
        raise  # the same exception (DataUnavailable keeps its label)


def _folder_given(spec: str) -> str | None:
    """The folder a task given as ``PATH`` or ``PREFIX:PATH`` reads its data from; None for a task given by name."""
    for candidate in (spec, spec.partition(":")[2]):
        if candidate and Path(candidate).expanduser().is_dir():
            return candidate
    return None


def _data_message(message: str, spec: str, data_dirs: Mapping[str, str], given: str | None = None) -> str:
    """``given``: the folder the task itself names (``--task PATH``), where --data-dir does not apply."""
    folder = data_dirs.get(spec)
    sharing = sorted(task for task, other in data_dirs.items() if other == folder) if folder else []
    if len(sharing) > 1:  # a bare --data-dir DIR went to every task: only one of them can read it
        own = " ".join(f"--data-dir {task}=DIR" for task in sharing)
        hint = f"--data-dir {folder} was given to every task ({', '.join(sharing)}); give each its own folder: {own}."
    elif folder or f"{spec}=" in message:
        hint = ""  # the user named this task's folder: the task's own message says what is wrong with it
    elif given:
        hint = (
            f"This task's data is the folder {given} given as --task: correct the file named, "
            "or see `leaderboard tasks` for what such a folder holds."
        )
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
    check_variant(registry, model, meta.name)
    with timer.phase("data_load"), step(f"loading {meta.name}"):
        data = _load_data(task, task_spec if isinstance(task_spec, str) else meta.name, options)
        check_data(task, data)  # before any model loads: a mistake in the data is named where it is made
        total = query_count(data)
        data = limit_queries(data, options.limit)
        corpus_total = apply_corpus_sample(data, options)
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
        "coverage": coverage_of(data, options, total, corpus_total),
    }
    if corpus_total is not None and len(data.corpus) < corpus_total:  # only when it cut: a full run stays one
        record["settings"]["corpus_sample"] = options.corpus_sample
    if getattr(data, "query_instructions", None):
        record["settings"].update(_query_instruction_settings(model, data.query_instructions))
    partial = None if record["coverage"]["complete"] else partial_tag(options)
    # This version's path or an earlier version's; raises when it holds another run (another model's: always).
    path, existing = files.destination(options.output, record, overwrite=options.overwrite, partial=partial)
    if existing is not None:
        return RunOutcome(model.metadata.name, meta.name, "skipped", path, existing)
    dry_score(task, data)  # the report's shape, on a stand-in run, before any model loads
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
    report = check_report(task, report)
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
        if not options.allow_partial:  # a partial result only when asked for: nothing is written
            raise BadInput(
                f"{meta.name}: {report.incomplete}. Nothing was written; run again when the cause is fixed, or "
                "pass --allow-partial to write what was computed as a partial result (never ranked or pushed)."
            )
        coverage = record["coverage"]
        coverage["complete"] = False
        coverage["reason"] = "; ".join(filter(None, [coverage["reason"], report.incomplete]))
    missing = missing_parts(meta.splits, meta.subsets, report.scores)
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
        counts=counts_of(data, ctx) | cache_counts,
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
        path = partial_path(path, options, record, model, meta, "incomplete")
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
