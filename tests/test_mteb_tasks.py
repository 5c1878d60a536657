"""Instruction-following tasks through mteb, on tiny local datasets in mteb's own layout."""

import json

import pytest
from conftest import make_plugin_dist, run_cli
from mteb_fixtures import followir_folder, instructir_folder

# An oracle reranker: its scores are fixed per (query, document), so the rankings are known.
ORACLE = """
from leaderboard import hookimpl
from leaderboard.contract.model import ModelKind, ModelMetadata, Reranker

SCORES = {  # (query marker, document marker) -> score
    ("q1 original", "Phobos"): 0.9, ("q1 original", "Jupiter"): 0.8, ("q1 original", "rover"): 0.7,
    ("q1 changed", "Jupiter"): 0.9, ("q1 changed", "rover"): 0.8, ("q1 changed", "Phobos"): 0.7,
    ("q2 original", "Venus"): 0.9, ("q2 original", "Saturn"): 0.5,
    ("q2 changed", "Saturn"): 0.9, ("q2 changed", "Neptune"): 0.5,
}

class FixedReranker(Reranker):
    metadata = ModelMetadata("org/fixed-reranker", ModelKind.RERANKER, revision="1")

    def score_pairs(self, pairs):
        return [next(s for (q, d), s in SCORES.items() if q in query and d in doc) for query, doc in pairs]

@hookimpl
def register_models(register):
    register("fixed-reranker", lambda request: FixedReranker())
"""


def run_fixed_reranker(tmp_path, model):
    """Run MODEL (which may use the fixed reranker) on the FollowIR-style folder; return the result."""
    folder = followir_folder(tmp_path / "followir")
    site = make_plugin_dist(
        tmp_path / "site", "fixed-reranker", "fixed_reranker", ORACLE, {"fixed-reranker": "fixed_reranker"}
    )
    ran = run_cli(
        "run", "-m", model, "-t", str(folder), "--output", str(tmp_path / "out"), env={"PYTHONPATH": str(site)}
    )
    assert ran.returncode == 0, ran.stderr
    return json.loads(next((tmp_path / "out").rglob("*.json")).read_text())


def test_p_mrr_by_hand_and_equal_to_mteb(tmp_path):
    result = run_fixed_reranker(tmp_path, "fixed-reranker")
    # By hand. q1: docA ranks 1 -> 3 (moved down, as the changed instruction asks): 1 - (1/3)/(1/1) = 2/3;
    #              docB ranks 3 -> 2 (moved up): (1/3)/(1/2) - 1 = -1/3;        q1 = (2/3 - 1/3) / 2 = 1/6
    #          q2: docC ranks 1 -> missing from the changed run (rank 3 = len + 1): 1 - (1/3)/(1/1) = 2/3
    #          p-MRR = mean over queries = (1/6 + 2/3) / 2 = 5/12
    by_hand = (1 / 6 + 2 / 3) / 2
    scores = result["scores"]["test"]["default"]
    assert result["main_score"] == pytest.approx(by_hand, abs=1e-5)  # mteb rounds to 5 decimals
    from mteb._evaluators.retrieval_metrics import calculate_pmrr

    og = {"q1-og": {"docA": 0.9, "docX": 0.8, "docB": 0.7}, "q2-og": {"docC": 0.9, "docY": 0.5}}
    changed = {"q1-changed": {"docX": 0.9, "docB": 0.8, "docA": 0.7}, "q2-changed": {"docY": 0.9, "docZ": 0.5}}
    assert calculate_pmrr(og, changed, {"q1": ["docA", "docB"], "q2": ["docC"]}) == pytest.approx(by_hand)
    assert scores["p-MRR"] == pytest.approx(by_hand, abs=1e-5)
    # og / changed sub-scores: q1-og has docA@1, docB@3 relevant; q2-og docC@1
    assert scores["og_ndcg_at_1"] == pytest.approx(1.0, abs=1e-5)
    assert scores["changed_ndcg_at_1"] == pytest.approx(
        0.5, abs=1e-5
    )  # q1-changed: docX first (0); q2-changed: docY first (1)
    assert result["task_details"]["mteb_version"] and result["task"]["source"]["kind"] == "local"
    assert result["task"]["evaluation"] == "external" and result["task"]["main_score"] == "p-MRR"


