"""The result record: one pydantic model that defines every result file's shape.

Like mteb's ``TaskResult``, it is the single place a result's shape is defined. The JSON Schema
shipped in ``schema/result-2.json`` and the core schema every file is validated with
(``schema/result-2.core.json``, ``records.reader``) are generated from it (``python -m
leaderboard.records.result``); a test fails when a checked-in copy differs. Version 1 files (the first
release) are a subset of version 2 and still read. Files are read through ``records.reader``, which
builds this model from the record it has checked.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from leaderboard.contract.model import ModelKind
from leaderboard.contract.task import EvaluationKind, Metric, View

# Re-exported (``X as X``): readers import the per-query field's helpers from here, with the Result.
from leaderboard.records.per_query import PerQuery as PerQuery
from leaderboard.records.per_query import SubsetQueries as SubsetQueries
from leaderboard.records.per_query import decode_metric_queries as decode_metric_queries
from leaderboard.records.per_query import decode_per_query as decode_per_query
from leaderboard.records.per_query import decode_subset_queries as decode_subset_queries
from leaderboard.records.per_query import encode_per_query as encode_per_query
from leaderboard.records.result_checks import READABLE_VERSIONS as READABLE_VERSIONS
from leaderboard.records.result_checks import SCHEMA_VERSION as SCHEMA_VERSION
from leaderboard.records.result_checks import record_problems, scores_problem

# The validation context of a record ``records.reader`` has checked: the model's validators do not check it again.
CHECKED: dict[str, Any] = {"checked_by": "leaderboard.records.reader"}

Finite = Annotated[float, Field(allow_inf_nan=False)]
ScoreTable = dict[str, dict[str, dict[str, Finite]]]  # split -> subset -> metric -> value
IntervalTable = dict[str, dict[str, dict[str, Annotated[list[Finite], Field(min_length=2, max_length=2)]]]]
SizeTable = dict[str, dict[str, Annotated[int, Field(ge=0)]]]  # split -> subset -> queries (or records)


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class Harness(_Record):
    name: str
    version: str
    git_commit: str | None
    git_dirty: bool | None = None


class Source(_Record):
    kind: Literal["local", "hub", "url", "embedded"]
    uri: str
    revision: str | None
    content_hash: Annotated[str, Field(pattern=r"^sha256:[0-9a-f]{64}$")] | None


class TaskInfo(_Record):
    name: Annotated[str, Field(min_length=1)]
    family: Annotated[str, Field(min_length=1)]
    version: str
    description: str
    reference: str
    citation: str | None = None
    evaluation: EvaluationKind
    source: Source
    metrics: list[Metric]
    main_score: str
    splits: Annotated[list[str], Field(min_length=1)]
    subsets: list[str]
    instruction: str | None = None
    top_k: int | None = None
    supports_limit: bool = True
    options: dict[str, str] = Field(default_factory=dict, description="the --task-option names the task accepts")
    views: list[View] = Field(default_factory=list, description="tables and curves the app draws for this task")

    @property
    def main_split(self) -> str:
        """The main score lives in the first split, subset "default"."""
        return self.splits[0]

    def metric(self, name: str) -> Metric | None:
        return next((m for m in self.metrics if m.name == name), None)


class Component(_Record):
    """One stage of a composite model (a pipeline's first stage and reranker), with its own plugin."""

    role: str
    name: str
    revision: str | None
    plugin: str
    plugin_version: str | None


class ModelInfo(_Record):
    name: Annotated[str, Field(min_length=1)]
    kind: ModelKind
    revision: str | None
    plugin: str
    plugin_version: str | None
    metadata: dict[str, Any] = Field(default_factory=dict)
    components: list[Component] = Field(default_factory=list)


class Settings(BaseModel):
    """Everything that was set for the run. Keys beyond these are allowed (task and engine settings)."""

    model_config = ConfigDict(extra="allow")

    batch_size: Annotated[int, Field(ge=1)] | None
    max_length: int | None = None
    device: str | None
    dtype: str | None = None
    seed: int
    limit: int | None
    top_k: int | None = None
    instruction: str | None = None
    prompts: dict[str, Any] = Field(default_factory=dict)
    model_settings: dict[str, Any]
    libraries: dict[str, str | None]


class Coverage(_Record):
    """Whether the result covers the whole task: only complete results are ranked or pushed."""

    complete: bool
    queries: int | None = None
    total_queries: int | None = None
    reason: str | None = None  # why it is partial ("--limit 50", "corpus sample")


class ImportedFrom(_Record):
    """A result this harness did not run: read from another tool's file (``leaderboard import``)."""

    format: str
    file: str  # the file's path in its repository (or folder)
    mteb_version: str | None = None
    repository: str | None = None  # where the file lives (a GitHub repository, a hub dataset), when known
    commit: str | None = None  # the repository's commit the file was read at
    blob: Annotated[str, Field(pattern=r"^[0-9a-f]{40}$")] | None = Field(
        None, description="the git blob sha1 of the file's bytes (its id in a git checkout and on the hub)"
    )
    url: str | None = None  # the file at that commit
    external: bool = False  # mteb's `external` folder: the model authors' own numbers, not a run by mteb


class Result(_Record):
    schema_version: Literal["1", "2"]
    harness: Harness
    task: TaskInfo
    model: ModelInfo
    settings: Settings
    scores: ScoreTable
    main_score: Finite
    coverage: Coverage | None = None
    per_query: PerQuery | None = None
    counts: dict[str, Annotated[float, Field(allow_inf_nan=False)] | int] = Field(default_factory=dict)
    timings: dict[str, Annotated[float, Field(ge=0, allow_inf_nan=False)]]
    confidence_intervals: IntervalTable = Field(default_factory=dict)
    subset_sizes: SizeTable = Field(default_factory=dict)
    task_details: dict[str, Any] = Field(default_factory=dict)
    hardware: dict[str, Any]
    # When the result was made; null only for an imported result whose file has no date (never the import time).
    created_at: AwareDatetime | None
    imported_from: ImportedFrom | None = None

    # The checks live in records.result_checks, on the plain record: the reader (records.reader, no
    # pydantic) runs exactly these (core_schema.PYTHON_CHECKS names them), and the model too when it is
    # validated directly; not again on a record the reader has checked (context CHECKED).
    @field_validator("scores")
    @classmethod
    def _not_empty(cls, scores: ScoreTable, info: ValidationInfo) -> ScoreTable:
        problem = None if info.context is CHECKED else scores_problem(scores)
        if problem:
            raise ValueError(problem)
        return scores

    @model_validator(mode="after")
    def _consistent(self, info: ValidationInfo) -> Result:
        if info.context is CHECKED:
            return self
        problems = record_problems(self.model_dump())
        if problems:
            more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
            raise ValueError("; ".join(problems[:5]) + more)
        return self

    def metric_range(self, name: str) -> tuple[float | None, float | None]:
        """The values a metric can take: as the task declared it; version 1 and imported files declare none."""
        declared = self.task.metric(name)
        if declared is None or self.schema_version == "1" or self.imported_from is not None:
            from leaderboard.metrics.bounds import bounds

            return bounds(name)
        return declared.low, declared.high

    # -- reading ------------------------------------------------------------------------------
    @property
    def direction(self) -> str:
        metric = self.task.metric(self.task.main_score)
        return metric.direction if metric else "higher"

    @property
    def is_complete(self) -> bool:
        """A version 1 file has no coverage record: complete unless it was run with --limit."""
        if self.coverage is not None:
            return self.coverage.complete
        return self.settings.limit is None

    def score(self, metric: str, subset: str = "default", split: str | None = None) -> float | None:
        """A metric's value, or None when the result does not have it (never raises)."""
        return self.scores.get(split or self.task.main_split, {}).get(subset, {}).get(metric)

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=False)


