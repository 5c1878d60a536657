"""The board's data layer without a browser: fair ranking, coverage, intervals and significance,
public vs local boards, escaping, numeric cells and CSV, declared views, and files that must not
break anything."""

import io
import json
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from app_fixtures import BENCHMARKS, HOSTILE, build_results

from leaderboard.app.data import task_views as views
from leaderboard.app.data.board import OVERALL, label_of
from leaderboard.app.data.filters import DEFAULT_COLUMNS, OPTIONAL_COLUMNS, Filters, size_bucket
from leaderboard.app.data.values import MISSING
from leaderboard.app.server import loading
from leaderboard.app.views import board as board_table
from leaderboard.app.views import provenance as provenance_view
from leaderboard.app.views import render
from leaderboard.app.views.about import about_html
from leaderboard.app.views.board_notes import benchmark_summary, board_notes
from leaderboard.app.views.overall import overall_summary
from leaderboard.app.views.provenance import provenance_html
from leaderboard.app.views.skipped import skipped_html
from leaderboard.contract.task import COMPLEXITY_VIEW_TITLE
from leaderboard.metrics.significance import bootstrap_ci, randomization_test
from leaderboard.records.result import PerQuery, decode_per_query


def board_html(ranking, filters, columns):
    """The board's first page as the app draws it (``board_table``: sorted and paged on the server)."""
    return board_table.board_html(ranking, board_table.TableRequest(filters, tuple(columns)))


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return build_results(tmp_path_factory.mktemp("app") / "results")


@pytest.fixture(scope="module")
def board(root):
    return loading.load(root, public=True, persist=False)


def names(lines):
    return [line.name for line in lines]


def test_skipped_files_are_listed_relative_with_their_full_reason(board, root):
    skipped = dict(board.skipped)
    assert set(skipped) == {"broken.json", "future.json"}  # benchmarks.json is bookkeeping, not a result
    assert "not valid JSON" in skipped["broken.json"]
    assert "unknown schema_version '99'" in skipped["future.json"]
    assert not any(str(root) in path or str(root) in reason for path, reason in board.skipped)
    assert len(skipped["future.json"]) > 80  # reasons are not cut


def test_ranks_by_the_declared_aggregate_with_complete_coverage_only(board):
    demo = board.ranking("Demo retrieval")
    assert names(demo.ranked) == ["bm25", HOSTILE, "tiny-dense-model"]
    assert [line.rank for line in demo.ranked] == [1, 2, 3]
    assert demo.ranked[0].aggregate == demo.ranked[0].values["c0"]  # one task in the aggregate
    # limited-model has only a --limit run (scored higher than nothing): listed, never ranked
    assert names(demo.unranked) == ["limited-model"]
    assert "partial result only (--limit 5" in demo.unranked[0].missing[0]

    conditions = board.ranking("Conditions")
    for line in conditions.ranked:  # the mean of the two tasks in the aggregate; task 3 shown, not averaged
        assert line.aggregate == pytest.approx((line.values["c0"] + line.values["c1"]) / 2)
        assert line.values["c2"] is not None
    assert names(conditions.unranked) == ["partial-model"]
    assert conditions.unranked[0].missing == ["multiconir-demo-task2: no result"]
    assert conditions.unranked[0].covered == 1 and conditions.aggregated == 2


def test_a_lower_is_better_benchmark_ranks_ascending(root):
    declared = {
        "name": "Flips",
        "description": "lower is better",
        "reference": "",
        "tasks": [{"task": "multiconir-demo-task3", "metric": "flip_rate", "direction": "lower"}],
    }
    local = loading.load(root, [declared], public=True, persist=False)
    ranked = local.ranking("Flips").ranked
    values = [line.aggregate for line in ranked]
    assert values == sorted(values) and len(values) == 3


def test_public_board_hides_non_public_benchmarks_and_unbenchmarked_tasks(board, root):
    assert board.benchmark_names == ["Demo retrieval", "Conditions", "Followish", OVERALL]
    assert "stray-task" not in {r["task"]["name"] for r in board.shown_rows}
    assert "stray-task" not in provenance_html(board, ["stray-task", "demo"])
    local = loading.load(root, public=False, persist=False)
    assert "Hidden demo" in local.benchmark_names and "stray-task (task in no benchmark)" in local.benchmark_names
    assert label_of(local, "Hidden demo").endswith("not public (local view)")
    assert OVERALL in local.benchmark_names and local.overall_benchmarks == board.overall_benchmarks


