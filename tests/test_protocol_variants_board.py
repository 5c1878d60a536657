"""A named variant (``bm25:mair``, MAIR's own BM25) on the board beside the default ``bm25``: its paper's name,
how it differs, and its score minus bm25's, in the table and in Chromium (screenshots)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_cli
from test_bm25_mair import write_fixture

from leaderboard.app.data.filters import Filters
from leaderboard.app.server.loading import load
from leaderboard.app.views.board import TableRequest, board_html

MAIR_TASKS = ("DD_2015", "DD_2016", "DD_2017", "FairRanking_2021", "FairRanking_2022")  # the MAIR benchmark's five
PROTOCOL = "MAIR's eval_bm25 (Sun et al., EMNLP 2024)"


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("variants")
    for task in MAIR_TASKS:
        write_fixture(tmp / "mair", task)
    tasks = [arg for task in MAIR_TASKS for arg in ("-t", "mair-" + task.lower().replace("_", "-"))]
    ran = run_cli(
        "run", "-m", "bm25", "-m", "bm25:mair", *tasks, "--output", str(tmp / "results"),
        env={"LEADERBOARD_MAIR_DIR": str(tmp / "mair")},
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    return tmp / "results"


def test_the_variant_row_names_its_protocol_its_differences_and_its_gap_to_the_default(results):
    from leaderboard.cli.serve import registered_benchmarks

    board = load(results, registered_benchmarks(), public=False, persist=False)
    ranking = board.ranking("MAIR")
    lines = {line.name: line for line in ranking.lines}
    variant, default = lines["bm25:mair"], lines["bm25"]
    assert variant.rank and default.rank  # both ranked, side by side
    gap = variant.aggregate - default.aggregate
    assert gap > 0  # on this fixture the instruction and the kept zero-score hits help (test_bm25_mair)
    html = board_html(ranking, TableRequest(Filters(), ()))
    shown = f"{PROTOCOL} · Δ {gap:+.4f} vs bm25".replace("-", "−")
    assert shown.replace("'", "&#x27;") in html
    assert "bm25 with the instruction prepended to the query, no stemmer, the top k kept with their zero-score " in html
    assert html.count('class="rev variant"') == 1  # the default row says nothing of the kind


@pytest.mark.browser
def test_the_browser_shows_the_variant_beside_the_default(results, tmp_path_factory):
    pytest.importorskip("playwright")
    from browser_helpers import (
        DESKTOP,
        PHONE,
        board_view,
        chromium,
        chromium_missing,
        open_page,
        publish_screenshots,
        serve_results,
        settle,
    )
    from test_app_browser import plain_env

    if chromium_missing():
        pytest.skip("Debian's chromium is not installed (.ci/run installs it)")
    shots = tmp_path_factory.mktemp("shots")
    with serve_results(results, plain_env(tmp_path_factory.mktemp("serve"))) as url, chromium() as browser:
        for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
            page = open_page(browser, url, viewport, "?benchmark=MAIR")
            table = board_view(page, benchmark="MAIR").locator("#board-table tbody.ranked")
            row = table.locator("tr", has=page.locator("td.c-model .variant"))
            assert row.count() == 1
            note = row.locator("td.c-model .variant").inner_text()
            assert note.startswith(PROTOCOL) and " vs bm25" in note
            assert "no stemmer" in row.locator("td.c-model .variant-how").inner_text()
            settle(page)
            page.screenshot(path=str(shots / f"{size}-board-protocol-variant.png"))
            page.close()
    publish_screenshots(shots, Path(__file__).resolve().parent.parent / "docs" / "screenshots")
