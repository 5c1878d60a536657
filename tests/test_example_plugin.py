"""The model author's example plugin installs into a fresh venv and is discovered and runnable.

It is copied to a temporary folder first, so the install leaves no build/ or *.egg-info in the tree.
"""

import ast
import json
import shutil
import subprocess

import pytest
from conftest import REPO, run_cli
from venv_helpers import make_child_venv, pip_install_offline

EXAMPLE = REPO / "plugins" / "leaderboard-hybrid-rrf"


def test_example_plugin_uses_only_the_public_contract():
    """Imports from the harness are `leaderboard` and `leaderboard.toolkit`; no built-in plugin, no internals."""
    for path in (EXAMPLE / "leaderboard_hybrid_rrf").glob("*.py"):
        tree = ast.parse(path.read_text())
        modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level == 0}
        modules |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        harness = {m for m in modules if m.split(".")[0] in ("leaderboard", "leaderboard_plugins", "leaderboard_tasks")}
        assert harness <= {"leaderboard", "leaderboard.toolkit"}, (path.name, harness)


@pytest.mark.venv
def test_example_plugin_in_a_fresh_venv(tmp_path):
    source = shutil.copytree(EXAMPLE, tmp_path / "src", ignore=shutil.ignore_patterns("build", "*.egg-info"))
    python = make_child_venv(tmp_path / "venv")
    installed = pip_install_offline(python, source)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    own_tests = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", str(source / "tests")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert own_tests.returncode == 0, own_tests.stdout + own_tests.stderr
    listed = {p["name"]: p for p in json.loads(run_cli("plugins", "--json", python=str(python)).stdout)}
    assert listed["hybrid-rrf"]["distribution"] == "leaderboard-hybrid-rrf"
    assert listed["hybrid-rrf"]["models"] == ["hybrid-rrf", "hybrid-rrf:"]
    ran = run_cli(
        "run", "--model", "hybrid-rrf", "--task", "demo", "--output", str(tmp_path / "out"), python=str(python)
    )
    assert ran.returncode == 0, ran.stderr
    result = json.loads(next((tmp_path / "out").rglob("demo.json")).read_text())
    assert result["model"]["plugin_version"] == "0.2.0" and result["settings"]["model_settings"]["rrf_k"] == 60
    assert result["model"]["revision"].startswith("0.2.0+sha256-")
    assert result["main_score"] > 0.5
    bad = run_cli(
        "run", "--model", "hybrid-rrf:0", "--task", "demo", "--output", str(tmp_path / "out"), python=str(python)
    )
    assert bad.returncode == 2 and "expected a positive integer RRF constant" in bad.stderr
    assert not list(EXAMPLE.glob("*.egg-info")) and not (EXAMPLE / "build").exists()
