"""`leaderboard validate`: the repository's own submissions pass; each kind of problem is rejected, all of
them listed together; a plugin that is not installed is "not verifiable here" (not a failure); task data
given with --data-dir makes real-data results checkable offline."""

import json
import shutil

import pytest
from conftest import COMLQ, NEGCONSTRAINT, REPO, needs_comlq, needs_negconstraint, run_cli


@needs_comlq
@needs_negconstraint
def test_repository_submissions_are_valid():
    """The baselines (bm25, bm25-okapi, all-MiniLM-L6-v2 on ComLQ and NegConstraint) check against the real data."""
    data = ("--data-dir", f"comlq={COMLQ}", "--data-dir", f"negconstraint={NEGCONSTRAINT}")
    ran = run_cli("validate", str(REPO / "submissions"), *data)
    assert ran.returncode == 0, ran.stderr
    assert "✓ 3 submissions valid" in ran.stdout
    assert "no public benchmark" not in ran.stderr  # ComLQ and NegConstraint are on the public board


def test_a_result_no_public_board_shows_is_valid_and_named(submission):
    ran = run_cli("validate", str(submission.parent))
    assert ran.returncode == 0, ran.stderr
    said = " ".join(ran.stderr.split())
    assert "task demo is in no public benchmark: the public board never shows this result" in said


@pytest.fixture
def submission(bm25_demo_submission):
    """bm25's spec with a demo result only (its real-data baselines need --data-dir, checked above)."""
    return bm25_demo_submission


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
    assert_rejected(submission, "demo.json", "NaN")


def test_score_out_of_range(submission):
    edit(result_file(submission), lambda r: r["scores"]["test"]["default"].__setitem__("recall_at_5", 1.5))
    assert_rejected(submission, "scores/test/default/recall_at_5: 1.5 is outside")


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
        (lambda s: s["model"].__setitem__("id", "nonexistent-model"), "is not discoverable"),
    ],
)
def test_malformed_spec(submission, change, fragment):
    edit(submission / "model.json", change)
    assert_rejected(submission, "model.json", fragment)


def test_spec_that_is_not_json(submission):
    (submission / "model.json").write_text("{ nope")
    assert_rejected(submission, "model.json: not valid JSON")


def test_plugin_not_installed_is_not_verifiable_here_but_not_a_failure(submission):
    edit(submission / "model.json", lambda s: s["plugin"].update(package="not-installed-anywhere", version="1.0"))
    edit(result_file(submission), lambda r: r["model"].update(plugin_version="1.0"))
    ran = run_cli("validate", str(submission.parent))
    assert ran.returncode == 0, ran.stderr
    assert "not verifiable here: plugin not installed (not-installed-anywhere)" in ran.stderr
    assert "pip install not-installed-anywhere==1.0" in ran.stderr
    assert "✓ 1 submission valid (1 not verifiable here: plugin not installed)" in ran.stdout
    strict = run_cli("validate", "--require-plugins", str(submission.parent))
    assert strict.returncode == 2 and "not verifiable here" in strict.stderr


def test_every_problem_is_listed_together_schema_errors_included(submission):
    def damage(r):
        r["model"].update(name="someone-else", revision="r2", plugin_version="9.9")
        r["timings"] = "fast"  # a schema error
        r["created_at"] = "yesterday"  # another

    edit(result_file(submission), damage)
    version = json.loads((submission / "model.json").read_text())["plugin"]["version"]
    edit(submission / "model.json", lambda s: s["model"].update(kind="magic"))  # and one in the spec
    ran = run_cli("validate", str(submission.parent))
    assert ran.returncode == 2, ran.stderr
    for fragment in (
        "model.json: model/kind",
        "timings",
        "created_at",
        "model revision 'r2' differs from the spec's 'bm25s-0.3.16'",
        f"plugin version '9.9' differs from the spec's '{version}'",
        "model name 'someone-else' differs from the spec's 'bm25'",
    ):
        assert fragment in ran.stderr, (fragment, ran.stderr)
    assert "Error: 6 problems in 1 submission" in ran.stderr