def test_overall_averages_ranks_over_models_ranked_in_every_benchmark(board):
    found = board.overall_ranking()
    assert found.default and found.benchmarks == ["Demo retrieval", "Conditions", "Followish"]
    assert {r.name for r in found.ranked} == {"bm25", HOSTILE, "tiny-dense-model"}
    for row in found.ranked:
        assert row.mean_rank == pytest.approx(sum(row.ranks.values()) / 3)
    assert [r.mean_rank for r in found.ranked] == sorted(r.mean_rank for r in found.ranked)
    # partial-model is ranked in Followish only: listed with its coverage, not ranked
    assert [(r.name, r.coverage) for r in found.unranked] == [("partial-model", 1)]


def _per_query(board, line, task):
    """The result file's own per_query field, decoded (not the index's copy)."""
    stored = json.loads((board.root / line.paths[task]).read_text())["per_query"]
    values = decode_per_query(PerQuery.model_validate(stored))
    return {q: v["ndcg_at_10"] for q, v in values.items()}


def test_intervals_and_significance_agree_with_the_library(board):
    ranking = board.ranking("Demo retrieval")
    best, second, third = ranking.ranked
    for line in ranking.ranked:  # the aggregate's interval: a percentile bootstrap over the 12 queries
        reference = bootstrap_ci(list(_per_query(board, line, "demo").values()))
        low, high = line.aggregate_interval
        assert low < line.aggregate < high
        assert low == pytest.approx(reference.low, abs=0.02) and high == pytest.approx(reference.high, abs=0.02)
    for line in (second, third):  # 12 queries: every sign flip enumerated, so p is exact and equal
        expected = randomization_test(_per_query(board, best, "demo"), _per_query(board, line, "demo"))
        assert expected.exact and line.p_value == pytest.approx(expected.p_value)
    assert second.p_value >= 0.05 and second.marker == "≈"
    assert third.p_value < 0.05 and third.marker == ""
    assert best.marker == "" and best.p_value is None
    unranked = ranking.unranked[0]
    assert unranked.marker == "" and unranked.aggregate is None


def test_board_html_is_numeric_escaped_and_bolds_the_best(board):
    html = board_html(board.ranking("Followish"), Filters(), OPTIONAL_COLUMNS)
    assert 'data-v="-0.12"' in html  # sorting reads the number, negative included
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "<img" not in html
    assert '<td data-v="0.31" class="c-agg best heat"' in html
    assert ">22.7M<" in html and ">7.6B<" in html and 'data-v="22700000.0"' in html
    assert "Revision" in html and "Harness" in html
    default = board_html(board.ranking("Followish"), Filters(), DEFAULT_COLUMNS)
    assert "Revision" not in default and "Harness" not in default  # hidden by default
    # text reaching Gradio's HTML template cannot be read as template syntax
    assert render.esc("${x} {{y}} `z` it's") == "&#36;&#123;x&#125; &#123;&#123;y&#125;&#125; &#96;z&#96; it&#x27;s"


def test_filters(board):
    ranking = board.ranking("Demo retrieval")
    kept = lambda f: [line.name for line in ranking.lines if f.keep(line.info)]
    assert kept(Filters(kinds=("sparse",))) == ["bm25"]
    assert kept(Filters(sizes=("1B–10B",))) == [HOSTILE]
    assert kept(Filters(sizes=("unknown",))) == ["bm25"]
    assert kept(Filters(search="TINY")) == ["tiny-dense-model"]
    assert size_bucket(22_700_000) == "< 100M" and size_bucket(None) == "unknown"


def test_the_summary_says_a_search_filters_the_view_and_counts_the_rows_shown(board):
    # a search restored from a link (?q=tiny) must be visible, with a way to clear it
    ranking = board.ranking("Demo retrieval")
    plain = benchmark_summary(board, "Demo retrieval", ranking, Filters())
    assert "filtered by" not in plain and f"{len(ranking.ranked)} ranked, " in plain
    searched = benchmark_summary(board, "Demo retrieval", ranking, Filters(search="TINY"))
    shown = sum(Filters(search="TINY").keep(line.info) for line in ranking.ranked)
    assert f"{shown} of {len(ranking.ranked)} ranked" in searched and shown < len(ranking.ranked)
    assert "filtered by &#x27;TINY&#x27;" in searched or "filtered by 'TINY'" in searched
    assert 'href="?benchmark=Demo+retrieval">clear</a>' in searched