def model_schema(model: type[BaseModel], title: str) -> dict[str, Any]:
    """A record model's JSON Schema as shipped in ``schema/`` (draft 2020-12, titled)."""
    schema = model.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = title
    return schema


def json_schema() -> dict[str, Any]:
    return model_schema(Result, f"retrieval-leaderboard result, schema version {SCHEMA_VERSION}")


def schema_text(schema: dict[str, Any] | None = None) -> str:
    """The shipped file's text: ``schema`` (default: the result's) as sorted, indented JSON."""
    return json.dumps(json_schema() if schema is None else schema, indent=2, sort_keys=True) + "\n"


def core_schema_text() -> str:
    """The shipped ``schema/result-<version>.core.json``: the model's core schema for ``records.reader``."""
    from leaderboard.records.core_schema import core_schema_text as text
    from leaderboard.records.core_schema import plain_core_schema

    return text(plain_core_schema(Result.__pydantic_core_schema__))


def now() -> datetime:

    return datetime.now(UTC).replace(microsecond=0)


if __name__ == "__main__":  # regenerate the checked-in schema
    from importlib import resources

    folder = resources.files("leaderboard.records").joinpath("schema")
    shipped = {f"result-{SCHEMA_VERSION}.json": schema_text(), f"result-{SCHEMA_VERSION}.core.json": core_schema_text()}
    for name, text in shipped.items():
        with open(str(folder.joinpath(name)), "w", encoding="utf-8") as handle:
            handle.write(text)
        print(f"wrote {name}")
