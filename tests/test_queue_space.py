"""The Space with the evaluation queue, one command away: `space deploy --requests ORG/NAME` sets the
REQUESTS_REPO variable exactly as `--results` sets RESULTS_REPO (and `space build --requests` writes it
into space.json, which the Space's app.py reads when the variable is not set); the write token is never
sent to the Space. Against the local stand-in hub, as tests/test_space.py deploys."""

from __future__ import annotations

import json
import runpy

import pytest
from conftest import run_cli
from hub_server import HubServer
from queue_fixtures import REQUESTS

from leaderboard.queue.dataset import RequestsDataset

TOKEN = "hf_QueueSpaceTokenNeverSent42"
ONLINE = {"HF_HUB_OFFLINE": "0"}

pytestmark = pytest.mark.usefixtures("hub_online")


def deploy(hub: HubServer, *extra: str):
    return run_cli(
        "space", "deploy", "--repo", "lb/board", "--results", "lb/results", "--endpoint", hub.endpoint, *extra,
        env={"HF_TOKEN": TOKEN, **ONLINE},
    )  # fmt: skip


def test_deploy_with_requests_sets_requests_repo_as_results_repo_is_set_and_sends_no_token():
    with HubServer() as hub:
        first = deploy(hub, "--requests", f"hf://{REQUESTS}")
        assert first.returncode == 0, first.stdout + first.stderr
        assert (
            f"Deployed the Space lb/board serving lb/results, queue {REQUESTS} (REQUESTS_REPO; set the "
            "HF_TOKEN secret by hand):" in first.stdout
        )
        space = hub.state.spaces["lb/board"]
        assert space.variables["REQUESTS_REPO"]["value"] == REQUESTS
        assert space.variables["RESULTS_REPO"]["value"] == "lb/results"
        assert json.loads(space.files["space.json"])["requests_repo"] == REQUESTS
        # the token is never a variable, nor in any file of the Space
        assert set(space.variables) == {"RESULTS_REPO", "REQUESTS_REPO"}
        assert not [p for p, data in space.files.items() if TOKEN.encode() in data]

        again = deploy(hub)  # a redeploy without --requests keeps the queue the owner set
        assert again.returncode == 0, again.stdout + again.stderr
        assert "queue" not in again.stdout and space.variables["REQUESTS_REPO"]["value"] == REQUESTS
        commits = len(space.history)

        bad = deploy(hub, "--requests", "not a repo")
        assert bad.returncode == 2 and "--requests 'not a repo': not a valid hub repository name" in bad.stderr
        assert "Traceback" not in bad.stderr and len(space.history) == commits
        assert space.variables["REQUESTS_REPO"]["value"] == REQUESTS
    for proc in (first, again, bad):
        assert TOKEN not in proc.stdout + proc.stderr


def test_a_built_space_with_requests_shows_the_submit_and_queue_tabs_from_its_space_json(tmp_path, monkeypatch):
    import huggingface_hub.constants

    folder = tmp_path / "space"
    built = run_cli("space", "build", str(folder), "--results", "lb/results", "--requests", REQUESTS)
    assert built.returncode == 0, built.stdout + built.stderr
    assert f"serving lb/results, queue {REQUESTS} (REQUESTS_REPO; set the HF_TOKEN secret by hand)" in built.stdout
    assert json.loads((folder / "space.json").read_text())["requests_repo"] == REQUESTS
    results = tmp_path / "results"
    results.mkdir()
    with HubServer() as hub:
        RequestsDataset(REQUESTS, hub.endpoint, TOKEN).ensure_exists()
        monkeypatch.setattr(huggingface_hub.constants, "ENDPOINT", hub.endpoint)
        monkeypatch.setenv("RESULTS_REPO", str(results))
        monkeypatch.delenv("REQUESTS_REPO", raising=False)
        monkeypatch.setenv("LEADERBOARD_POLL_SECONDS", "0")
        app = runpy.run_path(str(folder / "app.py"))  # not __main__: builds the app, launches nothing
        config = json.dumps(app["demo"].get_config_file(), default=str)
    assert app["REQUESTS"] == REQUESTS
    assert "submit-plugin" in config and '"label": "Queue"' in config
