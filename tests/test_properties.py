"""Property-based tests (hypothesis): no input file crashes a reader or a command (issue 16).

Generated: result files built from a real demo result with hostile strings and numbers in its
fields; random bytes; BEIR and NegConstraint files with one hostile line. The commands are called
in-process (click's CliRunner) to stay fast. The number of examples is bounded so CI stays fast.
"""

from __future__ import annotations

import copy
import json
import math
import shutil
import tempfile
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import negconstraint_query, write_beir
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from leaderboard import safe_json
from leaderboard.cli import cli
from leaderboard.data.jsonl import grade_value
from leaderboard.errors import BadInput
from leaderboard.records.files import read_result
from leaderboard.records.index import build_index

REPO = Path(__file__).resolve().parent.parent

QUICK = settings(max_examples=60, deadline=timedelta(seconds=5), database=None)
# Commands run in-process; deadline off: a shared CI machine can be slow, and a hang is not a deadline.
COMMANDS = settings(
    max_examples=25,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# -- strategies --------------------------------------------------------------------------------------

NASTY = [
    "[/]",
    "[bold red]x[/]",
    "[link=file:///etc/passwd]x[/link]",
    "\\",
    "x\\",
    "\x1b[31mred\x1b[0m",
    "<img src=x onerror=alert(1)>",
    "../../etc/passwd",
    "",
    " ",
    "\u202eevil",
    "\ud800",
    "a" * 300,
    "模型/名前",
    "null",
    "NaN",
]
hostile_text = st.one_of(
    st.sampled_from(NASTY),
    st.text(st.characters(blacklist_categories=()), max_size=40),  # includes lone surrogates
)
hostile_number = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=-2, max_value=2),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([0, 1, -0.0, 1.0000000001, -1e-300, 1e308]),
)
when = st.one_of(
    st.datetimes(timezones=st.sampled_from([UTC, timezone(timedelta(hours=-12)), timezone(timedelta(hours=14))])).map(
        datetime.isoformat
    ),
    hostile_text,
)


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("demo")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(out / "xdg"))
        ran = CliRunner().invoke(cli, ["run", "-m", "bm25", "-t", "demo", "-o", str(out / "r")])
    assert ran.exit_code == 0, ran.output
    (path,) = (out / "r").rglob("demo.json")
    return json.loads(path.read_text())


@st.composite
def results(draw, base: dict) -> dict:
    """The demo result with some fields replaced by hostile values (many stay schema-valid)."""
    data = copy.deepcopy(base)
    for path in draw(
        st.lists(
            st.sampled_from(
                [
                    ("model", "name"),
                    ("model", "revision"),
                    ("task", "name"),
                    ("task", "description"),
                    ("task", "family"),
                    ("harness", "version"),
                    ("settings", "device"),
                ]
            ),
            max_size=4,
        )
    ):
        data[path[0]][path[1]] = draw(hostile_text)
    if draw(st.booleans()):
        data["created_at"] = draw(when)
    if draw(st.booleans()):  # rename the main metric everywhere: still consistent, still valid
        name = draw(hostile_text)
        old = data["task"]["main_score"]
        for subsets in data["scores"].values():
            for values in subsets.values():
                values[name] = values.pop(old)
        for metric in data["task"]["metrics"]:
            if metric["name"] == old:
                metric["name"] = name
        data["task"]["main_score"] = name
        data["confidence_intervals"] = {}
    for _ in range(draw(st.integers(0, 3))):
        split = data["scores"]["test"]
        subset = draw(st.sampled_from(sorted(split)))
        metric = draw(st.sampled_from(sorted(split[subset])))
        split[subset][metric] = draw(hostile_number)
    if draw(st.booleans()):
        data["main_score"] = draw(hostile_number)
    return data


def write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=True, allow_nan=True))  # NaN, Infinity as JSON tokens


def assert_clean(ran, codes=(0,)) -> None:
    assert ran.exit_code in codes, ran.output
    assert ran.exception is None or isinstance(ran.exception, SystemExit), repr(ran.exception)
    assert "Traceback" not in ran.output and "Internal error" not in ran.output


# -- readers -----------------------------------------------------------------------------------------


