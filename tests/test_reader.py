"""The one reader (no pydantic) gives the pydantic model's verdict and record on every file.

``records.reader`` validates with the core schema shipped beside the JSON Schema and runs the
model's own checks (``records.result_checks``); every reader of result files goes through it.
These tests hold it to ``Result.model_validate``: the shipped schema is the one the model
generates, real results give the same record, and mutated results (hypothesis) get the same
verdict in the same words.
"""

from __future__ import annotations

import copy
import json
from importlib import resources
from typing import Any

import pytest
from conftest import REPO, cold_show
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError, field_validator

import leaderboard
from leaderboard.records import reader, result
from leaderboard.records.core_schema import Unconvertible, plain_core_schema
from leaderboard.records.result import Result

TASKS = ["demo", "multiconir-demo-task1", "multiconir-demo-task2", "multiconir-demo-task3"]


@pytest.fixture(scope="module")
def documents(tmp_path_factory) -> list[dict[str, Any]]:
    """Real results (bm25 on the demo task and MultiConIR's demo tasks), a version 1 file and an import."""
    out = tmp_path_factory.mktemp("plain-read")
    leaderboard.evaluate(["bm25"], TASKS, output=out)
    found = [json.loads(p.read_text("utf-8")) for p in sorted(out.rglob("*.json"))]
    found.append(json.loads((REPO / "tests" / "fixtures" / "result-v1-bm25-demo.json").read_text("utf-8")))
    imported = copy.deepcopy(found[0])
    imported["imported_from"] = {"format": "mteb", "file": "NFCorpus.json", "mteb_version": "2.0.0"}
    imported["task"]["source"]["content_hash"] = None
    found.append(imported)
    return found


def pydantic_verdict(data: Any) -> dict[str, Any] | None:
    try:
        return Result.model_validate(data).model_dump()
    except (ValidationError, ValueError, TypeError):
        return None


def pydantic_words(data: Any) -> list[str]:
    """The model's own errors, each as 'path: message'."""
    try:
        Result.model_validate(data)
    except ValidationError as exc:
        return [
            "/".join(map(str, e["loc"])) + ": " * bool(e["loc"]) + e["msg"].removeprefix("Value error, ")
            for e in exc.errors()
        ]
    return []


def test_the_shipped_core_schema_is_the_one_the_model_generates():
    shipped = resources.files("leaderboard.records").joinpath("schema", f"result-{result.SCHEMA_VERSION}.core.json")
    assert shipped.read_text("utf-8") == result.core_schema_text(), (
        "leaderboard/records/schema is stale: regenerate it with `python -m leaderboard.records.result`"
    )


