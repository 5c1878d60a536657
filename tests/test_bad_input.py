"""Every bad-input path: exit code 2, one message naming file/line/field, no traceback, nothing written."""

import pytest
from click.testing import CliRunner
from conftest import run_cli, write_beir

from leaderboard.cli import cli

CORPUS = {"d1": "alpha beta", "d2": "gamma delta", "d3": "beta gamma"}
QUERIES = {"q1": "beta", "q2": "gamma"}
QRELS = {"q1": {"d1": 1}, "q2": {"d2": 1}}


def invoke(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def assert_bad_input(result, *fragments):
    assert result.exit_code == 2, result.output
    text = result.output
    assert "Traceback" not in text
    for fragment in fragments:
        assert fragment in text, f"{fragment!r} not in {text!r}"


@pytest.fixture
def beir(tmp_path):
    return write_beir(tmp_path / "data", CORPUS, QUERIES, QRELS)


def run_task(task, tmp_path, *extra):
    return invoke("run", "--model", "bm25", "--task", str(task), "--output", str(tmp_path / "out"), *extra)


def test_valid_fixture_runs(beir, tmp_path):
    assert run_task(beir, tmp_path).exit_code == 0


def test_unknown_task_and_model(tmp_path):
    assert_bad_input(invoke("run", "--model", "bm25", "--task", "no-such-task"), "Unknown task 'no-such-task'")
    assert_bad_input(invoke("run", "--model", "bm26", "--task", "demo"), "Unknown model 'bm26'", "Did you mean 'bm25'")
    assert_bad_input(invoke("run", "--model", "bm25", "--task", str(tmp_path / "nowhere")), "does not exist")


def test_missing_data_file(beir, tmp_path):
    (beir / "queries.jsonl").unlink()
    assert_bad_input(run_task(beir, tmp_path), "queries.jsonl", "expected a BEIR query record")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "file, line, fragments",
    [
        ("corpus.jsonl", "{not json", ["corpus.jsonl, line 4", "not valid JSON"]),
        ("corpus.jsonl", '{"id": "d9", "text": "x"}', ["corpus.jsonl, line 4", "missing field '_id'"]),
        ("queries.jsonl", '{"_id": "q9", "text": ""}', ["queries.jsonl, line 3", "'text' must be a non-empty string"]),
        ("corpus.jsonl", '{"_id": "d1", "text": "again"}', ["corpus.jsonl, line 4", "duplicate '_id' 'd1'"]),
    ],
    ids=["malformed-json", "missing-field", "empty-field", "duplicate-id"],
)
def test_bad_jsonl_line(beir, tmp_path, file, line, fragments):
    with open(beir / file, "a") as handle:
        handle.write(line + "\n")
    assert_bad_input(run_task(beir, tmp_path), *fragments)


@pytest.mark.parametrize(
    "qrels_text, fragments",
    [
        ("q1\td1\t1\n", ["line 1", "header"]),
        ("query-id\tcorpus-id\tscore\nq1\td1\n", ["line 2", "3 tab-separated fields"]),
        ("query-id\tcorpus-id\tscore\nq1\td1\thigh\n", ["line 2", "'score' must be an integer"]),
        ("query-id\tcorpus-id\tscore\nq7\td1\t1\n", ["query-id 'q7'", "not in"]),
        ("query-id\tcorpus-id\tscore\nq1\td404\t1\n", ["corpus-id 'd404'", "not in"]),
        ("query-id\tcorpus-id\tscore\n", ["no judgments"]),
    ],
)
def test_bad_qrels(beir, tmp_path, qrels_text, fragments):
    (beir / "qrels" / "test.tsv").write_text(qrels_text)
    assert_bad_input(run_task(beir, tmp_path), "test.tsv", *fragments)


def test_bad_options(tmp_path):
    assert_bad_input(invoke("run", "--model", "bm25", "--task", "demo", "--batch-size", "0"), "batch-size")
    assert_bad_input(invoke("run", "--model", "bm25", "--task", "demo", "--limit", "x"), "limit")
    assert_bad_input(invoke("run", "--task", "demo"), "--model")
    assert_bad_input(invoke("show", str(tmp_path / "missing")), "does not exist")
    assert_bad_input(invoke("run", "--model", "st:", "--task", "demo"), "Expected a model after 'st:'")
    assert_bad_input(invoke("run", "--model", "st:./no/such/folder", "--task", "demo"), "does not exist")


def test_reranker_asked_to_search_suggests_a_pipeline(tmp_path):
    from leaderboard.contract.model import ModelKind, ModelMetadata, Reranker
    from leaderboard.engine.evaluation import Context, retrieve
    from leaderboard.errors import BadInput

    class Tiny(Reranker):
        metadata = ModelMetadata("tiny-ce", ModelKind.RERANKER)

        def score_pairs(self, pairs):
            return [0.0] * len(pairs)

    with pytest.raises(BadInput, match=r"bm25 >> tiny-ce"):
        retrieve(Tiny(), {"d": "x"}, {"q": "x"}, 10, Context(batch_size=8))


def test_subprocess_exit_code_and_message(beir, tmp_path):
    (beir / "qrels" / "test.tsv").write_text("nonsense\n")
    ran = run_cli("run", "--model", "bm25", "--task", str(beir), "--output", str(tmp_path / "out"))
    assert ran.returncode == 2
    assert ran.stderr.startswith("Error:") and "test.tsv, line 1" in ran.stderr and "Traceback" not in ran.stderr
    assert not (tmp_path / "out").exists()