@pytest.mark.real_model
@pytest.mark.parametrize("model", ["all-MiniLM-L6-v2", "bm25"])
def test_followir_style_folder_with_real_models(tmp_path, model):
    folder = followir_folder(tmp_path / "followir")
    ran = run_cli("run", "-m", model, "-t", str(folder), "--output", str(tmp_path / "out"))
    assert ran.returncode == 0, ran.stderr
    result = json.loads(next((tmp_path / "out").rglob("*.json")).read_text())
    scores = result["scores"]["test"]["default"]
    assert {"p-MRR", "og_map_at_1000", "og_ndcg_at_5", "changed_map_at_1000", "changed_ndcg_at_5"} <= set(scores)
    assert -1 <= result["main_score"] <= 1
    assert result["task"]["source"]["content_hash"].startswith("sha256:")


def test_pipeline_reranks_the_given_lists(tmp_path):
    result = run_fixed_reranker(tmp_path, "bm25 >> fixed-reranker")
    assert result["main_score"] == pytest.approx((1 / 6 + 2 / 3) / 2, abs=1e-5)  # the reranker alone decides the order


def test_instructir_style_folder(tmp_path):
    folder = instructir_folder(tmp_path / "instructir")
    ran = run_cli("run", "-m", "bm25", "-t", f"mteb:{folder}", "--output", str(tmp_path / "out"))
    assert ran.returncode == 0, ran.stderr
    result = json.loads(next((tmp_path / "out").rglob("*.json")).read_text())
    assert result["task"]["main_score"] == "robustness_at_10"
    from leaderboard.records.result import Result, decode_per_query

    values = decode_per_query(Result.model_validate(result).per_query)  # per base query: b, c
    assert set(values) == {"b", "c"} and result["task_details"]["per_query_unit"].startswith("base query")
    mean = sum(v["robustness_at_10"] for v in values.values()) / 2
    assert result["main_score"] == pytest.approx(mean, abs=1e-9)
    assert result["task_details"]["mteb_reported"]["test"]["default"]["robustness_at_10"] == pytest.approx(
        mean, abs=1e-6
    )
    assert (
        0
        <= result["scores"]["test"]["default"]["robustness_at_10"]
        <= result["scores"]["test"]["default"]["ndcg_at_10"]
    )


def test_curated_task_with_local_data_via_env(tmp_path):
    folder = followir_folder(tmp_path / "core17")
    ran = run_cli(
        "run",
        "-m",
        "bm25",
        "-t",
        "Core17InstructionRetrieval",
        "--output",
        str(tmp_path / "out"),
        env={"LEADERBOARD_MTEB_DATA_CORE17INSTRUCTIONRETRIEVAL": str(folder)},
    )
    assert ran.returncode == 0, ran.stderr
    result = json.loads(next((tmp_path / "out").rglob("Core17InstructionRetrieval.json")).read_text())
    assert result["task"]["family"] == "followir" and "p-MRR" in result["scores"]["test"]["default"]


def test_mteb_failures_are_clear_exit_2(tmp_path):
    offline = run_cli(
        "run",
        "-m",
        "bm25",
        "-t",
        "News21InstructionRetrieval",
        "--output",
        str(tmp_path / "a"),
        env={"HF_HUB_OFFLINE": "1"},
    )
    assert (
        offline.returncode == 2
        and "mteb task News21InstructionRetrieval" in offline.stderr
        and "Traceback" not in offline.stderr
    )
    broken = followir_folder(tmp_path / "broken")
    (broken / "top_ranked.jsonl").unlink()
    failed = run_cli("run", "-m", "bm25", "-t", str(broken), "--output", str(tmp_path / "b"))
    assert (
        failed.returncode == 2 and "mteb task mteb-local-broken" in failed.stderr and "Traceback" not in failed.stderr
    )
    unknown = run_cli("run", "-m", "bm25", "-t", "mteb:NoSuchTaskAnywhere", "--output", str(tmp_path / "c"))
    assert unknown.returncode == 2 and "mteb has no task 'NoSuchTaskAnywhere'" in unknown.stderr
    limited = run_cli(
        "run",
        "-m",
        "bm25",
        "-t",
        str(followir_folder(tmp_path / "ok")),
        "--limit",
        "1",
        "--output",
        str(tmp_path / "d"),
    )
    assert limited.returncode == 2 and "--limit is not supported" in limited.stderr
