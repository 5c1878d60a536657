"""A submission's spec (``submissions/<model>/model.json``): one pydantic model, the shipped schema generated from it.

``leaderboard validate`` checks a spec with this model; ``schema/submission-1.json`` is its JSON Schema
(``python -m leaderboard.records.submission`` writes it; a test fails when the checked-in copy differs),
for editors and other tools. Each problem reads ``field: what is wrong``, in the words JSON Schema
validators use for a missing or an unexpected field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

SCHEMA_FILE = Path(__file__).with_name("schema") / "submission-1.json"
Text = Annotated[str, Field(min_length=1)]


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # JSON's types exactly: "5" is not an integer


class PluginSpec(_Spec):
    package: Text = Field(description="the distribution that provides the model plugin")
    version: Text
    # Optional, never null (JSON Schema's "type": "string"): a default is not validated, a given null is.
    install: str = Field(default_factory=str, description="pip requirement if not on PyPI, e.g. a git URL")


class ModelSpec(_Spec):
    id: Text = Field(description="what you pass to leaderboard run --model")
    name: Text = Field(
        default_factory=str,
        description="the model.name its results carry, when it differs from id (e.g. an org/model id)",
    )
    revision: Text
    kind: Literal["sparse", "dense", "reranker", "pipeline"]
    n_parameters: Annotated[int, Field(ge=0)] | None
    license: Text
    training_data: Text = Field(description="what the model was trained on, incl. any overlap with the benchmarks")


class SubmissionSpec(_Spec):
    spec_version: Literal["1"]
    plugin: PluginSpec
    model: ModelSpec
    contact: Annotated[str, Field(min_length=3)]


def spec_problems(data: Any) -> list[str]:
    """Every problem with a parsed spec as 'field: what is wrong' (empty: a valid spec), sorted by field."""
    try:
        SubmissionSpec.model_validate(data)
    except ValidationError as exc:
        found = [_problem(error) for error in exc.errors(include_url=False)]
        return [message for _, message in sorted(found)]
    return []


def _problem(error: Any) -> tuple[list[str], str]:
    loc = [str(part) for part in error["loc"]]
    where = "/".join(loc) or "<root>"
    if error["type"] == "missing":
        return loc[:-1], f"{'/'.join(loc[:-1]) or '<root>'}: {loc[-1]!r} is a required property"
    if error["type"] == "extra_forbidden":
        parent = "/".join(loc[:-1]) or "<root>"
        return loc[:-1], f"{parent}: Additional properties are not allowed ({loc[-1]!r} was unexpected)"
    message = str(error["msg"])
    if error["type"] in ("model_type", "model_attributes_type", "dict_type"):
        message = "Input should be an object"
    return loc, f"{where}: {error['input']!r}: {message}"


def schema_text() -> str:
    """The shipped schema: the model's JSON Schema (draft 2020-12), sorted and indented."""
    schema = SubmissionSpec.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "retrieval-leaderboard model submission spec, version 1 (submissions/<model>/model.json)"
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # regenerate the checked-in schema
    SCHEMA_FILE.write_text(schema_text(), "utf-8")
    print(f"wrote {SCHEMA_FILE.name}")
