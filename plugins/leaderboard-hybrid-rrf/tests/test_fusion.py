"""The example plugin's own tests: fusion by hand, and the plugin registering through the hook."""

import pytest
from leaderboard_hybrid_rrf.fusion import rrf


def test_rrf_by_hand():
    lexical = {"a": 3.0, "b": 2.0, "c": 1.0}  # ranks a1 b2 c3
    dense = {"b": 0.9, "c": 0.8, "d": 0.1}  # ranks b1 c2 d3
    fused = rrf([lexical, dense], k=60)
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["a"] == pytest.approx(1 / 61)
    assert fused["d"] == pytest.approx(1 / 63)
    assert list(fused) == ["b", "c", "a", "d"]
    assert list(rrf([lexical, dense], top_k=2)) == ["b", "c"]


def test_hook_registers_the_model():
    from leaderboard_hybrid_rrf import plugin

    seen = {}
    plugin.register_models(register=lambda name, factory, description="": seen.update({name: factory}))
    assert seen == {"hybrid-rrf": plugin.HybridRRF}
