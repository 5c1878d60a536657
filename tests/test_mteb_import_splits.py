"""mteb's reading of files with several evaluation splits (../shared/data/mteb-results-splits), and provenance
paths when the results sit inside another git checkout.

The reference is mteb's own reader as MTEB's leaderboard uses it:
``TaskResult.from_disk(path).validate_and_filter_scores(task).get_score()``.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import SHARED_DATA, run_cli

SPLITS = SHARED_DATA / "mteb-results-splits"
REAL = SPLITS / "results"
REPOSITORY = "https://github.com/embeddings-benchmark/results"
COMMIT = "f4cc6c8b365a3c779dbc708d6affe0b0355b2ddf"
MEAN_SPLIT = "eval_splits_mean"

pytestmark = pytest.mark.skipif(not REAL.is_dir(), reason=f"real mteb results not found at {REAL}")


def records_of(out: Path) -> dict[str, dict]:
    return {r["imported_from"]["file"]: r for r in (json.loads(p.read_text()) for p in out.glob("*/*/*.json"))}


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> dict[str, dict]:
    out = tmp_path_factory.mktemp("splits") / "out"
    ran = run_cli("import", str(SPLITS), "--repository", REPOSITORY, "--commit", COMMIT, "-o", str(out))
    assert ran.returncode == 0, ran.stderr
    return records_of(out)


def test_every_file_imports_with_mtebs_main_score(imported):
    mteb = pytest.importorskip("mteb")
    from mteb.results import TaskResult

    files = sorted(p for p in REAL.glob("*/*/*.json") if p.name != "model_meta.json")
    assert len(files) == len(imported) == 72
    for source, record in imported.items():
        task = mteb.get_task(record["task_details"]["mteb_task"])
        expected = TaskResult.from_disk(SPLITS / source).validate_and_filter_scores(task).get_score()
        assert math.isclose(record["main_score"], expected, rel_tol=0, abs_tol=1e-9), source
        assert record["coverage"]["complete"], source
        assert record["task_details"]["mteb_eval_splits"] == list(task.metadata.eval_splits)


def test_each_split_is_kept_and_the_main_split_holds_their_mean(imported):
    """Computed from the files' own JSON, without mteb."""
    for source, record in imported.items():
        raw = json.loads((SPLITS / source).read_text())
        splits = record["task_details"]["mteb_eval_splits"]
        assert len(splits) > 1 and record["task"]["splits"][: len(splits) + 1] == [MEAN_SPLIT, *splits]
        main = record["task"]["main_score"]
        means = []
        for split in splits:
            entries = raw["scores"][split]
            kept = record["scores"][split]
            for entry in entries:
                assert kept[entry["hf_subset"]][main] == entry["main_score"], (source, split)
            means.append(sum(e["main_score"] for e in entries) / len(entries))
            assert kept["default"][main] == pytest.approx(means[-1], abs=1e-12)
        assert record["scores"][MEAN_SPLIT]["default"][main] == record["main_score"]
        assert record["main_score"] == pytest.approx(sum(means) / len(means), abs=1e-12)


def test_a_worked_example_checked_by_hand(imported):
    """snowflake-arctic-embed-l-v2.0 on LEMBPasskeyRetrieval: 1.0 on the first split (what the import read
    before), (1 + 1 + 1 + 0.98 + 0.94 + 0.64 + 0.38 + 0.24) / 8 = 0.7725 as mteb reads the file."""
    record = next(r for p, r in imported.items() if "arctic-embed-l-v2.0" in p and "Passkey" in p)
    assert record["scores"]["test_256"]["default"]["ndcg_at_1"] == 1.0
    assert record["scores"]["test_32768"]["default"]["ndcg_at_1"] == 0.24
    assert record["main_score"] == pytest.approx(0.7725, abs=1e-12)


def test_a_file_missing_an_evaluation_split_is_partial(tmp_path):
    source = next(REAL.glob("*/*/LEMBPasskeyRetrieval.json"))
    data = json.loads(source.read_text())
    del data["scores"]["test_32768"]
    folder = tmp_path / "results" / "org__m" / "r"
    folder.mkdir(parents=True)
    (folder / source.name).write_text(json.dumps(data))
    assert run_cli("import", str(tmp_path), "-o", str(tmp_path / "out")).returncode == 0
    (record,) = records_of(tmp_path / "out").values()
    assert record["coverage"] == {
        "complete": False,  # never ranked: mteb's leaderboard reads NaN for the missing split
        "reason": "the mteb file lacks 1 of the task's 8 evaluation splits (test_32768)",
    }
    seven = [e["main_score"] for split, entries in data["scores"].items() for e in entries]
    assert record["main_score"] == pytest.approx(sum(seven) / 7, abs=1e-12)


def _git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True, text=True).stdout.strip()


def test_paths_are_the_results_repositorys_inside_another_checkout(tmp_path):
    """A project that holds a copy of the results in a git checkout of its own: the paths, links and
    commit are the results repository's (the folder given), never the enclosing checkout's."""
    project = tmp_path / "project"
    copy = project / "shared" / "data" / "mteb-results"
    model = next(p.parent.parent for p in REAL.glob("*/*/LEMBNeedleRetrieval.json"))
    shutil.copytree(model, copy / "results" / model.name)
    _git(tmp_path, "init", "-q", str(project))
    _git(project, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    _git(project, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a copy")
    _git(project, "remote", "add", "origin", "git@github.com:someone/project.git")
    files = sorted(p for p in (copy / "results").glob("*/*/*.json") if p.name != "model_meta.json")
    expected = {p.relative_to(copy).as_posix() for p in files}
    for given in (copy, copy / "results"):  # the repository's root or its results/ folder
        out = tmp_path / f"out-{given.name}"
        ran = run_cli("import", str(given), "--repository", REPOSITORY, "--commit", COMMIT, "-o", str(out))
        assert ran.returncode == 0, ran.stderr
        records = records_of(out)
        assert set(records) == expected and all(p.startswith("results/") for p in records)
        for path, record in records.items():
            origin = record["imported_from"]
            assert (origin["repository"], origin["commit"]) == (REPOSITORY, COMMIT)
            assert origin["url"] == f"{REPOSITORY}/blob/{COMMIT}/{path}"
    out = tmp_path / "out-plain"
    assert run_cli("import", str(copy), "-o", str(out)).returncode == 0
    for record in records_of(out).values():  # the enclosing checkout's remote and commit are not the results'
        origin = record["imported_from"]
        assert origin["repository"] is None and origin["commit"] is None and origin["url"] is None
        assert origin["file"].startswith("results/")
