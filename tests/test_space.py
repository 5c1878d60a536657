"""The Space builds: space/requirements.txt (the harness from this checkout instead of the pinned tag)
installs into a fresh virtual environment without torch, mteb or sentence-transformers, and
space/app.py serves a local results folder (HTTP 200)."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import time
import urllib.request
import venv

import pytest
from conftest import REPO

HARNESS = re.compile(r"^retrieval-leaderboard\[app\] @ git\+https://\S+@(\S+)$", re.MULTILINE)


def _env() -> dict[str, str]:
    drop = ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")
    return {k: v for k, v in os.environ.items() if k not in drop} | {"HF_HUB_OFFLINE": "1"}


def test_requirements_pin_the_harness_to_a_tag_or_commit_and_the_space_sets_python():
    pinned = HARNESS.search((REPO / "space" / "requirements.txt").read_text())
    assert pinned and pinned.group(1) not in ("main", "master", "HEAD")
    assert re.search(r'^python_version: "3\.1[1-9]"$', (REPO / "space" / "README.md").read_text(), re.MULTILINE)


@pytest.mark.slow
def test_space_installs_without_torch_and_serves_a_results_folder(tmp_path):
    import leaderboard

    # A copy of what a wheel of this checkout contains, so the build leaves nothing in the tree.
    source = tmp_path / "checkout"
    keep = ("pyproject.toml", "README.md", "leaderboard", "tasks", "plugins")
    source.mkdir()
    for name in keep:
        origin = REPO / name
        if origin.is_dir():
            shutil.copytree(origin, source / name, ignore=shutil.ignore_patterns("__pycache__", "leaderboard-*"))
        else:
            shutil.copy(origin, source / name)
    requirements = HARNESS.sub(
        f"retrieval-leaderboard[app] @ file://{source}", (REPO / "space" / "requirements.txt").read_text()
    )
    (tmp_path / "requirements.txt").write_text(requirements)

    venv.EnvBuilder(with_pip=True).create(tmp_path / "venv")
    python = tmp_path / "venv" / "bin" / "python"
    installed = subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            "--no-compile",
            "-r",
            str(tmp_path / "requirements.txt"),
        ],
        capture_output=True,
        text=True,
        timeout=1200,
        env=_env(),
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    for heavy in ("torch", "mteb", "sentence_transformers", "transformers"):
        probe = subprocess.run([str(python), "-c", f"import {heavy}"], capture_output=True, env=_env())
        assert probe.returncode != 0, f"{heavy} is importable in the Space's environment"

    results = tmp_path / "results"
    leaderboard.evaluate(["bm25"], ["demo"], output=results)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = _env() | {
        "RESULTS_REPO": str(results),
        "GRADIO_SERVER_NAME": "127.0.0.1",
        "GRADIO_SERVER_PORT": str(port),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    proc = subprocess.Popen(
        [str(python), str(REPO / "space" / "app.py")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=tmp_path,
    )
    try:
        deadline = time.time() + 180
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
                    assert response.status == 200
                break
            except OSError:
                assert proc.poll() is None, proc.stdout.read().decode()
                assert time.time() < deadline, "the Space did not answer within 180 s"
                time.sleep(0.5)
    finally:
        proc.terminate()
        output = proc.communicate(timeout=20)[0].decode()
    assert "share=True" not in output  # no share-link hint
