"""The board at real size: the index's compact per-query storage, its parallel build, the cells a ranking
reads, and the draws kept between resamplings, each equal to what the plain way gives (real results)."""

import json
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from leaderboard.metrics import bootstrap, draws
from leaderboard.metrics.significance import sign_flip_test
from leaderboard.records import index_checks as index_module
from leaderboard.records import per_query_columns
from leaderboard.records.index import build_index, index_file
from leaderboard.records.reader import read_record as read_plain

SUBMISSIONS = Path(__file__).resolve().parents[1] / "submissions"
REAL = sorted(p for p in SUBMISSIONS.glob("*/results/**/*.json") if json.loads(p.read_text())["per_query"])


@pytest.fixture
def real_results(tmp_path):
    """The committed complete runs with per-query values (ComLQ and NegConstraint), and a broken file."""
    root = tmp_path / "results"
    for path in REAL:
        target = root / path.relative_to(SUBMISSIONS)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    (root / "broken" / "x.json").parent.mkdir(parents=True)
    (root / "broken" / "x.json").write_text("{not json")
    return root


def test_per_query_columns_come_back_from_the_compact_index(real_results):
    index = build_index(real_results)
    stored = index.per_query([path for path, _ in index.summaries()])
    assert len(stored) == len(REAL) >= 6
    for path, columns in stored.items():
        record = read_plain(real_results / path)
        assert columns == per_query_columns.columns(record["per_query"])
    comlq = [columns for path, columns in stored.items() if path.endswith("comlq.json")]
    assert all(c["ids"] is comlq[0]["ids"] and c["subsets"] is comlq[0]["subsets"] for c in comlq)  # kept once
    with sqlite3.connect(index_file(real_results)) as db:
        assert db.execute("SELECT count(*) FROM shared").fetchone()[0] < 2 * len(REAL)


def test_an_edited_shared_part_is_never_read(real_results):
    index = build_index(real_results)
    with sqlite3.connect(index_file(real_results)) as db:
        rows = db.execute("SELECT sha256, text FROM shared").fetchall()
        key, ids = next((key, json.loads(text)) for key, text in rows if text.startswith("["))  # query ids
        db.execute("UPDATE shared SET text = ? WHERE sha256 = ?", (json.dumps(["forged-query", *ids[1:]]), key))
    fresh = build_index(real_results)
    paths = [path for path, _ in fresh.summaries()]
    found = fresh.per_query(paths)
    assert 0 < len(found) < len(paths)  # the results naming the edited part have no per-query values
    assert all("forged-query" not in c["ids"] for c in found.values())
    assert len(index.per_query(paths)) == len(found)  # an index read earlier checks it the same way


def test_parts_no_result_names_are_dropped(real_results):
    build_index(real_results)
    for path in real_results.rglob("negconstraint.json"):
        path.unlink()
    build_index(real_results)
    with sqlite3.connect(index_file(real_results)) as db:
        keys = {row[0] for row in db.execute("SELECT sha256 FROM shared")}
        named = {
            key for (refs,) in db.execute("SELECT refs FROM entries WHERE refs IS NOT NULL") for key in json.loads(refs)
        }
    assert keys == named and keys


def test_a_parallel_build_equals_one_in_this_process(real_results, monkeypatch):
    monkeypatch.setattr(index_module, "PARALLEL_MIN", 1)  # worker processes even for these few files
    parallel = build_index(real_results)
    alone = build_index(real_results, persist=False)  # in memory, in this process
    assert parallel.database is not None and alone.database is None
    assert parallel.summaries() == alone.summaries()
    assert [(p.name, r) for p, r in parallel.skipped] == [(p.name, r) for p, r in alone.skipped] != []
    paths = [path for path, _ in alone.summaries()]
    assert parallel.per_query(paths) == alone.per_query(paths)
    assert parallel.details(paths) == alone.details(paths)


