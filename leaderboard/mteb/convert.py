"""One mteb result file (any layout) and its model_meta.json -> a result record here, or why it cannot be one.

The record says what it is: a run made by mteb (``harness.name`` "mteb" with mteb's version,
``imported_from`` with the file's repository, commit, path and git blob hash), without per-query
values (so no interval and no significance test on the board), dated by the file's own ``date``
or not at all (never the moment of the import).

Scores follow mteb's own reading of the file:

* metrics nested in dicts are flattened ``<key>_<metric>``, as this harness's own mteb runs store
  them (``og``/``changed`` -> ``og_ndcg_at_5``); mteb 1.x wrote FollowIR's as
  ``individual.original``/``individual.changed`` (mteb 1.x ``AbsTaskInstructionRetrieval
  ._evaluate_subset_lang``), which are the same scores under mteb 2's names ``og``/``changed``;
* the main score is mteb's: ``TaskResult.validate_and_filter_scores(task).get_score()``, the mean of
  the main metric (``TaskMetadata.main_score``) over every evaluation split (``eval_splits``) and every
  ``hf_subset`` of the task in it. A file without the main metric, or with a non-finite or out-of-range
  one, in any of them is skipped;
* several ``hf_subset``s (languages) without a "default" one get a "default" holding the mean of
  each metric they all have (this harness's own mteb runs store it so);
* a task with several evaluation splits gets one more split, ``eval_splits_mean``, first in
  ``task.splits`` (where readers look for the main score): the mean of each metric over the
  evaluation splits. Every split's own scores stay in the record beside it. Each split holds the
  task's subsets, so the mean of the split means is mteb's mean over (split, subset) entries;
* a non-finite value (``NaN`` in some ``nauc_*``) or one outside its metric's range, of any other
  metric, is dropped and named in ``task_details``;
* a file without some of the task's ``hf_subsets`` or evaluation splits is imported as partial (never
  ranked), as mteb's leaderboard fills the missing ones with NaN (``validate_and_filter_scores``);
  its main score is then the mean over what it holds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from leaderboard.metrics.bounds import bounds
from leaderboard.mteb.layouts import NOT_METRICS, Layout, ModelMetaFile, parse_date
from leaderboard.mteb.tasks import MtebTask, Registry
from leaderboard.records.result_checks import SCHEMA_VERSION

# mteb 1.x names of FollowIR's nested score groups -> the names mteb 2 (and this harness) use.
_GROUP_NAMES = {"individual_original_": "og_", "individual_changed_": "changed_"}
_NO_REVISION = {"", "none", "null", "dataset revision not available", "revision_not_applicable"}
# The split that holds the mean over a multi-split task's evaluation splits (mteb's main score). mteb's
# split names are dataset split names ("all" is one of CUREv1's), so the name says what it is.
MEAN_SPLIT = "eval_splits_mean"
EXTERNAL = "external"  # mteb's results repository: scores the model's authors reported, copied in by mteb's maintainers


class Skip(Exception):
    """A file that cannot be imported; the message is the reason (counted and shown in the summary)."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(reason)
        self.reason = reason  # the category the summary counts by
        self.detail = detail  # this file's particulars


@dataclass(frozen=True)
class Source:
    """Where a file comes from: its path in the results repository and that repository's identity."""

    path: str  # e.g. results/org__model/<revision>/<Task>.json
    blob: str  # the git blob sha1 of the file's bytes
    repository: str | None = (
        None  # https://github.com/embeddings-benchmark/results, https://<hub>/datasets/mteb/results
    )
    commit: str | None = None
    url: str | None = None  # the file at that commit (the board links to it)


@dataclass
class Target:
    """The task a file maps to: mteb's, named as a plugin registers it or ``mteb:<Task>``."""

    task: MtebTask
    name: str
    declaration: dict[str, Any] | None = None  # the registered plugin's task declaration (views, paper), if any
    notes: list[str] = field(default_factory=list)


def flatten(entry: dict[str, Any]) -> tuple[dict[str, float], list[str]]:
    """A scores dict's metrics as {name: value} (nested groups joined with "_"); non-finite ones named apart."""
    values: dict[str, float] = {}
    dropped: list[str] = []
    todo: list[tuple[str, Any]] = [(str(k), v) for k, v in entry.items() if k not in NOT_METRICS]
    while todo:
        name, value = todo.pop()
        if type(value) is float or (isinstance(value, (int, float)) and not isinstance(value, bool)):
            if name.startswith("individual_"):
                for old, new in _GROUP_NAMES.items():
                    if name.startswith(old):
                        name = new + name[len(old) :]
                        break
            if math.isfinite(value):
                values[name] = float(value)
            else:
                dropped.append(name)
        elif isinstance(value, dict):
            todo += [(f"{name}_{key}", inner) for key, inner in value.items()]
    return dict(sorted(values.items())), sorted(dropped)


