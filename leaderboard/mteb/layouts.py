"""The file layouts mteb has written, as pydantic models: a TaskResult (1.11 and later), the older one, model_meta.json.

Read leniently, as mteb's own loader does (``mteb/results/task_result.py`` ``TaskResult.from_disk``):

* **1.11 and later** (``TaskResult``): ``task_name``, ``dataset_revision``, ``mteb_version``,
  ``scores`` = {split: [one dict per ``hf_subset`` with ``main_score``, ``languages`` and the
  metrics]}, ``evaluation_time``, ``kg_co2_emissions``, ``date`` (a Unix timestamp, written by
  ``to_disk`` since 1.14; absent before), ``evaluation_phases`` (2.x).
* **before 1.11**: ``mteb_dataset_name`` and one top-level key per split, each {metric: value,
  "evaluation_time"} or {hf_subset: {metric: value}}; no ``main_score`` (mteb's
  ``_convert_from_before_v1_11_0`` takes it from the task's main metric, as ``convert`` does).
* **model_meta.json**: mteb's ``ModelMeta.to_dict()`` at the time of the run; fields came and went
  across versions (``is_cross_encoder`` became ``model_type``, ``embed_dim`` stayed, ``loader`` and
  ``memory_usage_mb`` are irrelevant here), so everything is optional and unknown fields are ignored.

JSON's non-finite numbers (``NaN``, ``Infinity``: mteb writes them in some ``nauc_*`` metrics) are
accepted here and dropped, by name, when the scores are converted.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

# Keys of a scores dict (or an old-format split) that are not metrics.
NOT_METRICS = frozenset({"hf_subset", "languages", "main_score", "mteb_version", "evaluation_time", "kg_co2_emissions"})
_OLD_TOP_LEVEL = frozenset({"dataset_revision", "mteb_dataset_name", "mteb_version", "task_name", "evaluation_time"})
# Keys mteb's pre-1.11 loader treats as metric groups, not hf_subsets (``_convert_from_before_v1_11_0``).
_OLD_METRIC_GROUPS = frozenset({"v_measures", "cos_sim", "euclidean", "manhattan", "dot", "max"})


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="allow", allow_inf_nan=True)


class TaskResultFile(_Lenient):
    """mteb 1.11+ ``TaskResult`` as written by ``to_disk``."""

    task_name: str
    dataset_revision: str | None = None
    mteb_version: str | None = None
    scores: dict[str, list[dict[str, Any]]]
    evaluation_time: float | None = None
    kg_co2_emissions: float | None = None
    date: float | str | None = None


class OldTaskResultFile(_Lenient):
    """mteb before 1.11: the task as ``mteb_dataset_name``, each split a top-level key."""

    mteb_dataset_name: str
    dataset_revision: str | None = None
    mteb_version: str | None = None


class ModelMetaFile(_Lenient):
    """model_meta.json (mteb ``ModelMeta``): the fields the board shows, all optional."""

    name: str | None = None
    revision: str | None = None
    release_date: str | None = None
    n_parameters: float | None = None
    embed_dim: float | None = None
    max_tokens: float | None = None
    license: str | None = None
    open_weights: bool | None = None
    reference: str | None = None
    similarity_fn_name: str | None = None
    use_instructions: bool | None = None
    training_datasets: dict[str, Any] | list[str] | None = None
    adapted_from: str | None = None
    is_cross_encoder: bool | None = None
    model_type: list[str] | None = None

    @field_validator("n_parameters", "embed_dim", "max_tokens", mode="before")
    @classmethod
    def _count(cls, value: Any) -> Any:
        """A count that is not a positive finite number (null, "unknown", NaN, 0) is unknown."""
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            return None
        return value

    @field_validator("license", "reference", "release_date", "similarity_fn_name", "adapted_from", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return value if isinstance(value, str) and value.strip() else None

    @field_validator("open_weights", "use_instructions", "is_cross_encoder", mode="before")
    @classmethod
    def _flag(cls, value: Any) -> Any:
        return value if isinstance(value, bool) else None

    @field_validator("training_datasets", "model_type", mode="before")
    @classmethod
    def _collection(cls, value: Any) -> Any:
        return value if isinstance(value, (dict, list)) else None

    @property
    def training_names(self) -> list[str] | None:
        """The training datasets' names (mteb stores {name: [splits]}; early versions a list); None: unknown."""
        if self.training_datasets is None:
            return None
        return sorted(str(name) for name in self.training_datasets)


