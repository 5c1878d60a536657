"""The model author's example plugin installs into a fresh venv and is discovered and runnable."""

import json
import subprocess

import pytest
from conftest import REPO, run_cli
from venv_helpers import make_child_venv, pip_install_offline

EXAMPLE = REPO / "plugins" / "leaderboard-hybrid-rrf"


@pytest.mark.slow
def test_example_plugin_in_a_fresh_venv(tmp_path):
    python = make_child_venv(tmp_path / "venv")
    installed = pip_install_offline(python, EXAMPLE)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    own_tests = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", str(EXAMPLE / "tests")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert own_tests.returncode == 0, own_tests.stdout + own_tests.stderr
    listed = {p["name"]: p for p in json.loads(run_cli("plugins", "--json", python=str(python)).stdout)}
    assert listed["hybrid-rrf"]["distribution"] == "leaderboard-hybrid-rrf" and listed["hybrid-rrf"]["models"] == [
        "hybrid-rrf"
    ]
    ran = run_cli(
        "run", "--model", "hybrid-rrf", "--task", "demo", "--output", str(tmp_path / "out"), python=str(python)
    )
    assert ran.returncode == 0, ran.stderr
    result = json.loads(next((tmp_path / "out").rglob("demo.json")).read_text())
    assert result["model"]["plugin_version"] == "0.1.0" and result["settings"]["model_settings"]["rrf_k"] == 60
    assert result["main_score"] > 0.5