def test_a_rankings_cells_equal_those_of_the_whole_detail(real_results):
    index = build_index(real_results)
    paths = [path for path, _ in index.summaries()]
    details = index.details(paths)
    wanted = [("test", "type=2in", "ndcg_at_10"), ("test", "group=negation", "lsnc_lexical_v1_at_10")]
    wanted += [("test", "category=(A - a) ∪ B", "ndcg_at_10"), ("test", "default", "paired_win_rate")]
    cells = index.cells(paths, wanted)
    assert set(cells) == set(paths)
    for path, found in cells.items():
        for part in ("scores", "confidence_intervals"):
            expected = {
                (split, subset, metric): details[path][part][split][subset][metric]
                for split, subset, metric in wanted
                if metric in details[path][part].get(split, {}).get(subset, {})
            }
            got = {
                (split, subset, metric): value
                for split, subsets in found.get(part, {}).items()
                for subset, values in subsets.items()
                for metric, value in values.items()
            }
            assert got == expected
        assert found["scores"]  # every file has some of them
    quoted = [("test", 'type="odd"', "ndcg_at_10"), *wanted]  # a name SQLite cannot quote: parsed in Python
    assert index.cells(paths, quoted) == cells
    in_memory = build_index(real_results, persist=False)
    assert in_memory.cells(paths, wanted) == cells


def test_kept_draws_are_the_draws_made_afresh():
    draws.clear()
    values = np.random.default_rng(1).random((3, 50))
    first = bootstrap.stratified_resamples([values, values[:, :7]], n_resamples=300, seed=4)
    assert draws._size > 0
    again = bootstrap.stratified_resamples([values, values[:, :7]], n_resamples=300, seed=4)
    draws.clear()
    rng = np.random.default_rng(4)  # the draws, made by hand in the same order
    expected = np.zeros((3, 300))
    for stratum in (values, values[:, :7]):
        counts = bootstrap.draw_counts(stratum.shape[1], 300, rng).astype(float)
        expected += stratum @ counts.T / (stratum.shape[1] * 2)
    np.testing.assert_array_equal(first, again)
    np.testing.assert_allclose(first, expected, rtol=1e-12)
    best, others = [values[0]], [values[1:]]
    p_fresh = sign_flip_test(best, others, n_resamples=700, screen=0.0)
    assert sign_flip_test(best, others, n_resamples=700, screen=0.0).tolist() == p_fresh.tolist()  # kept
    draws.clear()
    assert sign_flip_test(best, others, n_resamples=700, screen=0.0).tolist() == p_fresh.tolist()  # made again


def test_draws_beyond_the_budget_are_dropped_oldest_first(monkeypatch):
    draws.clear()
    values = np.ones((1, 10))
    for n_resamples in (100, 101, 102):
        bootstrap.stratified_resamples([values], n_resamples=n_resamples)
    assert [key[2] for key in draws._kept] == [100, 101, 102]
    monkeypatch.setattr(draws, "BUDGET", draws._size + 20)  # these three, and not a fourth
    bootstrap.stratified_resamples([values], n_resamples=100)  # used: now the most recent
    bootstrap.stratified_resamples([values], n_resamples=103)
    assert [key[2] for key in draws._kept] == [102, 100, 103] and draws._size <= draws.BUDGET
    draws.clear()


def test_packed_draws_are_the_draws():
    rng = np.random.default_rng(0)
    counts = bootstrap.draw_counts(7, 50, rng)  # small counts: four bits each, an odd number of items
    big = counts.copy()
    big[0, 0] = 300  # a count four bits cannot hold
    signs = rng.choice((-1.0, 1.0), size=(9, 13))
    for array, is_signs in ((counts, False), (big, False), (signs, True)):
        packed = draws.Packed(array, is_signs)
        unpacked = packed.array()
        assert unpacked.dtype == np.float64 and np.array_equal(unpacked, array.astype(np.float64))
    assert draws.Packed(counts, False).nbytes == 50 * 4 and draws.Packed(signs, True).nbytes == 9 * 2
    vector = rng.random(13)
    np.testing.assert_allclose(draws.Packed(signs, True).dot(vector), signs @ vector, rtol=1e-13)


def test_a_detail_edited_into_broken_json_costs_only_its_own_cells(real_results):
    index = build_index(real_results)
    paths = [path for path, _ in index.summaries()]
    wanted = [("test", "type=2in", "ndcg_at_10"), ("test", "default", "ndcg_at_10")]
    expected = index.cells(paths, wanted)
    with sqlite3.connect(index_file(real_results)) as db:
        db.execute("UPDATE entries SET detail = '{broken' WHERE path = ?", (paths[0],))
    found = index.cells(paths, wanted)
    assert paths[0] not in found and found == {p: v for p, v in expected.items() if p != paths[0]}