def mteb_version_label(version: str | None) -> str:
    """ "2.18" from "2.18.6" (the first of a range "2.12.16-2.15.4"); "" when not recorded."""
    if not version:
        return ""
    first = version.split("-", 1)[0]
    parts = first.split(".")
    return ".".join(parts[:2]) if len(parts) >= 2 else first


def dataset_revision(value: str | None) -> str | None:
    """The dataset revision the file names; None when it names none ("None" in files of `external` folders)."""
    if value is None or value.strip().lower() in _NO_REVISION:
        return None
    return value.strip()


def _scores(
    layout: Layout, task: MtebTask
) -> tuple[dict[str, dict[str, dict[str, float]]], list[str], list[str], list[str]]:
    """split -> subset -> metric -> value (the main metric on every subset of the main split); the non-finite
    values dropped; those outside their metric's range dropped; notes."""
    main_name = task.main_score or "main_score"
    _check_splits(layout, task)
    scores: dict[str, dict[str, dict[str, float]]] = {}
    dropped: list[str] = []
    outside: list[str] = []
    notes: list[str] = []
    for split, entries in layout.scores.items():
        subsets: dict[str, dict[str, float]] = {}
        for entry in entries:
            if not isinstance(entry, dict):
                continue
            subset = str(entry.get("hf_subset", "default"))
            values, gone = flatten(entry)
            dropped += [f"{split}/{subset}/{name}" for name in gone]
            _read_main_score(entry, values, gone, main_name, f"{split}/{subset}", notes)
            if split in task.splits:
                _check_main_score(values, gone, main_name, f"{split}/{subset}")
            for name in [n for n, v in values.items() if _outside(n, v)]:
                outside.append(f"{split}/{subset}/{name}")
                del values[name]
            if subset in subsets:
                notes.append(f"{split}: hf_subset {subset!r} appears twice; the last one is kept (as mteb merges)")
            if values:
                subsets[subset] = values
        if subsets:
            scores[split] = subsets
    return scores, sorted(set(dropped)), sorted(set(outside)), notes


def _check_splits(layout: Layout, task: MtebTask) -> None:
    """The file holds one of the task's evaluation splits, and no split named as this import names the mean."""
    if not any(split in layout.scores for split in task.splits):
        found = ", ".join(sorted(layout.scores)) or "none"
        wanted = ", ".join(repr(s) for s in task.splits)
        raise Skip("no scores for the task's evaluation split", f"none of {wanted} (found: {found})")
    if MEAN_SPLIT in layout.scores:
        raise Skip("not an mteb TaskResult", f"a split named {MEAN_SPLIT!r}, the name this import gives the mean")


def _read_main_score(
    entry: dict[str, Any], values: dict[str, float], gone: list[str], main_name: str, where: str, notes: list[str]
) -> None:
    """The entry's ``main_score``: the main metric where old files hold only it (a non-finite one is ``gone``);
    a note where it differs from the main metric given by name."""
    raw = entry.get("main_score")
    stated = float(raw) if isinstance(raw, (int, float)) and not isinstance(raw, bool) else None
    if main_name not in values and main_name not in gone and stated is not None:
        if math.isfinite(stated):
            values[main_name] = stated  # old files hold main_score only, not the main metric by its name
        else:
            gone.append(main_name)
    elif main_name in values and stated is not None and math.isfinite(stated) and stated != values[main_name]:
        notes.append(f"{where}: the file's main_score {stated} is not its {main_name}; {main_name} used")


def _check_main_score(values: dict[str, float], gone: list[str], main_name: str, where: str) -> None:
    """An evaluation split's subset has its main score: finite and inside the metric's range."""
    if main_name in gone:
        raise Skip("non-finite main score", f"{main_name} is not a finite number in {where}")
    if main_name not in values:
        raise Skip("no main score", f"no {main_name} (the task's main metric) in {where}")
    value = values[main_name]
    if _outside(main_name, value):
        raise Skip("main score out of range", f"{main_name} = {value} in {where}")


def _listed(names: list[str]) -> str:
    return ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _outside(name: str, value: float) -> bool:
    low, high = bounds(name)
    return (low is not None and value < low) or (high is not None and value > high)


def _add_default(scores: dict[str, dict[str, dict[str, float]]], task: MtebTask) -> None:
    """Each split without "default" gets the mean over its subsets (the task's, when it declares them)."""
    for subsets in scores.values():
        if "default" in subsets:
            continue
        declared = [s for s in subsets if s in task.subsets] or list(subsets)
        shared = set.intersection(*(set(subsets[s]) for s in declared))
        if shared:
            subsets["default"] = {n: sum(subsets[s][n] for s in declared) / len(declared) for n in sorted(shared)}