@QUICK
@given(raw=st.binary(max_size=3000))
def test_read_result_on_random_bytes_is_a_result_or_bad_input(raw):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "r.json"
        path.write_bytes(raw)
        with pytest.raises(BadInput, match=r"r\.json"):
            read_result(path)


json_like = st.recursive(
    st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=5),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3),
    max_leaves=30,
)


@QUICK
@given(value=json_like, depth=st.integers(0, 400), brackets=st.sampled_from(["[]", "{}"]))
def test_safe_json_parses_or_refuses_with_a_reason(value, depth, brackets):
    text = json.dumps(value, allow_nan=True)
    if brackets == "[]":
        text = "[" * depth + text + "]" * depth
    else:
        text = '{"k":' * depth + text + "}" * depth
    try:
        parsed = safe_json.loads(text, finite=True)
    except safe_json.UnsafeJSON as exc:
        assert str(exc)
        assert depth + 5 > safe_json.MAX_DEPTH or "finite" in str(exc) or "surrogate" in str(exc)
    else:
        assert depth <= safe_json.MAX_DEPTH and json.dumps(parsed, allow_nan=False)


@QUICK
@given(text=st.text(max_size=30) | st.sampled_from(["inf", "-inf", "nan", "1e400", "9" * 5000, "2.0", "1.7"]))
def test_grade_value_is_an_exact_integer_or_refused(text):
    try:
        grade = grade_value(text)
    except ValueError:
        return
    assert isinstance(grade, int) and float(text) == grade and math.isfinite(float(text))


# -- commands over generated result files --------------------------------------------------------------


