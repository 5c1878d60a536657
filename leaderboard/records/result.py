"""The result record: one pydantic model that builds, reads and validates every result file.

Like mteb's ``TaskResult``, it is the single place a result's shape is defined. The JSON Schema
shipped in ``schema/result-2.json`` is generated from it (``python -m leaderboard.records.result``)
and a test fails when the checked-in copy differs. Version 1 files (the first release) are a
subset of version 2 and still read.
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from leaderboard.contract.model import ModelKind
from leaderboard.contract.task import EvaluationKind, Metric, View

# Re-exported (``X as X``): readers import the per-query field's helpers from here, with the Result.
from leaderboard.records.per_query import PerQuery as PerQuery
from leaderboard.records.per_query import SubsetQueries as SubsetQueries
from leaderboard.records.per_query import decode_per_query as decode_per_query
from leaderboard.records.per_query import decode_subset_queries as decode_subset_queries
from leaderboard.records.per_query import encode_per_query as encode_per_query

SCHEMA_VERSION = "2"
READABLE_VERSIONS = ("1", "2")

Finite = Annotated[float, Field(allow_inf_nan=False)]
ScoreTable = dict[str, dict[str, dict[str, Finite]]]  # split -> subset -> metric -> value


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
    format: str
    file: str
    mteb_version: str | None = None


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
    confidence_intervals: dict[
        str, dict[str, dict[str, Annotated[list[Finite], Field(min_length=2, max_length=2)]]]
    ] = Field(default_factory=dict)
    subset_sizes: dict[str, dict[str, Annotated[int, Field(ge=0)]]] = Field(default_factory=dict)
    task_details: dict[str, Any] = Field(default_factory=dict)
    hardware: dict[str, Any]
    created_at: AwareDatetime
    imported_from: ImportedFrom | None = None

    @field_validator("scores")
    @classmethod
    def _not_empty(cls, scores: ScoreTable) -> ScoreTable:
        if not scores or any(not subsets for subsets in scores.values()):
            raise ValueError("scores must hold at least one split with at least one subset")
        return scores

    @model_validator(mode="after")
    def _consistent(self) -> Result:
        if self.imported_from is None and self.task.source.content_hash is None:
            raise ValueError("task.source.content_hash is required for a result run here")
        if self.imported_from is None and self.settings.batch_size is None:
            raise ValueError("settings.batch_size is required for a result run here")
        from leaderboard.records.per_query_checks import per_query_problems

        problems = self._main_score_problems() + self._range_problems() + per_query_problems(self)
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

    def _range_problems(self) -> list[str]:
        problems = []
        for split, subsets in self.scores.items():
            for subset, values in subsets.items():
                for name, value in values.items():
                    low, high = self.metric_range(name)
                    if (low is not None and value < low) or (high is not None and value > high):
                        problems.append(f"scores/{split}/{subset}/{name}: {value} is outside {_shown(low, high)}")
        for split, interval_subsets in self.confidence_intervals.items():
            for subset, intervals in interval_subsets.items():
                for name, (lower, upper) in intervals.items():
                    low, high = self.metric_range(name)
                    if lower > upper or (low is not None and lower < low) or (high is not None and upper > high):
                        problems.append(
                            f"confidence_intervals/{split}/{subset}/{name}: [{lower}, {upper}] is not an interval "
                            f"inside {_shown(low, high)}"
                        )
        return problems

    def _main_score_problems(self) -> list[str]:
        """main_score is scores[splits[0]]["default"][task.main_score] (an import may lack "default")."""
        name, split = self.task.main_score, self.task.main_split
        where = f"scores/{split}/default/{name}"
        value = self.score(name)
        if value is None and self.imported_from is not None:
            candidates = [v[name] for v in self.scores.get(split, {}).values() if name in v]
            value = next((v for v in candidates if _same(v, self.main_score)), None)
            where = f"a subset of scores/{split} holding {name}"
        if value is None:
            return [f"main_score: the task's main score {name!r} is missing from its own scores ({where})"]
        if not _same(value, self.main_score):
            return [f"main_score: {self.main_score} differs from {where} = {value}"]
        return []

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


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)  # equal up to a JSON round trip


def _shown(low: float | None, high: float | None) -> str:
    return f"the metric's range [{'-inf' if low is None else low}, {'inf' if high is None else high}]"


def _message(error: Any) -> str:
    """'path: message'; the whole-record checks name their own paths ("scores/test/default/x: ...")."""
    where = "/".join(str(p) for p in error["loc"])
    message = error["msg"].removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


def validation_errors(data: Any) -> list[str]:
    """Every problem with a parsed JSON document as 'path: message' (empty when it is a valid result)."""
    if not isinstance(data, dict):
        return ["<root>: expected a JSON object"]
    version = data.get("schema_version")
    if str(version) not in READABLE_VERSIONS:
        return [f"unknown schema_version {version!r} (this harness reads versions {', '.join(READABLE_VERSIONS)})"]
    try:
        Result.model_validate(data)
    except ValidationError as exc:
        return [_message(err) for err in exc.errors()]
    return []


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


def now() -> datetime:

    return datetime.now(UTC).replace(microsecond=0)


if __name__ == "__main__":  # regenerate the checked-in schema
    from importlib import resources

    target = resources.files("leaderboard.records").joinpath("schema", f"result-{SCHEMA_VERSION}.json")
    print(schema_text(), end="")
    with open(str(target), "w", encoding="utf-8") as handle:
        handle.write(schema_text())
