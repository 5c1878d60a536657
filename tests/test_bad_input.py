"""Every bad-input path: exit code 2, one message naming file/line/field, no traceback, nothing written."""

import pytest
from click.testing import CliRunner
from conftest import negconstraint_query, run_cli, write_beir

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
    said = [line for line in ran.stderr.splitlines() if not line.startswith("[progress ")]  # stderr is a pipe
    assert said[0].startswith("Error:") and "test.tsv, line 1" in ran.stderr and "Traceback" not in ran.stderr
    assert "loading beir-data: done" not in ran.stderr  # the phase that failed is not reported as done
    assert not (tmp_path / "out").exists()


# -- hostile data files (issue 16): exit 2 naming the file and line, never a crash --------------------


def append_bytes(path, data: bytes):
    with open(path, "ab") as handle:
        handle.write(data)


@pytest.mark.parametrize(
    "file, data, fragments",
    [
        ("corpus.jsonl", b'{"_id": "d9", "text": "caf\xe9"}\n', ["corpus.jsonl, line 4", "not UTF-8"]),
        ("queries.jsonl", b'{"_id": "q9", "text": "\xff\xfe"}\n', ["queries.jsonl, line 3", "not UTF-8"]),
        ("corpus.jsonl", b'{"_id": "d9", "text": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n", ["line 4", "nested"]),
        ("corpus.jsonl", b'{"_id": "d9", "text": "x", "n": ' + b"7" * 5000 + b"}\n", ["line 4", "number out of range"]),
        ("corpus.jsonl", b'{"_id": true, "text": "x"}\n', ["line 4", "'_id' must be a non-empty string"]),
        ("corpus.jsonl", b"[1, 2]\n", ["line 4", "expected a JSON object"]),
    ],
    ids=["corpus-latin1", "queries-invalid-utf8", "corpus-nested-100000", "corpus-huge-integer", "id-bool", "array"],
)
def test_hostile_jsonl_line(beir, tmp_path, file, data, fragments):
    append_bytes(beir / file, data)
    assert_bad_input(run_task(beir, tmp_path), file, *fragments)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "row, fragment",
    [
        (b"q1\td1\tinf\n", "'inf'"),
        (b"q1\td1\tnan\n", "'nan'"),
        (b"q1\td1\t1.7\n", "'1.7'"),
        (b"q1\td1\t1_0\n", "'1_0'"),
        (b"q1\td1\t" + b"9" * 5000 + b"\n", "must be an integer grade"),
        (b"q1\td1\t99999999999\n", "must be an integer grade"),
        (b"q1\td\xe9\t1\n", "not UTF-8"),
        (b"q1\t" + b"d" * 200_000 + b"\t1\n", "field larger than field limit"),
    ],
    ids=["inf", "nan", "fraction", "underscore", "5000-digits", "over-c-int", "latin1", "huge-field"],
)
def test_hostile_qrels_row(beir, tmp_path, row, fragment):
    (beir / "qrels" / "test.tsv").write_bytes(b"query-id\tcorpus-id\tscore\nq1\td1\t1\n" + row)
    assert_bad_input(run_task(beir, tmp_path), "test.tsv, line 3", fragment)


def test_qrels_grade_written_as_a_float_integer_is_accepted(beir, tmp_path):
    (beir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t2.0\nq2\td2\t1\n")
    assert run_task(beir, tmp_path).exit_code == 0


# NegConstraint: corpus.jsonl (doc_id, text) and queries.jsonl with graded relevance per passage.
NC_CORPUS = [{"doc_id": f"p{i}", "text": t} for i, t in enumerate(["apples and pears", "apples only", "pears only"])]


nc_query = negconstraint_query


def write_negconstraint(root, corpus, queries):
    import json

    root.mkdir(parents=True, exist_ok=True)
    (root / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in corpus))
    (root / "queries.jsonl").write_text("".join(json.dumps(r) + "\n" for r in queries))
    return root


def run_negconstraint(folder, tmp_path):
    args = ("--data-dir", f"negconstraint={folder}", "--output", str(tmp_path / "out"))
    return invoke("run", "--model", "bm25", "--task", "negconstraint", *args)


def test_negconstraint_fixture_runs(tmp_path):
    folder = write_negconstraint(tmp_path / "nc", NC_CORPUS, [nc_query("q1", {"p1": 2.0, "p0": 0})])
    assert run_negconstraint(folder, tmp_path).exit_code == 0


@pytest.mark.parametrize(
    "corpus, queries, fragments",
    [
        (
            NC_CORPUS + [{"doc_id": "p1", "text": "a different passage under the same id"}],
            [nc_query("q1", {"p1": 2})],
            ["corpus.jsonl, line 4", "duplicate 'doc_id' 'p1'"],
        ),
        (
            NC_CORPUS,
            [nc_query("q1", {"p1": 2}), nc_query("q1", {"p1": 1})],
            ["queries.jsonl, line 2", "duplicate 'query_id' 'q1'"],
        ),
        (NC_CORPUS, [nc_query("q1", {"p1": 1.7})], ["queries.jsonl, line 1", "'p1'", "'1.7'", "integer grade"]),
        (NC_CORPUS, [nc_query("q1", {"p1": "high"})], ["queries.jsonl, line 1", "'high'", "integer grade"]),
        (NC_CORPUS, [nc_query("q1", {"p1": None})], ["queries.jsonl, line 1", "'None'", "integer grade"]),
        (NC_CORPUS, [nc_query("q1", {"p1": True})], ["queries.jsonl, line 1", "integer grade"]),
        (NC_CORPUS, [nc_query("q1", {"p1": [2]})], ["queries.jsonl, line 1", "integer grade"]),
    ],
    ids=["duplicate-doc-id", "duplicate-query-id", "grade-1.7", "grade-high", "grade-null", "grade-true", "grade-list"],
)
def test_negconstraint_bad_data(tmp_path, corpus, queries, fragments):
    folder = write_negconstraint(tmp_path / "nc", corpus, queries)
    assert_bad_input(run_negconstraint(folder, tmp_path), *fragments)
    assert not (tmp_path / "out").exists()


def test_negconstraint_non_utf8_and_deep_nesting(tmp_path):
    folder = write_negconstraint(tmp_path / "nc", NC_CORPUS, [nc_query("q1", {"p1": 2})])
    append_bytes(folder / "queries.jsonl", b'{"query_id": "q\xff"}\n')
    assert_bad_input(run_negconstraint(folder, tmp_path), "queries.jsonl, line 2", "not UTF-8")
    folder = write_negconstraint(tmp_path / "nc2", NC_CORPUS, [nc_query("q1", {"p1": 2})])
    append_bytes(folder / "corpus.jsonl", b'{"doc_id": "p9", "text": ' + b"[" * 50_000 + b"]" * 50_000 + b"}\n")
    assert_bad_input(run_negconstraint(folder, tmp_path), "corpus.jsonl, line 4", "nested")
