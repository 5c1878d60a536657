"""Reading a result file without pydantic: the shipped core schema, then the model's own checks.

``show`` and the results index read every new file; importing pydantic and building the result
model would cost them more than everything else together (``records.core_schema``). Here a file is
validated by ``pydantic_core`` with the schema generated from ``records.result.Result`` and then
checked by ``records.result_checks``, the functions the model's validators call: the same verdict
and the same record as ``Result.model_validate(data).model_dump()`` (tested on real and mutated
files). A file this path refuses, or any file when the shipped schema does not load (another
pydantic-core), goes to the pydantic reader, whose verdict and message are the canonical ones.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from leaderboard import safe_json
from leaderboard.errors import BadInput
from leaderboard.records.result_checks import READABLE_VERSIONS, SCHEMA_VERSION, record_problems, scores_problem
from leaderboard.records.result_text import read_result_text

CORE_SCHEMA = Path(__file__).with_name("schema") / f"result-{SCHEMA_VERSION}.core.json"


@functools.cache
def _validator() -> Any:
    """The Rust validator for the shipped schema; None when it cannot be built here."""
    from pydantic_core import SchemaValidator

    try:
        return SchemaValidator(json.loads(CORE_SCHEMA.read_text("utf-8")))
    except Exception:  # missing, damaged or written for another pydantic-core: the pydantic reader serves
        return None


def plain_record(data: Any) -> dict[str, Any] | None:
    """The validated plain record of parsed JSON, or None when this path does not accept it."""
    validator = _validator()
    if validator is None or not isinstance(data, dict) or str(data.get("schema_version")) not in READABLE_VERSIONS:
        return None
    try:
        record: dict[str, Any] = validator.validate_python(data)
        accepted = scores_problem(record["scores"]) is None and not record_problems(record)
    except Exception:  # any doubt goes to the canonical reader (read_plain)
        return None
    return record if accepted else None


def read_plain(path: Path) -> dict[str, Any]:
    """A validated result as its plain record, or BadInput naming the file and what is wrong."""
    text = read_result_text(path)
    try:
        data = safe_json.loads(text, finite=True)
    except safe_json.UnsafeJSON as exc:
        raise BadInput(f"{path}: {exc}; expected a result file.") from None
    record = plain_record(data)
    if record is not None:
        return record
    from leaderboard.records.files import read_result  # says why, in the words `validate` uses

    return read_result(path).model_dump()