class Layout:
    """One parsed result file, in one shape whatever the version that wrote it."""

    def __init__(
        self,
        task_name: str,
        dataset_revision: str | None,
        mteb_version: str | None,
        scores: dict[str, list[dict[str, Any]]],
        *,
        evaluation_time: float | None,
        date: float | str | None,
        kg_co2_emissions: float | None,
        old_format: bool,
    ):
        self.task_name = task_name
        self.dataset_revision = dataset_revision
        self.mteb_version = mteb_version
        self.scores = scores
        self.evaluation_time = evaluation_time
        self.date = date
        self.kg_co2_emissions = kg_co2_emissions
        self.old_format = old_format


class LayoutError(ValueError):
    """A file that is not an mteb result in any known layout (the message says why, for the skip reason)."""


def parse_result(data: bytes) -> Layout:
    """The file's bytes as a Layout, or LayoutError saying what is wrong (broken JSON: where)."""
    try:
        return _new(TaskResultFile.model_validate_json(data))
    except ValidationError as exc:
        first = exc.errors()[0]
        if first["type"] == "json_invalid":
            raise LayoutError(f"not JSON: {first['msg']}") from None
        new_error = _message(exc)
    try:
        return _old(OldTaskResultFile.model_validate_json(data))
    except ValidationError:
        raise LayoutError(f"not an mteb TaskResult: {new_error}") from None


def _message(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors()[:3]:
        where = "/".join(str(p) for p in error["loc"]) or "<root>"
        parts.append(f"{where}: {error['msg']}")
    return "; ".join(parts)


def _new(found: TaskResultFile) -> Layout:
    return Layout(
        found.task_name,
        found.dataset_revision,
        found.mteb_version,
        found.scores,
        evaluation_time=found.evaluation_time,
        date=found.date,
        kg_co2_emissions=found.kg_co2_emissions,
        old_format=False,
    )


def _old(found: OldTaskResultFile) -> Layout:
    """mteb's ``_convert_from_before_v1_11_0``: splits at the top level, evaluation_time summed over them."""
    scores: dict[str, list[dict[str, Any]]] = {}
    evaluation_time = 0.0
    timed = False
    for split, value in (found.model_extra or {}).items():
        if split in _OLD_TOP_LEVEL or not isinstance(value, dict):
            continue
        value = dict(value)
        seconds = value.pop("evaluation_time", None)
        if isinstance(seconds, (int, float)) and not isinstance(seconds, bool):
            evaluation_time += seconds
            timed = True
        subsets = any(isinstance(v, dict) for k, v in value.items() if k not in _OLD_METRIC_GROUPS)
        if subsets:
            scores[split] = [{**v, "hf_subset": str(k)} for k, v in value.items() if isinstance(v, dict)]
        else:
            scores[split] = [{**value, "hf_subset": "default"}]
    return Layout(
        found.mteb_dataset_name,
        found.dataset_revision,
        found.mteb_version,
        scores,
        evaluation_time=evaluation_time if timed else None,
        date=None,
        kg_co2_emissions=None,
        old_format=True,
    )


def parse_date(value: float | str | None) -> dt.datetime | None:
    """The file's own date (``TaskResult.to_disk`` writes ``date.timestamp()``), or None; never today."""
    if value is None or isinstance(value, bool):
        return None
    try:
        if isinstance(value, (int, float)):
            if not math.isfinite(value):
                return None
            return dt.datetime.fromtimestamp(value, dt.UTC).replace(microsecond=0)
        parsed = dt.datetime.fromisoformat(value)
    except (ValueError, OverflowError, OSError):
        return None
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)).replace(microsecond=0)