def test_a_board_keeps_only_the_default_scores_it_shows(real_results, monkeypatch):
    validated = []
    real = index_module._validate
    monkeypatch.setattr(index_module, "_validate", lambda *a: validated.append(a[1]) or real(*a))
    wanted = {"comlq": {"ndcg_at_10"}, "negconstraint": {"paired_win_rate"}}
    index = build_index(real_results, default_metrics=wanted)
    for _, summary in index.summaries():
        keep = wanted[summary["task"]["name"]] | {summary["task"]["main_score"]}
        assert set(summary["default"]) == keep
    first = len(validated)
    path = next(real_results.rglob("comlq.json"))
    path.write_bytes(path.read_bytes())  # rewritten with the same bytes (a pull): re-sealed, not re-validated
    build_index(real_results, default_metrics=wanted)
    again = build_index(real_results)  # whole summaries: the rows were written (and re-sealed) whole
    assert len(validated) == first
    assert all(len(summary["default"]) > 2 for _, summary in again.summaries())


def _plain_record(path):
    from leaderboard.records.reader import _validator

    return _validator().validate_python(json.loads(Path(path).read_text()))


def _problems(record):
    """The per-query checks' problems with a plain record (a complete run: its values are required)."""
    from leaderboard.records.per_query_checks import per_query_problems
    from leaderboard.records.result_checks import main_split, metric_range

    return per_query_problems(record, main_split(record), lambda name: metric_range(record, name), True)


def _rules_hold(record):
    """The per-query rules (``records.per_query_checks``' docstring) written value by value: the oracle the
    columnar checks are held to."""
    from leaderboard.records.per_query_codec import decode_per_query
    from leaderboard.records.result_checks import main_split

    field, split = record["per_query"], main_split(record)
    values = decode_per_query(field)
    return (
        _values_in_range(record, values)
        and record["subset_sizes"].get(split, {}).get("default", len(values)) == len(values)
        and _metric_queries_hold(field, values)
        and _means_hold(record["scores"][split], field, values)
    )


def _values_in_range(record, values):
    import math

    from leaderboard.records.result_checks import metric_range

    for row in values.values():
        for metric, value in row.items():
            low, high = metric_range(record, metric)
            if type(value) not in (int, float) or not math.isfinite(value):
                return False
            if (low is not None and value < low) or (high is not None and value > high):
                return False
    return True


def _metric_queries_hold(field, values):
    from leaderboard.records.per_query_codec import decode_metric_queries

    if not field.get("metric_queries"):
        return True
    declared = decode_metric_queries(field)
    for metric in {m for row in values.values() for m in row} | set(declared):
        having = {q for q, row in values.items() if metric in row}
        if having != set(declared.get(metric, [q for q, row in values.items() if row])):
            return False
    return True


def _means_hold(scores, field, values):
    import math

    from leaderboard.records.per_query_codec import decode_subset_queries

    members = decode_subset_queries(field) if field.get("subsets") else {}

    def agrees(queries, metric, stored):
        column = [values[q][metric] for q in queries if q in values and metric in values[q]]
        return not column or math.isclose(math.fsum(column) / len(column), stored, rel_tol=0, abs_tol=1e-9)

    macro = field.get("macro_over") or []
    if any(s not in members for s in macro):
        return False
    for metric, stored in scores.get("default", {}).items():
        if macro:
            columns = [[values[q][metric] for q in members[s] if q in values and metric in values[q]] for s in macro]
            means = [math.fsum(c) / len(c) for c in columns if c]
            if means and not math.isclose(math.fsum(means) / len(means), stored, rel_tol=0, abs_tol=1e-9):
                return False
        elif not agrees(list(values), metric, stored):
            return False
    return all(
        agrees(queries, m, v)
        for subset, queries in members.items()
        if subset != "default"
        for m, v in scores.get(subset, {}).items()
    )


@pytest.mark.parametrize("path", REAL, ids=lambda p: f"{p.parent.parent.name}-{p.name}")
def test_the_checks_accept_real_results_and_give_their_columns(path):
    from leaderboard.records import per_query_checks

    record = _plain_record(path)
    assert _problems(record) == [] and _rules_hold(record)
    assert per_query_checks.columns(record["per_query"]) == per_query_columns.columns(record["per_query"])


def _mutations():
    from hypothesis import strategies as st

    kinds = ["shift", "tiny shift", "range", "nan", "string", "null", "bool", "drop row", "drop value", "extra row"]
    kinds += ["int", "subset extra id", "subset duplicate", "metric_queries", "score", "macro_over"]
    return st.tuples(st.sampled_from(REAL), st.sampled_from(kinds), st.integers(0, 10**6))


