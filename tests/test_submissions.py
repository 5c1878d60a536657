"""`leaderboard validate`: the repository's own submissions pass; each kind of problem is rejected."""

import json
import shutil

import pytest
from conftest import REPO, run_cli


def test_repository_submissions_are_valid():
    ran = run_cli("validate", str(REPO / "submissions"))
    assert ran.returncode == 0, ran.stderr
    assert "submission(s) valid" in ran.stdout


@pytest.fixture
def submission(tmp_path):
    folder = tmp_path / "subs" / "bm25"
    shutil.copytree(REPO / "submissions" / "bm25", folder)
    return folder


def result_file(folder):
    return next((folder / "results").rglob("demo.json"))


def edit(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def assert_rejected(folder, *fragments):
    ran = run_cli("validate", str(folder.parent))
    assert ran.returncode == 2, ran.stdout + ran.stderr
    for fragment in fragments:
        assert fragment in ran.stderr, ran.stderr
    assert "Traceback" not in ran.stderr


def test_nan_score(submission):
    path = result_file(submission)
    path.write_text(path.read_text().replace('"ndcg_at_10": ', '"ndcg_at_10": NaN, "x": ', 1))
    assert_rejected(submission, "demo.json", "finite number")


def test_score_out_of_range(submission):
    edit(result_file(submission), lambda r: r["scores"]["test"]["default"].__setitem__("recall_at_5", 1.5))
    assert_rejected(submission, "recall_at_5 = 1.5 is outside [0.0, 1.0]")


def test_unknown_task(submission):
    edit(result_file(submission), lambda r: r["task"].__setitem__("name", "no-such-task"))
    assert_rejected(submission, "unknown task 'no-such-task'")


def test_stale_data_hash(submission):
    edit(result_file(submission), lambda r: r["task"]["source"].__setitem__("content_hash", "sha256:" + "0" * 64))
    assert_rejected(submission, "stale data hash for demo")


def test_duplicate(submission):
    original = result_file(submission)
    shutil.copy(original, original.with_name("demo-again.json"))
    assert_rejected(submission, "duplicate of", "demo.json")


@pytest.mark.parametrize(
    "change, fragment",
    [
        (lambda s: s["model"].pop("license"), "'license' is a required property"),
        (lambda s: s["model"].__setitem__("kind", "magic"), "model/kind"),
        (
            lambda s: s["plugin"].__setitem__("package", "not-installed-anywhere"),
            "'not-installed-anywhere' is not installed",
        ),
        (lambda s: s["model"].__setitem__("id", "nonexistent-model"), "is not discoverable"),
    ],
)
def test_malformed_spec(submission, change, fragment):
    edit(submission / "model.json", change)
    assert_rejected(submission, "model.json", fragment)


def test_spec_that_is_not_json(submission):
    (submission / "model.json").write_text("{ nope")
    assert_rejected(submission, "model.json: not valid JSON")
