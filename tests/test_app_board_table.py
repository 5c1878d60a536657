"""The board's table without a browser: server-side sorting and paging over every row, headers, colour scale,
the reported tier, the landing page's order, and the URL state."""

from __future__ import annotations

import re

import pytest

from leaderboard.app.data import url_state
from leaderboard.app.data.filters import Filters
from leaderboard.app.data.ranking import Column, Line, Ranking
from leaderboard.app.data.reported_tier import reported_lines
from leaderboard.app.server import legacy_links
from leaderboard.app.views import board as board_table
from leaderboard.app.views import landing
from leaderboard.app.views.board_notes import REPORTED_NOTE, board_notes
from leaderboard.contract.benchmark import Benchmark, BenchmarkTask
from leaderboard.records.reported import ReportedScore


def make_ranking(n_ranked: int, n_unranked: int = 0, name: str = "Bench") -> Ranking:
    specs = (
        BenchmarkTask("t", "ndcg_at_10", "higher", "nDCG@10 (all)"),
        BenchmarkTask("t", "violation_at_1", "lower", "violator in top 1 ↓", in_aggregate=False),
    )
    benchmark = Benchmark(name, "a test benchmark", "https://example.org", specs, aggregate_label="nDCG@10")
    columns = [Column(f"c{i}", s, s.label, s.metric, "") for i, s in enumerate(specs)]
    ranked = []
    for i in range(n_ranked):
        aggregate = 1.0 - i / (n_ranked + 1)
        # column c1 does not follow the rank: its best value sits far down the ranking
        side = None if i % 7 == 3 else ((i * 37) % n_ranked) / n_ranked
        line = Line((f"m{i:03d}", "r1"), {"name": f"m{i:03d}", "kind": "dense"}, "0.3", "2026-01-01")
        line.values = {"c0": aggregate, "c1": side}
        line.aggregate, line.rank, line.covered = aggregate, i + 1, 1
        ranked.append(line)
    unranked = []
    for i in range(n_unranked):
        line = Line((f"u{i:03d}", "r1"), {"name": f"u{i:03d}", "kind": "sparse"}, "0.3", "2026-01-01")
        line.values = {"c0": None, "c1": 0.5}
        line.missing = ["t: no result"]
        unranked.append(line)
    return Ranking(benchmark, columns, ranked, unranked, 1)


def cells(html: str, body: str, column: int) -> list[str]:
    part = re.search(f'<tbody class="{body}">(.*?)</tbody>', html, re.S)
    assert part, body
    rows = re.findall(r"<tr>(.*?)</tr>", part.group(1), re.S)
    return [re.findall(r'<td data-v="([^"]*)"', r)[column] for r in rows]


def test_sorting_acts_on_every_row_not_the_first_page():
    ranking = make_ranking(250)
    request = board_table.TableRequest(sort=("c1", "desc"))
    html = board_table.board_html(ranking, request)
    # Score, then the one non-aggregated column (the aggregated task column is the Score itself: not repeated)
    first_page = [float(v) if v else None for v in cells(html, "ranked", 3)]
    assert len(first_page) == board_table.PAGE_SIZE
    everything = sorted((line.values["c1"] for line in ranking.ranked if line.values["c1"] is not None), reverse=True)
    assert first_page == everything[: board_table.PAGE_SIZE]
    assert max(first_page) == max(everything)  # the best of column X over all 250 rows, not over the first 100
    last = board_table.board_html(ranking, board_table.TableRequest(sort=("c1", "desc"), page=3))
    tail = cells(last, "ranked", 3)
    assert len(tail) == 50 and tail[-1] == ""  # missing values last
    ascending = board_table.board_html(ranking, board_table.TableRequest(sort=("c1", "asc"), page=3))
    assert cells(ascending, "ranked", 3)[-1] == ""  # ... in both directions
    assert "models 201–250 of 250 · page 3 of 3" in last


def test_search_and_filters_act_on_every_row_and_paging_restarts():
    ranking = make_ranking(250, 30)
    html = board_table.board_html(ranking, board_table.TableRequest(Filters(search="m24")))
    assert cells(html, "ranked", 1) == ["m240", "m241", "m242", "m243", "m244", "m245", "m246", "m247", "m248", "m249"]
    assert "board-pager" not in html  # one page
    sparse = board_table.board_html(ranking, board_table.TableRequest(Filters(kinds=("sparse",))))
    assert '<tbody class="ranked"></tbody>' in sparse and len(cells(sparse, "unranked", 1)) == 30
    beyond = board_table.board_html(ranking, board_table.TableRequest(page=99))
    assert "page 3 of 3" in beyond  # a page past the end shows the last page


