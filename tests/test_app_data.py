"""The leaderboard's tables, without a browser: direction, missing values, coverage, escaping, filters."""

import pytest
from app_fixtures import HOSTILE, build_results

from leaderboard.app import data


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    return data.load(build_results(tmp_path_factory.mktemp("app")))


def test_invalid_and_unknown_version_files_are_skipped_with_a_reason(loaded):
    reasons = {path.rsplit("/", 1)[-1]: reason for path, reason in loaded.skipped}
    assert "not valid JSON" in reasons["broken.json"]
    assert "unknown schema_version '99'" in reasons["future.json"]
    assert len(loaded.rows) == 12


def test_overview_columns_direction_and_rank(loaded):
    frame = data.overview(loaded.rows)
    assert list(frame["_name"]) == ["bm25", HOSTILE, "tiny-dense-model"]  # same coverage: by average
    assert list(frame["Rank"]) == [1, 2, 3]
    assert "MultiConIR demo flip_rate ↓" in frame.columns  # lower-is-better gets its own column
    assert "MultiConIR demo" in frame.columns and "Demo" in frame.columns
    bm25 = frame.iloc[0]
    assert bm25["Params"] == data.MISSING  # BM25 has no parameter count: shown missing, not 0


def test_missing_task_is_missing_and_partial_average_is_marked(loaded):
    rows = [r for r in loaded.rows if not (r["model"]["name"] == "tiny-dense-model" and r["task"]["name"] == "demo")]
    rows = [
        r
        for r in rows
        if not (r["model"]["name"] == "tiny-dense-model" and r["task"]["name"] == "multiconir-demo-task2")
    ]
    frame = data.overview(rows).set_index("_name")
    assert frame.loc["tiny-dense-model", "Demo"] == data.MISSING
    assert frame.loc["tiny-dense-model", "MultiConIR demo"].endswith("*")  # 1 of its 2 "higher" tasks
    assert "(1/2 families)" in frame.loc["tiny-dense-model", "Average"]
    assert frame.loc["tiny-dense-model", "Rank"] == 3


def test_model_name_is_escaped_text(loaded):
    frame = data.overview(loaded.rows)
    cell = frame.set_index("_name").loc[HOSTILE, "Model"]
    assert "<img" not in cell and "&lt;img" in cell
    assert data.model_link("x", "javascript:alert(1)") == "x"  # only http(s) links


def test_filters(loaded):
    frame = data.overview(loaded.rows)
    assert list(data.filter_models(frame, ["sparse"], None, None, "all", "")["_name"]) == ["bm25"]
    assert list(data.filter_models(frame, None, 10, None, "all", "")["_name"]) == [HOSTILE]
    assert list(data.filter_models(frame, None, None, None, "all", "tiny")["_name"]) == ["tiny-dense-model"]
    assert "Kind" not in data.visible(frame, ["Average"]).columns


def test_family_views(loaded):
    curve = data.win_rate_curve(loaded.rows)
    assert len(curve) == 3 * 10 and set(curve["conditions"]) == set(data.CONDITION_LABELS)
    assert len(data.adjacent_curve(loaded.rows, "domain=Books")) == 3 * 10
    flips = data.flip_rate_table(loaded.rows)
    assert list(flips.columns[1:6]) == list(data.DOMAINS)
    prov = data.provenance_table(loaded.rows)
    assert prov["data hash"].str.startswith("sha256:").all()