def _eval_splits(scores: dict[str, dict[str, dict[str, float]]], task: MtebTask) -> list[str]:
    """The task's evaluation splits the file holds, in the task's order (mteb's validate_and_filter_scores)."""
    return [s for s in task.splits if s in scores]


def _add_mean_split(scores: dict[str, dict[str, dict[str, float]]], task: MtebTask) -> str:
    """The split the main score lives in: the only evaluation split, or MEAN_SPLIT, added with each subset's
    mean over the evaluation splits (of the metrics every split holds for it)."""
    if len(task.splits) == 1:
        return task.splits[0]
    present = [scores[s] for s in _eval_splits(scores, task)]
    mean: dict[str, dict[str, float]] = {}
    for subset in [s for s in present[0] if all(s in split for split in present)]:
        shared = set.intersection(*(set(split[subset]) for split in present))
        mean[subset] = {n: sum(split[subset][n] for split in present) / len(present) for n in sorted(shared)}
    scores[MEAN_SPLIT] = mean
    return MEAN_SPLIT


def _coverage(scores: dict[str, dict[str, dict[str, float]]], task: MtebTask) -> dict[str, Any]:
    splits = _eval_splits(scores, task)
    lacking = [s for s in task.splits if s not in splits]
    declared = [s for s in task.subsets if s != "default"]
    missing: set[str] = set()
    for split in splits:
        present = set(scores[split])
        missing |= {s for s in declared if s not in present}
        if "default" in task.subsets and not declared and "default" not in present:
            missing.add("default")
    reasons = []
    if lacking:
        shown = ", ".join(lacking[:5]) + (f" and {len(lacking) - 5} more" if len(lacking) > 5 else "")
        total = len(task.splits)
        reasons.append(f"the mteb file lacks {len(lacking)} of the task's {total} evaluation splits ({shown})")
    if missing:
        ordered = [s for s in task.subsets if s in missing]
        shown = ", ".join(ordered[:5]) + (f" and {len(ordered) - 5} more" if len(ordered) > 5 else "")
        reasons.append(f"the mteb file lacks {len(ordered)} of the task's subsets ({shown})")
    if not reasons:
        return {"complete": True}
    return {"complete": False, "reason": "; ".join(reasons)}


def model_identity(meta: ModelMetaFile | None, folder_model: str, folder_revision: str) -> tuple[str, str]:
    """(name, revision) as mteb's ResultCache reads them: model_meta.json's, else the folder names."""
    name = meta.name if meta is not None and meta.name else folder_model.replace("__", "/")
    revision = meta.revision if meta is not None and meta.revision else folder_revision
    return name, revision


def _model(
    meta: ModelMetaFile | None, name: str, revision: str, version: str | None, training: list[str] | None
) -> dict[str, Any]:
    kind = "dense"  # mteb's ModelMeta default model_type
    if meta is not None and (meta.is_cross_encoder or "cross-encoder" in (meta.model_type or [])):
        kind = "reranker"
    metadata: dict[str, Any] = {}
    if meta is not None:
        metadata = {
            "n_parameters": int(meta.n_parameters) if meta.n_parameters else None,
            "embedding_dim": int(meta.embed_dim) if meta.embed_dim else None,
            "max_length": int(meta.max_tokens) if meta.max_tokens else None,
            "license": meta.license,
            "open_weights": meta.open_weights,
            "release_date": meta.release_date,
            "reference": meta.reference,
            "similarity": meta.similarity_fn_name,
            "takes_instructions": bool(meta.use_instructions),
            "training_datasets": meta.training_names,
            "adapted_from": meta.adapted_from,
        }
    metadata["training_tasks"] = training
    return {
        "name": name,
        "kind": kind,
        "revision": revision,
        "plugin": "mteb",
        "plugin_version": version,
        "metadata": metadata,
    }


def training_tasks(meta: ModelMetaFile | None, registry: Registry) -> list[str] | None:
    """The tasks the model was trained on, with those of the model it was adapted from (in mteb's model
    registry) and their similar tasks (mteb ``ModelMeta.get_training_datasets``); None when model_meta.json
    does not say (mteb: unknown, neither zero-shot nor not)."""
    names = meta.training_names if meta is not None else None
    if meta is None or names is None:
        return None
    trained = set(names) | registry.adapted_training(meta.adapted_from)
    found = set(trained)
    for name in trained:
        found |= registry.similar_tasks(name)
    return sorted(found)


