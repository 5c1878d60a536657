"""The first screen over the real board of issue 38 in Chromium, at 1440x900 and 390x844: the committed baselines
(bm25, bm25-okapi, all-MiniLM-L6-v2), the papers' reported scores and the 1,317 real mteb files imported, served as a
local board (``leaderboard serve`` without ``--public``: tasks in no benchmark are shown too).

Every score on the landing page is measured against its box (none clipped); the tasks in no benchmark are one
closed line; Overall opens on the benchmarks most models share; the filters and the rank-by choice are in the URL.
Screenshots go to a temporary folder, and to docs/screenshots/first-screen/ with LEADERBOARD_UPDATE_SCREENSHOTS=1."""

from __future__ import annotations

import shutil
import sys
import urllib.parse

import pytest
from browser_helpers import (
    SIZES,
    board_view,
    chromium_missing,
    free_port,
    open_page,
    publish_screenshots,
    serving,
    settle,
    wait_url,
    wait_url_lacks,
)
from conftest import REPO, SHARED_DATA, run_cli
from test_app_browser import browser, plain_env  # noqa: F401

REAL = SHARED_DATA / "mteb-results" / "results"
REPOSITORY = "https://github.com/embeddings-benchmark/results"
COMMIT = "f4cc6c8b365a3c779dbc708d6affe0b0355b2ddf"
OVERALL = "Overall (mean rank)"
LABELS = "es => es.map(e => e.closest('label').innerText.trim())"  # the checkboxes' labels

pytestmark = [
    pytest.mark.skipif(chromium_missing(), reason="Debian's chromium is not installed"),
    pytest.mark.skipif(not REAL.is_dir(), reason=f"real mteb results not found at {REAL}"),
]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    found = tmp_path_factory.mktemp("first-screen") / "results"
    ran = run_cli("import", str(REAL), "--repository", REPOSITORY, "--commit", COMMIT, "-o", str(found))
    assert ran.returncode == 0, ran.stderr
    for model in ("bm25", "bm25-okapi", "all-MiniLM-L6-v2"):
        shutil.copytree(REPO / "submissions" / model / "results", found, dirs_exist_ok=True)
    shutil.copytree(REPO / "submissions" / "reported", found / "reported")
    return found


@pytest.fixture(scope="module")
def server(root, tmp_path_factory):
    port = free_port()
    command = [sys.executable, "-m", "leaderboard", "serve", "--results", str(root), "--port", str(port)]
    with serving(command, plain_env(tmp_path_factory.mktemp("first-screen-serve")), port) as url:
        yield url


@pytest.fixture(scope="module")
def board(root):
    from leaderboard.app.server.loading import load
    from leaderboard.cli.serve import registered_benchmarks

    return load(root, registered_benchmarks(), public=False, persist=False)


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    folder = tmp_path_factory.mktemp("first-screen-shots")
    yield folder
    publish_screenshots(folder, REPO / "docs" / "screenshots" / "first-screen")


# Each score element of the landing page against its own box, its cell and its card: a score is clipped when its
# text is wider than its box (scrollWidth > clientWidth), or when it reaches out of its cell or its card.
MEASURE = """(elements) => elements.map((e) => {
  const cell = e.closest('td'), card = e.closest('.home-card');
  const r = e.getBoundingClientRect(), t = cell.getBoundingClientRect(), c = card.getBoundingClientRect();
  const out = (a, b) => a.left < b.left - 0.5 || a.right > b.right + 0.5 || a.top < b.top - 0.5
    || a.bottom > b.bottom + 0.5;
  return {text: e.innerText, card: card.dataset.benchmark, width: e.clientWidth,
    clipped: e.scrollWidth > e.clientWidth || e.scrollHeight > e.clientHeight + 1
      || cell.scrollWidth > cell.clientWidth || out(r, t) || out(r, c) || out(t, c)};
})"""


