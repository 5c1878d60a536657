"""Result stores: local round trip, the hub store through huggingface_hub's real client against a
local test server (create, push, conflict on a stale parent, pull back identical bytes), --dry-run,
unchanged files skipped (one commit for two pushes), partial results refused, benchmarks.json and
per-query values round-tripping, and a token that never appears in output, whatever the hub answers."""

import json
import re
import shutil
import socket

import pytest
from click.testing import CliRunner
from conftest import HUB_ONLINE, HUB_TOKEN, make_plugin_dist, run_cli
from hub_server import HubServer

from leaderboard.cli import cli
from leaderboard.errors import BadInput
from leaderboard.hub.store import (
    HubStore,
    PushConflict,
    Upload,
    benchmarks_upload,
    collect,
    merge_benchmarks,
    redact,
)
from leaderboard.records.files import read_result
from leaderboard.records.result import decode_per_query

TOKEN = HUB_TOKEN
ONLINE = HUB_ONLINE
pytestmark = pytest.mark.usefixtures("hub_online")


@pytest.fixture(scope="module")
def results_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("results")
    ran = CliRunner().invoke(
        cli, ["run", "-m", "bm25", "-t", "demo", "-t", "multiconir-demo-task1", "--output", str(out)]
    )
    assert ran.exit_code == 0, ran.output
    return out


def expected_files(results_dir):
    """What a CLI push of results_dir sends: results, model cards, and benchmarks.json when any is registered."""
    from leaderboard.cli.records import _benchmark_declarations

    return len(collect(results_dir, _benchmark_declarations()))


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
    with pytest.raises(BadInput, match=r"Refusing to push: 1 problem.*demo.json.*main_score"):
        collect(bad)


def test_hub_store_push_conflict_and_pull(results_dir, tmp_path):
    with HubServer() as hub:
        store = HubStore("lb/results", endpoint=hub.endpoint, token=TOKEN)
        uploads = collect(results_dir)
        report = store.push(uploads, "first push")
        assert report.url.startswith(hub.endpoint) and "/commit/" in report.url
        assert len(report.pushed) == len(uploads) and report.unchanged == []
        first = store.head()
        card = next(u for u in uploads if u.path_in_repo.endswith("model_card.json"))
        edited = Upload(card.path_in_repo, card.data + b"\n")
        store.push([edited], "second push")  # another writer moves main on
        assert store.head() != first
        with pytest.raises(PushConflict, match="changed since it was read"):
            store.push([Upload(card.path_in_repo, card.data + b"  \n")], "stale push", parent_commit=first)
        assert len(hub.state.repos["lb/results"].history) == 2  # the stale push wrote nothing
        pulled = store.pull(tmp_path / "pulled")
        expected = {u.path_in_repo: u.data for u in uploads} | {edited.path_in_repo: edited.data}
        assert files_under(pulled) == expected  # identical bytes, nothing else
        assert all(a == f"Bearer {TOKEN}" for a in hub.state.authorizations)


def test_pushing_the_same_folder_twice_makes_one_commit(results_dir, tmp_path):
    with HubServer() as hub:
        env = {"HF_TOKEN": TOKEN, **ONLINE}
        args = ("push", str(results_dir), "--repo", "lb/results", "--endpoint", hub.endpoint)
        first, second = run_cli(*args, env=env), run_cli(*args, env=env)
        assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
        n = expected_files(results_dir)
        assert f"Committed {n} files to lb/results: http" in first.stdout, first.stdout
        assert f"Nothing to push: all {n} files are identical to lb/results" in second.stdout, second.stdout
        assert len(hub.state.repos["lb/results"].history) == 1
        extra = tmp_path / "more"
        shutil.copytree(results_dir, extra)
        ran = CliRunner().invoke(cli, ["run", "-m", "bm25-okapi", "-t", "demo", "--output", str(extra)])
        assert ran.exit_code == 0, ran.output
        third = run_cli("push", str(extra), "--repo", "lb/results", "--endpoint", hub.endpoint, env=env)
        assert third.returncode == 0, third.stderr
        assert f"Committed 2 files to lb/results ({n} unchanged files skipped)" in third.stdout, third.stdout
        assert len(hub.state.repos["lb/results"].history) == 2