def _task(
    layout: Layout, target: Target, scores: dict[str, Any], revision: str | None, main_split: str
) -> dict[str, Any]:
    task = target.task
    declared = target.declaration or {}
    first = [main_split, *(s for s in _eval_splits(scores, task) if s != main_split)]
    names = sorted({n for subsets in scores.values() for values in subsets.values() for n in values})
    return {
        "name": target.name,
        "family": declared.get("family") or "mteb",
        "version": declared.get("version") or "1",
        "description": declared.get("description") or f"mteb's {task.name} ({task.type}), imported from mteb's results",
        "reference": declared.get("reference") or "",
        "citation": declared.get("citation"),
        "evaluation": "external",
        "source": {"kind": "hub", "uri": f"mteb:{task.name}", "revision": revision, "content_hash": None},
        "metrics": [_metric(n) for n in names],
        "main_score": task.main_score,
        "splits": [*first, *sorted(s for s in scores if s not in first)],
        "subsets": sorted({s for subsets in scores.values() for s in subsets}),
        "supports_limit": False,
        "views": [v for v in declared.get("views", []) if isinstance(v, dict)],
    }


def _metric(name: str) -> dict[str, Any]:
    low, high = bounds(name)  # what readers check imported values against (records.result_checks.metric_range)
    return {"name": name, "direction": "higher", "description": "reported by mteb", "low": low, "high": high}


def convert(
    layout: Layout,
    meta: ModelMetaFile | None,
    folder_model: str,
    folder_revision: str,
    source: Source,
    target: Target,
    *,
    training: list[str] | None = None,
    meta_note: str | None = None,
) -> dict[str, Any]:
    """The result record of one file (raises Skip with the reason it cannot be imported).

    ``training``: the model's training tasks with their similar ones (``training_tasks``), None when unknown."""
    task = target.task
    scores, dropped, outside, notes = _scores(layout, task)
    if not _eval_splits(scores, task):
        raise Skip("no main score", f"no scores in the task's evaluation splits ({', '.join(task.splits)})")
    _add_default(scores, task)
    main_split = _add_mean_split(scores, task)
    name, revision = model_identity(meta, folder_model, folder_revision)
    main_score = scores[main_split]["default"][task.main_score or ""]
    notes = [*target.notes, *([meta_note] if meta_note else []), *notes]
    date = parse_date(layout.date)
    if layout.date is not None and date is None:
        notes.append(f"the file's date {str(layout.date)[:40]!r} cannot be read; the result has no date")
    timings: dict[str, float] = {}
    seconds = layout.evaluation_time
    if seconds is not None and math.isfinite(seconds) and seconds >= 0:
        timings["total"] = float(seconds)
    elif seconds is not None:
        notes.append(f"evaluation_time {seconds} is not a duration; left out")
    data_revision = dataset_revision(layout.dataset_revision)
    details: dict[str, Any] = {
        "framework": "mteb",
        "mteb_task": task.name,
        "mteb_task_type": task.type,
        "mteb_eval_splits": list(task.splits),  # the main score is the mean over these (and the task's subsets)
        "mteb_file_task_name": layout.task_name,
        "mteb_version": layout.mteb_version,
        "mteb_dataset_revision": data_revision,
        "mteb_layout": "before 1.11" if layout.old_format else "TaskResult",
    }
    if layout.kg_co2_emissions is not None and math.isfinite(layout.kg_co2_emissions):
        details["kg_co2_emissions"] = layout.kg_co2_emissions
    if dropped:
        details["non_finite_metrics_dropped"] = dropped  # the name this harness's own mteb runs use
        notes.append(f"dropped {len(dropped)} non-finite value(s) (NaN, infinity): {_listed(dropped)}")
    if outside:
        details["out_of_range_metrics_dropped"] = outside
        notes.append(f"dropped {len(outside)} value(s) outside their metric's range: {_listed(outside)}")
    if notes:
        details["import_notes"] = notes
    external = revision == EXTERNAL or folder_revision == EXTERNAL
    return {
        "schema_version": SCHEMA_VERSION,
        "harness": {"name": "mteb", "version": layout.mteb_version or "unknown", "git_commit": None},
        "task": _task(layout, target, scores, data_revision, main_split),
        "model": _model(meta, name, revision, layout.mteb_version, training),
        "settings": {
            "batch_size": None,
            "device": None,
            "seed": 0,
            "limit": None,
            "model_settings": {},
            "libraries": {"mteb": layout.mteb_version},
        },
        "scores": scores,
        "main_score": main_score,
        "coverage": _coverage(scores, task),
        "timings": timings,
        "task_details": details,
        "hardware": {},
        "created_at": date.isoformat() if date else None,
        "imported_from": {
            "format": "mteb",
            "file": source.path,
            "mteb_version": layout.mteb_version,
            "repository": source.repository,
            "commit": source.commit,
            "blob": source.blob,
            "url": source.url,
            "external": external,
        },
    }