@pytest.mark.parametrize("size", SIZES)
def test_no_score_on_the_landing_page_is_clipped(browser, server, board, shots, size):  # noqa: F811
    page = open_page(browser, server, SIZES[size])
    page.wait_for_selector("#home .home-card")
    settle(page)
    scores = page.locator("#home .home-card td.c-agg .v, #home .home-card td.c-agg .ci").evaluate_all(MEASURE)
    assert len(scores) >= 15  # FollowIR, BRIGHT, ComLQ, NegConstraint, IFIR: 2-3 rows each, with their intervals
    assert [s for s in scores if s["clipped"]] == []
    # the number read is the whole number: FollowIR's #1 reads its four decimals, not "0.2"
    followir = board.ranking("FollowIR", with_stats=False).ranked[0]
    first = page.locator('#home .home-card[data-benchmark="FollowIR"] td.c-agg .v').first.inner_text()
    assert first == f"{followir.aggregate:.4f}"
    # the tasks in no benchmark are one closed line, not a list
    folded = page.locator("#home-tasks")
    assert folded.evaluate("e => e.tagName") == "DETAILS" and not folded.evaluate("e => e.open")
    assert folded.bounding_box()["height"] < 60
    assert page.locator("#home .home-card").filter(has_text="task in no benchmark").count() == 0
    # the first card's top model is on the first screen
    box = page.locator("#home .home-card").first.locator("td.c-agg .v").first.bounding_box()
    assert box["y"] + box["height"] <= SIZES[size]["height"]
    page.screenshot(path=str(shots / f"{size}-landing.png"))
    page.close()


@pytest.mark.parametrize("size", SIZES)
def test_overall_opens_on_the_benchmarks_most_models_share(browser, server, board, shots, size):  # noqa: F811
    expected = board.overall_ranking()
    assert len(expected.benchmarks) >= 2 and expected.ranked and expected.others
    page = open_page(browser, server, SIZES[size], "?" + urllib.parse.urlencode({"benchmark": OVERALL}))
    board_view(page, benchmark=OVERALL)
    summary = page.locator("#overall-summary").inner_text()
    assert "most models share" in summary and ", ".join(expected.others) in summary
    rows = page.locator("#board table tbody tr")
    assert rows.count() >= len(expected.ranked)
    ticked = page.locator("#overall-set input:checked").evaluate_all(LABELS)
    listed = page.locator("#overall-set input").evaluate_all(LABELS)
    assert sorted(ticked) == sorted(expected.benchmarks)
    assert not any("task in no benchmark" in name for name in listed)  # 18 of them on this board
    settle(page)
    page.screenshot(path=str(shots / f"{size}-overall-default.png"))
    page.close()


@pytest.mark.parametrize("size", SIZES)
def test_filters_are_in_the_url_and_keep_what_they_say(browser, server, board, shots, size):  # noqa: F811
    query = urllib.parse.urlencode({"benchmark": "FollowIR", "open": "yes", "src": "imported"})
    page = open_page(browser, server, SIZES[size], "?" + query)
    view = board_view(page, benchmark="FollowIR")
    ranking = board.ranking("FollowIR", with_stats=False)
    kept = [line for line in ranking.ranked if line.info.get("open_weights") is True and line.imported]
    assert 0 < len(kept) < len(ranking.ranked)
    first = view.locator("#board-table tbody.ranked tr").first.locator("td.c-model")
    assert first.inner_text().startswith(kept[0].name)
    assert "filtered by open weights, source imported" in page.locator("#benchmark-summary").inner_text()
    assert page.locator("#board-table tbody.reported").count() == 0  # papers' rows are not "imported"
    page.locator("#filters").get_by_text("Filters and columns").click()  # open, for the screenshot
    page.locator("#filter-open-weights").get_by_text("any", exact=True).click()  # back to every model
    wait_url_lacks(page, "open")
    wait_url(page, "src", "imported")
    page.locator("#filter-license").scroll_into_view_if_needed()
    settle(page)
    page.screenshot(path=str(shots / f"{size}-filters.png"))
    page.close()


