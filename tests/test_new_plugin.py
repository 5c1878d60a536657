"""`leaderboard new-plugin`: each kind scaffolds a package whose own test passes right after scaffolding,
installed into a fresh venv (chained to this one's site-packages, see venv_helpers), and which
`leaderboard run` runs on the demo task; the model kinds' submission stub validates."""

import json
import subprocess
import sys

import pytest
from conftest import run_cli
from venv_helpers import make_child_venv, pip_install_offline

KINDS = {"dense": "my-dense", "sparse": "my-sparse", "reranker": "my-reranker", "task": "my-task"}


@pytest.mark.venv
def test_scaffolded_plugins_install_pass_their_tests_and_run(tmp_path):
    python = make_child_venv(tmp_path / "venv")
    roots = {}
    for kind, name in KINDS.items():
        made = run_cli("new-plugin", name, "--kind", kind, "--output", str(tmp_path / "src"))
        assert made.returncode == 0, made.stderr
        roots[kind] = tmp_path / "src" / f"leaderboard-{name}"
        installed = pip_install_offline(python, roots[kind])
        assert installed.returncode == 0, installed.stdout + installed.stderr
    own_tests = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", *(str(r / "tests") for r in roots.values())],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert own_tests.returncode == 0, own_tests.stdout + own_tests.stderr
    assert "5 passed" in own_tests.stdout  # one per kind, and the task's check of a mistake in its data

    listed = {p["name"]: p for p in json.loads(run_cli("plugins", "--json", python=str(python)).stdout)}
    assert listed["my-dense"]["distribution"] == "leaderboard-my-dense" and listed["my-dense"]["models"] == ["my-dense"]
    assert listed["my-task"]["tasks"] == ["my-task"] and not listed["my-task"]["errors"]

    runs = {
        "dense": ("--model", "my-dense", "--task", "demo"),
        "sparse": ("--model", "my-sparse", "--task", "demo"),
        "reranker": ("--model", "bm25 >>20 my-reranker", "--task", "demo"),
        "task": ("--model", "bm25", "--task", "my-task"),
    }
    for kind, args in runs.items():
        output = roots[kind] / "submissions" / KINDS[kind] / "results"
        ran = run_cli("run", *args, "--output", str(output), python=str(python))
        assert ran.returncode == 0, (kind, ran.stderr)
        (path,) = output.rglob("*.json")
        result = json.loads(path.read_text())
        assert 0 < result["main_score"] <= 1, kind

    for kind in ("dense", "sparse"):  # the stub matches the results run into it; only its placeholders are refused
        checked = run_cli("validate", str(roots[kind] / "submissions"), python=str(python))
        assert checked.returncode == 2, (kind, checked.stderr)
        problems = [line for line in checked.stderr.splitlines() if line.startswith("✗")]
        assert problems and all("fill it in before submitting" in line for line in problems), checked.stderr


def test_plan_is_on_the_public_contract_and_refuses_bad_names(tmp_path):
    from leaderboard.cli.scaffold import plan
    from leaderboard.errors import BadInput

    for kind in KINDS:
        files = plan("tf-idf", kind)
        module = files["leaderboard_tf_idf/plugin.py"]
        harness_imports = [
            line for line in module.splitlines() if line.startswith(("from leaderboard", "import leader"))
        ]
        assert all(
            line.startswith(("from leaderboard import ", "from leaderboard.toolkit import "))
            for line in harness_imports
        )
        assert 'tf-idf = "leaderboard_tf_idf.plugin"' in files["pyproject.toml"]
        assert ("submissions/tf-idf/model.json" in files) == (kind != "task")
        compile(module, "plugin.py", "exec")
    spec = json.loads(plan("tf-idf", "sparse")["submissions/tf-idf/model.json"])
    assert spec["plugin"] == {"package": "leaderboard-tf-idf", "version": "0.1.0", "install": spec["plugin"]["install"]}
    assert (
        spec["model"]["id"] == "tf-idf" and spec["model"]["revision"] == "0.1.0" and spec["model"]["kind"] == "sparse"
    )
    for bad in ("My_Model", "1model", "a--b", ""):
        with pytest.raises(BadInput, match="expected a lowercase name"):
            plan(bad, "dense")
    long_name = "a" * 300  # was an OSError (exit 1) on writing a 300-character folder name
    refused = run_cli("new-plugin", long_name, "--output", str(tmp_path))
    assert refused.returncode == 2 and "at most 64" in refused.stderr and "300 characters" in refused.stderr
    assert long_name not in refused.stderr and "Traceback" not in refused.stderr
    assert not any(tmp_path.iterdir())  # nothing written half-way
    taken = tmp_path / "leaderboard-x"
    (taken / "keep").mkdir(parents=True)
    refused = run_cli("new-plugin", "x", "--output", str(tmp_path))
    assert refused.returncode == 2 and "already exists and is not empty" in refused.stderr


def test_the_next_step_installs_pytest_with_the_package(tmp_path):
    """README's main install (`.[minilm]`) has no pytest: the printed next step installs the package's own
    `test` extra, which brings it, before running `python -m pytest` on the package's tests."""
    import shlex
    import tomllib

    made = run_cli("new-plugin", "my-model", "--output", str(tmp_path / "src"))
    assert made.returncode == 0, made.stderr
    (line,) = [line for line in made.stdout.splitlines() if line.startswith("Next: ")]
    install, _, test = line.removeprefix("Next: ").partition(" && ")
    root = tmp_path / "src" / "leaderboard-my-model"
    assert shlex.split(install) == ["pip", "install", "-e", f"{root}[test]"]
    assert shlex.split(test) == ["python", "-m", "pytest", str(root / "tests")]
    extras = tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(requirement.startswith("pytest") for requirement in extras["test"])
    assert "pip install -e '.[test]'" in (root / "README.md").read_text()


def test_the_scaffold_names_only_the_contract_and_its_tests_run_with_their_own_settings(tmp_path):
    """The README names only ``leaderboard`` and ``leaderboard.toolkit``; the package carries its own pytest
    settings, so its tests run with them from any folder, even inside a project that has others."""
    import re

    import leaderboard
    from leaderboard import toolkit
    from leaderboard.cli.scaffold import plan

    for kind in KINDS:
        readme = plan("tf-idf", kind)["README.md"]
        for dotted in re.findall(r"\bleaderboard(?:\.\w+)+", readme):
            parts = dotted.split(".")[1:]
            owner = toolkit if parts[0] == "toolkit" and len(parts) > 1 else leaderboard
            assert hasattr(owner, parts[-1]) and len(parts) <= 2, f"{kind}: {dotted} is not on the public contract"
        assert "https://github.com/retrieval-leaderboard)" not in readme  # an organisation, not the repository
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\naddopts = "--durations=25"\n')
    made = run_cli("new-plugin", "my-model", "--output", str(tmp_path))
    assert made.returncode == 0, made.stderr
    root = tmp_path / "leaderboard-my-model"
    for cwd, target in ((tmp_path, str(root / "tests")), (root, "tests")):
        collected = subprocess.run(
            [sys.executable, "-m", "pytest", "--collect-only", "-p", "no:cacheprovider", target],
            cwd=cwd, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert collected.returncode == 0, collected.stdout + collected.stderr
        assert f"rootdir: {root}" in collected.stdout and "configfile: pyproject.toml" in collected.stdout
