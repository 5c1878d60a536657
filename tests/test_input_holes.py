"""Issue 31's input holes: each bad value stops its command with exit 2 and a message naming the option,
before any work is done (no result read, no wheel built, no data loaded, nothing sent or written)."""

from __future__ import annotations

import json

import pytest
import yaml
from click.testing import CliRunner
from conftest import HUB_TOKEN, run_cli
from hub_server import HubServer

from leaderboard.cli import cli
from leaderboard.errors import BadInput

BAD_REPOS = ["../x", "org/a b", "org/sp\n", "org/a--b", "org", "a/b/c"]


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def assert_refused(ran, *fragments: str) -> None:
    assert ran.exit_code == 2, ran.output
    assert "Traceback" not in ran.output
    for fragment in fragments:
        assert fragment in ran.output, f"{fragment!r} not in {ran.output!r}"


@pytest.fixture
def broken_results(tmp_path):
    """A results folder whose only file is not a result: a check that reads results would name it."""
    folder = tmp_path / "results" / "m" / "r"
    folder.mkdir(parents=True)
    (folder / "task.json").write_text("{not json")
    return tmp_path / "results"


@pytest.mark.parametrize("repo", BAD_REPOS)
def test_push_and_pull_refuse_a_repo_name_the_hub_refuses_before_reading_any_result(broken_results, tmp_path, repo):
    pushed = invoke("push", str(broken_results), "--repo", repo, "--dry-run")
    assert_refused(pushed, "--repo", "ORG/NAME")
    assert "task.json" not in pushed.output  # refused before any result was read
    pulled = invoke("pull", str(tmp_path / "dest"), "--repo", repo)
    assert_refused(pulled, "--repo", "ORG/NAME")
    assert not (tmp_path / "dest").exists()


@pytest.mark.parametrize("repo", ["org/sp\n", "../x", "org/a b"])
def test_space_deploy_build_and_serve_check_their_repo_names(tmp_path, repo):
    deployed = invoke("space", "deploy", "--repo", repo, "--results", "lb/results")
    assert_refused(deployed, "--repo", "the Space as ORG/NAME")
    deployed = invoke("space", "deploy", "--repo", "lb/board", "--results", f"hf://{repo}")
    assert_refused(deployed, "--results", "the results dataset as ORG/NAME")
    built = invoke("space", "build", str(tmp_path / "space"), "--results", repo)
    assert_refused(built, "--results")
    assert not (tmp_path / "space").exists()
    served = invoke("serve", "--results", f"hf://{repo}", "--port", "0")
    assert_refused(served, "--results", "not a valid hub repository name")


def test_the_one_repo_check_is_huggingface_hubs_and_returns_the_bare_name():
    from leaderboard.hub.repo_names import repo_id

    assert (
        repo_id("hf://datasets/lb/results", prefixed=True) == repo_id("hf://lb/results", prefixed=True) == "lb/results"
    )
    with pytest.raises(BadInput, match=r"--requests 'org/q\\n': not a valid hub repository name"):
        repo_id("org/q\n", "--requests", "the requests dataset")


@pytest.mark.parametrize("license_id", ["mit\nevil_key: pwned", "a: b", "MIT-ish", ""])
def test_push_refuses_a_license_the_hub_does_not_know_before_reading_any_result(broken_results, license_id):
    pushed = invoke("push", str(broken_results), "--repo", "lb/results", "--license", license_id, "--dry-run")
    assert_refused(pushed, "--license", "not a license id the Hugging Face Hub accepts", "repositories-licenses")
    assert "task.json" not in pushed.output


def test_the_card_is_yaml_written_by_huggingface_hub_and_holds_exactly_its_keys():
    from leaderboard.hub.flat_table import dataset_card

    card = dataset_card("lb/results", [], "mit", "0.2.0")
    front = yaml.safe_load(card.split("---\n")[1])
    assert set(front) == {"license", "pretty_name", "tags", "configs"} and front["license"] == "mit"
    with pytest.raises(BadInput, match="--license"):
        dataset_card("lb/results", [], "mit\nevil_key: pwned", "0.2.0")


def test_a_pushed_card_carries_the_license_and_no_injected_key(tmp_path, hub_online):
    results = tmp_path / "results"
    made = invoke("run", "-m", "bm25", "-t", "demo", "-o", str(results))
    assert made.exit_code == 0, made.output
    with HubServer() as hub:
        env = {"HF_TOKEN": HUB_TOKEN, "HF_HUB_OFFLINE": "0"}
        ends = ("--repo", "lb/results", "--endpoint", hub.endpoint)
        bad = run_cli("push", str(results), *ends, "--license", "mit\nevil_key: pwned", env=env)
        assert bad.returncode == 2 and "--license" in bad.stderr and not hub.state.repos
        pushed = run_cli("push", str(results), *ends, "--license", "cc0-1.0", env=env)
        assert pushed.returncode == 0, pushed.stderr
        front = yaml.safe_load(hub.state.repos["lb/results"].files["README.md"].decode().split("---\n")[1])
    assert front["license"] == "cc0-1.0" and "evil_key" not in front


