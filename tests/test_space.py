"""The Space, one command away: `leaderboard space build` writes a self-contained folder (front matter,
app.py, requirements.txt naming a wheel of this checkout with the app extra, the wheel); `space deploy`
uploads it to the local stand-in hub as a Space repo with RESULTS_REPO set. The slow test downloads the
deployed Space with huggingface_hub, installs its requirements into a fresh venv (no torch, mteb or
sentence-transformers), serves the baselines pushed to the stand-in's results dataset, and reads the
ranked ComLQ table in Chromium."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
import zipfile
from importlib.metadata import version
from pathlib import Path

import pytest
import yaml
from browser_helpers import (
    board_view,
    chromium,
    chromium_missing,
    free_port,
    open_page,
    publish_screenshots,
    serving,
    settle,
    wait_until_served,
)
from conftest import REPO, run_cli
from hub_server import HubServer
from playwright.sync_api import expect

TOKEN = "hf_SpaceTestTokenNeverPrinted42"
ONLINE = {"HF_HUB_OFFLINE": "0"}


def front_matter(readme: str) -> dict:
    assert readme.startswith("---\n")
    return yaml.safe_load(readme.split("---\n")[1])


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("space") / "out"
    ran = run_cli("space", "build", str(folder), "--results", "hf://lb/results")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert f"Wrote the Space to {folder}" in ran.stdout
    return folder


def test_space_template_names_no_placeholder_url():
    for path in (REPO / "space").rglob("*"):
        if path.is_file():
            text = path.read_text()
            assert "github.com" not in text and "@v0.2.0" not in text, path


def test_build_writes_a_self_contained_space_with_a_wheel_of_the_running_version(built):
    names = sorted(p.name for p in built.iterdir())
    running = version("retrieval-leaderboard")
    wheel = f"retrieval_leaderboard-{running}-py3-none-any.whl"
    assert names == sorted(["README.md", "app.py", "requirements.txt", "space.json", wheel])
    meta = front_matter((built / "README.md").read_text())
    assert meta["sdk"] == "gradio" and meta["app_file"] == "app.py" and meta["python_version"] == "3.11"
    assert meta["sdk_version"] == version("gradio") and meta["datasets"] == ["lb/results"]
    requirements = [
        line for line in (built / "requirements.txt").read_text().splitlines() if line and not line.startswith("#")
    ]
    assert requirements == [f"./{wheel}[app]"]
    config = json.loads((built / "space.json").read_text())
    assert config["results_repo"] == "lb/results" and config["harness"]["version"] == running
    assert (built / "app.py").read_bytes() == (REPO / "space" / "app.py").read_bytes()
    with zipfile.ZipFile(built / wheel) as archive:
        members = set(archive.namelist())
        metadata = archive.read(f"retrieval_leaderboard-{running}.dist-info/METADATA").decode()
    # the checkout's code, tasks and plugins; nothing from tests/, submissions/ or a stale build/
    for module in (
        "leaderboard/hub/space.py",
        "leaderboard/app/ui.py",
        "leaderboard/app/tabs/compare.py",
        "leaderboard_tasks/comlq.py",
    ):
        assert module in members, module
    assert not any(m.startswith(("tests/", "submissions/", "space/")) for m in members)
    assert f"Version: {running}" in metadata and "Provides-Extra: app" in metadata


def test_build_refuses_a_folder_that_is_not_empty_and_writes_nothing(tmp_path):
    target = tmp_path / "taken"
    target.mkdir()
    (target / "mine.txt").write_text("keep me")
    ran = run_cli("space", "build", str(target))
    assert ran.returncode == 2 and "is not an empty folder" in ran.stderr and "Traceback" not in ran.stderr
    assert [p.name for p in target.iterdir()] == ["mine.txt"]
    bad = run_cli("space", "build", str(tmp_path / "new"), "--results", "not a repo")
    assert bad.returncode == 2 and "expected the results dataset as ORG/NAME" in bad.stderr
    assert not (tmp_path / "new").exists() and not any(p.name.startswith(".space-") for p in tmp_path.iterdir())


def deploy(hub: HubServer, *extra: str, results: str = "lb/results"):
    return run_cli(
        "space", "deploy", "--repo", "lb/board", "--results", results, "--endpoint", hub.endpoint, *extra,
        env={"HF_TOKEN": TOKEN, **ONLINE},
    )  # fmt: skip


def test_deploy_uploads_the_space_repo_with_results_repo_set_and_replaces_its_wheel(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    from huggingface_hub import HfApi

    with HubServer() as hub:
        first = deploy(hub)
        assert first.returncode == 0, first.stdout + first.stderr
        assert f"Deployed the Space lb/board serving lb/results: {hub.endpoint}/spaces/lb/board/commit/" in first.stdout
        space = hub.state.spaces["lb/board"]
        assert space.sdk == "gradio" and space.variables["RESULTS_REPO"]["value"] == "lb/results"
        api = HfApi(endpoint=hub.endpoint, token=TOKEN)
        assert api.get_space_variables("lb/board")["RESULTS_REPO"].value == "lb/results"
        wheels = [p for p in space.files if p.endswith(".whl")]
        assert len(wheels) == 1 and {"README.md", "app.py", "requirements.txt", "space.json"} <= set(space.files)
        stale = "retrieval_leaderboard-0.0.1-py3-none-any.whl"  # an older deploy's wheel
        space.files[stale] = b"old"
        second = deploy(hub, results="hf://lb/other-results")
        assert second.returncode == 0, second.stdout + second.stderr
        assert space.variables["RESULTS_REPO"]["value"] == "lb/other-results"
        assert stale not in space.files and [p for p in space.files if p.endswith(".whl")] == wheels
        assert json.loads(space.files["space.json"])["results_repo"] == "lb/other-results"
        assert len(space.history) == 2 and "lb/board" not in hub.state.repos  # a Space, not a dataset
        no_token = run_cli(
            "space", "deploy", "--repo", "lb/board", "--results", "lb/results", "--endpoint", hub.endpoint,
            env={"HF_TOKEN": "", "HF_HOME": str(tmp_path / "no-token"), **ONLINE},
        )  # fmt: skip
        assert no_token.returncode == 2 and "No Hugging Face token" in no_token.stderr
    for proc in (first, second, no_token):
        assert TOKEN not in proc.stdout + proc.stderr


def _env() -> dict[str, str]:
    drop = ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")
    return {k: v for k, v in os.environ.items() if k not in drop}


@pytest.mark.venv  # installs the Space fresh
def test_deployed_space_installs_without_torch_and_serves_a_ranked_board_from_the_hub(tmp_path, monkeypatch):
    """Push the repository's baseline results, deploy, download the Space, install it fresh, serve, read the board."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    from huggingface_hub import HfApi, snapshot_download

    results = tmp_path / "results"
    for model in ("bm25", "bm25-okapi"):
        for path in (REPO / "submissions" / model / "results").rglob("*.json"):
            if path.stem in ("comlq", "negconstraint"):
                target = results / path.relative_to(REPO / "submissions" / model / "results")
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(path, target)
    expected = {
        json.loads(p.read_text())["model"]["name"]: json.loads(p.read_text())["main_score"]
        for p in results.rglob("comlq.json")
    }
    assert set(expected) == {"bm25", "bm25-okapi"}
    with HubServer() as hub:
        env = {"HF_TOKEN": TOKEN, **ONLINE}
        pushed = run_cli("push", str(results), "--repo", "lb/results", "--endpoint", hub.endpoint, env=env)
        assert pushed.returncode == 0, pushed.stdout + pushed.stderr
        deployed = deploy(hub)
        assert deployed.returncode == 0, deployed.stdout + deployed.stderr
        space = Path(
            snapshot_download("lb/board", repo_type="space", endpoint=hub.endpoint, local_dir=tmp_path / "space")
        )
        variables = {
            k: v.value for k, v in HfApi(endpoint=hub.endpoint, token=TOKEN).get_space_variables("lb/board").items()
        }
        assert variables == {"RESULTS_REPO": "lb/results"}

        # As the Space's builder does: a fresh environment, `pip install -r requirements.txt` in the Space folder.
        venv.EnvBuilder(with_pip=True).create(tmp_path / "venv")
        python = tmp_path / "venv" / "bin" / "python"
        installed = subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-compile", "-r",
             "requirements.txt"],
            capture_output=True, text=True, timeout=1500, env=_env(), cwd=space,
        )  # fmt: skip
        assert installed.returncode == 0, installed.stdout + installed.stderr
        for heavy in ("torch", "mteb", "sentence_transformers", "transformers"):
            probe = subprocess.run([str(python), "-c", f"import {heavy}"], capture_output=True, env=_env())
            assert probe.returncode != 0, f"{heavy} is importable in the Space's environment"

        port = free_port()
        serve_env = (
            _env()
            | variables
            | {
                "HF_ENDPOINT": hub.endpoint,  # the Space reads the results dataset from the stand-in hub
                "HF_HUB_OFFLINE": "0",
                "GRADIO_SERVER_NAME": "127.0.0.1",
                "GRADIO_SERVER_PORT": str(port),
                "XDG_CACHE_HOME": str(tmp_path / "cache"),
                "HF_HOME": str(tmp_path / "hf-home"),
            }
        )
        proc = subprocess.Popen(
            [str(python), "app.py"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=serve_env, cwd=space
        )
        try:
            url = f"http://127.0.0.1:{port}/"
            wait_until_served(url, proc)
            if not chromium_missing():
                ranked = _ranked_rows(url)
                assert [model for model, _ in ranked] == sorted(expected, key=expected.get, reverse=True)
                for model, value in ranked:
                    assert value == pytest.approx(expected[model], abs=1e-4)
        finally:
            proc.terminate()
            output = proc.communicate(timeout=30)[0].decode()
    assert "share=True" not in output  # no share-link hint
    assert TOKEN not in output


def _ranked_rows(url: str) -> list[tuple[str, float]]:
    """(model, aggregate score) of each ranked row of the ComLQ board, read in Chromium."""
    with chromium() as browser:
        page = open_page(browser, url, query="?benchmark=ComLQ")
        rows = board_view(page, benchmark="ComLQ").locator("#board-table tbody.ranked tr")
        rows.first.wait_for()
        return [
            (row.locator("td.c-model a.to-model").inner_text().strip(), float(row.locator("td.c-agg .v").inner_text()))
            for row in rows.all()
        ]


# -- one board wherever it is served (issue 31) ----------------------------------------------------------

SCREENSHOTS = REPO / "docs" / "screenshots"


@pytest.fixture(scope="module")
def board_folder(tmp_path_factory) -> Path:
    """The repository's baselines, the papers' reported scores and a demo result, as a results folder."""
    folder = tmp_path_factory.mktemp("space-folder") / "results"
    for model in ("bm25", "bm25-okapi", "all-MiniLM-L6-v2"):
        source = REPO / "submissions" / model / "results"
        shutil.copytree(source, folder, dirs_exist_ok=True)
    shutil.copytree(REPO / "submissions" / "reported", folder / "reported")
    ran = run_cli("run", "-m", "bm25", "-t", "demo", "-o", str(folder), env={"XDG_CACHE_HOME": str(folder.parent)})
    assert ran.returncode == 0, ran.stderr
    return folder


def _board_facts(board) -> dict[str, list[tuple[str, float | None]]]:
    """Each benchmark the board shows, with its ranked rows (model, aggregate): no intervals or tests needed."""
    facts = {}
    for name in board.benchmark_names:
        ranking = board.ranking(name, with_stats=False)
        facts[name] = [] if ranking is None else [(line.name, line.aggregate) for line in ranking.ranked]
    return facts


def test_the_space_over_a_folder_is_the_board_over_its_dataset(board_folder, tmp_path, monkeypatch):
    """Before issue 31 the Space over a folder made each task its own board with raw names, put the demo on
    the public board and had no ?benchmark=ComLQ. It now takes the same benchmarks as over the dataset."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    from leaderboard.app.server import loading
    from leaderboard.registry import installed_benchmarks

    with HubServer() as hub:
        ends = ("--repo", "lb/results", "--endpoint", hub.endpoint)
        pushed = run_cli("push", str(board_folder), *ends, env={"HF_TOKEN": TOKEN, **ONLINE})
        assert pushed.returncode == 0, pushed.stderr
        pulled = run_cli("pull", str(tmp_path / "dataset"), *ends, env={"HF_TOKEN": TOKEN, **ONLINE})
        assert pulled.returncode == 0, pulled.stderr
    declared = installed_benchmarks()  # what space/app.py passes, over a folder and over the dataset alike
    over_folder = _board_facts(loading.load(board_folder, declared, public=True, persist=False))
    over_dataset = _board_facts(loading.load(tmp_path / "dataset", declared, public=True, persist=False))
    dataset_alone = _board_facts(loading.load(tmp_path / "dataset", [], public=True, persist=False))
    assert over_folder == over_dataset == dataset_alone
    assert "ComLQ" in over_folder and "NegConstraint" in over_folder
    assert not any(name.lower().startswith(("demo", "comlq", "negconstraint")) and name not in (
        "ComLQ", "NegConstraint") for name in over_folder)  # fmt: skip
    assert {model for model, _ in over_folder["ComLQ"]} == {
        "bm25", "bm25-okapi", "sentence-transformers/all-MiniLM-L6-v2"}  # fmt: skip


@pytest.mark.browser
def test_the_space_app_over_a_folder_serves_the_public_board_in_chromium(board_folder, tmp_path):
    """space/app.py itself, over a local folder (RESULTS_REPO=folder): ?benchmark=ComLQ ranks the baselines,
    the selector offers the public benchmarks only (no demo, no raw task names). Screenshot for a reader."""
    if chromium_missing():
        pytest.skip("Chromium is not installed")
    port = free_port()
    env = {**os.environ, "RESULTS_REPO": str(board_folder), "GRADIO_SERVER_NAME": "127.0.0.1",
           "GRADIO_SERVER_PORT": str(port), "XDG_CACHE_HOME": str(tmp_path / "c"), "HF_HUB_OFFLINE": "1"}  # fmt: skip
    expected = {
        json.loads(p.read_text())["model"]["name"]: json.loads(p.read_text())["main_score"]
        for p in board_folder.rglob("comlq.json")
        if p.parent.name != "reported"
    }
    shots = tmp_path / "shots"
    shots.mkdir()
    with serving([sys.executable, str(REPO / "space" / "app.py")], env, port) as url, chromium() as browser:
        page = open_page(browser, url, {"width": 1400, "height": 1000}, "?benchmark=ComLQ")
        rows = board_view(page, benchmark="ComLQ").locator("#board-table tbody.ranked tr")
        rows.first.wait_for()
        ranked = [
            (row.locator("td.c-model a.to-model").inner_text().strip(), float(row.locator("td.c-agg .v").inner_text()))
            for row in rows.all()
        ]
        assert [m for m, _ in ranked] == sorted(expected, key=expected.get, reverse=True)
        for model, value in ranked:
            assert value == pytest.approx(expected[model], abs=1e-4)
        settle(page)
        page.screenshot(path=str(shots / "space-folder-comlq.png"))
        # the reported BM25 row's note: what was checked of the paper's numbers here (issue 31)
        bm25 = page.locator("#board-table tbody.reported tr", has_text="bm25").first
        bm25.locator("details.note summary").click()
        expect(bm25.locator("details.note")).to_contain_text("1.98 apart")
        bm25.scroll_into_view_if_needed()
        settle(page)
        page.screenshot(path=str(shots / "space-folder-comlq-bm25-note.png"))
        page.locator("#benchmark-select input").click()
        expect(page.get_by_role("option", name="NegConstraint", exact=True)).to_be_visible()  # the list is open
        options = [o.replace("✓", "").strip() for o in page.get_by_role("option").all_inner_texts()]
        assert "ComLQ" in options and "NegConstraint" in options
        assert not {"demo", "comlq", "negconstraint"} & set(options), options  # no raw task as a board
    publish_screenshots(shots, SCREENSHOTS)