def test_provenance_names_its_interval_column_as_the_files_own(board):
    # the board computes intervals from per-query values; Provenance shows only one a file stores
    tasks = [t.task for t in board.benchmark("Demo retrieval").tasks]
    html = provenance_html(board, tasks)
    assert "Stored 95% CI" in html and ">95% CI<" not in html
    headers = re.findall(r'<span class="h">(.*?)</span>', html) or re.findall(r"<th[^>]*>(.*?)</th>", html)
    assert any("File" in h for h in headers[:4])  # the file early, not cut off at the right edge


def test_provenance_is_paged_and_every_result_is_on_some_page(board, monkeypatch):
    """One page of results at a time (a 10,000-file board's full list cost the browser a second), all reachable."""
    tasks = [t.task for t in board.benchmark("Demo retrieval").tasks]
    files = lambda html: re.findall(r'<td data-v="([^"]*)" class="c-file">', html)
    everything = files(provenance_html(board, tasks))
    assert len(everything) > 3 and "provenance-pager" not in provenance_html(board, tasks)  # one page
    monkeypatch.setattr(provenance_view, "PAGE_SIZE", 3)
    first = provenance_html(board, tasks)
    assert 'data-box="provenance-page" data-go="provenance-go"' in first and "results 1–3 of" in first
    count = -(-len(everything) // 3)
    paged = [f for number in range(1, count + 1) for f in files(provenance_html(board, tasks, page=number))]
    assert paged == everything  # the same order, each result once
    assert files(provenance_html(board, tasks, page=99)) == everything[(count - 1) * 3 :]  # past the end: last


def test_page_sentences_are_not_garbled(board):
    # no doubled parentheticals, no "Overall: Overall =", no arrow twice in one About row
    for name in ("Demo retrieval", "Conditions", "Followish"):
        ranking = board.ranking(name)
        notes = board_notes(ranking)
        assert ") (" not in notes, notes
        assert "Score (" in notes or not ranking.benchmark.formula
    summary = overall_summary(board.overall_ranking())
    assert "Overall = " not in summary and summary.count("mean rank over") == 1
    about = about_html(board)
    for row in re.findall(r"<tr>(.*?)</tr>", about, re.S):
        assert row.count("↓") <= 1 and row.count("↑") <= 1, row
    assert about.count("no description in the results yet") <= 1


def test_csv_holds_numbers(board):
    frame = render.csv_frame(board.ranking("Followish"), Filters())
    back = pd.read_csv(io.StringIO(frame.to_csv(index=False)))
    assert back["followish:p-MRR"].dtype == float and back["followish:p-MRR"].tolist() == [0.31, 0.05, -0.12, -0.45]
    assert back["parameters"].dropna().tolist() == [7.6e9, 22.7e6, 110e6]
    assert back["score_ci_low"].notna().all() and back["rank"].tolist() == [1, 2, 3, 4]


def test_empty_board_says_no_results_yet(tmp_path):
    (tmp_path / "benchmarks.json").write_text(json.dumps(BENCHMARKS))
    empty = loading.load(tmp_path, public=True, persist=False)
    ranking = empty.ranking("Demo retrieval")
    assert ranking.lines == []
    assert "No results yet" in board_html(ranking, Filters(), DEFAULT_COLUMNS)
    assert "No results yet" in provenance_html(empty, ["demo"])
    about = about_html(empty)
    assert all(b["reference"] in about for b in BENCHMARKS if b.get("public", True))
    (tmp_path / "none").mkdir()
    nothing = loading.load(tmp_path / "none", public=True, persist=False)
    assert nothing.benchmark_names == [] and "No benchmark is declared" in about_html(nothing)


def test_declared_views_keep_their_order_and_missing_values_are_missing(board):
    ranking = board.ranking("Conditions")
    paths = {line.key: line.paths["multiconir-demo-task2"] for line in ranking.ranked}
    (curve,) = views.views_of(board, "multiconir-demo-task2")
    frame = views.view_frame(board, curve, paths)
    assert list(dict.fromkeys(frame["entry"])) == ["d+ > HN1"] + [f"HN{i} > HN{i + 1}" for i in range(1, 10)]
    table, nobody = views.views_of(board, "multiconir-demo-task3")
    paths3 = {line.key: line.paths["multiconir-demo-task3"] for line in ranking.ranked}
    wide = views.view_table(views.view_frame(board, table, paths3), table)
    assert list(wide.columns) == ["model", "Books", "Movies", "People"] and len(wide) == 3
    missing = views.view_frame(board, nobody, paths3)
    assert missing["value"].isna().all()
    from leaderboard.app.views import charts

    assert charts.view_chart(missing, nobody, "value") is None


def _copy(root, target, relative, edit):
    source = json.loads((root / relative).read_text())
    edit(source)
    path = target / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(source))
    return path


