"""The views that must never mislead, in Chromium at 1440x900 and 390x844, over the real board (the 1,317 real mteb
files imported, the committed baselines and the papers' reported scores, served as a local board): the side-by-side
chart's spec against its tables, each benchmark's aggregates everywhere, the papers' tier from page 1, one row for
byte-identical files, licenses by SPDX id, Task views' intervals, the score over release dates, the task-subset
chooser, the cite panel and the translated announcer. Screenshots go to a temporary folder, and to
docs/screenshots/honest-views/ with LEADERBOARD_UPDATE_SCREENSHOTS=1."""

from __future__ import annotations

import json
import re
import sys
import urllib.parse

import pytest
from browser_helpers import (
    SIZES,
    board_view,
    chromium_missing,
    comparison,
    events_done,
    free_port,
    new_page,
    publish_screenshots,
    serving,
    settle,
    tab_view,
    wait_url,
)
from conftest import REPO
from playwright.sync_api import expect
from test_app_browser import browser, plain_env  # noqa: F401
from test_app_browser_first_screen import REAL, board, root  # noqa: F401

pytestmark = [
    pytest.mark.slow,
    pytest.mark.browser,
    pytest.mark.skipif(chromium_missing(), reason="Debian's chromium is not installed"),
    pytest.mark.skipif(not REAL.is_dir(), reason=f"real mteb results not found at {REAL}"),
]

# Every answer of the page's events (the queue's streams and the events answered in one request), kept as text
# (Gradio reads them through fetch): the charts' Vega-Lite specs are in them, as the Plot components receive them.
STREAMS_JS = """(() => {
  window.streamed = '';
  const original = window.fetch;
  window.fetch = async (...args) => {
    const answer = await original(...args);
    const url = String((args[0] && args[0].url) || args[0]);
    const one = url.includes('/gradio_api/run/');  // an event answered in one request: its JSON, as a data line
    if (!(url.includes('queue/data') || one) || !answer.body) return answer;
    const [kept, read] = answer.body.tee();
    (async () => {
      const reader = read.getReader(), decoder = new TextDecoder();
      let whole = '';
      for (;;) { const {done, value} = await reader.read(); if (done) break;
        const text = decoder.decode(value, {stream: true});
        if (one) whole += text; else window.streamed += text; }
      if (one) window.streamed += 'data: ' + whole.replace(/\\n/g, ' ') + '\\n';
    })();
    return new Response(kept, {headers: answer.headers, status: answer.status, statusText: answer.statusText});
  };
})();"""


@pytest.fixture(scope="module")
def server(root, tmp_path_factory):  # noqa: F811
    port = free_port()
    command = [sys.executable, "-m", "leaderboard", "serve", "--results", str(root), "--port", str(port)]
    with serving(command, plain_env(tmp_path_factory.mktemp("honest-serve")), port) as url:
        yield url


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    folder = tmp_path_factory.mktemp("honest-shots")
    yield folder
    publish_screenshots(folder, REPO / "docs" / "screenshots" / "honest-views")


def opened(browser, server, size, query, ready=".board-view"):  # noqa: F811
    page = new_page(browser, SIZES[size])
    page.add_init_script(STREAMS_JS)
    page.goto(server + query)
    page.wait_for_selector(ready, state="attached")
    return page


def plot_specs(page) -> list[dict]:
    """Every Vega-Lite spec the page's Plot components received (``STREAMS_JS``), in order."""
    found = []

    def walk(value):
        if isinstance(value, dict):
            if value.get("type") == "altair" and isinstance(value.get("plot"), str):
                found.append(json.loads(value["plot"]))
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for line in page.evaluate("() => window.streamed").splitlines():
        if line.startswith("data:"):
            try:
                walk(json.loads(line[5:]))
            except ValueError:
                continue
    return found


def marks(spec) -> list[str]:
    """Every mark type anywhere in a spec (layers, concatenations)."""
    found = []
    if isinstance(spec, dict):
        mark = spec.get("mark")
        if mark is not None:
            found.append(mark["type"] if isinstance(mark, dict) else mark)
        for value in spec.values():
            found += marks(value)
    elif isinstance(spec, list):
        for value in spec:
            found += marks(value)
    return found


