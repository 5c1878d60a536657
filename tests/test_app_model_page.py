"""The model page and the side-by-side view's numbers, each checked against an independent recomputation
(scipy's rank, bootstrap and permutation test, a hand-written Holm) on the app fixtures, plus one
model imported from mteb (no per-query values)."""

import itertools
import json
import urllib.parse

import numpy as np
import pytest
import scipy.stats
from app_fixtures import HOSTILE, build_results, folder_name

from leaderboard.app.data import url_state
from leaderboard.app.data.many_models import IMPORTED, MAX_PICKS, pairwise, picked
from leaderboard.app.data.model_index import model_index
from leaderboard.app.server import loading
from leaderboard.app.views.model import BEHIND, CLOSE, LEADS, model_page, model_page_html, page_link
from leaderboard.app.views.render import model_cell
from leaderboard.app.views.side import chart_frame, pairwise_html, profile_chart, side_html
from leaderboard.records.result import PerQuery, decode_per_query

IMPORTED_MODEL = "mteb-imported-model"


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = build_results(tmp_path_factory.mktemp("model-page") / "results")
    # a run imported from mteb's results: no per-query values, a link to its file, metadata from model_meta
    source = next(p for p in root.rglob("demo.json") if json.loads(p.read_text())["model"]["name"] == "bm25")
    data = json.loads(source.read_text())
    data["model"].update(name=IMPORTED_MODEL, revision="m1", kind="dense")
    data["model"]["metadata"].update(
        name=IMPORTED_MODEL, kind="dense", license="mit", open_weights=True, release_date="2024-05-01"
    )
    data["per_query"] = None
    data["main_score"] *= 0.5
    for subsets in data["scores"].values():
        for values in subsets.values():
            for key in values:
                values[key] *= 0.5
    data["confidence_intervals"] = {}
    url = "https://github.com/embeddings-benchmark/results/blob/abc/results/x/demo.json"
    data["imported_from"] = {"format": "mteb", "file": "x/demo.json", "mteb_version": "1.12.0", "url": url}
    target = root / folder_name(IMPORTED_MODEL) / "m1" / "demo.json"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(data))
    return root


@pytest.fixture(scope="module")
def board(root):
    return loading.load(root, public=True, persist=False)


def _per_query(board, line, task, metric="ndcg_at_10"):
    """The result file's own per-query values, decoded (not the index's copy)."""
    stored = json.loads((board.root / line.paths[task]).read_text())["per_query"]
    values = decode_per_query(PerQuery.model_validate(stored))
    return {q: v[metric] for q, v in sorted(values.items())}


def test_the_index_lists_every_model_once_per_board(board):
    index = model_index(board)
    assert model_index(board) is index  # built once per board, not per request
    assert {"bm25", "tiny-dense-model", HOSTILE, "partial-model", IMPORTED_MODEL} <= set(index.names)
    assert index.resolve("BM25") == "bm25" and index.resolve("no-such-model") is None
    for name in index.names:
        expected = [b.name for b in board.benchmarks if any(line.name == name for line in board.ranking(b.name).lines)]
        assert [entry.benchmark for entry in index.of(name)] == expected


def test_each_benchmark_shows_the_boards_rank_score_and_interval(board):
    page = model_page(board, "tiny-dense-model")
    assert [part.benchmark for part in page.parts] == ["Demo retrieval", "Conditions", "Followish"]
    for part in page.parts:
        line = next(line for line in board.ranking(part.benchmark).lines if line.name == "tiny-dense-model")
        assert part.line.rank == line.rank and part.line.aggregate == line.aggregate
    demo = page.parts[0]
    values = list(_per_query(board, demo.line, "demo").values())
    # the aggregate's interval: a percentile bootstrap over the queries (scipy's, another resampling)
    reference = scipy.stats.bootstrap((values,), np.mean, method="percentile", random_state=1).confidence_interval
    low, high = demo.line.aggregate_interval
    assert low == pytest.approx(reference.low, abs=0.02) and high == pytest.approx(reference.high, abs=0.02)