def _mutated(path, kind, seed):
    """A real result with one change to its per-query values, membership or scores, repacked (sha256 right)."""
    import base64
    import gzip
    import hashlib

    from leaderboard.records.per_query_codec import decode_per_query, decode_subset_queries

    def pack(value):  # the codec's packing, NaN allowed (a hostile file may hold one)
        payload = json.dumps(value, sort_keys=True, separators=(",", ":")).encode()
        return hashlib.sha256(payload).hexdigest(), base64.b64encode(gzip.compress(payload, mtime=0)).decode()

    record = _plain_record(path)
    field = record["per_query"]
    values = decode_per_query(field)
    members = decode_subset_queries(field)
    ids = sorted(values)
    qid = ids[seed % len(ids)]
    metric = sorted(values[qid])[seed % len(values[qid])]
    row = values[qid]
    if kind in ("shift", "tiny shift"):
        row[metric] = row[metric] * 0.5 if kind == "shift" else row[metric] + 2e-9 * len(ids)
    elif kind == "range":
        row[metric] = 1e9
    elif kind == "nan":
        row[metric] = float("nan")
    elif kind in ("string", "null", "bool", "int"):
        row[metric] = {"string": "0.5", "null": None, "bool": True, "int": round(row[metric])}[kind]
    elif kind == "drop row":
        del values[qid]
    elif kind == "drop value":
        del row[metric]
    elif kind == "extra row":
        values["zz-extra"] = dict(row)
    elif kind in ("subset extra id", "subset duplicate") and members:
        name = sorted(members)[seed % len(members)]
        members[name] = members[name] + (["zz-unknown"] if kind == "subset extra id" else members[name][:1])
    elif kind == "metric_queries":
        field["metric_queries"] = dict(zip(("sha256", "data"), pack({metric: ids[: 1 + seed % 5]})))
        field["metric_queries"].update(count=1, encoding="gzip+base64+json")
    elif kind == "macro_over" and members:
        field["macro_over"] = sorted(members)[:2]
    split = record["task"]["splits"][0]
    _rescored(record["scores"][split], values, members)  # the means agree: only the change itself is wrong
    if kind == "score":
        subsets = sorted(record["scores"][split])
        subset = "default" if seed % 4 < 2 else subsets[seed % len(subsets)]
        scores = record["scores"][split][subset]
        name = sorted(scores)[seed % len(scores)]
        scores[name] = scores[name] + (1e-12 if seed % 2 else 1e-6)
    field["sha256"], field["data"] = pack(values)
    field["count"] = len(values)
    if field.get("subsets"):
        field["subsets"]["sha256"], field["subsets"]["data"] = pack(members)
    return record


def _rescored(scores, values, members):
    """Each stored score with per-query numbers set to their mean (default: every query; each subset: its own)."""
    import math

    for subset, ids in [("default", list(values)), *members.items()]:
        for metric in scores.get(subset, {}):
            column = [values[q][metric] for q in ids if q in values and isinstance(values[q].get(metric), float)]
            column = [v for v in column if math.isfinite(v)]
            if column:
                scores[subset][metric] = math.fsum(column) / len(column)


def test_the_checks_refuse_exactly_what_the_rules_refuse():
    from hypothesis import given, settings

    seen = {True: 0, False: 0}

    @settings(max_examples=120, deadline=None, derandomize=True)
    @given(_mutations())
    def check(case):
        record = _mutated(*case)
        problems = _problems(record)
        assert bool(problems) != _rules_hold(record), (case, problems)
        assert all(p.startswith("per_query") for p in problems)  # each names the field it is about
        seen[bool(problems)] += 1

    check()
    assert seen[True] > 20 and seen[False] > 5  # both kinds of mutation were tried


def _replicas():
    import sys

    sys.path.insert(0, str(SUBMISSIONS.parent / "perf"))
    import replicas

    return replicas


def test_perf_replicas_of_real_results_are_valid_results(tmp_path):
    """perf/replicas.py: real runs under other names, with their per-query values and scores changed together."""
    root = tmp_path / "replicas"
    assert _replicas().write_real_replicas(root, 12) == 12
    index = build_index(root)
    assert len(index.summaries()) == 12 and not index.skipped  # every reader accepts every file
    scores = {s["main_score"] for _, s in index.summaries()}
    assert len(scores) == 12  # and they differ
    assert {b["name"] for b in json.loads((root / "benchmarks.json").read_text())} == {"ComLQ", "NegConstraint"}


