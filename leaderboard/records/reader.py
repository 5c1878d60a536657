"""The one reader of result files: text, strict JSON, one validation, one set of checks, a plain record.

Every reader of results goes through here: ``show`` and the results index, ``compare``, the hub
store, the mteb export, the queue's ``validate`` and ``verify``, and the engine before it writes.

1. ``records.result_text``: a regular file, bounded, UTF-8;
2. ``safe_json``: strict JSON (finite numbers, bounded depth, no duplicate keys);
3. the validation: pydantic-core's validator for the core schema that pydantic generates from
   ``records.result.Result``, shipped as ``schema/result-<version>.core.json`` (``records.core_schema``).
   Importing pydantic and building the model would cost a cold ``show`` more than everything else it
   does; ``pydantic_core`` alone costs a tenth of that. Its output is the plain record, equal to
   ``Result.model_validate(data).model_dump()``;
4. the checks no schema can express (``records.result_checks``, the per-query values among them);
5. the typed ``Result``, only for a caller that asks for it (``read_result``, ``result_of``): built from
   the checked record, whose checks are not run again.

Where the shipped schema does not load (another pydantic-core), step 3 is the model's own
validation, with the same checks: the same verdict, more slowly.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from leaderboard import safe_json
from leaderboard.errors import BadInput
from leaderboard.records.result_checks import READABLE_VERSIONS, SCHEMA_VERSION, record_problems, scores_problem
from leaderboard.records.result_text import read_result_text

if TYPE_CHECKING:
    from leaderboard.records.result import Result

CORE_SCHEMA = Path(__file__).with_name("schema") / f"result-{SCHEMA_VERSION}.core.json"
_LISTED = 5  # problems a message names before "..."


@functools.cache
def _schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(CORE_SCHEMA.read_text("utf-8"))
    return loaded


@functools.cache
def _validator() -> Any:
    """The Rust validator for the shipped schema; None when it cannot be built here."""
    from pydantic_core import SchemaValidator

    try:
        return SchemaValidator(_schema())
    except Exception:  # missing, damaged or written for another pydantic-core: the model validates instead
        return None


def parse(path: Path) -> Any:
    """A file's parsed JSON, or BadInput naming the file and what is wrong (steps 1 and 2)."""
    text = read_result_text(path)
    try:
        return safe_json.loads(text, finite=True)
    except safe_json.UnsafeJSON as exc:
        raise BadInput(f"{path}: {exc}; expected a result file.") from None


def checked(data: Any) -> tuple[dict[str, Any] | None, list[str]]:
    """(the plain record, []) of a valid result; (None, every problem as 'path: message') otherwise."""
    if not isinstance(data, dict):
        return None, ["<root>: expected a JSON object"]
    version = data.get("schema_version")
    if str(version) not in READABLE_VERSIONS:
        readable = ", ".join(READABLE_VERSIONS)
        return None, [f"unknown schema_version {version!r} (this harness reads versions {readable})"]
    validator = _validator()
    if validator is None:
        return _checked_by_the_model(data)
    from pydantic_core import ValidationError

    try:
        record: dict[str, Any] = validator.validate_python(data)
    except ValidationError as exc:
        return None, _schema_problems(exc.errors(include_url=False), data)  # the URLs would import pydantic
    except RecursionError:  # unreachable below safe_json.MAX_DEPTH; a reader must still never crash
        return None, ["<root>: nested too deeply"]
    problem = scores_problem(record["scores"])
    if problem:
        return None, [f"scores: {problem}"]
    try:
        problems = record_problems(record)
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:  # a check must never crash a reader
        return None, [f"cannot be checked ({type(exc).__name__}: {exc})"]
    if problems:
        more = f" (and {len(problems) - _LISTED} more)" if len(problems) > _LISTED else ""
        return None, ["; ".join(problems[:_LISTED]) + more]  # one message, as the model's validator raises it
    return record, []


def _message(error: Mapping[str, Any], message: str | None = None) -> str:
    """'path: message'; the whole-record checks name their own paths ("scores/test/default/x: ...")."""
    where = "/".join(str(p) for p in error["loc"])
    message = str(error["msg"] if message is None else message).removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


