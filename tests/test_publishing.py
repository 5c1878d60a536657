"""Result stores: local round trip, the hub store through huggingface_hub's real client against a
local test server (create, push, conflict on a stale parent, pull back identical bytes), --dry-run,
and a token that never appears in output."""

import json

import pytest
from click.testing import CliRunner
from conftest import run_cli
from hub_server import HubServer

from leaderboard.cli import cli
from leaderboard.errors import BadInput
from leaderboard.records.store import HubStore, LocalStore, PushConflict, collect

TOKEN = "hf_TestTokenThatMustNeverBePrinted123"
ONLINE = {"HF_HUB_OFFLINE": "0"}  # the test server is local; huggingface_hub refuses every URL when offline


@pytest.fixture(autouse=True)
def _online(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)


@pytest.fixture(scope="module")
def results_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("results")
    ran = CliRunner().invoke(
        cli, ["run", "-m", "bm25", "-t", "demo", "-t", "multiconir-demo-task1", "--output", str(out)]
    )
    assert ran.exit_code == 0, ran.output
    return out


def files_under(root):
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".cache" not in p.parts
    }


def test_collect_layout_and_model_card(results_dir):
    uploads = {u.path_in_repo: u for u in collect(results_dir)}
    assert "results/bm25/bm25s-0.3.16/demo.json" in {p.replace(p.split("/")[2], "bm25s-0.3.16") for p in uploads}
    card = json.loads(uploads["results/bm25/model_card.json"].data)
    assert card["name"] == "bm25" and card["kind"] == "sparse"


def test_invalid_files_are_refused_before_anything_is_sent(results_dir, tmp_path):
    import shutil

    bad = tmp_path / "bad"
    shutil.copytree(results_dir, bad)
    victim = next(bad.rglob("demo.json"))
    data = json.loads(victim.read_text())
    data["main_score"] = "high"
    victim.write_text(json.dumps(data))
    with pytest.raises(BadInput, match=r"Refusing to push: 1 invalid file.*demo.json.*main_score"):
        collect(bad)


def test_local_store_round_trip(results_dir, tmp_path):
    store = LocalStore(tmp_path / "store")
    store.push(collect(results_dir))
    pulled = store.pull(tmp_path / "pulled")
    assert files_under(pulled / "results") == files_under(tmp_path / "store" / "results")
    for rel, data in files_under(results_dir).items():
        assert files_under(pulled / "results")[rel] == data


def test_hub_store_push_conflict_and_pull(results_dir, tmp_path):
    with HubServer() as hub:
        store = HubStore("lb/results", endpoint=hub.endpoint, token=TOKEN)
        uploads = collect(results_dir)
        url = store.push(uploads, "first push")
        assert url.startswith(hub.endpoint) and "/commit/" in url
        first = store.head()
        store.push(uploads[:1], "second push")  # another writer moves main on
        with pytest.raises(PushConflict, match="changed since it was read"):
            store.push(uploads, "stale push", parent_commit=first)
        assert hub.state.repos["lb/results"].head != first  # the stale push wrote nothing
        pulled = store.pull(tmp_path / "pulled")
        expected = {u.path_in_repo: u.data for u in uploads}
        assert files_under(pulled) == expected  # identical bytes
        assert all(a == f"Bearer {TOKEN}" for a in hub.state.authorizations)


def test_cli_push_dry_run_pr_and_pull(results_dir, tmp_path):
    with HubServer() as hub:
        env = {"HF_TOKEN": TOKEN, **ONLINE}
        dry = run_cli(
            "push", str(results_dir), "--repo", "lb/results", "--endpoint", hub.endpoint, "--dry-run", env=env
        )
        assert dry.returncode == 0, dry.stderr
        assert "add results/bm25/" in dry.stdout and "demo.json" in dry.stdout and "sha256" in dry.stdout
        assert hub.state.repos == {}  # a dry run sends nothing
        pushed = run_cli("push", str(results_dir), "--repo", "lb/results", "--endpoint", hub.endpoint, env=env)
        assert pushed.returncode == 0, pushed.stderr
        pr = run_cli(
            "push", str(results_dir), "--repo", "lb/results", "--endpoint", hub.endpoint, "--create-pr", env=env
        )
        assert pr.returncode == 0 and f"{hub.endpoint}/datasets/lb/results/discussions/1" in pr.stdout
        pulled = run_cli("pull", str(tmp_path / "dest"), "--repo", "lb/results", "--endpoint", hub.endpoint, env=env)
        assert pulled.returncode == 0, pulled.stderr
        shown = run_cli("show", str(tmp_path / "dest"))
        offline = run_cli(
            "push",
            str(results_dir),
            "--repo",
            "lb/results",
            "--endpoint",
            hub.endpoint,
            env={"HF_TOKEN": TOKEN, "HF_HUB_OFFLINE": "1"},
        )
        assert offline.returncode == 2 and "HF_HUB_OFFLINE" in offline.stderr
        assert "bm25" in shown.stdout and "skipped" not in shown.stderr
        for proc in (dry, pushed, pr, pulled, shown, offline):
            assert TOKEN not in proc.stdout + proc.stderr
        missing = run_cli(
            "push",
            str(results_dir),
            "--repo",
            "lb/results",
            "--endpoint",
            hub.endpoint,
            env={"HF_TOKEN": "", "HF_HOME": str(tmp_path / "no-token-home"), **ONLINE},
        )
        assert missing.returncode == 2 and "No Hugging Face token" in missing.stderr
    for path in results_dir.rglob("*.json"):
        assert TOKEN not in path.read_text()


def test_app_reads_results_from_a_hub_dataset(results_dir, tmp_path, monkeypatch):
    from leaderboard.app import data
    from leaderboard.app.sources import resolve_results

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with HubServer() as hub:
        HubStore("lb/results", endpoint=hub.endpoint, token=TOKEN).push(collect(results_dir), "results")
        folder = resolve_results("hf://lb/results", endpoint=hub.endpoint)
        loaded = data.load(folder)
    assert len(loaded.rows) == 2 and loaded.skipped == []


def test_multiconir_loads_from_the_hub(tmp_path):
    """The hub path of the MultiConIR tasks, through huggingface_hub's snapshot_download (HF_ENDPOINT read at import)."""
    from leaderboard_tasks.multiconir_fixture import write_fixture

    from leaderboard.records.store import Upload

    fixture = write_fixture(tmp_path / "fixture")
    uploads = [Upload(p.relative_to(fixture).as_posix(), p.read_bytes()) for p in sorted(fixture.rglob("*.csv"))]
    with HubServer() as hub:
        store = HubStore("Lux1997/MultiConIR", endpoint=hub.endpoint, token=TOKEN)
        store.push(uploads, "data")
        env = {**ONLINE, "HF_ENDPOINT": hub.endpoint, "HF_HOME": str(tmp_path / "hf"), "HF_TOKEN": TOKEN}
        ran = run_cli("run", "-m", "bm25", "-t", "multiconir-task2", "--output", str(tmp_path / "out"), env=env)
        assert ran.returncode == 0, ran.stderr
        head = store.head()
    result = json.loads(next((tmp_path / "out").rglob("multiconir-task2.json")).read_text())
    assert result["task"]["source"]["kind"] == "hub" and result["task"]["source"]["revision"] == head
    assert result["task"]["source"]["uri"] == "hf://datasets/Lux1997/MultiConIR"