def test_result_from_another_plugin_than_the_spec_names(submission):
    edit(result_file(submission), lambda r: r["model"].update(plugin="bm25-unknown-entry-point"))
    assert_rejected(submission, "model plugin 'bm25-unknown-entry-point' is from no installed distribution")


def test_spec_model_name_is_what_results_must_carry(submission):
    edit(submission / "model.json", lambda s: s["model"].update(name="org/bm25"))
    assert_rejected(submission, "model name 'bm25' differs from the spec's 'org/bm25'")


@pytest.mark.parametrize(
    "content, fragment",
    [
        ("[" * 5000 + "]" * 5000, "nested"),
        ('{"schema_version": "2", "x": ' + "9" * 5000 + "}", "demo.json"),
        (b"\xff\xfe not utf-8", "not UTF-8"),
    ],
)
def test_unreadable_result_files_are_listed_never_a_crash(submission, content, fragment):
    path = result_file(submission)
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    assert_rejected(submission, str(path), fragment)


def test_a_directory_named_like_a_result_is_listed(submission):
    (result_file(submission).parent / "odd.json").mkdir()
    assert_rejected(submission, "odd.json: a directory")


@needs_negconstraint
def test_validate_checks_a_negconstraint_result_offline_with_data_dir(submission, monkeypatch):
    import leaderboard

    shutil.rmtree(submission / "results")
    monkeypatch.delenv("LEADERBOARD_NEGCONSTRAINT_DIR", raising=False)
    (outcome,) = leaderboard.evaluate(
        ["bm25"], ["negconstraint"], output=submission / "results", data_dirs={"negconstraint": str(NEGCONSTRAINT)}
    )
    assert outcome.status == "written" and outcome.result.is_complete
    env = {"LEADERBOARD_NEGCONSTRAINT_DIR": ""}
    checked = run_cli("validate", str(submission.parent), "--data-dir", f"negconstraint={NEGCONSTRAINT}", env=env)
    assert checked.returncode == 0, checked.stderr
    assert "✓ 1 submission valid" in checked.stdout
    unchecked = run_cli("validate", str(submission.parent), env=env)  # offline, no data: named, with the fix
    assert unchecked.returncode == 2
    assert "cannot verify the data of task negconstraint" in unchecked.stderr
    assert "--data-dir negconstraint=DIR" in unchecked.stderr
    edit(outcome.path, lambda r: r["task"]["source"].update(content_hash="sha256:" + "1" * 64))
    stale = run_cli("validate", str(submission.parent), "--data-dir", f"negconstraint={NEGCONSTRAINT}", env=env)
    assert stale.returncode == 2 and "stale data hash for negconstraint" in stale.stderr


def test_the_shipped_spec_schema_is_the_models_and_judges_alike():
    """``schema/submission-1.json`` is generated from the model ``validate`` checks with; an independent
    JSON Schema validator gives the same verdicts."""
    import jsonschema

    from leaderboard.records.submission import SCHEMA_FILE, schema_text, spec_problems

    assert SCHEMA_FILE.read_text("utf-8") == schema_text(), "run: python -m leaderboard.records.submission"
    good = json.loads((REPO / "submissions" / "bm25" / "model.json").read_text("utf-8"))
    bad = [
        {**good, "contact": "x"},
        {**good, "extra": 1},
        {**good, "model": {**good["model"], "kind": "magic"}},
        {**good, "model": {**good["model"], "n_parameters": "5"}},
        {**good, "plugin": {**good["plugin"], "install": None}},
        [],
    ]
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA_FILE.read_text("utf-8")))
    assert spec_problems(good) == [] and validator.is_valid(good)
    for spec in bad:
        assert spec_problems(spec) and not validator.is_valid(spec), spec
