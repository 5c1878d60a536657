"""End to end on the real ComLQ data (../shared/data) and with the real all-MiniLM-L6-v2 weights."""

import json

import pytest
import pytrec_eval
from conftest import COMLQ, needs_comlq, read_result_dict, run_cli

from leaderboard.data.beir import load_beir


@needs_comlq
def test_bm25_on_comlq_equals_pytrec_eval(tmp_path):
    ran = run_cli("run", "--model", "bm25", "--task", str(COMLQ), "--output", str(tmp_path))
    assert ran.returncode == 0, ran.stderr
    (path,) = tmp_path.rglob("beir-comlq.json")
    result = read_result_dict(path)  # schema-valid
    assert result["counts"] == {
        "queries": 2909,
        "documents": 11251,
        "texts_requested": 0,
        "texts_encoded": 0,
        "pairs_scored": 0,
    }
    assert result["task"]["source"]["uri"] == str(COMLQ.resolve())
    # Recompute independently: the same model's run, scored by pytrec_eval alone.
    from leaderboard_plugins.bm25 import BM25

    data = load_beir(COMLQ)
    run = BM25().search(data.corpus, data.queries, 100)
    per_query = pytrec_eval.RelevanceEvaluator(data.qrels, {"ndcg_cut.10"}).evaluate(run)
    assert len(per_query) == 2909  # BM25 retrieved something for every query, so none were dropped
    expected = sum(v["ndcg_cut_10"] for v in per_query.values()) / len(per_query)
    assert result["main_score"] == pytest.approx(expected, abs=1e-12)
    assert result["task"]["source"]["content_hash"] == data.source.content_hash


@pytest.mark.real_model
def test_minilm_runs_offline_and_encodes_each_text_once(tmp_path):
    ran = run_cli(
        "run", "--model", "all-MiniLM-L6-v2", "--task", "demo", "--output", str(tmp_path), env={"HF_HUB_OFFLINE": "1"}
    )
    assert ran.returncode == 0, ran.stderr
    (path,) = tmp_path.rglob("demo.json")
    result = json.loads(path.read_text())
    assert result["model"]["name"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert result["model"]["revision"].startswith("sha256-")
    assert result["model"]["metadata"]["n_parameters"] > 20_000_000
    assert result["counts"]["texts_encoded"] == 32 + 12
    assert result["main_score"] > 0.5  # a real model finds most of the hand-written answers