def _schema_problems(errors: list[Any], data: dict[str, Any]) -> list[str]:
    """The validator's errors in the model's words; with the scores' own check where the scores passed (the
    model's field validator runs on a field that validated, beside the other fields' errors)."""
    problems = [_message(error, _class_words(error)) for error in errors]
    if all(error["loc"][:1] != ("scores",) for error in errors) and isinstance(data.get("scores"), dict):
        problem = scores_problem(data["scores"])
        if problem:  # at the field's place: errors come in the order of the fields
            fields = list(_schema()["fields"])
            after = fields[fields.index("scores") + 1 :]
            before = next((i for i, error in enumerate(errors) if error["loc"][:1] and error["loc"][0] in after), None)
            problems.insert(len(errors) if before is None else before, f"scores: {problem}")
    return problems


def _class_words(error: Mapping[str, Any]) -> str | None:
    """What the model says where a typed dict words an error differently: its classes are named (an object
    expected), and a dataclass calls an extra key an unexpected argument. None: the validator's own words."""
    if error["type"] not in ("dict_type", "extra_forbidden"):
        return None
    loc = error["loc"] if error["type"] == "dict_type" else error["loc"][:-1]
    origin = _node_at(_schema(), loc).get("metadata") or {}
    if error["type"] == "extra_forbidden":
        return "Unexpected keyword argument" if "dataclass" in origin else None
    if "model" in origin:
        return f"Input should be a valid dictionary or instance of {origin['model']}"
    if "dataclass" in origin:
        return f"Input should be a dictionary or an instance of {origin['dataclass']}"
    return None


def _node_at(schema: Mapping[str, Any], loc: Any) -> Mapping[str, Any]:
    """The schema that validates the value at ``loc`` ({} where the walk cannot tell)."""
    node: Any = schema
    for step in (*loc, None):
        while isinstance(node, Mapping) and node.get("type") in ("default", "nullable"):
            node = node["schema"]
        if step is None or not isinstance(node, Mapping):
            break
        kind = node.get("type")
        if kind == "typed-dict":
            node = node["fields"].get(step, {}).get("schema")
        elif kind in ("list", "dict"):
            node = node.get("items_schema" if kind == "list" else "values_schema")
        else:
            return {}
    return node if isinstance(node, Mapping) else {}


def _checked_by_the_model(data: dict[str, Any]) -> tuple[dict[str, Any] | None, list[str]]:
    from pydantic import ValidationError

    from leaderboard.records.result import Result

    try:
        return Result.model_validate(data).model_dump(), []
    except ValidationError as exc:
        return None, [_message(error) for error in exc.errors()]


def problems(data: Any) -> list[str]:
    """Every problem with a parsed JSON document as 'path: message' (empty when it is a valid result)."""
    return checked(data)[1]


def record_of(data: Any, where: str = "result") -> dict[str, Any]:
    """The plain record of parsed JSON (or a record built in memory), or BadInput listing what is wrong."""
    record, found = checked(data)
    if record is None:
        listed = "; ".join(found[:_LISTED]) + (" ..." if len(found) > _LISTED else "")
        raise BadInput(f"{where} does not match the result schema: {listed}")
    return record


def read_record(path: Path) -> dict[str, Any]:
    """A result file as its validated plain record, or BadInput naming the file and what is wrong.

    Never raises anything else for a file. Refused: what is not a regular file (a directory, a broken
    link, a FIFO: never opened, so never blocks), non-UTF-8 text, JSON nested deeper than
    safe_json.MAX_DEPTH (checked before parsing), unreadable numbers, schema errors, scores outside their
    metric's range, a main score that is not the one in the scores, per-query values that are not the
    ones behind the scores."""
    return record_of(parse(path), str(path))


def typed(record: dict[str, Any]) -> Result:
    """The typed ``Result`` of a record ``record_of`` returned: its checks already passed, not run again."""
    from leaderboard.records.result import CHECKED, Result

    return Result.model_validate(record, context=CHECKED)


def result_of(data: Any, where: str = "result") -> Result:
    """A typed ``Result`` of parsed JSON (or a record built in memory), or BadInput listing what is wrong."""
    return typed(record_of(data, where))


def read_result(path: Path) -> Result:
    """A result file as a typed ``Result``, or BadInput naming the file and what is wrong (``read_record``)."""
    return typed(read_record(path))