def test_push_refuses_partial_results_naming_each_file(tmp_path):
    ran = CliRunner().invoke(cli, ["run", "-m", "bm25", "-t", "demo", "--limit", "3", "--output", str(tmp_path / "r")])
    assert ran.exit_code == 0, ran.output
    (partial,) = (tmp_path / "r").rglob("*.json")
    with HubServer() as hub:
        pushed = run_cli(
            "push", str(tmp_path / "r"), "--repo", "lb/results", "--endpoint", hub.endpoint,
            env={"HF_TOKEN": TOKEN, **ONLINE},
        )  # fmt: skip
        assert hub.state.repos == {}
    assert pushed.returncode == 2, pushed.stdout + pushed.stderr
    assert "partial result" in pushed.stderr and str(partial) in pushed.stderr and "--limit 3" in pushed.stderr


BENCHMARK_PLUGIN = """
from leaderboard import hookimpl, Benchmark, BenchmarkTask

@hookimpl
def register_benchmarks(register):
    register("tiny-bench", lambda: Benchmark(
        name="tiny-bench", description="a test benchmark", reference="https://example.org",
        tasks=(BenchmarkTask("demo", "ndcg_at_10"),), formula="mean nDCG@10"))
"""


def test_benchmarks_and_per_query_values_round_trip_through_the_hub(results_dir, tmp_path):
    """push writes benchmarks.json beside results/; pull brings it and the per-query values back, nothing else."""
    folder = tmp_path / "results"
    shutil.copytree(results_dir, folder)
    victim = next(folder.rglob("demo.json"))
    values = decode_per_query(read_result(victim).per_query)  # the run's own (made-up values are refused, issue 23)
    assert values
    plugin = make_plugin_dist(tmp_path / "plugin", "tiny-bench", "tiny_bench", BENCHMARK_PLUGIN, {"tiny": "tiny_bench"})
    with HubServer() as hub:
        env = {"HF_TOKEN": TOKEN, "PYTHONPATH": str(plugin), **ONLINE}
        pushed = run_cli("push", str(folder), "--repo", "lb/results", "--endpoint", hub.endpoint, env=env)
        assert pushed.returncode == 0, pushed.stderr
        remote = hub.state.repos["lb/results"].files
        declared = {b["name"]: b for b in json.loads(remote["benchmarks.json"])}
        assert declared["tiny-bench"]["formula"] == "mean nDCG@10"
        pulled = run_cli("pull", str(tmp_path / "dest"), "--repo", "lb/results", "--endpoint", hub.endpoint, env=env)
        assert pulled.returncode == 0, pulled.stderr
        pulled_files = [p for p in remote if p.startswith("results/") or p == "benchmarks.json"]  # not the table
        assert re.search(rf"Pulled {len(pulled_files)} files from lb/results at [0-9a-f]{{12}} into", pulled.stdout)
    dest = tmp_path / "dest"
    assert sorted(p.name for p in dest.iterdir()) == ["benchmarks.json", "results"]  # no .cache folder
    assert not any(".cache" in p.parts for p in dest.rglob("*"))
    back = read_result(dest / victim.relative_to(tmp_path))
    assert decode_per_query(back.per_query) == values
    assert (dest / "benchmarks.json").read_bytes() == remote["benchmarks.json"]


def test_benchmarks_json_merges_with_the_datasets_declarations():
    ours = [{"name": "b", "formula": "new"}, {"name": "c", "formula": "c"}]
    theirs = [{"name": "a", "formula": "a"}, {"name": "b", "formula": "old"}]
    merged = json.loads(benchmarks_upload(merge_benchmarks(theirs, ours)).data)
    assert merged == [{"formula": "a", "name": "a"}, {"formula": "new", "name": "b"}, {"formula": "c", "name": "c"}]