def test_the_next_page_is_computed_while_this_one_is_read(tmp_path, monkeypatch):
    import time

    from leaderboard.app.data.page_statistics import _DONE
    from leaderboard.app.server import loading, prefetch
    from leaderboard.app.views import board as board_table

    root = tmp_path / "replicas"
    _replicas().write_real_replicas(root, 24)
    monkeypatch.setattr(board_table, "PAGE_SIZE", 4)
    board = loading.load(root)
    ranking = board.ranking("NegConstraint", with_stats=False)
    board_table.board_html(
        ranking,
        board_table.TableRequest(),
        prepare=lambda lines: prefetch.now(board, ranking, lines),
        ahead=lambda lines: prefetch.ahead(board, ranking, lines),
    )
    second = {line.key for line in ranking.lines[4:8]}
    deadline = time.monotonic() + 300  # the state is waited for; the bound only ends a broken run
    while not second <= ranking.memo.get(_DONE, {}).get("keys", set()):
        assert time.monotonic() < deadline, "the next page was not computed ahead"
        time.sleep(0.05)
    assert all(line.intervals for line in ranking.lines[4:8])
    assert not any(line.key in ranking.memo[_DONE]["keys"] for line in ranking.lines[8:])  # only the next page


def test_side_aggregates_read_each_row_once_not_once_per_model():
    """FollowIR's mean p-MRR beside its score: at 35,000 imported results, a pass over every row for every
    model took minutes (5,000 x 5,000); each row is now keyed once per task."""
    from leaderboard.app.data.ranking import Line, _side_aggregates
    from leaderboard.contract.benchmark import Benchmark, BenchmarkTask, SideAggregate

    tasks = ("t1", "t2", "t3")
    specs = tuple(BenchmarkTask(t, "p-MRR", "higher", "p-MRR") for t in tasks)
    benchmark = Benchmark("B", "", "", tasks=specs, also=(SideAggregate("mean p-MRR", "mean", specs),))
    models = [(f"org/m{i}", "r1") for i in range(300)]
    per_task = {
        t: [
            {"model": {"name": name, "revision": rev}, "task": {"name": t, "split": "test", "content_hash": "h"},
             "complete": True, "default": {"p-MRR": (i + j) / 1000}, "created_at": "2025-01-01", "_path": f"{t}/{i}"}
            for i, (name, rev) in enumerate(models)
        ]
        for j, t in enumerate(tasks)
    }  # fmt: skip
    calls = []

    def key(row):
        calls.append(1)
        return str(row["model"]["name"]), str(row["model"]["revision"])

    lines = {m: Line(m, {"name": m[0]}, "", "") for m in models}
    _side_aggregates(benchmark, lines, per_task, {}, key)
    assert len(calls) == 3 * len(models)  # one key per row (was one per row per model: 270,000)
    assert lines[models[7]].side["mean p-MRR"] == pytest.approx((7 + 7 + 1 + 7 + 2) / 3 / 1000)


def test_a_cold_show_of_real_results_checks_their_values_without_numpy(real_results, tmp_path):
    """numpy costs a cold ``show`` more than the checks themselves: the checks run on ``array("d")``."""
    from conftest import cold_show

    assert any(p.name == "comlq.json" for p in REAL)  # 2,909 queries
    spy = (
        "from leaderboard.records import result_checks\n"
        "real, verdicts = result_checks.per_query_problems, []\n"
        "def checked(*a):\n    found = real(*a)\n    verdicts.append(found == [])\n    return found\n"
        "result_checks.per_query_problems = checked\n"
    )
    after = "print('VERDICTS', verdicts, 'NUMPY', 'numpy' in sys.modules)\n"
    done = cold_show(real_results, tmp_path / "cache", before=spy, after=after, timeout=300)
    assert done.returncode == 0, done.stderr
    verdicts, numpy_loaded = done.stdout.rsplit("VERDICTS", 1)[1].split("NUMPY")
    assert "comlq" in done.stdout and "True" in verdicts and "False" not in verdicts  # every file's values checked
    assert numpy_loaded.strip() == "False", done.stdout[-500:]
