"""MTEB export read back by mteb's own reader, and import of mteb result files with provenance."""

import json

import pytest
from click.testing import CliRunner
from conftest import read_result_dict, run_cli
from mteb_fixtures import followir_folder

from leaderboard.cli import cli
from leaderboard.records import files as results


@pytest.fixture(scope="module")
def our_results(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ours")
    folder = followir_folder(tmp / "core17")
    ran = run_cli(
        "run",
        "-m",
        "bm25",
        "-t",
        "demo",
        "-t",
        "Core17InstructionRetrieval",
        "--output",
        str(tmp / "results"),
        env={"LEADERBOARD_MTEB_DATA_CORE17INSTRUCTIONRETRIEVAL": str(folder)},
    )
    assert ran.returncode == 0, ran.stderr
    return tmp / "results"


def test_export_is_read_back_by_mteb(our_results, tmp_path):
    from mteb.cache import ResultCache
    from mteb.results import TaskResult

    ran = CliRunner().invoke(
        cli, ["export", "--format", "mteb", "--results", str(our_results), str(tmp_path / "results")]
    )
    assert ran.exit_code == 0, ran.output
    files = sorted((tmp_path / "results").rglob("*.json"))
    names = {p.relative_to(tmp_path / "results").as_posix().split("/", 2)[-1] for p in files}
    assert {"demo.json", "Core17InstructionRetrieval.json", "model_meta.json"} <= names
    for path in files:
        if path.name != "model_meta.json":
            task_result = TaskResult.from_disk(path)  # mteb's own reader
            ours = read_result_dict(next(our_results.rglob(f"*{'demo' if 'demo' in path.name else 'Core17'}*.json")))
            assert task_result.get_score() == pytest.approx(ours["main_score"], abs=1e-6)
    loaded = ResultCache(tmp_path).load_results(tasks=["Core17InstructionRetrieval"], include_remote=False)
    assert [r.task_name for m in loaded.model_results for r in m.task_results] == ["Core17InstructionRetrieval"]
    assert loaded.model_results[0].model_name == "retrieval-leaderboard/bm25"


def test_import_keeps_provenance_and_skips_tasks_mteb_does_not_know(our_results, tmp_path):
    CliRunner().invoke(cli, ["export", "--results", str(our_results), str(tmp_path / "mteb")])
    ran = CliRunner().invoke(cli, ["import", str(tmp_path / "mteb"), "--output", str(tmp_path / "imported")])
    assert ran.exit_code == 4, ran.output  # demo is this harness's task, not mteb's: skipped, and said so
    assert "Imported 1 result(s)" in ran.output and "a task unknown to mteb" in ran.output and "demo" in ran.output
    imported = read_result_dict(next((tmp_path / "imported").rglob("Core17InstructionRetrieval.json")))
    assert imported["imported_from"]["format"] == "mteb" and imported["harness"]["name"] == "mteb"
    original = read_result_dict(next(our_results.rglob("Core17InstructionRetrieval.json")))
    assert imported["main_score"] == pytest.approx(original["main_score"], abs=1e-6)
    # the main score is mteb's declared one (the shipped registry), never guessed by value
    assert imported["task"]["main_score"] == "p-MRR" and imported["task"]["name"] == "Core17InstructionRetrieval"
    scores = imported["scores"]["test"]["default"]
    assert scores["og_map_at_1000"] == pytest.approx(original["scores"]["test"]["default"]["og_map_at_1000"], abs=1e-6)


def test_a_result_we_ran_must_carry_its_data_hash(our_results):
    data = json.loads(next(our_results.rglob("demo.json")).read_text())
    data["task"]["source"]["content_hash"] = None
    assert any("content_hash" in e for e in results.validation_errors(data))


def test_export_carries_mtebs_own_main_score():
    """The stored main score is the per-query mean; the exported file has the value mteb itself reported."""
    from leaderboard.mteb.export import to_task_result

    result = {
        "task": {"name": "IFIRAila", "main_score": "ndcg_at_20", "subsets": ["default"], "source": {"revision": "r"}},
        "scores": {"test": {"default": {"ndcg_at_20": 0.8479012, "ndcg_at_10": 0.5}}},
        "task_details": {"framework": "mteb", "mteb_reported": {"test": {"default": {"ndcg_at_20": 0.8479}}}},
        "timings": {"total": 1.0},
    }
    (entry,) = to_task_result(result).scores["test"]
    assert entry["main_score"] == entry["ndcg_at_20"] == 0.8479 and entry["ndcg_at_10"] == 0.5