def test_cli_push_dry_run_pr_and_pull(results_dir, tmp_path):
    with HubServer() as hub:
        env = {"HF_TOKEN": TOKEN, **ONLINE}
        dry = run_cli(
            "push", str(results_dir), "--repo", "lb/results", "--endpoint", hub.endpoint, "--dry-run", env=env
        )
        assert dry.returncode == 0, dry.stderr
        assert "add results/bm25/" in dry.stdout and "demo.json" in dry.stdout and "sha256" in dry.stdout
        assert hub.state.repos == {}  # a dry run sends nothing
        pr = run_cli(
            "push", str(results_dir), "--repo", "lb/results", "--endpoint", hub.endpoint, "--create-pr", env=env
        )
        assert pr.returncode == 0, pr.stderr
        n = expected_files(results_dir)
        assert f"Opened pull request #1 with {n} files: {hub.endpoint}/datasets/lb/results/discussions/1" in pr.stdout
        pushed = run_cli("push", str(results_dir), "--repo", "lb/results", "--endpoint", hub.endpoint, env=env)
        assert pushed.returncode == 0, pushed.stderr
        pulled = run_cli("pull", str(tmp_path / "dest"), "--repo", "lb/results", "--endpoint", hub.endpoint, env=env)
        assert pulled.returncode == 0, pulled.stderr
        assert f"Pulled {n} files" in pulled.stdout and not (tmp_path / "dest" / ".cache").exists()
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


@pytest.mark.parametrize("debug", ["", "1"])
def test_token_never_printed_when_the_hub_echoes_it_with_http_500(results_dir, tmp_path, debug):
    """A broken hub answering 500 with the request's Authorization header: push, pull and serve fail cleanly."""
    with HubServer(fail_status=500) as hub:
        env = {"HF_TOKEN": TOKEN, "LEADERBOARD_DEBUG": debug, "XDG_CACHE_HOME": str(tmp_path / "c"), **ONLINE}
        ends = ("--endpoint", hub.endpoint)
        runs = {
            "push": run_cli("push", str(results_dir), "--repo", "lb/results", *ends, env=env),
            "pull": run_cli("pull", str(tmp_path / "dest"), "--repo", "lb/results", *ends, env=env),
            "serve": run_cli("serve", "--results", "hf://lb/results", "--port", "0", *ends, env=env),
        }
        assert any(a == f"Bearer {TOKEN}" for a in hub.state.authorizations)  # the token was sent ...
    for name, proc in runs.items():
        output = proc.stdout + proc.stderr
        assert proc.returncode == 1, (name, output)
        assert "Hub error:" in output and "HTTP 500" in output and hub.endpoint in output, (name, output)
        assert TOKEN not in output and "Bearer hf_" not in output, (name, output)  # ... and never printed


def test_redact_removes_the_token_and_any_bearer_credential():
    text = f"Authorization: Bearer {TOKEN}; other hf_AbCdEfGh12345678 and bearer xyz.abc, token={TOKEN}"
    cleaned = redact(text, TOKEN)
    assert TOKEN not in cleaned and "hf_AbCd" not in cleaned and "xyz.abc" not in cleaned
    assert cleaned.count("***") == 4


def test_push_to_a_closed_port_names_the_endpoint(results_dir):
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens on it
        probe.bind(("127.0.0.1", 0))
        endpoint = f"http://127.0.0.1:{probe.getsockname()[1]}"
    pushed = run_cli(
        "push", str(results_dir), "--repo", "lb/results", "--endpoint", endpoint, env={"HF_TOKEN": TOKEN, **ONLINE}
    )
    assert pushed.returncode == 2, pushed.stderr
    assert f"Network error: Cannot reach the hub at {endpoint}" in pushed.stderr
    assert "Traceback" not in pushed.stderr and TOKEN not in pushed.stderr


