"""The board over the committed baseline runs (bm25 and all-MiniLM-L6-v2, complete ComLQ and NegConstraint) in
Chromium: LSNC cells with their intervals, and Compare per subset with each row naming its subset and metric
(issue 31.1/31.2). Screenshots go to a temporary folder, and to docs/screenshots/real-results/ with
LEADERBOARD_UPDATE_SCREENSHOTS=1."""

from __future__ import annotations

import urllib.parse

import pytest
from browser_helpers import (
    DESKTOP,
    chromium_missing,
    comparison,
    events_done,
    open_page,
    publish_screenshots,
    serve_results,
    settle,
)
from conftest import REPO
from numbers_fixtures import LSNC10, copy_real_results
from playwright.sync_api import expect
from test_app_browser import browser, plain_env  # noqa: F401

pytestmark = [
    pytest.mark.browser,  # Chromium against a served app: seconds each
    pytest.mark.skipif(chromium_missing(), reason="Debian's chromium is not installed"),
]


@pytest.fixture(scope="module")
def real_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("real-board")
    copy_real_results(root)
    return root


@pytest.fixture(scope="module")
def real_server(real_root, tmp_path_factory):
    with serve_results(real_root, plain_env(tmp_path_factory.mktemp("real-serve"))) as url:
        yield url


@pytest.fixture(scope="module")
def real_shots(tmp_path_factory):
    folder = tmp_path_factory.mktemp("real-screenshots")
    yield folder
    publish_screenshots(folder, REPO / "docs" / "screenshots" / "real-results")


def test_lsnc_cells_show_the_interval_of_their_judged_queries(browser, real_server, real_root, real_shots):  # noqa: F811
    from leaderboard.app.server import loading
    from leaderboard.app.views.board import interval_text
    from leaderboard.cli.serve import registered_benchmarks

    board = loading.load(real_root, registered_benchmarks(), persist=False)
    ranking = board.ranking("ComLQ")
    column = next(c for c in ranking.columns if (c.spec.subset, c.spec.metric) == ("group=negation", LSNC10))
    page = open_page(browser, real_server, DESKTOP, "?benchmark=ComLQ")
    page.wait_for_selector("#board-table tbody.ranked tr")
    position = page.locator("#board-table thead th").evaluate_all(
        "(cells, label) => cells.findIndex(c => c.innerText.includes(label))", column.label.rstrip(" ↑↓")
    )
    assert position >= 0
    for line in ranking.ranked:
        row = page.locator("#board-table tbody.ranked tr").filter(has_text=line.name).first
        cell = row.locator("td").nth(position).inner_text()
        assert "no interval" not in cell  # every LSNC cell said "no interval" before
        assert interval_text(line.intervals[column.key]) in cell
    settle(page)
    page.locator("#board-table thead th").nth(position).evaluate(
        "th => th.scrollIntoView({inline: 'center', block: 'center'})"
    )  # the LSNC columns are at the right end of a wide table
    page.screenshot(path=str(real_shots / "board-comlq-lsnc.png"), full_page=False)
    page.close()


def test_compare_per_subset_names_each_rows_subset_and_metric(browser, real_server, real_root, real_shots):  # noqa: F811
    from leaderboard.app.data.comparison import compare_models
    from leaderboard.app.server import loading
    from leaderboard.cli.serve import registered_benchmarks

    board = loading.load(real_root, registered_benchmarks(), persist=False)
    keys = {line.name.split("/")[-1]: line.key for line in board.ranking("ComLQ", all_revisions=True).lines}
    expected = compare_models(board, "ComLQ", keys["bm25"], keys["all-MiniLM-L6-v2"])
    query = "?benchmark=ComLQ&tab=compare&a=" + urllib.parse.quote("\x1f".join(keys["bm25"]))
    query += "&b=" + urllib.parse.quote("\x1f".join(keys["all-MiniLM-L6-v2"]))
    page = open_page(browser, real_server, DESKTOP, query)
    comparison(page, benchmark="ComLQ", subsets="0").locator("#compare-table tbody tr").first.wait_for()
    # the link's own events answered first (a click in their midst can be drawn over); Gradio may keep the
    # session's answer stream open with nothing left to answer (events_done's docstring)
    events_done(page, open_stream_ok=True)
    page.locator("#compare-subsets").click()
    count = len(expected.rows())
    expect(comparison(page, subsets="1").locator("#compare-table tbody tr")).to_have_count(count)
    shown = page.locator("#compare-table tbody tr").evaluate_all(
        "rows => rows.map(r => [r.cells[1].title, r.cells[6].title, r.cells[1].innerText, r.cells[6].innerText,"
        " r.cells[2].innerText])"
    )
    labels = expected.labels()
    by_cell = {(r.subset, r.metric): r for r in expected.rows()}
    for subset, metric, subset_text, metric_text, difference in shown:
        row = by_cell[(subset, metric)]
        assert (subset_text, metric_text.rstrip(" ↑↓")) == labels[("comlq", subset, metric)]
        assert difference == f"{row.difference:+.4f}".replace("-", "\u2212")
    lsnc = [s for s in shown if s[1] == LSNC10]
    assert [s[0] for s in lsnc][:1] == ["group=negation"] and all("LSNC@10" in s[3] for s in lsnc)
    ndcg_negation = next(s for s in shown if s[:2] == ["group=negation", "ndcg_at_10"])
    assert "LSNC" not in ndcg_negation[3]  # the row over nDCG@10 is labelled nDCG@10's, not LSNC's
    settle(page)
    page.locator(f'#compare-table tbody tr:has(td[title="{LSNC10}"])').first.scroll_into_view_if_needed()
    page.screenshot(path=str(real_shots / "compare-comlq-per-subset.png"), full_page=False)
    page.close()