def test_each_column_stands_against_its_leader_as_scipy_ranks_it(board):
    for name in ("bm25", "tiny-dense-model", HOSTILE, "partial-model"):
        page = model_page(board, name)
        for part in page.parts:
            ranking = board.ranking(part.benchmark)
            for standing in part.standings:
                column = standing.column
                ranked = [line.values[column.key] for line in ranking.ranked if line.values.get(column.key) is not None]
                if standing.value is None or not ranked:
                    assert standing.place is None
                    continue
                sign = 1 if column.direction == "lower" else -1  # rank 1 = best
                if part.line.rank is not None:  # a ranked model: its own place among the ranked values
                    keys = [line.key for line in ranking.ranked if line.values.get(column.key) is not None]
                    places = scipy.stats.rankdata([sign * v for v in ranked], method="min")
                    expected = int(places[keys.index(part.line.key)])
                else:  # an unranked one: the place its value would take among them
                    expected = int(
                        scipy.stats.rankdata([sign * v for v in [*ranked, standing.value]], method="min")[-1]
                    )
                assert standing.place.position == expected, (name, part.benchmark, column.label)
                assert standing.place.of == len(ranked)
                best = min(ranked) if column.direction == "lower" else max(ranked)
                assert standing.leader_value == best and standing.gap == pytest.approx(standing.value - best)
                verdict = standing.verdict()
                if standing.place.position == 1:
                    assert verdict == LEADS
                elif verdict in (CLOSE, BEHIND):
                    (low, high), (leader_low, leader_high) = standing.interval, standing.leader_interval
                    assert (verdict == CLOSE) == (low <= leader_high and leader_low <= high)


def test_metadata_sources_and_bibtex(board):
    from leaderboard.cli.cite import benchmark_bibtex  # what `leaderboard cite` prints

    page = model_page(board, IMPORTED_MODEL)
    assert page.info["license"] == "mit" and page.info["open_weights"] is True
    (part,) = page.parts
    assert part.line.imported and part.line.aggregate_interval is None
    (source,) = part.sources
    assert "run by mteb 1.12, imported" in source.text and source.url.startswith("https://github.com/")
    html = model_page_html(board, IMPORTED_MODEL)
    for text in (">MIT<", "2024-05-01", "no interval: run by mteb 1.12, imported", "Copy BibTeX"):
        assert text in html, text  # the license by its SPDX id (model_meta.json says "mit")
    assert "mteb 1.12, imported (Demo retrieval)" in html  # what ran the result, not the plugin's version
    bm25 = model_page(board, "bm25")
    demo = bm25.parts[0]
    assert demo.bibtex == benchmark_bibtex(board.benchmark("Demo retrieval"))
    assert demo.sources[0].text.startswith("Demo: run here") and "tab=provenance" in demo.sources[0].url
    assert bm25.info["plugin"] == "bm25" and "bm25 " in model_page_html(board, "bm25")


def test_unknown_and_hostile_names_are_text(board):
    html = model_page_html(board, "<b>nobody</b>")
    assert "No model named &lt;b&gt;nobody&lt;/b&gt;" in html
    hostile = model_page_html(board, HOSTILE)
    assert "<img src=x" not in hostile and "&lt;img src=x onerror=alert(1)&gt;" in hostile
    assert "<img src=x" not in side_html(picked(board, [HOSTILE, "bm25"]))


def test_every_model_name_links_to_its_page():
    cell = model_cell({"name": "a b&c", "reference": "https://example.org/m"})
    assert f'href="{page_link("a b&c").replace("&", "&amp;")}"' in cell.text
    assert urllib.parse.parse_qs(page_link("a b&c")[1:]) == {"model": ["a b&c"]}
    assert 'href="https://example.org/m"' in cell.text  # the reference stays, one click away


