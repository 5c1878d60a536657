"""`leaderboard compare`: paired bootstrap interval and randomization p-value per task from the results'
per-query values, Holm across tasks, checked against scipy.stats and a hand computation on a small fixture."""

import json

import numpy as np
import pytest
from conftest import run_cli, write_beir
from scipy import stats

import leaderboard
from leaderboard.records.result import encode_per_query

# Hand-made per-query nDCG@10 of two systems on the same 12 queries (demo) and 5 queries (a tiny folder).
DEMO_A = [0.9, 0.8, 1.0, 0.7, 0.6, 1.0, 0.5, 0.9, 0.8, 0.95, 0.4, 0.85]
DEMO_B = [0.6, 0.7, 0.9, 0.5, 0.6, 0.8, 0.3, 0.7, 0.9, 0.70, 0.2, 0.60]
TINY_A = [1.0, 0.5, 0.0, 1.0, 0.6]
TINY_B = [0.5, 0.5, 0.5, 0.9, 0.6]


def inject(path, values):
    """Replace a result file's per-query values with the fixture (query ids q0, q1, ...)."""
    data = json.loads(path.read_text())
    data["per_query"] = encode_per_query({f"q{i}": {"ndcg_at_10": v} for i, v in enumerate(values)}).model_dump()
    # a result's per-query values average to its score (readers refuse anything else)
    data["scores"]["test"]["default"]["ndcg_at_10"] = data["main_score"] = float(np.mean(values))
    path.write_text(json.dumps(data))


def scipy_reference(a, b, n_resamples=2000, seed=0):
    """scipy's paired bootstrap and permutation test, the queries in id order (q0, q1, q10, q11, q2, ...)."""
    order = sorted(range(len(a)), key=lambda i: f"q{i}")
    a, b = np.asarray(a)[order], np.asarray(b)[order]
    boot = stats.bootstrap(
        (a, b),
        lambda x, y, axis=-1: np.mean(x - y, axis=axis),
        paired=True,
        n_resamples=n_resamples,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    perm = stats.permutation_test(
        (a, b),
        lambda x, y, axis=-1: np.mean(x - y, axis=axis),
        permutation_type="samples",
        n_resamples=n_resamples,
        rng=np.random.default_rng(seed),
    )
    return boot.confidence_interval.low, boot.confidence_interval.high, perm.pvalue


@pytest.fixture
def results(tmp_path):
    folder = write_beir(
        tmp_path / "tiny",
        {f"d{i}": f"passage {i} about topic {i % 3}" for i in range(8)},
        {f"q{i}": f"topic {i}" for i in range(5)},
        {f"q{i}": {f"d{i}": 1} for i in range(5)},
    )
    out = tmp_path / "results"
    outcomes = leaderboard.evaluate(["bm25", "bm25-okapi"], ["demo", str(folder)], output=out)
    by_pair = {(o.model, o.task): o.path for o in outcomes}
    tiny = next(task for _, task in by_pair if task != "demo")
    inject(by_pair["bm25", "demo"], DEMO_A)
    inject(by_pair["bm25-okapi", "demo"], DEMO_B)
    inject(by_pair["bm25", tiny], TINY_A)
    inject(by_pair["bm25-okapi", tiny], TINY_B)
    return out, folder


def test_compare_matches_scipy_and_a_hand_holm(results):
    out, folder = results
    ran = run_cli(
        "compare", "bm25", "bm25-okapi", "--task", "demo", "--task", str(folder),
        "--results", str(out), "--resamples", "2000", "--format", "json",
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    # existing complete results are used ("reused", never "skipped"), nothing re-run
    assert ran.stderr.count("reused: ") == 4 and "skipped" not in ran.stderr
    demo, tiny = json.loads(ran.stdout)["tasks"]
    for row, a, b in ((demo, DEMO_A, DEMO_B), (tiny, TINY_A, TINY_B)):
        low, high, p = scipy_reference(a, b)
        assert row["queries"] == len(a) and row["metric"] == "ndcg_at_10"
        assert row["difference"] == pytest.approx(np.mean(np.subtract(a, b)))
        assert row["mean_a"] == pytest.approx(np.mean(a)) and row["mean_b"] == pytest.approx(np.mean(b))
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high))  # the very resamples scipy draws
        if row["exact"]:  # every sign flip enumerated: the same p as scipy's
            assert row["p_value"] == pytest.approx(p)
        else:  # sampled flips (other draws than scipy's): equal within Monte-Carlo error
            assert row["p_value"] == pytest.approx(p, abs=4 * np.sqrt(p * (1 - p) / 2000) + 2 / 2001)
    # Exact by hand for the 5-query task: d = (.5, 0, -.5, .1, 0); all 2^5 = 32 sign flips, counted directly.
    d = np.subtract(TINY_A, TINY_B)
    flips = np.array(np.meshgrid(*[[1, -1]] * 5)).T.reshape(-1, 5)
    hand_p = np.mean(np.abs((flips * d).mean(axis=1)) >= abs(d.mean()) - 1e-12)
    assert tiny["exact"] and tiny["p_value"] == pytest.approx(hand_p)
    # Holm over two tasks: the smaller p times 2, the larger max(itself, that), each capped at 1.
    small, large = sorted([demo["p_value"], tiny["p_value"]])
    expected = {small: min(1, 2 * small), large: max(min(1, 2 * small), large)}
    assert demo["p_holm"] == pytest.approx(expected[demo["p_value"]])
    assert tiny["p_holm"] == pytest.approx(expected[tiny["p_value"]])


def test_compare_table_and_missing_per_query_values(results):
    out, _ = results
    table = run_cli("compare", "bm25", "bm25-okapi", "-t", "demo", "--results", str(out), "--resamples", "500")
    assert table.returncode == 0, table.stderr
    assert "95% CI" in table.stdout and "p (Holm)" in table.stdout
    assert f"{np.mean(np.subtract(DEMO_A, DEMO_B)):+.4f}" in table.stdout
    path = next(out.glob("bm25/*/demo.json"))
    data = json.loads(path.read_text())
    data["per_query"] = None  # allowed only where the task said why it has none (issue 31's rule)
    data["task_details"]["per_query"] = "not computed: a metric without a per-query definition"
    path.write_text(json.dumps(data))
    missing = run_cli("compare", "bm25", "bm25-okapi", "-t", "demo", "--results", str(out))
    assert missing.returncode == 2 and "has no per-query values" in missing.stderr and "--overwrite" in missing.stderr