def side_tables(page) -> dict[str, dict]:
    """benchmark -> {"rows": the table's row labels with a number, "cells": {(row, pick): number}}, from the DOM."""
    return page.evaluate(
        """() => Object.fromEntries(Array.from(document.querySelectorAll('section.side-part')).map((part) => {
          const picks = Array.from(part.querySelectorAll('thead a.to-model')).map((a) => a.innerText.trim());
          const cells = [];
          for (const row of part.querySelectorAll('tr[data-row]')) {
            Array.from(row.cells).slice(1).forEach((td, i) => {
              if (td.dataset.v !== undefined && !td.classList.contains('other-data'))
                cells.push([row.dataset.row, picks[i], Number(td.dataset.v)]);
            });
          }
          return [part.dataset.benchmark, cells];
        }))"""
    )


@pytest.mark.parametrize("size", SIZES)
def test_the_side_by_side_chart_draws_the_tables_rows_and_only_their_numbers(browser, server, board, shots, size):  # noqa: F811
    ranking = board.ranking("FollowIR", with_stats=False)
    picks = [line.name for line in ranking.ranked[:4]] + ["intfloat/e5-large-v2", "bm25"]
    query = "?" + urllib.parse.urlencode({"side": "|".join(picks)})
    page = opened(browser, server, size, query, ready=".side-view")
    tab_view(page, "side", models="|".join(picks))
    page.locator("#side-plot svg.marks, #side-plot canvas.marks").first.wait_for()
    events_done(page, open_stream_ok=True)
    spec = [s for s in plot_specs(page) if "vconcat" in s][-1]  # the last drawn (the load, then the tab opening)
    assert "line" not in marks(spec) and "trail" not in marks(spec)  # no line across tasks
    assert set(marks(spec)) == {"rule", "point"}  # interval whiskers and points
    data = [row for rows in spec["datasets"].values() for row in rows]
    tables = side_tables(page)
    assert set(tables) == {row["benchmark"] for row in data}
    for benchmark, cells in tables.items():
        drawn = [row for row in data if row["benchmark"] == benchmark]
        # one category per row of the table that shows a number, and only the numbers the table shows
        assert {row["row"] for row in drawn} == {row for row, _, _ in cells}
        shown = {(row, pick): value for row, pick, value in cells}
        assert {(row["row"], row["model"]): row["value"] for row in drawn} == pytest.approx(shown)
        imported = [row for row in drawn if row["low"] is None]
        assert all(row["source"].startswith("imported") for row in imported)  # marked, not drawn as measured
    # a task fewer than two picks have a result on is named in one line, not drawn as a table of dashes
    thin = page.locator("#side-thin")
    expect(thin).to_contain_text("Not drawn, fewer than two of the picks have a result on it")
    assert page.locator("section.side-part").count() == len(tables)
    followir = page.locator('section.side-part[data-benchmark="FollowIR"]')
    assert followir.locator('tr[data-row^="Score: mean p-MRR"]').count() == 1
    assert followir.locator('tr[data-row^="FollowIR score"]').count() == 1  # every declared aggregate
    settle(page)
    page.screenshot(path=str(shots / f"{size}-side-by-side.png"), full_page=True)
    page.close()


@pytest.mark.parametrize("size", SIZES)
def test_followir_by_mean_p_mrr_with_the_papers_tier_one_click_from_page_one(browser, server, board, shots, size):  # noqa: F811
    declared = board.ranking("FollowIR", with_stats=False)
    page = opened(browser, server, size, "?benchmark=FollowIR")
    view = board_view(page, benchmark="FollowIR")
    assert view.get_attribute("data-page") == "1"
    first = view.locator("#board-table tbody.ranked tr").first
    assert first.locator("td.c-model a.to-model").inner_text() == declared.ranked[0].name
    assert first.locator("td.c-agg .v").inner_text() == f"{declared.ranked[0].aggregate:.4f}"
    assert page.locator("#rank-by").get_by_text("mean p-MRR (default)").is_visible()
    link = view.locator("tbody.reported-link")
    expect(link).to_contain_text("Reported in papers")
    settle(page)
    page.screenshot(path=str(shots / f"{size}-followir-board.png"))
    link.locator("button").scroll_into_view_if_needed()
    settle(page)
    page.screenshot(path=str(shots / f"{size}-followir-papers-link.png"))
    link.locator("button").click()
    wait_url(page, "p", "2")
    page.wait_for_selector('.board-view[data-benchmark="FollowIR"][data-page="2"]', state="attached")
    reported = page.locator(".board-view tbody.reported")
    expect(reported).to_contain_text("Reported in papers")
    reported.scroll_into_view_if_needed()
    settle(page)
    page.screenshot(path=str(shots / f"{size}-followir-papers-tier.png"))
    page.close()