def test_links_open_the_model_and_side_by_side_tabs():
    assert url_state.parse("?model=bm25") == url_state.ViewState(tab="model", model="bm25")
    assert url_state.parse("?side=a|b|c").side == ("a", "b", "c") and url_state.parse("?side=a|b").tab == "side"
    assert url_state.parse("?model=bm25&tab=board").tab == "board"


def test_picks_are_resolved_deduplicated_and_capped(board):
    names = model_index(board).names
    found = picked(board, ["BM25", "bm25", "nobody", *names])
    assert found.picks[0] == "bm25" and found.picks.count("bm25") == 1 and found.unknown == ["nobody"]
    assert len(found.picks) <= MAX_PICKS
    assert all(len(part.present) >= 2 for part in found.parts)
    assert "Pick 2 to 8" in side_html(picked(board, ["bm25"]))


def _holm(p):
    """Holm's step-down adjustment, written from its definition (independent of the harness's)."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    adjusted, running = [0.0] * len(p), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def test_pairwise_tests_equal_scipy_and_are_holm_adjusted_per_benchmark(board):
    picks = picked(board, ["bm25", "tiny-dense-model", HOSTILE, IMPORTED_MODEL])
    rows = pairwise(board, picks)
    demo = [row for row in rows if row.benchmark == "Demo retrieval"]
    assert len(demo) == len(list(itertools.combinations(picks.picks, 2)))  # every pair, one task
    tested = [row for row in demo if row.test is not None]
    lines = {line.name: line for line in board.ranking("Demo retrieval").lines}
    for row in tested:
        a = np.array(list(_per_query(board, lines[row.a], "demo").values()))
        b = np.array(list(_per_query(board, lines[row.b], "demo").values()))
        assert row.difference == pytest.approx(float(np.mean(a - b)))
        # 12 queries: all 4,096 sign flips enumerated, so scipy's exact paired permutation test gives the same p
        reference = scipy.stats.permutation_test(
            (a, b), lambda x, y: np.mean(x - y), permutation_type="samples", n_resamples=np.inf
        )
        assert row.test.p_value == pytest.approx(reference.pvalue)
    assert [row.test.p_holm for row in tested] == pytest.approx(_holm([row.test.p_value for row in tested]))
    imported = [row for row in demo if IMPORTED_MODEL in (row.a, row.b)]
    assert imported and all(row.test is None and row.why == IMPORTED for row in imported)
    for row in imported:
        assert row.difference == pytest.approx(lines[row.a].values["c0"] - lines[row.b].values["c0"])
    html = pairwise_html(rows)
    assert html.count(IMPORTED) >= len(imported)
    # the cached two-model comparison keeps its own Holm (across its tasks), untouched
    cached = board.comparison("Demo retrieval", lines["bm25"].key, lines["tiny-dense-model"].key, subsets=False)
    assert cached.tasks[0].p_holm == cached.tasks[0].p_value


def table_cells(html: str) -> dict[str, dict[tuple[str, str], float]]:
    """benchmark -> (row label, pick) -> the number of each cell of the side-by-side tables (cells on other data,
    never compared, left out), read from the HTML."""
    import html as markup
    import re

    found: dict[str, dict[tuple[str, str], float]] = {}
    for part in re.finditer(r'<section class="side-part" data-benchmark="([^"]*)">(.*?)</section>', html, re.S):
        picks = [markup.unescape(n) for n in re.findall(r'<a class="to-model"[^>]*>([^<]*)</a>', part.group(2))]
        cells = found.setdefault(markup.unescape(part.group(1)), {})
        for row in re.finditer(
            r'<tr class="side-(?:score|aggregate|column)" data-row="([^"]*)">(.*?)</tr>', part.group(2)
        ):
            tds = re.findall(r"<td([^>]*)>", row.group(2))[1:]  # after the row's label
            for name, attributes in zip(picks, tds, strict=True):
                value = re.search(r'data-v="([^"]*)"', attributes)
                if value and "other-data" not in attributes:
                    cells[(markup.unescape(row.group(1)), name)] = float(value.group(1))
    return found


def test_the_chart_draws_the_tables_rows_as_categories_and_only_their_numbers(board):
    picks = picked(board, ["bm25", "tiny-dense-model", HOSTILE, "partial-model", IMPORTED_MODEL])
    assert len(picks.picks) == 5
    frame = chart_frame(picks)
    tables = table_cells(side_html(picks))
    assert set(tables) == {part.benchmark for part in picks.parts} == set(frame["benchmark"])
    for benchmark, cells in tables.items():
        drawn = frame[frame["benchmark"] == benchmark]
        assert {(r.row, r.model): r.value for r in drawn.itertuples()} == pytest.approx(cells)
        # every row of the table with a number is a category of the chart (Conditions' flip rate included)
        assert set(drawn["row"]) == {row for row, _ in cells}
    imported = frame[frame["model"] == IMPORTED_MODEL]
    assert len(imported) and imported["low"].isna().all()  # no interval drawn where none exists
    assert set(imported["source"]) == {"imported: run by mteb (no interval)"}
    chart = profile_chart(picks, 500).to_dict()
    marks = [layer["mark"]["type"] for panel in chart["vconcat"] for layer in panel["layer"]]
    assert "line" not in marks and set(marks) == {"rule", "point"}  # whiskers and points: no line across rows
    assert len(chart["vconcat"]) == frame["panel"].nunique()  # one panel per metric, on its own scale


def test_the_landing_cards_link_each_model_to_its_page(board):
    from leaderboard.app.views.landing import landing_html

    html = landing_html(board, [b.name for b in board.benchmarks])
    assert f'href="{page_link("bm25")}"' in html and f'href="{page_link("tiny-dense-model")}"' in html


def test_a_long_hostile_link_is_cheap_and_named(board):
    names = [f"m{i}" for i in range(4000)]  # what an 8,192-character query can hold
    found = picked(board, names + ["bm25", "tiny-dense-model"])
    assert found.picks == ["bm25", "tiny-dense-model"] and len(found.unknown) == 4000
    note = side_html(found)
    assert "m0, m1" in note and "and 3,990 more" in note and "m3999" not in note  # named, then counted
    assert url_state.parse("side=" + "|".join(names)).side  # trimmed to the query limit, not refused


def test_the_tests_are_computed_ahead_and_equal_those_on_demand(root):
    import threading

    from leaderboard.app.server import background
    from leaderboard.app.server.side_tests import AHEAD, tests_ahead

    fresh = loading.load(root, public=True, persist=False)  # no comparison cached yet
    picks = picked(fresh, ["bm25", "tiny-dense-model", HOSTILE])
    lines = {line.name: line.key for line in fresh.ranking("Demo retrieval").lines}
    wanted = [("Demo retrieval", lines[a], lines[b], False) for a, b in itertools.combinations(picks.picks, 2)]
    tests_ahead(fresh, picks)
    assert AHEAD in background.state()["running"]  # said from the moment it is asked, so a waiter cannot miss it
    done = threading.Event()

    def ready() -> None:  # the server's own background state, polled until idle (bounded only to fail)
        for _ in range(6000):
            if AHEAD not in background.state()["running"]:
                done.set()
                return
            threading.Event().wait(0.05)

    ready()
    assert done.is_set()
    assert all(key in fresh._comparisons for key in wanted)
    ahead = {key: fresh._comparisons[key].tasks[0].difference for key in wanted}
    other = board_of(root)
    rows = pairwise(other, picked(other, picks.picks))
    on_demand = {(r.a, r.b): r for r in rows if r.benchmark == "Demo retrieval"}
    for (_, a, b, _), difference in ahead.items():
        assert on_demand[(a[0], b[0])].difference == pytest.approx(difference)


def board_of(root):
    return loading.load(root, public=True, persist=False)
