"""Plugin discovery through entry points: isolation of broken plugins, duplicates, allowlist."""

import json

from conftest import make_plugin_dist, run_cli

GOOD = """
from leaderboard import hookimpl
from leaderboard_plugins.bm25 import BM25

class Renamed(BM25):
    def __init__(self):
        super().__init__()
        self.metadata.name = "{model}"

@hookimpl
def register_models(register):
    register("{model}", lambda request: Renamed(), description="a BM25 under another name")
"""

IMPORT_FAILS = """
import a_module_that_does_not_exist
"""

HOOK_RAISES = """
from leaderboard import hookimpl

@hookimpl
def register_tasks(register):
    raise RuntimeError("boom while registering")
"""


def plugins_json(result):
    assert result.returncode == 0, result.stderr
    return {p["name"]: p for p in json.loads(result.stdout)}


def test_builtins_come_through_entry_points():
    listed = plugins_json(run_cli("plugins", "--json"))
    assert {"beir", "demo", "bm25", "sentence-transformers"} <= set(listed)
    assert listed["bm25"]["distribution"] == "retrieval-leaderboard"
    assert listed["bm25"]["hooks"] == ["register_models"]
    assert listed["bm25"]["models"] == ["bm25", "bm25:mair"]  # the default and MAIR's protocol (a named variant)


def test_broken_plugins_are_reported_and_do_not_break_the_cli(tmp_path):
    site = tmp_path / "site"
    make_plugin_dist(site, "broken-import", "broken_import", IMPORT_FAILS, {"broken-import": "broken_import"})
    make_plugin_dist(site, "hook-raises", "hook_raises", HOOK_RAISES, {"hook-raises": "hook_raises"})
    make_plugin_dist(site, "good-one", "good_one", GOOD.format(model="bm25-copy"), {"good-one": "good_one"})
    env = {"PYTHONPATH": str(site)}
    listed = plugins_json(run_cli("plugins", "--json", env=env))
    assert "a_module_that_does_not_exist" in listed["broken-import"]["errors"][0]
    assert "boom while registering" in listed["hook-raises"]["errors"][0]
    assert listed["good-one"]["models"] == ["bm25-copy"] and not listed["good-one"]["errors"]
    table = run_cli("plugins", env=env)
    assert "broken-import" in table.stdout and "Traceback" not in table.stdout + table.stderr
    ran = run_cli("run", "--model", "bm25-copy", "--task", "demo", "--output", str(tmp_path / "out"), env=env)
    assert ran.returncode == 0, ran.stderr
    assert (tmp_path / "out" / "bm25-copy").is_dir()


def test_duplicate_names_name_both_plugins(tmp_path):
    site = tmp_path / "site"
    make_plugin_dist(site, "first-dup", "first_dup", GOOD.format(model="dup"), {"first-dup": "first_dup"})
    make_plugin_dist(site, "second-dup", "second_dup", GOOD.format(model="dup"), {"second-dup": "second_dup"})
    env = {"PYTHONPATH": str(site)}
    listed = plugins_json(run_cli("plugins", "--json", env=env))
    assert "'first-dup'" in listed["second-dup"]["errors"][0] and "'second-dup'" in listed["second-dup"]["errors"][0]
    ran = run_cli("run", "--model", "dup", "--task", "demo", "--output", str(tmp_path / "out"), env=env)
    assert ran.returncode == 2
    assert "ambiguous" in ran.stderr and "'first-dup'" in ran.stderr and "'second-dup'" in ran.stderr
    assert "Traceback" not in ran.stderr
    assert run_cli("models", env=env).returncode == 0  # every other command keeps working


def test_allowlist_limits_what_loads(tmp_path):
    site = tmp_path / "site"
    make_plugin_dist(site, "broken-import", "broken_import", IMPORT_FAILS, {"broken-import": "broken_import"})
    env = {"PYTHONPATH": str(site), "LEADERBOARD_PLUGINS": "bm25, demo"}
    listed = plugins_json(run_cli("plugins", "--json", env=env))
    assert set(listed) == {"bm25", "demo"}
    unknown = run_cli("run", "--model", "all-MiniLM-L6-v2", "--task", "demo", env=env)
    assert unknown.returncode == 2 and "Unknown model" in unknown.stderr


def test_factory_failure_is_an_internal_error_naming_the_plugin(tmp_path):
    source = """
from leaderboard import hookimpl

def explode(request):
    raise ValueError("weights are corrupt")

@hookimpl
def register_models(register):
    register("exploding", explode)
"""
    site = make_plugin_dist(tmp_path / "site", "exploding", "exploding", source, {"exploding": "exploding"})
    ran = run_cli(
        "run",
        "--model",
        "exploding",
        "--task",
        "demo",
        "--output",
        str(tmp_path / "out"),
        env={"PYTHONPATH": str(site)},
    )
    assert ran.returncode == 1
    assert "'exploding'" in ran.stderr and "weights are corrupt" in ran.stderr and "Traceback" not in ran.stderr


def test_model_kind_follows_the_base_class(tmp_path):
    """A DenseModel that declares kind=reranker used to run as dense and be recorded as a reranker."""
    import numpy as np
    import pytest

    import leaderboard
    from leaderboard import DenseModel, LeaderboardError, ModelKind, ModelMetadata

    class Mislabelled(DenseModel):
        metadata = ModelMetadata("mislabelled", ModelKind.RERANKER)

        def encode(self, texts, role):
            return np.ones((len(texts), 2), dtype=np.float32)

    with pytest.raises(LeaderboardError, match="a dense model.* metadata.kind says reranker"):
        leaderboard.evaluate([Mislabelled()], ["demo"], output=tmp_path)
    assert not list(tmp_path.rglob("*.json"))
    Mislabelled.metadata = ModelMetadata("labelled", ModelKind.DENSE)
    (outcome,) = leaderboard.evaluate([Mislabelled()], ["demo"], output=tmp_path, use_cache=False)
    assert outcome.result.model.kind == ModelKind.DENSE