@pytest.mark.parametrize("size", SIZES)
def test_the_cite_panel_and_the_license_filter(browser, server, board, shots, size):  # noqa: F811
    page = opened(browser, server, size, "?benchmark=BRIGHT")
    board_view(page, benchmark="BRIGHT")
    cite = page.locator("#board-cite")
    cite.locator("summary").click()
    expect(cite.locator("pre")).to_contain_text("@article{su2024bright")
    assert cite.locator("pre").inner_text().count("@article{su2024bright") == 1
    cite.scroll_into_view_if_needed()
    settle(page)
    page.screenshot(path=str(shots / f"{size}-cite-panel.png"))
    page.locator("#filters").get_by_text("Filters and columns").click()
    expect(page.locator("#filter-license input")).to_have_count(len(board.licenses))
    labels = page.locator("#filter-license input").evaluate_all("es => es.map(e => e.closest('label').innerText)")
    assert sorted(labels) == sorted(board.licenses)
    assert "MIT" in labels and "mit" not in labels and "not specified" not in labels
    assert not any(label.startswith("http") or "(link)" in label for label in labels)
    page.locator("#filter-license").scroll_into_view_if_needed()
    settle(page)
    page.screenshot(path=str(shots / f"{size}-license-filter.png"))
    page.close()


@pytest.mark.parametrize("size", SIZES)
def test_one_row_for_byte_identical_files(browser, server, board, shots, size):  # noqa: F811
    ranking = board.ranking("IFIR", with_stats=False)
    (copy,) = ranking.copied
    page = opened(browser, server, size, "?benchmark=IFIR")
    view = board_view(page, benchmark="IFIR")
    row = view.locator("#board-table tbody.ranked tr").filter(has_text=copy.copy_of)
    expect(row).to_have_count(1)
    expect(row.locator(".copies")).to_contain_text(copy.name)
    assert view.locator("#board-table tbody.ranked td.c-rank").all_inner_texts().count("1 †") == 1
    settle(page)
    page.screenshot(path=str(shots / f"{size}-ifir-one-row.png"))
    page.close()


@pytest.mark.parametrize("size", SIZES)
def test_a_task_subset_in_the_link_ranks_by_mean_rank_over_it(browser, server, board, shots, size):  # noqa: F811
    from leaderboard.app.data import aggregates

    declared = board.ranking("BRIGHT", with_stats=False)
    chosen = tuple(aggregates.task_choices(declared)[:3])
    expected = aggregates.over_tasks(declared, chosen)
    query = "?" + urllib.parse.urlencode({"benchmark": "BRIGHT", "tasks": "|".join(chosen)})
    page = opened(browser, server, size, query)
    view = board_view(page, benchmark="BRIGHT")
    names = view.locator("#board-table tbody.ranked td.c-model a.to-model").all_inner_texts()
    assert names[: len(expected.ranked)] == [line.name for line in expected.ranked][: len(names)]
    summary = page.inner_text("#benchmark-summary")
    assert "over 3 of 12 tasks" in summary  # where a phone shows it too
    if size == "desktop":
        assert "ranked by mean rank over 3 of 12 tasks (chosen" in summary
    page.locator("#filters").get_by_text("Filters and columns").click()  # the chooser: under the filters
    expect(page.locator("#rank-tasks input:checked")).to_have_count(len(chosen))
    ticked = page.locator("#rank-tasks input:checked").evaluate_all("es => es.map(e => e.closest('label').innerText)")
    assert ticked == list(chosen)
    page.locator("#rank-tasks").scroll_into_view_if_needed()
    settle(page)
    page.screenshot(path=str(shots / f"{size}-bright-task-subset.png"))
    if size == "desktop":  # ticking every task again is the benchmark's own ranking, and the link says so
        for label in aggregates.task_choices(declared)[3:]:
            page.locator("#rank-tasks").get_by_text(label, exact=True).click()
        page.wait_for_function("() => !new URL(location.href).searchParams.has('tasks')")
        page.wait_for_function(
            "(v) => document.querySelector('#board-table tbody.ranked td.c-agg .v')?.innerText === v",
            arg=f"{declared.ranked[0].aggregate:.4f}",
        )
    page.close()