@pytest.mark.parametrize("size", SIZES)
def test_followir_ranked_by_the_papers_score(browser, server, board, shots, size):  # noqa: F811
    from leaderboard.app.data import aggregates

    by = aggregates.ranked_by(board.ranking("FollowIR", with_stats=False), "FollowIR score")
    query = urllib.parse.urlencode({"benchmark": "FollowIR", "by": "FollowIR score"})
    page = open_page(browser, server, SIZES[size], "?" + query)
    view = board_view(page, benchmark="FollowIR")
    first = view.locator("#board-table tbody.ranked tr").first
    assert first.locator("td.c-model").inner_text().startswith(by.ranked[0].name)
    assert first.locator("td.c-agg .v").inner_text() == f"{by.ranked[0].aggregate:.4f}"
    assert page.locator("#rank-by input:checked").evaluate("e => e.value") == "FollowIR score"
    # the default (mteb's main score) is stated on the page: in the control at every size, and in the summary
    # where it has room
    assert page.locator("#rank-by").get_by_text("mean p-MRR (default)").is_visible()
    if size == "desktop":  # a phone's summary is its short form (the table stays near the top)
        assert "ranked by FollowIR score (chosen; the default is mean p-MRR)" in page.inner_text("#benchmark-summary")
    settle(page)
    page.screenshot(path=str(shots / f"{size}-followir-by-papers-score.png"))
    # back to the declared aggregate: the parameter leaves the URL and the declared #1 leads
    page.locator("#rank-by").get_by_text("mean p-MRR (default)").click()
    wait_url_lacks(page, "by")
    declared = board.ranking("FollowIR", with_stats=False).ranked[0]
    page.wait_for_function(
        "(v) => document.querySelector('#board-table tbody.ranked tr td.c-agg .v')?.innerText === v",
        arg=f"{declared.aggregate:.4f}",
    )
    page.close()


@pytest.mark.parametrize("size", SIZES)
def test_identical_source_files_are_one_row_naming_both_models(browser, server, board, shots, size):  # noqa: F811
    ranking = board.ranking("IFIR", with_stats=False)
    (copy,) = ranking.copied
    page = open_page(browser, server, SIZES[size], "?benchmark=IFIR")
    view = board_view(page, benchmark="IFIR")
    cells = view.locator("#board-table tbody.ranked td.c-model").evaluate_all(
        "cs => cs.map(c => [c.querySelector('a.to-model').innerText, c.innerText])"
    )
    by_name = dict(cells)  # each cell: the name (its page's link), then its notes
    assert copy.name not in by_name  # one row, not two ranked #1
    assert f"= {copy.name}: byte-identical result files, one row" in by_name[copy.copy_of]
    settle(page)
    page.screenshot(path=str(shots / f"{size}-ifir-identical-files.png"))
    page.close()


def test_compare_of_two_imported_models_shows_the_plain_difference(browser, server, board, shots):  # noqa: F811
    from browser_helpers import DESKTOP, comparison

    lines = board.ranking("FollowIR", with_stats=False, all_revisions=True).ranked[:2]
    query = "?benchmark=FollowIR&tab=compare"
    for side, line in zip("ab", lines, strict=True):
        query += f"&{side}=" + urllib.parse.quote("\x1f".join(line.key))
    page = open_page(browser, server, DESKTOP, query)
    table = comparison(page, benchmark="FollowIR").locator("#compare-plain")
    table.locator("tbody tr").first.wait_for()
    column = board.ranking("FollowIR", with_stats=False).columns[0]
    difference = lines[0].values[column.key] - lines[1].values[column.key]
    first = table.locator("tbody tr").first.inner_text()
    assert f"{difference:+.4f}".replace("-", "\u2212") in first and "no interval: imported" in first
    assert "No task with per-query scores" not in page.inner_text("#compare")
    settle(page)
    page.screenshot(path=str(shots / "desktop-compare-imported.png"))
    page.close()