def test_headers_name_each_metric_once_and_the_only_aggregated_column_is_not_repeated():
    html = board_table.board_html(make_ranking(3), board_table.TableRequest())
    headers = re.findall(r"<th[^>]*>(.*?)</th>", html)
    texts = [re.sub(r"<[^>]+>", " ", h).split() for h in headers]
    assert [t[0] for t in texts[:3]] == ["Rank", "Model", "Score"]
    assert len(headers) == 4  # Rank, Model, Score, the not-ranked column: nDCG@10 (all) is the Score
    assert "↓ ↓" not in " ".join(" ".join(t) for t in texts)
    assert 'data-key="c1"' in html and "violator in top 1" in html


def test_colour_scale_follows_the_direction():
    assert board_table.heat(1.0, 0.0, 1.0, "higher") == board_table.heat(0.0, 0.0, 1.0, "lower")
    assert board_table.heat(0.5, 0.5, 0.5, "higher") == ""  # a flat column has no scale
    html = board_table.board_html(make_ranking(5), board_table.TableRequest())
    strengths = [float(v) for v in re.findall(r'class="c-agg[^"]*heat" style="--heat: ([0-9.]+)"', html)]
    assert strengths == sorted(strengths, reverse=True) and len(strengths) == 5


def test_rows_sharing_a_name_show_their_revision():
    ranking = make_ranking(2)
    ranking.ranked[1].key = ("m000", "r0")
    ranking.ranked[1].info = {"name": "m000", "kind": "dense"}
    html = board_table.board_html(ranking, board_table.TableRequest())
    assert html.count('<span class="rev">revision r1</span>') == 1
    assert html.count('<span class="rev">revision r0</span>') == 1


def reported(
    model: str, value: float, task: str = "t", metric: str = "ndcg_at_10", table: str = "Table 3"
) -> ReportedScore:
    return ReportedScore(
        model=model,
        benchmark="Bench",
        task=task,
        metric=metric,
        value=value,
        printed=f"{value * 100:.1f}",
        paper="Paper",
        paper_file="000_x",
        table=table,
        row=model,
        column="nDCG@10",
    )


class FakeBoard:
    def __init__(self, rankings: dict[str, Ranking | None], scores=()):
        self.rankings = rankings
        self._reported_scores = (list(scores), [])
        self.root = None

        self.tasks = {}

    def ranking(self, name, **_):
        return self.rankings.get(name)

    def per_query(self, paths):
        return {p: None for p in paths}


def test_reported_rows_are_their_own_tier_with_the_difference_to_the_reproduced_run():
    ranking = make_ranking(3)
    board = FakeBoard({"Bench": ranking}, [reported("M001", 0.5), reported("paper-only", 0.9)])
    rows = reported_lines(board, ranking)  # type: ignore[arg-type]
    assert [r.model for r in rows] == ["paper-only", "M001"]  # best reported first, never among ranked rows
    both = rows[1]
    assert both.reproduced is ranking.ranked[1] and both.difference == pytest.approx(ranking.ranked[1].aggregate - 0.5)
    html = board_table.board_html(ranking, board_table.TableRequest(), rows)
    tier = re.search(r'<tbody class="reported">(.*?)</tbody>', html, re.S).group(1)
    assert "reported in Paper, Table 3" in tier and "Δ +0.2500" in tier and "reproduced 0.7500" in tier
    assert 'class="ci"' not in tier  # no interval

    assert REPORTED_NOTE in board_notes(ranking, len(rows)).replace("&#x27;", "'")
    only_papers = board_notes(make_ranking(0), len(rows))
    assert "No reproduced runs yet" in only_papers and "Columns:" in only_papers
    assert len(cells(html, "ranked", 1)) == 3


