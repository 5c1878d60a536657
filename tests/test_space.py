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
import socket
import subprocess
import time
import urllib.request
import venv
import zipfile
from importlib.metadata import version
from pathlib import Path

import pytest
import yaml
from conftest import REPO, run_cli
from hub_server import HubServer

TOKEN = "hf_SpaceTestTokenNeverPrinted42"
ONLINE = {"HF_HUB_OFFLINE": "0"}
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


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
        "leaderboard/space.py",
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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
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

        port = _free_port()
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
            deadline = time.time() + 240
            while True:
                try:
                    with urllib.request.urlopen(url, timeout=5) as response:
                        assert response.status == 200
                    break
                except OSError:
                    assert proc.poll() is None, proc.stdout.read().decode()
                    assert time.time() < deadline, "the Space did not answer within 240 s"
                    time.sleep(0.5)
            if os.path.exists(CHROMIUM):
                ranked = _ranked_rows(url + "?benchmark=ComLQ")
                assert [model for model, _ in ranked] == sorted(expected, key=expected.get, reverse=True)
                for model, value in ranked:
                    assert value == pytest.approx(expected[model], abs=1e-4)
        finally:
            proc.terminate()
            output = proc.communicate(timeout=30)[0].decode()
    assert "share=True" not in output  # no share-link hint
    assert TOKEN not in output


def _ranked_rows(url: str) -> list[tuple[str, float]]:
    """(model, aggregate score) of each ranked row of the board, read in Chromium."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            page.goto(url)
            page.wait_for_selector("#board-table tbody.ranked tr", timeout=60000)
            rows = page.locator("#board-table tbody.ranked tr")
            return [
                (row.locator("td.c-model").inner_text().strip(), float(row.locator("td.c-agg .v").inner_text()))
                for row in rows.all()
            ]
        finally:
            browser.close()