@pytest.fixture(scope="module")
def submission_template(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("submission") / "bm25"
    shutil.copytree(REPO / "submissions" / "bm25", folder)
    shutil.rmtree(folder / "results")
    return folder


@COMMANDS
@given(data=st.data())
def test_show_push_and_validate_never_crash_on_generated_results(demo, submission_template, data):
    generated = [data.draw(results(demo)) for _ in range(data.draw(st.integers(1, 3)))]
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "submission"
        shutil.copytree(submission_template, root)
        for i, record in enumerate(generated):
            write_json(root / "results" / "bm25" / "bm25s-0.3.16" / f"r{i}.json", record)
        results_dir = root / "results"
        index = build_index(results_dir, persist=False)
        assert len(index.rows) + len(index.skipped) == len(generated)
        event(f"{len(index.rows)} valid, {len(index.skipped)} skipped")
        for path, _ in index.rows:
            read_result(path)  # what the index accepts, the reader accepts
        assert_clean(CliRunner().invoke(cli, ["show", str(results_dir)]))
        pushed = CliRunner().invoke(cli, ["push", str(results_dir), "--repo", "org/r", "--dry-run"])
        assert_clean(pushed, (0, 2))
        assert pushed.exit_code == 2 or not index.skipped  # any invalid file stops the push
        assert_clean(CliRunner().invoke(cli, ["validate", str(root)]), (0, 2))


# -- hostile data files: exit 2 naming the file and line ----------------------------------------------

CORPUS = {"d1": "alpha beta", "d2": "gamma delta", "d3": "beta gamma"}
QUERIES = {"q1": "beta", "q2": "gamma"}
QRELS = {"q1": {"d1": 1}, "q2": {"d2": 1}}


nested = st.builds(
    lambda depth, opener: opener * depth + ("]" if opener == "[" else "") * depth,
    st.integers(safe_json.MAX_DEPTH + 1, 20_000),
    st.sampled_from(["[", '{"a":']),
)
not_an_object = json_like.filter(lambda v: not isinstance(v, dict)).map(json.dumps)
bad_id = st.one_of(st.none(), st.booleans(), st.floats(), st.lists(st.integers(), max_size=2), st.just(""))
hostile_record_line = st.one_of(
    st.tuples(st.binary(max_size=100), st.sampled_from([b"\xff", b"\xfe", b"\xc0\xaf"]), st.binary(max_size=100)).map(
        lambda parts: b"".join(parts).replace(b"\n", b"")  # 0xff, 0xfe, 0xc0 never occur in UTF-8
    ),
    nested.map(lambda text: ('{"_id": "dx", "text": ' + text + "}").encode()),
    not_an_object.map(str.encode),
    st.builds(lambda v: json.dumps({"_id": v, "text": "x"}).encode(), bad_id),
    st.builds(lambda v: json.dumps({"_id": "dx", "text": v}).encode(), bad_id),
    st.dictionaries(st.sampled_from(["id", "title", "body"]), st.text(max_size=5)).map(
        lambda d: json.dumps(d).encode()
    ),
    st.just(b'{"_id": "dx", "text": 1' + b"0" * 5000 + b"}"),
)


def bad_grade(text: str) -> bool:
    try:
        grade_value(text.strip())
    except ValueError:
        return True
    return False


hostile_grade = st.one_of(
    st.text(st.characters(blacklist_characters='\t\n\r"', blacklist_categories=("Cs",)), max_size=12),
    st.sampled_from(["inf", "-inf", "nan", "1.7", "1e999", "9" * 5000, "high", "", "1_0", "٣"]),
).filter(bad_grade)


def run_on(folder: Path, out: Path, *extra: str):
    return CliRunner().invoke(cli, ["run", "-m", "bm25", "-t", str(folder), "-o", str(out), *extra])


@COMMANDS
@given(
    which=st.sampled_from(["corpus.jsonl", "queries.jsonl"]),
    line=hostile_record_line,
    position=st.integers(0, 3),
)
def test_a_hostile_beir_line_is_bad_input_naming_file_and_line(which, line, position):
    with tempfile.TemporaryDirectory() as folder:
        root = write_beir(Path(folder) / "data", CORPUS, QUERIES, QRELS)
        lines = (root / which).read_bytes().splitlines(keepends=True)
        position = min(position, len(lines))
        lines.insert(position, line + b"\n")
        (root / which).write_bytes(b"".join(lines))
        ran = run_on(root, Path(folder) / "out")
        assert_clean(ran, (2,))
        assert f"{which}, line {position + 1}" in ran.output.replace("\n", "")
        assert not (Path(folder) / "out").exists()


@COMMANDS
@given(grade=hostile_grade, position=st.integers(0, 2))
def test_a_hostile_qrels_grade_is_bad_input_naming_file_and_line(grade, position):
    with tempfile.TemporaryDirectory() as folder:
        root = write_beir(Path(folder) / "data", CORPUS, QUERIES, QRELS)
        path = root / "qrels" / "test.tsv"
        lines = path.read_text().splitlines(keepends=True)
        position = min(position, len(lines) - 1)
        lines.insert(1 + position, f"q1\td3\t{grade}\n")
        path.write_text("".join(lines))
        ran = run_on(root, Path(folder) / "out")
        assert_clean(ran, (2,))
        assert f"test.tsv, line {position + 2}" in ran.output.replace("\n", "")


NC_CORPUS = [{"doc_id": "p0", "text": "apples and pears"}, {"doc_id": "p1", "text": "apples only"}]


def nc_query(qid: str, grade) -> dict:
    return negconstraint_query(qid, {"p1": grade, "p0": 0})


nc_bad_grade = st.one_of(
    st.floats().filter(lambda f: not (math.isfinite(f) and f.is_integer())),
    st.text(max_size=8).filter(bad_grade),
    st.none(),
    st.booleans(),
    st.lists(st.integers(0, 2), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
    st.integers(min_value=2**31, max_value=10**40),
)


@COMMANDS
@given(grade=nc_bad_grade, queries_before=st.integers(0, 2))
def test_a_hostile_negconstraint_grade_is_bad_input_naming_file_and_line(grade, queries_before):
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "nc"
        root.mkdir()
        queries = [nc_query(f"q{i}", 2) for i in range(queries_before)] + [nc_query("bad", grade)]
        (root / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in NC_CORPUS))
        (root / "queries.jsonl").write_text("".join(json.dumps(r, allow_nan=True) + "\n" for r in queries))
        out = Path(folder) / "out"
        ran = CliRunner().invoke(
            cli, ["run", "-m", "bm25", "-t", "negconstraint", "--data-dir", f"negconstraint={root}", "-o", str(out)]
        )
        assert_clean(ran, (2,))
        assert f"queries.jsonl, line {queries_before + 1}" in ran.output.replace("\n", "")


# -- issue 23: per-query values, index rows and judge replies ------------------------------------------

values_column = st.lists(st.floats(0, 1), min_size=1, max_size=40)


@QUICK
@given(column=values_column, offset=st.sampled_from([0.0, 5e-10, -5e-10, 2e-9, -2e-9, 0.01]))
def test_per_query_mean_check_accepts_exactly_the_means_within_1e_9(column, offset):
    from leaderboard.records.per_query_checks import MEAN_TOLERANCE, mean_problems

    clean = {f"q{i}": {"m": v} for i, v in enumerate(column)}
    stored = math.fsum(column) / len(column) + offset
    problems = mean_problems(clean, {"m": stored})
    assert (problems == []) == (abs(offset) <= MEAN_TOLERANCE)


@QUICK
@given(rows=st.dictionaries(st.text(max_size=5), st.one_of(json_like, st.dictionaries(st.text(max_size=5), json_like))))
def test_per_query_value_checks_never_raise_and_pass_only_finite_in_range_numbers(rows):
    from leaderboard.records.per_query_checks import value_problems

    problems, clean = value_problems(rows, lambda name: (0.0, 1.0))
    for row in clean.values():
        assert all(isinstance(v, float) and 0.0 <= v <= 1.0 for v in row.values())
    bad = sum(
        1
        for row in rows.values()
        for v in (row.values() if isinstance(row, dict) else [None])
        if not (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and 0 <= v <= 1)
    )
    assert len(problems) == bad


@COMMANDS
@given(data=st.data())
def test_per_query_values_round_trip_only_when_they_are_the_scores(demo, data):
    """Re-sealed per-query values of a real result: read back exactly when finite, in range and averaging to it."""
    from leaderboard.records.result import PerQuery, decode_per_query, encode_per_query

    base = copy.deepcopy(demo)
    values = decode_per_query(PerQuery.model_validate(base["per_query"]))
    qid = data.draw(st.sampled_from(sorted(values)))
    value = data.draw(st.one_of(hostile_number, st.just(values[qid]["ndcg_at_10"])))  # the true value: accepted
    values[qid]["ndcg_at_10"] = value
    try:
        base["per_query"] = encode_per_query(values).model_dump()
    except ValueError:
        return  # NaN/inf cannot even be sealed as JSON
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "r.json"
        write_json(path, base)
        column = [v["ndcg_at_10"] for v in values.values()]
        fits = 0 <= value <= 1 and abs(math.fsum(column) / len(column) - base["main_score"]) <= 1e-9
        try:
            read_result(path)
            assert fits
        except BadInput as exc:
            assert not fits and "per_query" in str(exc)


@COMMANDS
@given(summary=json_like, seal_it=st.booleans())
def test_an_index_row_never_crashes_show_and_only_a_proven_row_is_shown(demo, summary, seal_it):
    """Whatever a row's summary holds (even re-sealed by hand), show exits 0 and shows the file's own score."""
    import sqlite3

    from leaderboard.records import index as index_module

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "results"
        write_json(root / "bm25" / "r" / "demo.json", demo)
        index_module.build_index(root)
        with sqlite3.connect(index_module.index_file(root)) as db:
            text = json.dumps(summary, allow_nan=True)
            db.execute("UPDATE entries SET summary = ?", (text,))
            if seal_it:  # a forger who also recomputes the seal: the shape check still guards show
                ((path, *rest),) = db.execute(
                    "SELECT path, size, mtime_ns, inode, ctime_ns, sha256, indexed_ns, parts, reason FROM entries"
                )
                entry = index_module.Entry(path, list(rest[:4]), None, rest[7], rest[4], rest[5], json.loads(rest[6]))
                db.execute("UPDATE entries SET seal = ?", (index_module._seal(entry, text),))
        ((_, shown),) = index_module.build_index(root).summaries()
        assert index_module.summary_problems(shown) == []
        if not seal_it:
            assert shown["main_score"] == demo["main_score"]
        ran = CliRunner().invoke(cli, ["show", str(root)])
        assert_clean(ran)


@QUICK
@given(body=st.one_of(st.binary(max_size=300), json_like.map(lambda v: json.dumps(v).encode())))
def test_a_judge_reply_is_a_text_or_a_reason(body):
    pytest.importorskip("openai")
    from leaderboard_judges.llm import parse_label, reply_content

    try:
        content = reply_content(body)
    except ValueError as exc:
        assert str(exc)
        return
    assert content is None or isinstance(content, str)
    assert parse_label(content) in (True, False, None)