def test_a_models_reported_cells_from_several_tables_of_one_paper_are_one_row_each_cell_naming_its_table():
    ranking = make_ranking(3)
    scores = [
        reported("paper-only", 0.9, table="Table 1"),
        reported("paper-only", 0.2, metric="violation_at_1", table="Table 18"),
        reported("other", 0.4, table="Table 1"),
        reported("other", 0.45, table="Table 2"),  # the same cell printed twice: both kept, neither overwritten
    ]
    rows = reported_lines(FakeBoard({"Bench": ranking}, scores), ranking)  # type: ignore[arg-type]
    merged = next(r for r in rows if r.model == "paper-only")
    assert [r.model for r in rows].count("paper-only") == 1 and set(merged.cells) == {"c0", "c1"}
    assert merged.source == "reported in Paper, Tables 1, 18"
    assert merged.cell_source("c1") == "reported in Paper, Table 18"
    assert sorted(r.cells["c0"].value for r in rows if r.model == "other") == [0.4, 0.45]
    html = board_table.board_html(ranking, board_table.TableRequest(), rows)
    tier = re.search(r'<tbody class="reported">(.*?)</tbody>', html, re.S).group(1)
    assert 'title="reported in Paper, Table 18"' in tier and '<span class="src">Table 18</span>' in tier


def test_a_cell_without_an_interval_says_so_on_the_page_and_the_notes_say_why():
    ranking = make_ranking(3)
    ranking.ranked[0].interval_notes = {"c1": "the result names no per-query values for this column"}
    ranking.ranked[0].values["c1"] = 0.5
    html = board_table.board_html(ranking, board_table.TableRequest())
    assert html.count('<span class="ci nci">no interval</span>') == 1
    notes = board_notes(ranking)
    assert "No interval in violator in top 1: the result names no per-query values for this column." in notes


def test_a_zero_width_interval_is_no_interval_and_a_narrow_one_shows_its_width():
    from leaderboard.app.views import render

    assert render.span((1.0, 1.0)) == render.ZERO_WIDTH == "no interval (zero width)"
    # equal means summed in another order differ in the 16th digit: no width a reader could see, so none
    assert render.span((0.7109347826086957, 0.7109347826086959)) == render.ZERO_WIDTH
    assert render.span((0.7109341, 0.7109349)) == "0.710934–0.710935"  # narrow but real: shown to 6 decimals
    assert render.span((0.68121, 0.68139)) == "0.6812–0.6814" and render.span((0.1, 0.25)) == "0.100–0.250"
    assert render.span((-8.3333, -5.5421)) == "−8.333 to −5.542" and render.score(-0.1128) == "−0.1128"
    ranking = make_ranking(2)
    ranking.ranked[0].aggregate_interval = (0.2, 0.2)
    html = board_table.board_html(ranking, board_table.TableRequest())
    assert "no interval (zero width)" in html and "0.200–0.200" not in html
    assert render.ZERO_WIDTH_RULE in board_notes(ranking).replace("&#x27;", "'")


def test_comparison_rows_use_the_boards_subset_labels_and_strata_sort_by_number():
    from types import SimpleNamespace

    from leaderboard.analysis.comparison import natural_key
    from leaderboard.app.views.compare import comparison_html

    assert sorted(["cw=11-12", "cw=3-10", "cw=16-28", "cw=13-15"], key=natural_key) == [
        "cw=3-10",
        "cw=11-12",
        "cw=13-15",
        "cw=16-28",
    ]
    row = SimpleNamespace(task="t", subset="type=2in", metric="m", mean_a=0.5, mean_b=0.25, difference=-0.25)
    html = comparison_html("A", "B", [row], labels={("t", "type=2in", "m"): ("¬2in", "M@10")})
    assert "¬2in" in html and ">type=2in<" not in html and "−0.2500" in html and ">M@10" in html
    # a label names the row's own subset and metric: another metric's label for the subset is never used
    other = SimpleNamespace(task="t", subset="type=2in", metric="x", mean_a=0.5, mean_b=0.25, difference=-0.25)
    html = comparison_html("A", "B", [other], labels={("t", "type=2in", "m"): ("¬2in", "M@10")})
    assert "M@10" not in html and ">x" in html


def test_the_reported_tier_follows_the_header_sort():
    ranking = make_ranking(3)
    scores = [reported("p1", 0.9), reported("p2", 0.2), reported("p3", 0.5)]
    rows = reported_lines(FakeBoard({"Bench": ranking}, scores), ranking)  # type: ignore[arg-type]
    for direction, expected in (("asc", ["p2", "p3", "p1"]), ("desc", ["p1", "p3", "p2"])):
        html = board_table.board_html(ranking, board_table.TableRequest(sort=("c0", direction)), rows)
        tier = re.search(r'<tbody class="reported">(.*?)</tbody>', html, re.S).group(1)
        assert re.findall(r'<td data-v="(p\d)"', tier) == expected, direction


