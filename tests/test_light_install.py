"""The core installs without torch, transformers or mteb, and every command that needs none of them works.

A real fresh virtual environment with `pip install -e .` (core only), as a user would make it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import venv

import pytest
from conftest import COMLQ, NEGCONSTRAINT, REPO


def _run(python, *args, cwd=None, timeout=600):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")} | {"HF_HUB_OFFLINE": "1"}
    return subprocess.run([str(python), *args], capture_output=True, text=True, cwd=cwd, timeout=timeout, env=env)


@pytest.fixture(scope="module")
def core_venv(tmp_path_factory):
    root = tmp_path_factory.mktemp("core-venv")
    venv.EnvBuilder(with_pip=True).create(root / "venv")
    python = root / "venv" / "bin" / "python"
    installed = _run(python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "-e", str(REPO))
    if installed.returncode != 0:
        pytest.fail("pip install -e . (core only) failed:\n" + installed.stdout + installed.stderr)
    return python


@pytest.mark.venv
def test_core_install_has_no_heavy_stack(core_venv):
    for module in ("torch", "transformers", "sentence_transformers", "mteb", "datasets", "gradio"):
        probe = _run(core_venv, "-c", f"import {module}")
        assert probe.returncode != 0, f"{module} is importable in a core-only install"


@pytest.mark.venv
def test_core_commands_work_and_disabled_builtins_say_how_to_enable_them(core_venv, tmp_path):
    def lb(*args):
        return _run(core_venv, "-m", "leaderboard", *args)

    assert lb("--help").returncode == 0
    tasks = lb("tasks")
    assert tasks.returncode == 0 and "comlq" in tasks.stdout
    assert "pip install 'retrieval-leaderboard[mteb]'" in tasks.stdout  # FollowIR and friends, disabled
    models = lb("models")
    assert models.returncode == 0 and "bm25" in models.stdout
    assert "pip install 'retrieval-leaderboard[dense]'" in models.stdout
    listed = {p["name"]: p for p in json.loads(lb("plugins", "--json").stdout)}
    assert listed["sentence-transformers"]["disabled"] and not listed["sentence-transformers"]["errors"]
    assert listed["bm25"]["models"] == ["bm25", "bm25:mair"] and not listed["bm25"]["disabled"]

    out = tmp_path / "out"
    ran = lb("run", "-m", "bm25", "-t", "demo", "-o", str(out))
    assert ran.returncode == 0, ran.stderr
    shown = lb("show", str(out))
    assert shown.returncode == 0 and "nDCG@10" in shown.stdout
    served = lb("serve", "--results", str(out), "--port", "0")  # the app extra is missing: was exit 1
    assert served.returncode == 2, served.stderr
    assert "pip install 'retrieval-leaderboard[app]'" in served.stderr and "Traceback" not in served.stderr
    data = ("--data-dir", f"comlq={COMLQ}", "--data-dir", f"negconstraint={NEGCONSTRAINT}")
    valid = lb("validate", str(REPO / "submissions" / "bm25"), *data)  # its baselines check against the data
    assert valid.returncode == 0, valid.stdout + valid.stderr

    dense = lb("run", "-m", "all-MiniLM-L6-v2", "-t", "demo", "-o", str(out))
    assert dense.returncode == 2, dense.stderr
    assert "pip install 'retrieval-leaderboard[dense]'" in dense.stderr and "Traceback" not in dense.stderr
    assert "ImportError" not in dense.stderr and "ModuleNotFoundError" not in dense.stderr


@pytest.mark.venv
def test_importing_mtebs_results_needs_no_mteb(core_venv, tmp_path):
    """mteb's task registry is shipped: the import runs on the core install, and keeps the registered task names."""
    real = REPO.parent / "shared" / "data" / "mteb-results" / "results" / "intfloat__e5-large"
    if not real.is_dir():
        pytest.skip(f"real mteb results not found at {real}")
    shutil.copytree(real, tmp_path / "results" / "intfloat__e5-large")
    ran = _run(core_venv, "-m", "leaderboard", "import", str(tmp_path), "-o", str(tmp_path / "out"))
    assert ran.returncode == 0, ran.stderr
    tasks = {json.loads(p.read_text())["task"]["name"] for p in (tmp_path / "out").glob("*/*/*.json")}
    assert tasks == {"Core17InstructionRetrieval", "News21InstructionRetrieval", "Robust04InstructionRetrieval"} | {
        "mteb:SciFact"
    }