@pytest.mark.parametrize("size", SIZES)
def test_the_model_page_gives_every_aggregate_and_what_ran_it(browser, server, board, shots, size):  # noqa: F811
    name = "Qwen/Qwen3-Embedding-0.6B"
    page = opened(browser, server, size, "?" + urllib.parse.urlencode({"model": name}), ready=".model-view")
    view = tab_view(page, "model", model=name)
    part = view.locator('section.mp-part[data-benchmark="FollowIR"]')
    expect(part.locator('tr[data-aggregate="mean p-MRR"]')).to_contain_text(" of ")
    expect(part.locator('tr[data-aggregate="FollowIR score"]')).to_contain_text(" of ")
    expect(view.locator("#model-facts")).to_contain_text("mteb 1.38, imported (FollowIR")
    part.scroll_into_view_if_needed()
    settle(page)
    page.screenshot(path=str(shots / f"{size}-model-page.png"))
    page.close()


@pytest.mark.parametrize("size", SIZES)
def test_compare_has_a_row_per_aggregate(browser, server, board, shots, size):  # noqa: F811
    # the first two ranked models with both aggregates (some of mteb 1's files hold p-MRR only)
    both = [line for line in board.ranking("FollowIR", with_stats=False).ranked if line.side.get("FollowIR score")]
    a, b = (line.name for line in both[:2])
    query = "?" + urllib.parse.urlencode({"benchmark": "FollowIR", "tab": "compare", "a": a, "b": b})
    page = opened(browser, server, size, query)
    table = comparison(page, benchmark="FollowIR", a=a, b=b).locator("#compare-aggregates")
    expect(table.locator("tbody tr")).to_have_count(2)
    expect(table).to_contain_text("no interval: run by mteb")
    minus = table.locator("tbody").inner_text()
    assert "-" not in minus.replace("p-MRR", "").replace("run by", "")  # one minus sign: U+2212 only
    settle(page)
    page.screenshot(path=str(shots / f"{size}-compare-aggregates.png"))
    page.close()


@pytest.mark.parametrize("size", SIZES)
def test_task_view_bars_and_the_score_over_time_have_intervals(browser, server, shots, size):  # noqa: F811
    page = opened(browser, server, size, "?benchmark=ComLQ&tab=views", ready=".board-view")
    tab_view(page, "views", benchmark="ComLQ")
    page.locator(".view-plot canvas.marks, .view-plot svg.marks").first.wait_for()
    events_done(page, open_stream_ok=True)
    bars = [s for s in plot_specs(page) if "bar" in marks(s)]
    assert bars and all("rule" in marks(s) for s in bars)  # each bar chart carries its whiskers
    settle(page)
    page.screenshot(path=str(shots / f"{size}-task-view-bars.png"), full_page=True)
    page.close()
    page = opened(browser, server, size, "?benchmark=FollowIR&tab=time", ready=".board-view")
    tab_view(page, "time", benchmark="FollowIR")
    page.locator("#time-plot canvas.marks, #time-plot svg.marks").first.wait_for()
    events_done(page, open_stream_ok=True)
    spec = [s for s in plot_specs(page) if "released" in json.dumps(s.get("layer", ""))][-1]
    assert marks(spec) == ["rule", "point"]
    settle(page)
    page.screenshot(path=str(shots / f"{size}-score-over-time.png"))
    page.close()


def test_no_untranslated_label_is_read_out(browser, server):  # noqa: F811
    page = opened(browser, server, "desktop", "?benchmark=FollowIR")
    board_view(page, benchmark="FollowIR")
    page.locator("#filters").get_by_text("Filters and columns").click()
    page.locator("#filter-open-weights").get_by_text("open weights", exact=True).click()
    wait_url(page, "open", "yes")
    board_view(page, benchmark="FollowIR")
    events_done(page)
    # the announcer says what completed (Gradio fills it once an event's answer is drawn)
    page.wait_for_function("() => document.querySelector('[aria-live=polite]')?.innerText.trim().length > 0")
    texts = page.evaluate(
        """() => Array.from(document.querySelectorAll('[aria-live], [aria-label], [title], label, button'))
          .map((e) => [e.innerText || '', e.getAttribute('aria-label') || '', e.getAttribute('title') || ''])
          .flat()"""
    )
    keys = [t for t in texts if re.search(r"\b(common|checkbox|dropdown|radio|plot|errors)\.[a-z_]+\b", t)]
    assert keys == [], keys
    page.close()