def test_push_conflict_is_labelled_as_such(results_dir, monkeypatch):
    def conflict(*args, **kwargs):
        raise PushConflict("lb/results changed since it was read; nothing was written.")

    monkeypatch.setattr(HubStore, "push", conflict)
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    ran = CliRunner().invoke(cli, ["push", str(results_dir), "--repo", "lb/results"])
    assert ran.exit_code == 3
    assert "Push conflict: lb/results changed" in ran.output and "Internal error" not in ran.output


def test_app_reads_results_from_a_hub_dataset(results_dir, tmp_path, monkeypatch):
    from leaderboard.app.server import loading
    from leaderboard.app.server.sources import resolve_results

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with HubServer() as hub:
        HubStore("lb/results", endpoint=hub.endpoint, token=TOKEN).push(collect(results_dir), "results")
        folder = resolve_results("hf://lb/results", endpoint=hub.endpoint)
        loaded = loading.load(folder)
    assert len(loaded.rows) == 2 and loaded.skipped == []


def test_multiconir_loads_from_the_hub(tmp_path):
    """The hub path of the MultiConIR tasks, through huggingface_hub's snapshot_download (HF_ENDPOINT at import)."""
    from leaderboard_tasks.multiconir.fixture import write_fixture

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


def _bootstrap_intervals(data):
    """(subset, metric) -> the percentile bootstrap (the harness's one, seed 0) of the per-query values behind each
    main-split score that has them, read straight from the file: the interval the board shows."""
    import numpy as np

    from leaderboard.metrics.bootstrap import stratified_bootstrap
    from leaderboard.records.result import decode_per_query, decode_subset_queries

    values, members = decode_per_query(data["per_query"]), decode_subset_queries(data["per_query"])
    found = {}
    for subset, scores in data["scores"][data["task"]["splits"][0]].items():
        ids = list(values) if subset == "default" else members.get(subset)
        for metric, score in scores.items():
            have = {q: values[q][metric] for q in ids or () if metric in values[q]}
            if have and abs(np.mean(list(have.values())) - score) <= 1e-9:
                low, high = stratified_bootstrap([np.asarray([[have[q] for q in sorted(have)]])])
                found[(subset, metric)] = [float(low[0]), float(high[0]), len(have)]
    return found


def _rows_from_json(folder):
    """The flat table's rows computed straight from the result JSON files (scores, stored intervals, else the
    bootstrap of each score's per-query values)."""
    rows = {}
    for path in sorted((folder / "results").glob("*/*/*.json")):
        data = json.loads(path.read_text())
        bootstrapped = _bootstrap_intervals(data)
        for split, subsets in data["scores"].items():
            for subset, values in subsets.items():
                for metric, value in values.items():
                    ci = data.get("confidence_intervals", {}).get(split, {}).get(subset, {}).get(metric)
                    size = data["subset_sizes"].get(split, {}).get(subset)
                    behind = None  # the queries behind the value: those with its per-query value, where there are
                    if split == data["task"]["splits"][0] and (subset, metric) in bootstrapped:
                        behind = bootstrapped[(subset, metric)][2]
                        ci = ci or bootstrapped[(subset, metric)][:2]
                    ci = ci or [None, None]
                    model = data["model"]
                    key = (model["name"], model["revision"], data["task"]["name"], split, subset, metric)
                    rows[key] = {
                        "kind": model["kind"],
                        "value": value,
                        "ci_low": ci[0],
                        "ci_high": ci[1],
                        "queries": size if behind is None else behind,
                        "subset_queries": size,
                        "data_hash": data["task"]["source"]["content_hash"],
                        "result_path": path.relative_to(folder).as_posix(),
                        "is_main_score": (metric, split, subset)
                        == (data["task"]["main_score"], data["task"]["splits"][0], "default"),
                    }
    return rows


def _rows_from_table(records):
    out = {}
    for r in records:
        key = (r["model"], r["revision"], r["task"], r["split"], r["subset"], r["metric"])
        assert key not in out, key  # one row per (model, revision, task, split, subset, metric)
        fields = ("kind", "value", "ci_low", "ci_high", "queries", "subset_queries", "data_hash", "result_path")
        out[key] = {k: r[k] for k in fields}
        out[key]["is_main_score"] = r["is_main_score"]
    return out


