"""`leaderboard verify`: the bm25 submission reproduces; an edited score is a mismatch (exit 2); a plugin that
is not installed here is installed at the spec's version into a temporary venv and re-run there."""

import json
import shutil
import textwrap

import pytest
from conftest import (
    COMLQ,
    NEGCONSTRAINT,
    REPO,
    WORD_OVERLAP_PYPROJECT,
    make_plugin_dist,
    needs_comlq,
    needs_negconstraint,
    run_cli,
    word_overlap_plugin,
)

PLUGIN = word_overlap_plugin("0.3.0")


@pytest.fixture
def bm25_copy(bm25_demo_submission):
    """bm25's spec with a demo result only (its real-data baselines are verified below)."""
    return bm25_demo_submission


def forge(data: dict, metric: str, shift: float) -> None:
    """Edit a result as a careful forger would: every per-query value, subset mean and score moved together,
    so the file is self-consistent and only a re-run can tell (``verify``)."""
    from leaderboard.records.result import decode_per_query, decode_subset_queries, encode_per_query

    values = decode_per_query(data["per_query"])
    members = decode_subset_queries(data["per_query"])
    for row in values.values():
        row[metric] = min(1.0, row[metric] + shift)
    scores = data["scores"]["test"]
    for subset, ids in {"default": list(values), **members}.items():
        scores[subset][metric] = sum(values[q][metric] for q in ids) / len(ids)
    data["per_query"] = encode_per_query(values, members).model_dump()
    data["main_score"] = scores["default"][metric]


@needs_comlq
@needs_negconstraint
def test_verify_passes_on_the_bm25_submission():
    data = ("--data-dir", f"comlq={COMLQ}", "--data-dir", f"negconstraint={NEGCONSTRAINT}")
    spec = json.loads((REPO / "submissions" / "bm25" / "model.json").read_text())["plugin"]
    ran = run_cli("verify", str(REPO / "submissions" / "bm25"), "--all", *data, "--format", "json")
    assert ran.returncode == 0, ran.stderr
    checks = {c["task"]: c for c in json.loads(ran.stdout)}
    assert set(checks) == {"comlq", "negconstraint"}
    assert all(c["status"] == "match" and c["difference"] <= 1e-4 for c in checks.values())
    assert f"{spec['package']}=={spec['version']} is installed here: re-run in this environment" in ran.stderr
    assert "✓ 2 of 2 re-run result(s) match within 0.0001" in ran.stderr


def test_verify_fails_with_exit_2_when_a_submitted_score_was_edited(bm25_copy):
    path = next(bm25_copy.rglob("demo.json"))
    data = json.loads(path.read_text())
    forge(data, "ndcg_at_10", 0.05)
    path.write_text(json.dumps(data))
    ran = run_cli("verify", str(bm25_copy))
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert "mismatch" in ran.stdout and "main score differs by 0.0" in ran.stdout and "> 0.0001" in ran.stdout
    assert "1 of 1 re-run result(s) do not reproduce the submission" in ran.stderr


@pytest.mark.venv  # pip-installs into a fresh venv
def test_verify_installs_a_missing_plugin_into_a_temporary_venv(tmp_path):
    """The plugin is not installed here: verify pip-installs the spec's version (a local folder, offline)."""
    source = tmp_path / "src"
    source.mkdir()
    (source / "leaderboard_word_overlap.py").write_text(textwrap.dedent(PLUGIN))
    (source / "pyproject.toml").write_text(WORD_OVERLAP_PYPROJECT)
    submission = tmp_path / "subs" / "word-overlap"
    exposed = make_plugin_dist(
        tmp_path / "exposed", "leaderboard-word-overlap", "leaderboard_word_overlap", PLUGIN,
        {"word-overlap": "leaderboard_word_overlap"}, version="0.3.0",
    )  # fmt: skip
    made = run_cli(
        "run", "-m", "word-overlap", "-t", "demo", "--output", str(submission / "results"),
        env={"PYTHONPATH": str(exposed)},
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    spec = json.loads((REPO / "submissions" / "bm25" / "model.json").read_text())
    spec["plugin"] = {"package": "leaderboard-word-overlap", "version": "0.3.0", "install": str(source)}
    spec["model"].update(id="word-overlap", revision="0.3.0")
    (submission / "model.json").write_text(json.dumps(spec))
    offline = ("--pip-arg=--no-index", "--pip-arg=--no-build-isolation", "--pip-arg=--no-cache-dir")
    ran = run_cli("verify", str(submission), *offline, "--format", "json", cwd=tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "installed into a temporary virtual environment" in ran.stderr
    (check,) = json.loads(ran.stdout)
    assert check["status"] == "match" and check["re_run"] == check["submitted"] > 0


def test_verify_without_the_data_says_so_and_names_the_flag(tmp_path):
    """A re-run whose data cannot be downloaded decides nothing: "no data", exit 2, --data-dir named (not "does
    not reproduce"). The download is made to fail at once: an unreachable proxy, whatever the network."""
    folder = tmp_path / "bm25"
    shutil.copytree(REPO / "submissions" / "bm25", folder, ignore=shutil.ignore_patterns("comlq.json", "demo.json"))
    env = {
        "XDG_CACHE_HOME": str(tmp_path / "cache"),  # no cached copy of the data
        "LEADERBOARD_NEGCONSTRAINT_DIR": "",
        "https_proxy": "http://127.0.0.1:9",
        "HTTPS_PROXY": "http://127.0.0.1:9",
    }
    ran = run_cli("verify", str(folder), "--all", "--format", "json", env=env)
    assert ran.returncode == 2, ran.stdout + ran.stderr
    (check,) = json.loads(ran.stdout)
    assert check["task"] == "negconstraint" and check["status"] == "no data" and check["re_run"] is None
    assert "Could not download" in check["detail"]
    assert "Data unavailable: the data of negconstraint could not be had here" in ran.stderr
    assert "--data-dir TASK=DIR" in ran.stderr and "do not reproduce" not in ran.stderr
    assert "Traceback" not in ran.stderr
