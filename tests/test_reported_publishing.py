"""Reported scores travel with the results dataset: push --reported uploads them (all or none), pull brings
them back, `show --reported` lists them in a table of their own, and `show` never takes them for results."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner
from conftest import HUB_ONLINE, HUB_TOKEN, REPO, run_cli
from hub_server import HubServer

from leaderboard.cli import cli
from leaderboard.hub.store import HubStore, Upload, collect
from leaderboard.records.reported import load_reported, reported_uploads

SEED = REPO / "submissions" / "reported"
ONLINE = {**HUB_ONLINE, "HF_TOKEN": HUB_TOKEN}
pytestmark = pytest.mark.usefixtures("hub_online")


@pytest.fixture(scope="module")
def results_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("results")
    ran = CliRunner().invoke(cli, ["run", "-m", "bm25", "-t", "demo", "--output", str(out)])
    assert ran.exit_code == 0, ran.output
    return out


def test_push_uploads_the_papers_and_pull_brings_them_back(results_dir, tmp_path):
    with HubServer() as hub:
        ends = ("--repo", "lb/results", "--endpoint", hub.endpoint)
        pushed = run_cli("push", str(results_dir), *ends, "--reported", str(SEED), env=ONLINE)
        assert pushed.returncode == 0, pushed.stderr
        remote = hub.state.repos["lb/results"].files
        for path in SEED.glob("*.json"):
            assert remote[f"reported/{path.name}"] == path.read_bytes()
        pulled = run_cli("pull", str(tmp_path / "dest"), *ends, env=ONLINE)
        assert pulled.returncode == 0, pulled.stderr
    dest = tmp_path / "dest"
    assert sorted(p.name for p in (dest / "reported").iterdir()) == sorted(p.name for p in SEED.glob("*.json"))
    assert load_reported(dest) == load_reported(SEED.parent)
    shown = run_cli("show", str(dest))
    assert shown.returncode == 0 and "skipped" not in shown.stderr, shown.stderr  # never read as results
    assert "bm25" in shown.stdout and "reported in" not in shown.stdout


def test_a_bad_reported_file_stops_the_push_naming_it(results_dir, tmp_path):
    folder = tmp_path / "reported"
    shutil.copytree(SEED, folder)
    data = json.loads((folder / "comlq.json").read_text("utf-8"))
    data["tables"][0]["rows"][0]["values"].pop()
    (folder / "comlq.json").write_text(json.dumps(data), "utf-8")
    with HubServer() as hub:
        pushed = run_cli(
            "push", str(results_dir), "--repo", "lb/results", "--endpoint", hub.endpoint, "--reported", str(folder)
        )
        assert pushed.returncode == 2
        assert "comlq.json" in pushed.stderr and "14 values for 15 columns" in pushed.stderr
        assert "Traceback" not in pushed.stderr
        assert "lb/results" not in hub.state.repos or not hub.state.repos["lb/results"].files


def test_round_trip_keeps_the_reported_folder(results_dir, tmp_path):
    with HubServer() as hub:
        store = HubStore("lb/results", endpoint=hub.endpoint, token=ONLINE["HF_TOKEN"])
        store.push(collect(results_dir) + [Upload(p, d) for p, d in reported_uploads(SEED)], "results and reported")
        dest = store.pull(tmp_path / "dest")
    assert load_reported(dest)[0] == load_reported(SEED.parent)[0]


def test_show_reported_lists_them_apart_and_marked(results_dir, tmp_path):
    root = tmp_path / "board"
    shutil.copytree(results_dir, root)
    shutil.copytree(SEED, root / "reported")
    table = run_cli("show", str(root), "--reported")
    assert table.returncode == 0, table.stderr
    results_part, _, reported_part = table.stdout.partition("Reported in papers")
    assert "bm25" in results_part and "reported in" not in results_part
    assert "reported in ComLQ, Table 3" in reported_part and "50.5" in reported_part
    listed = run_cli("show", str(root), "--reported", "--format", "json")
    rows = json.loads(listed.stdout)
    reproduced = [r for r in rows if r["source"] == "reproduced"]
    assert [r["task"] for r in reproduced] == ["demo"]
    (bm25,) = [
        r for r in rows if r["source"] == "reported in ComLQ, Table 3" and r["row"] == "BM25" and r["column"] == "total"
    ]
    assert (bm25["model"], bm25["value"], bm25["printed"]) == ("bm25", 0.505, "50.5")
    assert len(rows) == 1 + len(load_reported(root)[0])
    plain = run_cli("show", str(root), "--format", "json")
    assert [r["task"] for r in json.loads(plain.stdout)] == ["demo"]  # without the flag: results only
    markdown = run_cli("show", str(root), "--reported", "--format", "markdown")
    assert markdown.returncode == 0, markdown.stderr
    _, _, reported_md = markdown.stdout.partition("**Reported in papers**")
    assert "| bm25 | reported in ComLQ, Table 3 | comlq | default | nDCG@10 | 0.5050 |" in reported_md


# -- issue 31: one board wherever it is served, one verdict on every reported file -------------------------


def test_push_takes_the_folders_own_reported_scores_along(results_dir, tmp_path):
    """`serve` and `show --reported` over a folder show its reported/; the pushed dataset now holds it too."""
    root = tmp_path / "board"
    shutil.copytree(results_dir, root)
    shutil.copytree(SEED, root / "reported")
    with HubServer() as hub:
        ends = ("--repo", "lb/results", "--endpoint", hub.endpoint)
        pushed = run_cli("push", str(root), *ends, env=ONLINE)
        assert pushed.returncode == 0, pushed.stderr
        assert f"Taking {root / 'reported'} along" in pushed.stdout
        remote = hub.state.repos["lb/results"].files
        assert {f"reported/{p.name}" for p in SEED.glob("*.json")} <= set(remote)
    dry = run_cli("push", str(root), "--repo", "lb/results", "--dry-run", "--no-reported")
    assert dry.returncode == 0 and "reported/" not in dry.stdout
    other = tmp_path / "other"
    shutil.copytree(SEED, other)
    both = run_cli("push", str(root), "--repo", "lb/results", "--dry-run", "--reported", str(other))
    assert both.returncode == 2 and "--no-reported" in both.stderr and "Traceback" not in both.stderr


def _nines(folder):
    """A copy of the seed papers where one printed cell is 400 nines: a number, which divides to inf."""
    shutil.copytree(SEED, folder)
    data = json.loads((folder / "comlq.json").read_text("utf-8"))
    table, row = data["tables"][0], data["tables"][0]["rows"][0]
    row["values"][0] = "9" * 400
    (folder / "comlq.json").write_text(json.dumps(data), "utf-8")
    return table["table"], row["label"], table["columns"][0]["label"]


def test_push_and_every_reader_share_one_verdict_naming_table_row_and_column(results_dir, tmp_path):
    from leaderboard.app.data.reported_tier import reported_scores
    from leaderboard.app.server import loading

    root = tmp_path / "board"
    shutil.copytree(results_dir, root)
    table, row, column = _nines(root / "reported")
    where = f"{table}, row {row!r}, column {column!r}"
    pushed = run_cli(
        "push", str(results_dir), "--repo", "lb/results", "--dry-run", "--reported", str(root / "reported")
    )
    assert pushed.returncode == 2 and "comlq.json" in pushed.stderr and where in pushed.stderr, pushed.stderr
    assert "not a finite number" in pushed.stderr and "Traceback" not in pushed.stderr
    shown = run_cli("show", str(root), "--reported")
    assert shown.returncode == 0 and where in " ".join(shown.stderr.split()), shown.stderr
    scores, skipped = load_reported(root)
    assert (
        len(skipped) == 1
        and where in skipped[0]
        and {s.paper for s in scores} == {s.paper for s in load_reported(SEED.parent)[0]} - {"ComLQ"}
    )
    board = loading.load(root, public=False, persist=False)
    tier_scores, tier_skipped = reported_scores(board)  # the board's reported tier: the same verdict
    assert tier_skipped == skipped and tier_scores == scores and board.rows


def test_two_reported_files_repeating_cells_are_refused_by_push_as_the_board_skips_one(results_dir, tmp_path):
    folder = tmp_path / "reported"
    shutil.copytree(SEED, folder)
    shutil.copy(folder / "comlq.json", folder / "comlq-copy.json")
    pushed = run_cli("push", str(results_dir), "--repo", "lb/results", "--dry-run", "--reported", str(folder))
    assert pushed.returncode == 2 and "repeats cells another reported file already gives" in pushed.stderr