def _same_rows(found, expected):
    """Equal rows; intervals to 1e-12 (one bootstrap of several metrics sums in another order than of one)."""
    assert found.keys() == expected.keys()
    for key, row in expected.items():
        for field, value in row.items():
            if field in ("ci_low", "ci_high") and value is not None:
                assert found[key][field] == pytest.approx(value, abs=1e-12), (key, field)
            else:
                assert found[key][field] == value, (key, field)


def _nulls(rows):
    import math

    def clean(v):
        return None if v is None or (isinstance(v, float) and math.isnan(v)) else v

    return {k: {f: clean(v) for f, v in row.items()} for k, row in rows.items()}


def test_push_regenerates_a_flat_table_that_datasets_and_pandas_read_equal_to_the_json(results_dir, tmp_path):
    """Two pushes of different results: the table after the second holds all of them (the full dataset),
    read back with datasets.load_dataset and pandas.read_parquet from a snapshot of the dataset."""
    from pathlib import Path

    import pandas as pd
    import yaml
    from datasets import load_dataset
    from huggingface_hub import snapshot_download

    first = tmp_path / "first"
    shutil.copytree(results_dir, first)
    with_ci = next(first.rglob("demo.json"))
    data = json.loads(with_ci.read_text())
    value = data["scores"]["test"]["default"]["ndcg_at_10"]
    data["confidence_intervals"] = {"test": {"default": {"ndcg_at_10": [value - 0.1, min(1.0, value + 0.05)]}}}
    with_ci.write_text(json.dumps(data, indent=2))
    second = tmp_path / "second"
    ran = CliRunner().invoke(cli, ["run", "-m", "bm25-okapi", "-t", "demo", "--output", str(second)])
    assert ran.exit_code == 0, ran.output
    with HubServer() as hub:
        env = {"HF_TOKEN": TOKEN, **ONLINE}
        ends = ("--repo", "lb/results", "--endpoint", hub.endpoint)
        one = run_cli("push", str(first), *ends, "--license", "cc-by-sa-4.0", env=env)
        two = run_cli("push", str(second), *ends, "--license", "cc-by-sa-4.0", env=env)
        again = run_cli("push", str(second), *ends, "--license", "cc-by-sa-4.0", env=env)
        for proc in (one, two, again):
            assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "Regenerated from all results in the dataset: data/results.parquet, README.md" in one.stdout
        assert "Regenerated from all results in the dataset: data/results.parquet, README.md" in two.stdout
        assert "Nothing to push" in again.stdout  # the table and card are byte-identical when nothing changed
        assert len(hub.state.repos["lb/results"].history) == 2
        local = Path(
            snapshot_download("lb/results", repo_type="dataset", endpoint=hub.endpoint, local_dir=tmp_path / "snap")
        )
    expected = _rows_from_json(local)
    assert {k[0] for k in expected} == {"bm25", "bm25-okapi"}  # the first push's results are still in the table
    assert any(row["ci_low"] is not None for row in expected.values())
    assert all(row["ci_low"] is not None for row in expected.values() if row["is_main_score"])  # null before
    by_pandas = _rows_from_table(pd.read_parquet(local / "data" / "results.parquet").to_dict("records"))
    _same_rows(_nulls(by_pandas), expected)
    by_datasets = _rows_from_table(load_dataset(str(local), split="train", cache_dir=str(tmp_path / "hf-cache")))
    _same_rows(_nulls(by_datasets), expected)
    card = (local / "README.md").read_text()
    front = yaml.safe_load(card.split("---\n")[1])
    assert front["license"] == "cc-by-sa-4.0"
    assert front["configs"] == [
        {"config_name": "default", "data_files": [{"split": "train", "path": "data/results.parquet"}]}
    ]
    for heading in ("## Files", "## License", "## Citation", "@software{"):
        assert heading in card