def test_schema_valid_results_missing_what_a_view_or_benchmark_expects_never_raise(root, tmp_path):
    target = tmp_path / "hostile"
    target.mkdir()
    shutil.copy(root / "benchmarks.json", target / "benchmarks.json")

    def no_ndcg(r):  # the benchmark's metric absent from the scores
        r["scores"]["test"]["default"].pop("ndcg_at_10")
        r["task"]["main_score"], r["main_score"] = "map_at_100", r["scores"]["test"]["default"]["map_at_100"]

    def dev_only(r):  # only a dev split
        r["scores"] = {"dev": r["scores"]["test"]}
        r["task"]["splits"], r["confidence_intervals"] = ["dev"], {}

    def win_rate_k1_only(r):  # a MultiConIR-like result with only win_rate_k1 (its task said why no per-query values)
        r["task_details"]["per_query"] = "not computed: no per-query definition"
        r["scores"] = {"test": {"default": {"win_rate_k1": 0.5}}}
        r["task"]["main_score"], r["main_score"], r["confidence_intervals"], r["per_query"] = (
            "win_rate_k1",
            0.5,
            {},
            None,
        )

    _copy(root, target, "bm25/bm25s-0.3.16/demo.json", no_ndcg)
    _copy(root, target, "tiny-dense-model/r1/demo.json", dev_only)
    _copy(root, target, "bm25/bm25s-0.3.16/multiconir-demo-task1.json", win_rate_k1_only)
    _copy(root, target, "bm25/bm25s-0.3.16/multiconir-demo-task2.json", lambda r: None)
    hostile = loading.load(target, public=False, persist=False)
    assert hostile.skipped == []  # all three are valid results
    demo = hostile.ranking("Demo retrieval")
    assert demo.ranked == [] and {line.name for line in demo.unranked} == {"bm25", "tiny-dense-model"}
    reasons = " ".join(m for line in demo.unranked for m in line.missing)
    assert "no ndcg_at_10" in reasons
    conditions = hostile.ranking("Conditions")
    assert conditions.ranked == [] and "no mean_win_rate" in conditions.unranked[0].missing[0]
    for name in hostile.benchmark_names:  # every page renders, with "—" where a value is missing
        ranking = hostile.ranking(name) if name != OVERALL else None
        if ranking is not None:
            html = board_html(ranking, Filters(), OPTIONAL_COLUMNS)
            assert MISSING in html if ranking.lines else "No results yet" in html
            board_notes(ranking)
            render.csv_frame(ranking, Filters())
            for task in {c.spec.task for c in ranking.columns}:
                paths = {line.key: line.paths[task] for line in ranking.lines if task in line.paths}
                for view in views.views_of(hostile, task):
                    frame = views.view_frame(hostile, view, paths)
                    views.view_table(frame, view)
        provenance_html(hostile, [t.task for b in hostile.benchmarks for t in b.tasks])
    (curve,) = views.views_of(hostile, "multiconir-demo-task1")
    key = ("bm25", "bm25s-0.3.16")
    frame = views.view_frame(hostile, curve, {key: "bm25/bm25s-0.3.16/multiconir-demo-task1.json"})
    assert frame["value"].notna().sum() == 1  # WR_1 drawn, WR_2..10 missing
    about_html(hostile), skipped_html(hostile)


def test_damaged_per_query_data_refuses_the_result_and_costs_nothing_else(root, tmp_path):
    """Issue 31: a complete result of this harness must carry readable per-query values; a damaged field is
    skipped with its reason (it used to rank without an interval, so any score could be put on the board)."""
    target = tmp_path / "damaged"
    target.mkdir()
    shutil.copy(root / "benchmarks.json", target / "benchmarks.json")
    for model in ("bm25/bm25s-0.3.16", "tiny-dense-model/r1"):
        _copy(root, target, f"{model}/demo.json", lambda r: r)
    path = target / "bm25/bm25s-0.3.16/demo.json"
    broken = json.loads(path.read_text())
    broken["per_query"]["data"] = broken["per_query"]["data"][:-8] + "AAAAAAA="  # checksum no longer matches
    path.write_text(json.dumps(broken))
    damaged = loading.load(target, public=True, persist=False)
    ((skipped, reason),) = damaged.skipped
    assert skipped == "bm25/bm25s-0.3.16/demo.json" and "per_query data is damaged" in reason
    (only,) = damaged.ranking("Demo retrieval").ranked
    assert only.name == "tiny-dense-model" and only.aggregate_interval is not None