def test_real_results_give_the_models_record(documents):
    assert len(documents) == len(TASKS) + 2
    for data in documents:
        plain = reader.checked(data)[0]
        assert plain is not None, data["task"]["name"]
        assert plain == Result.model_validate(data).model_dump()


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path to a value inside a JSON document (keys and list positions)."""
    found = [prefix]
    if isinstance(value, dict):
        for key, inner in value.items():
            found += _paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for position, inner in enumerate(value):
            found += _paths(inner, (*prefix, position))
    return found


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["", "2", "x", "retrieval", "dense", "2026-11-23T20:37:10+00:00", "2026-11-23T20:37:10"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["a", "name", "low"]), inner, max_size=2)
    ),
    max_leaves=4,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_results_get_the_models_verdict(documents, data):
    """Delete a key, replace a value or add a key anywhere: both readers accept or refuse alike."""
    document = copy.deepcopy(data.draw(st.sampled_from(documents)))
    path = data.draw(st.sampled_from(_paths(document)[1:]))
    *parents, last = path
    holder = document
    for step in parents:
        holder = holder[step]
    operation = data.draw(st.sampled_from(["delete", "replace", "add"]))
    if operation == "delete" and isinstance(holder, dict):
        del holder[last]
    elif operation == "add" and isinstance(holder, dict):
        holder[data.draw(st.sampled_from(["extra", "low", "subsets", "reason"]))] = data.draw(JSON_VALUES)
    else:
        holder[last] = data.draw(JSON_VALUES)
    expected = pydantic_verdict(document)
    record, problems = reader.checked(document)
    assert record == expected
    if str(document.get("schema_version")) in result.READABLE_VERSIONS:  # else: the version is named first
        assert problems == pydantic_words(document)  # the model's words, in its order


def test_a_typed_result_is_built_from_the_checked_record_without_checking_it_again(tmp_path, documents, monkeypatch):
    from leaderboard.records import result_checks

    calls = []
    real = result_checks.record_problems
    counted = lambda record: calls.append(1) or real(record)
    monkeypatch.setattr(reader, "record_problems", counted)
    monkeypatch.setattr(result, "record_problems", counted)
    path = tmp_path / "ok.json"
    path.write_text(json.dumps(documents[0]), "utf-8")
    typed = reader.read_result(path)
    assert len(calls) == 1  # the reader's checks; the model built from its record does not run them again
    assert isinstance(typed, Result) and typed.model_dump() == reader.read_record(path)
    bad = copy.deepcopy(documents[0])
    bad["main_score"] = 0.123
    with pytest.raises(ValidationError, match="0.123 differs"):  # the model validated directly still checks
        Result.model_validate(bad)


def test_a_refused_file_is_named_in_the_pydantic_readers_words(tmp_path, documents):
    from leaderboard.errors import BadInput
    from leaderboard.records.files import read_result

    bad = copy.deepcopy(documents[0])
    bad["main_score"] = 0.123
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), "utf-8")
    with pytest.raises(BadInput) as plain_error:
        reader.read_record(path)
    with pytest.raises(BadInput) as model_error:
        read_result(path)
    assert str(plain_error.value) == str(model_error.value)
    assert "main_score: 0.123 differs from scores/test/default/ndcg_at_10" in str(plain_error.value)


def test_without_the_shipped_schema_the_model_validates(tmp_path, documents, monkeypatch):
    monkeypatch.setattr(reader, "_validator", lambda: None)
    path = tmp_path / "ok.json"
    path.write_text(json.dumps(documents[0]), "utf-8")
    bad = copy.deepcopy(documents[0])
    bad["main_score"] = 0.123
    assert "main_score: 0.123 differs from scores/test/default/ndcg_at_10" in reader.problems(bad)[0]
    assert reader.read_record(path) == Result.model_validate(documents[0]).model_dump()


def test_a_validator_the_reader_does_not_run_stops_the_conversion():
    class Checked(BaseModel):
        value: int

        @field_validator("value")
        @classmethod
        def _positive(cls, value: int) -> int:
            return value

    with pytest.raises(Unconvertible, match="_positive"):
        plain_core_schema(Checked.__pydantic_core_schema__)


PYDANTIC_LOADED = "print('PYDANTIC', sorted(m for m in sys.modules if m == 'pydantic' or m.startswith('pydantic.')))\n"


def test_show_on_a_new_folder_imports_no_pydantic(tmp_path, documents):
    """What keeps a cold ``show`` fast: the index validates with pydantic_core alone (perf/perf_core.py)."""
    folder = tmp_path / "results" / "bm25"
    folder.mkdir(parents=True)
    for position, data in enumerate(documents[: len(TASKS)]):
        (folder / f"{position}.json").write_text(json.dumps(data), "utf-8")
    done = cold_show(tmp_path / "results", tmp_path / "cache", after=PYDANTIC_LOADED)
    assert done.returncode == 0, done.stderr
    assert "multiconir-demo-task1" in done.stdout and "0.8280" in done.stdout
    assert "PYDANTIC []" in done.stdout, done.stdout[-500:]


def test_show_names_refused_files_in_the_models_words_without_pydantic(tmp_path, documents):
    folder = tmp_path / "results" / "bm25"
    folder.mkdir(parents=True)
    bad = copy.deepcopy(documents[0])
    bad["harness"] = 3
    (folder / "bad.json").write_text(json.dumps(bad), "utf-8")
    (folder / "ok.json").write_text(json.dumps(documents[0]), "utf-8")
    done = cold_show(tmp_path / "results", tmp_path / "cache", after=PYDANTIC_LOADED)
    assert done.returncode == 0, done.stderr
    assert "harness: Input should be a valid dictionary or instance of Harness" in done.stderr, done.stderr[-500:]
    assert "PYDANTIC []" in done.stdout, done.stdout[-500:]


def test_every_command_is_found_by_its_lazy_name():
    """``leaderboard.cli.main`` imports a command's module only when it runs: its map names every command."""
    import pkgutil
    from importlib import import_module

    import leaderboard.cli
    from leaderboard.cli.main import COMMAND_MODULES

    declared = {}
    for found in pkgutil.iter_modules(leaderboard.cli.__path__):
        for command in getattr(import_module(f"leaderboard.cli.{found.name}"), "COMMANDS", []):
            declared[command.name] = found.name
    assert declared == COMMAND_MODULES
