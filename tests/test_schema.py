"""The JSON Schema shipped in the package is generated from the pydantic result model, never hand-edited."""

from __future__ import annotations

import json
from importlib import resources

from conftest import REPO

from leaderboard.records import result


def test_checked_in_schema_equals_the_generated_one():
    shipped = resources.files("leaderboard.records").joinpath("schema", f"result-{result.SCHEMA_VERSION}.json")
    assert shipped.read_text("utf-8") == result.schema_text(), (
        "leaderboard/records/schema is stale: regenerate it with `python -m leaderboard.records.result`"
    )


def test_a_version_1_file_still_reads(tmp_path):
    """A result written by release 0.1.0 (schema version 1) is read by the typed model."""
    from leaderboard.records.files import read_result

    old = json.loads((REPO / "tests" / "fixtures" / "result-v1-bm25-demo.json").read_text("utf-8"))
    assert old["schema_version"] == "1"
    path = tmp_path / "demo.json"
    path.write_text(json.dumps(old))
    typed = read_result(path)
    assert typed.main_score == old["main_score"] and typed.is_complete and typed.coverage is None
    assert typed.score("ndcg_at_10") == old["scores"]["test"]["default"]["ndcg_at_10"]
