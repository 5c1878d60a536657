"""The example plugin's own tests: fusion by hand, the hook, a bad argument, and a run through the Python API."""

import json

import pytest
from leaderboard_hybrid_rrf.fusion import rrf

import leaderboard


def test_rrf_by_hand():
    lexical = {"a": 3.0, "b": 2.0, "c": 1.0}  # ranks a1 b2 c3
    dense = {"b": 0.9, "c": 0.8, "d": 0.1}  # ranks b1 c2 d3
    fused = rrf([lexical, dense], k=60)
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["a"] == pytest.approx(1 / 61)
    assert fused["d"] == pytest.approx(1 / 63)
    assert list(fused) == ["b", "c", "a", "d"]
    assert list(rrf([lexical, dense], top_k=2)) == ["b", "c"]


def test_hook_registers_the_model_and_its_prefix():
    from leaderboard_hybrid_rrf import plugin

    seen = {}
    plugin.register_models(register=lambda name, factory, description="": seen.update({name: factory}))
    assert seen == {"hybrid-rrf": plugin.HybridRRF, "hybrid-rrf:": plugin.HybridRRF}


def test_a_bad_argument_is_bad_input(tmp_path):
    with pytest.raises(leaderboard.BadInput, match="expected a positive integer RRF constant"):
        leaderboard.evaluate(["hybrid-rrf:many"], ["demo"], output=tmp_path)


def test_runs_on_the_demo_task_through_the_python_api(tmp_path):
    (outcome,) = leaderboard.evaluate(["hybrid-rrf"], ["demo"], output=tmp_path)
    assert outcome.status == "written" and 0.5 < outcome.result.main_score <= 1.0
    recorded = json.loads(outcome.path.read_text())
    assert recorded["settings"]["model_settings"]["rrf_k"] == 60
    assert recorded["model"]["name"] == "hybrid-rrf-bm25-minilm"
