"""A third-party plugin distribution, built and installed into a fresh venv, is listed and runnable."""

import json

import pytest
from conftest import WORD_OVERLAP_PYPROJECT, run_cli, word_overlap_plugin
from venv_helpers import make_child_venv, pip_install_offline

PLUGIN_MODULE = word_overlap_plugin("1.0")


@pytest.mark.venv  # builds and pip-installs into a fresh venv
def test_out_of_tree_plugin_in_a_fresh_venv(tmp_path):
    project = tmp_path / "plugin-src"
    project.mkdir()
    (project / "pyproject.toml").write_text(WORD_OVERLAP_PYPROJECT)
    (project / "leaderboard_word_overlap.py").write_text(PLUGIN_MODULE)
    python = make_child_venv(tmp_path / "venv")

    before = run_cli("plugins", "--json", python=str(python))
    assert before.returncode == 0, before.stderr
    assert "word-overlap" not in {p["name"] for p in json.loads(before.stdout)}

    installed = pip_install_offline(python, project)
    assert installed.returncode == 0, installed.stdout + installed.stderr

    listed = {p["name"]: p for p in json.loads(run_cli("plugins", "--json", python=str(python)).stdout)}
    assert listed["word-overlap"]["distribution"] == "leaderboard-word-overlap"
    assert listed["word-overlap"]["version"] == "0.3.0"
    assert listed["word-overlap"]["models"] == ["word-overlap"]
    ran = run_cli(
        "run", "--model", "word-overlap", "--task", "demo", "--output", str(tmp_path / "out"), python=str(python)
    )
    assert ran.returncode == 0, ran.stderr
    (path,) = (tmp_path / "out").rglob("demo.json")
    result = json.loads(path.read_text())
    assert result["model"]["plugin"] == "word-overlap" and result["model"]["plugin_version"] == "0.3.0"
    assert 0 < result["main_score"] <= 1