def test_statistics_of_a_large_board_are_fast(tmp_path):
    """Hundreds of models: one matrix product each, not one scipy call per model."""
    import time

    from leaderboard.metrics.bootstrap import stratified_bootstrap
    from leaderboard.metrics.significance import sign_flip_test

    rng = np.random.default_rng(0)
    values = [rng.random((500, 366)), rng.random((500, 200))]
    start = time.perf_counter()
    low, high = stratified_bootstrap(values)
    p = sign_flip_test([values[0][0], values[1][0]], [v[1:] for v in values])
    assert time.perf_counter() - start < 20 and low.shape == (500,) and p.shape == (499,)
    assert np.all(low <= high)


def test_the_app_imports_no_plugin_and_no_torch(root):
    """The app renders from result files alone: neither task nor model plugins (nor torch) are imported."""
    import subprocess
    import sys

    code = (
        "import sys; from leaderboard.app.ui import build_app; "
        f"app = build_app({str(root)!r}, public=True); "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('leaderboard_tasks', 'leaderboard_plugins', 'torch', 'mteb', 'sentence_transformers', 'leaderboard.registry')"
        " or m == 'leaderboard.registry'); print(bad)"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_side_means_and_the_views_a_benchmark_names(root):
    declared = {
        "name": "With extras",
        "description": "a side mean and named views",
        "reference": "",
        "tasks": [{"task": "demo", "metric": "ndcg_at_10"}],
        "also": [{"label": "mean MRR", "formula": "MRR@10(demo)", "tasks": [{"task": "demo", "metric": "mrr_at_10"}]}],
        "views": [{"task": "multiconir-demo-task3", "title": "Flip rate per domain"}],
    }
    board = loading.load(root, [declared], public=True, persist=False)
    ranking = board.ranking("With extras")
    bm25 = ranking.ranked[0]
    assert bm25.side["mean MRR"] == pytest.approx(0.7639, abs=1e-4)  # its MRR@10, the mean of one task
    html = board_html(ranking, Filters(), DEFAULT_COLUMNS)
    assert "mean MRR" in html and "not ranked" in html
    frame = render.csv_frame(ranking, Filters())
    assert frame.loc[frame["rank"].notna(), "also:mean MRR"].notna().all()
    named = views.benchmark_views(board, ranking.benchmark)
    # the views it names, then the engine's query-complexity curve of each of its retrieval tasks
    assert [(task, [v.title for v in found]) for task, found in named] == [
        ("multiconir-demo-task3", ["Flip rate per domain"]),
        ("demo", [COMPLEXITY_VIEW_TITLE]),
    ]
    (complexity,) = named[1][1]
    assert complexity.kind == "curve" and all(s.startswith("cw=") for s in complexity.subsets)
    paths = {line.key: line.paths["demo"] for line in ranking.ranked}
    frame = views.view_frame(board, complexity, paths)
    assert len(frame) == len(paths) * len(complexity.subsets) and frame["value"].notna().all()
    assert list(dict.fromkeys(frame["entry"]))[0].startswith("CW ")
    everything = views.benchmark_views(board, board.ranking("Conditions").benchmark)
    assert [task for task, _ in everything] == [
        "multiconir-demo-task1",
        "multiconir-demo-task2",
        "multiconir-demo-task3",
    ]


def test_csv_files_are_reused_pruned_and_hold_the_view(monkeypatch):
    from leaderboard.app.server import csv_files

    monkeypatch.setattr(csv_files, "CSV_KEEP", 3)
    files = csv_files.CsvFiles()
    frames = [pd.DataFrame({"score": [i, -0.5]}) for i in range(5)]
    first = files.write(frames[0], "Demo retrieval")
    assert files.write(frames[0], "Demo retrieval") == first and first.endswith("/Demo-retrieval.csv")
    for frame in frames[1:]:
        files.write(frame, "x")
    assert len(list(files.folder.iterdir())) == 3  # older views' files are deleted, not left behind
    shutil.rmtree(files.folder)


def test_the_size_chart_draws_more_models_than_altairs_row_limit():
    """Altair refuses a data frame of over 5,000 rows when a chart is serialised (MaxRowsError): the Size vs score
    tab never drew at 100,000 imported results (about 8,000 models). Every point is written."""
    from leaderboard.app.views import charts

    count = 8_000
    frame = pd.DataFrame(
        {
            "parameters": np.logspace(6, 10, count),
            "score": np.linspace(0, 1, count),
            "kind": ["dense"] * count,
            "model": [f"m{i}" for i in range(count)],
            "size": ["1M"] * count,
            "rank": range(1, count + 1),
        }
    )
    spec = json.loads(charts.size_chart(frame, "score").to_json())
    (points,) = spec["datasets"].values()
    assert len(points) == count and points[-1]["model"] == f"m{count - 1}"


def test_a_chart_is_sent_compact_and_gradio_sends_it_as_given():
    """``charts.plot_data``: the chart's JSON without indentation (Size vs score at 10,000 models: 1.6 MB, not
    2.2 MB), in the value ``gr.Plot`` passes through unchanged."""
    import gradio as gr

    from leaderboard.app.tabs.base import plot_data
    from leaderboard.app.views import charts

    frame = pd.DataFrame(
        {"parameters": [1e6, 1e9], "score": [0.2, 0.4], "kind": ["dense"] * 2, "model": ["a", "b"]}
        | {"size": ["1.0M", "1.0B"], "rank": [2, 1]}
    )
    chart = charts.size_chart(frame, "score")
    sent = plot_data(chart)
    assert "\n" not in sent.plot and json.loads(sent.plot) == json.loads(chart.to_json())
    assert gr.Plot().postprocess(sent) is sent


def test_size_vs_score_names_some_models_without_a_size_and_counts_the_rest():
    from leaderboard.app.tabs import size

    assert size._unsized_note(["a", "<b>"]) == "Not shown (2 without a parameter count): a, &lt;b&gt;."
    many = [f"m{i}" for i in range(1896)]
    note = size._unsized_note(many)
    assert note.startswith("Not shown (1,896 without a parameter count): m0, m1,")
    assert f"m{size.NAMED - 1}," not in note and f"m{size.NAMED - 1} and 1,846 more" in note
    assert f"m{size.NAMED}," not in note and f" m{size.NAMED} " not in note


def test_size_vs_score_is_drawn_once_per_ranking_by_the_warm_up(board):
    """The tab's ``warm`` hook draws each benchmark's chart in the server's warm-up (``live._warm``); the tab
    then sends that very value."""
    from leaderboard.app.server import live
    from leaderboard.app.tabs import size

    live._warm(board, [size.warm])
    for benchmark in board.benchmarks:
        ranking = board.ranking(benchmark.name, with_stats=False)
        kept = [key for key in ranking.memo if key.startswith("size_plot")]
        plot, _ = size.draw(ranking)
        assert (plot is None and not kept) or (len(kept) == 1 and plot is ranking.memo[kept[0]])
    assert any(key.startswith("size_plot") for b in board.benchmarks for key in board.ranking(b.name, False).memo)


def test_the_warm_up_ends_with_every_rows_statistics(root, monkeypatch):
    """After the first pages, the warm-up computes every other row's intervals (a batch at a time, readers
    first), so a model's page, a pick side by side or a search finds its row ready. The first page is made
    one row long here, so that most rows are past it."""
    from leaderboard.app.data import page_statistics
    from leaderboard.app.data import sorting as board_view
    from leaderboard.app.server import live

    monkeypatch.setattr(page_statistics, "first_pages", lambda board, names, rows=100: None)
    monkeypatch.setattr(board_view, "PAGE_SIZE", 1)
    fresh = loading.load(root, public=True, persist=False)
    live._warm(fresh, [])
    checked = 0
    for benchmark in fresh.benchmarks:
        ranking = fresh.ranking(benchmark.name, with_stats=False)
        if ranking is None or len(ranking.lines) < 3:
            continue
        done = ranking.memo[page_statistics._DONE]["keys"]
        assert {line.key for line in ranking.lines} <= done, benchmark.name
        checked += 1
    assert checked


def test_the_chart_module_preload_names_a_module_of_the_installed_gradio():
    """``assets.chart_preload`` finds Gradio's chart module by its file name; a Gradio that names it otherwise
    would silently lose the preload (the browser test then fails too, where Chromium is installed)."""
    import gradio

    from leaderboard.app.tabs.assets import chart_preload

    script = chart_preload()
    name = re.search(r"\./(AltairPlot-[\w-]+\.js)", script)
    assert name, script
    assert (Path(gradio.__file__).parent / "templates" / "frontend" / "assets" / name.group(1)).is_file()