def test_landing_lists_benchmarks_with_results_first_and_links_each():
    full, small = make_ranking(4, name="Full"), make_ranking(2, name="Small")
    board = FakeBoard({"Empty": None, "Small": small, "Full": full, "Unranked": make_ranking(0, 2, "Unranked")})
    names = ["Empty", "Small", "Unranked", "Full"]
    assert [e.name for e in landing.entries(board, names)] == ["Full", "Small", "Empty", "Unranked"]  # type: ignore[arg-type]
    html = landing.landing_html(board, names)  # type: ignore[arg-type]
    assert html.index("?benchmark=Full") < html.index("?benchmark=Small") < html.index("No ranked results yet")
    assert html.count('class="home-card"') == 2 and "2 unranked: incomplete results" in html
    assert landing.busiest(board, names) == "Full"  # type: ignore[arg-type]


def test_url_state_round_trips_and_ignores_malformed_values():
    state = url_state.parse(
        "?benchmark=ComLQ&tab=compare&kind=dense|sparse&q=bm&sort=c3.asc&p=2&overall=A|B&revisions=1"
    )
    assert (state.benchmark, state.tab, state.kinds, state.search) == ("ComLQ", "compare", ("dense", "sparse"), "bm")
    assert state.sort == ("c3", "asc") and state.page == 2 and state.overall == ("A", "B") and state.revisions
    bad = url_state.parse("sort=c3.sideways&p=-4&p=x")
    assert bad.sort is None and bad.page == 1
    assert url_state.parse("q=" + "x" * 10_000) == url_state.ViewState()
    assert url_state.known(("dense", "nope"), ["sparse", "dense"], ["sparse", "dense"]) == ["dense"]
    assert url_state.known(("nope",), ["sparse", "dense"], ["sparse", "dense"]) == ["sparse", "dense"]


def test_a_link_naming_gradios_page_parameter_is_renamed_to_the_apps_own():
    # Gradio routes ``?page=`` to its multipage config (a 500 for an unknown page): the app pages with ``p``.
    assert url_state.parse("benchmark=X&page=2").page == 1 and url_state.PAGE == "p"
    assert legacy_links.without_gradio_page("benchmark=ComLQ&page=2") == "benchmark=ComLQ&p=2"
    assert legacy_links.without_gradio_page("page=abc&p=3") == "p=3"
    assert legacy_links.without_gradio_page("page=") == "p="
    assert legacy_links.without_gradio_page("benchmark=ComLQ&p=2") is None
    assert legacy_links.without_gradio_page("q=page") is None


def test_the_papers_tier_is_reachable_from_page_one():
    from leaderboard.app.data.sorting import PAGE_SIZE

    ranking = make_ranking(PAGE_SIZE + 20)
    rows = reported_lines(FakeBoard({"Bench": ranking}, [reported("paper-only", 0.9)]), ranking)  # type: ignore[arg-type]
    first = board_table.board_html(ranking, board_table.TableRequest(), rows)
    assert 'tbody class="reported">' not in first  # the tier follows the last page of runs
    link = re.search(r'<tbody class="reported-link">(.*?)</tbody>', first, re.S).group(1)
    assert "Reported in papers: 1 row" in link and 'data-box="page-state"' in link and 'data-page="2"' in link
    last = board_table.board_html(ranking, board_table.TableRequest(page=2), rows)
    assert 'tbody class="reported">' in last and "reported-link" not in last
    alone = board_table.board_html(ranking, board_table.TableRequest())  # no paper: no line
    assert "reported-link" not in alone


def test_a_papers_other_aggregate_goes_to_its_own_column_not_the_score():
    import dataclasses

    from leaderboard.contract.benchmark import SideAggregate

    ranking = make_ranking(2)
    side = SideAggregate("mean violation", "violation_at_1(t)", (BenchmarkTask("t", "violation_at_1", "lower"),))
    ranking.benchmark = dataclasses.replace(ranking.benchmark, also=(side,))
    scores = [
        reported("paper-only", 0.9, task="Bench", metric="nDCG@10").model_copy(update={"aggregate": True}),
        reported("paper-only", 0.2, task="Bench", metric="mean violation").model_copy(update={"aggregate": True}),
    ]
    (row,) = reported_lines(FakeBoard({"Bench": ranking}, scores), ranking)  # type: ignore[arg-type]
    assert row.aggregate_value == 0.9 and row.sides["mean violation"].value == 0.2
    html = board_table.board_html(ranking, board_table.TableRequest(), [row])
    tier = re.search(r'<tbody class="reported">(.*?)</tbody>', html, re.S).group(1)
    assert '<span class="v">0.9000</span>' in tier and '<span class="v">0.2000</span>' in tier