def test_space_build_below_a_file_exits_2_and_builds_nothing(tmp_path):
    (tmp_path / "a-file").write_text("keep")
    for target in ("a-file/space", "a-file/sub/space"):
        built = invoke("space", "build", str(tmp_path / target))
        assert_refused(built, "a-file is a file, not a folder")
    assert (tmp_path / "a-file").read_text() == "keep"
    assert not any(p.name.startswith(".space-") for p in tmp_path.iterdir())


def _mair_layout(folder):
    """One MAIR task's files, as mair's loader expects them (one folder holding both)."""
    folder.mkdir(parents=True)
    query = {"qid": "q1", "query": "alpha", "instruction": "find alpha", "labels": [{"id": "d1", "score": 1}]}
    (folder / "queries.jsonl").write_text(json.dumps(query) + "\n")
    docs = [{"id": "d1", "doc": "alpha"}, {"id": "d2", "doc": "beta"}]
    (folder / "docs.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))


@pytest.mark.parametrize("spec", ["mair:{outside}", "mair:/etc", "mair:..", "mair:../outside", "mteb:/etc/passwd"])
def test_a_task_argument_never_becomes_a_path_outside_the_data_folder(tmp_path, spec):
    data = tmp_path / "data"
    data.mkdir()
    _mair_layout(tmp_path / "outside")  # readable task files outside the data folder
    spec = spec.format(outside=tmp_path / "outside")
    ran = invoke("run", "-m", "bm25", "-t", spec, "--data-dir", str(data), "-o", str(tmp_path / "out"))
    assert ran.exit_code == 2, ran.output
    assert "Traceback" not in ran.output and not (tmp_path / "out").exists()
    if spec.startswith("mair:"):
        assert "--task" in ran.output and "is a path" in ran.output


# -- the per-query rule ----------------------------------------------------------------------------------


def _forged(path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def _no_per_query_and_a_forged_score(data: dict) -> None:
    data["per_query"] = None
    data["main_score"] = data["scores"]["test"]["default"]["ndcg_at_10"] = 0.99


def _damaged_per_query_and_a_forged_score(data: dict) -> None:
    data["per_query"]["data"] = "AAAA" + data["per_query"]["data"][4:]
    data["main_score"] = data["scores"]["test"]["default"]["ndcg_at_10"] = 0.99


@pytest.mark.parametrize("change", [_no_per_query_and_a_forged_score, _damaged_per_query_and_a_forged_score])
def test_a_complete_result_without_its_per_query_values_is_refused_by_every_reader(bm25_demo_submission, change):
    from leaderboard.app.server import loading

    (path,) = bm25_demo_submission.rglob("demo.json")
    _forged(path, change)
    results = bm25_demo_submission / "results"
    shown = invoke("show", str(results))
    assert shown.exit_code == 0 and "0.99" not in shown.output and "skipped" in shown.output
    assert "per_query" in shown.output
    validated = invoke("validate", str(bm25_demo_submission))
    assert_refused(validated, "demo.json", "per_query")
    pushed = invoke("push", str(results), "--repo", "lb/results", "--dry-run")
    assert_refused(pushed, "Refusing to push", "demo.json", "per_query")
    board = loading.load(results, public=False, persist=False)
    assert not board.rows and [p for p, _ in board.skipped] == ["bm25/bm25s-0.3.16/demo.json"]


def test_results_that_may_lack_per_query_values_still_read(bm25_demo_submission):
    """Version 1 files, imported results, partial results and a task's stated reason stay readable."""
    from conftest import REPO

    from leaderboard.records.reader import read_record as read_plain

    (path,) = bm25_demo_submission.rglob("demo.json")
    original = json.loads(path.read_text())
    exempt = {
        "imported": lambda d: d.update(imported_from={"format": "mteb", "file": "x.json", "mteb_version": "2.0.0"}),
        "partial": lambda d: d["coverage"].update(complete=False, reason="--limit 3"),
        "stated": lambda d: d["task_details"].update(per_query="not computed: no per-query definition"),
    }
    for name, change in exempt.items():
        data = json.loads(json.dumps(original))
        data["per_query"] = None
        change(data)
        path.write_text(json.dumps(data))
        assert read_plain(path)["per_query"] is None, name
    assert read_plain(REPO / "tests" / "fixtures" / "result-v1-bm25-demo.json")["schema_version"] == "1"


def test_every_committed_result_carries_its_per_query_values():
    from conftest import REPO

    from leaderboard.records.reader import read_record as read_plain

    files = [p for p in (REPO / "submissions").rglob("results/**/*.json") if p.name != "model_card.json"]
    assert files and all(read_plain(p)["per_query"] is not None for p in files)
    assert not list((REPO / "submissions").rglob("demo.json"))  # the demo belongs to no public board
