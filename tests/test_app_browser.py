"""The leaderboard app in a real browser (Debian's Chromium driven by Playwright), at 1440x900 and 390x844.

Two servers (one per module fixture): `leaderboard serve --public` over the app fixtures plus a result
of the example task plugin (plugins/leaderboard-example-task, put on PYTHONPATH with a dist-info, as an
install leaves it; the plugin's benchmark comes from the registry through `serve`, its views from its
result alone); and `serve --public` over real bm25 / bm25-okapi runs on small ComLQ and NegConstraint
folders with no benchmarks.json (the built-in declarations come from the installed plugins), an
older revision of one model and a paper's reported score. A third serves that folder with no
benchmark plugin at all (each task its own board). Screenshots go to a temporary folder, and to
docs/screenshots/ only with LEADERBOARD_UPDATE_SCREENSHOTS=1.
"""

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

import pytest
from app_fixtures import BENCHMARKS, HOSTILE, build_comlq_negconstraint, build_results, install_example_plugin
from browser_helpers import (
    DESKTOP,
    PHONE,
    SIZES,
    board_view,
    chromium_missing,
    comparison,
    events_done,
    fully_shown,
    in_viewport,
    open_page,
    publish_screenshots,
    select_benchmark,
    serve_results,
    settle,
    shared_browser,
    stop_shared_browser,
    tab_view,
    wait_url,
    wait_url_has,
    wait_url_lacks,
)
from conftest import REPO
from playwright.sync_api import expect

TABS = {"board": "Leaderboard", "views": "Task views", "size": "Size vs score", "time": "Score over time"}
TABS |= {"compare": "Compare two models"}
TABS |= {"side": "Side by side", "model": "Model", "provenance": "Provenance"}
TABS |= {"skipped": "Skipped", "about": "About"}
pytestmark = [
    pytest.mark.browser,  # Chromium against a served app: seconds each
    pytest.mark.skipif(chromium_missing(), reason="Debian's chromium is not installed (.ci/run installs it)"),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    work = tmp_path_factory.mktemp("served")
    site = install_example_plugin(work / "site")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
        "HF_HUB_OFFLINE": "1",
        "XDG_CACHE_HOME": str(work / "cache"),
        "LEADERBOARD_PLUGINS": "bm25,example-topics",  # the example plugin's benchmark, no built-in ones
    }
    ran = subprocess.run(
        [sys.executable, "-m", "leaderboard", "run", "-m", "bm25", "-t", "example-topics", "-o", str(work / "ex")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ran.returncode == 0, ran.stderr
    root = build_results(work / "results", example_result=next((work / "ex").rglob("example-topics.json")))
    with serve_results(root, env) as url:
        yield url


@pytest.fixture(scope="module")
def comlq_results(tmp_path_factory):
    work = tmp_path_factory.mktemp("comlq")
    root = build_comlq_negconstraint(work / "results", work / "data")
    assert not (root / "benchmarks.json").exists()
    return root


def plain_env(work, plugins=None):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "XDG_CACHE_HOME": str(work / "cache")}
    env.pop("LEADERBOARD_PLUGINS", None)
    if plugins is not None:
        env["LEADERBOARD_PLUGINS"] = plugins
    return env


@pytest.fixture(scope="module")
def comlq_server(comlq_results, tmp_path_factory):
    """The installed plugins' declarations (ComLQ, NegConstraint, BRIGHT, ...): only two have results."""
    with serve_results(comlq_results, plain_env(tmp_path_factory.mktemp("comlq-serve"))) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    """Chromium for this module, as conftest's ``browser`` (kept here for the modules that import it)."""
    yield shared_browser()
    stop_shared_browser()


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    folder = tmp_path_factory.mktemp("screenshots")
    yield folder
    publish_screenshots(folder, REPO / "docs" / "screenshots")


DEMO = "?benchmark=" + urllib.parse.quote("Demo retrieval")


def column(page, index, body="ranked"):
    cells = page.locator(f"#board-table tbody.{body} tr td:nth-child({index + 1})")
    return [float(v) for v in cells.evaluate_all("cells => cells.map(c => c.dataset.v)")]


def header_index(page, text):
    headers = page.locator("#board-table thead th").all_inner_texts()
    return next(i for i, h in enumerate(headers) if h.startswith(text))


@pytest.mark.parametrize("size", SIZES)
def test_first_ranked_score_is_on_the_first_screen(browser, server, size):
    page = open_page(browser, server, SIZES[size], DEMO)
    first = page.locator("#board-table tbody.ranked tr").first
    score = first.locator("td.c-agg .v")
    value = float(score.inner_text())  # a number, not a string with decorations
    assert value == pytest.approx(0.828, abs=1e-3)
    settle(page)  # laid out as the reader sees it
    for cell in (first.locator("td.c-rank"), first.locator("td.c-model"), score):
        assert in_viewport(cell, SIZES[size]), (size, cell.bounding_box())
    assert first.locator("td.c-model a.to-model").inner_text() == "bm25"
    page.close()


@pytest.mark.parametrize("size", SIZES)
def test_bare_url_of_comlq_and_negconstraint_results_shows_a_ranked_score_above_the_fold(
    browser, comlq_server, shots, size
):
    """No BRIGHT results: the landing page shows both benchmarks' top models first, BRIGHT after them."""
    page = open_page(browser, comlq_server, SIZES[size])
    cards = page.locator("#home .home-card")
    assert sorted(cards.evaluate_all("cs => cs.map(c => c.dataset.benchmark)")) == ["ComLQ", "NegConstraint"]
    first = cards.first.locator("tr").first
    score = first.locator("td.c-agg .v")
    assert 0 < float(score.inner_text()) <= 1
    assert re.fullmatch(r"0\.\d{3}–[01]\.\d{3}", first.locator("td.c-agg .ci").inner_text())  # with its interval
    settle(page)
    assert in_viewport(score, SIZES[size]) and in_viewport(first.locator("td.c-model"), SIZES[size])
    without = page.locator("#home-without").inner_text()
    assert "BRIGHT" in without and "No ranked results yet" in without
    assert "1 models" not in page.inner_text("body")
    page.screenshot(path=str(shots / f"{size}-landing.png"))
    # each card links to its board
    cards.filter(has_text="NegConstraint").locator("h3 a").click()
    expect(board_view(page, benchmark="NegConstraint").locator("#board-table tbody.ranked tr").first).to_be_visible()
    expect(page.locator("#benchmark-select input")).to_have_value("NegConstraint")
    page.close()


def test_links_with_a_page_number_are_served_and_gradios_page_parameter_is_redirected(server):
    # Gradio reserves ``page`` (its multipage routing: KeyError, "Internal Server Error"); the app pages with ``p``.
    for query in (DEMO + "&p=2", DEMO + "&page=2", "?page=abc", DEMO + "&page=1&p=3"):
        with urllib.request.urlopen(server + query, timeout=30) as response:
            assert response.status == 200, query
            final = urllib.parse.parse_qs(urllib.parse.urlsplit(response.url).query)
            assert "page" not in final, (query, response.url)
    with urllib.request.urlopen(server + DEMO + "&page=2", timeout=30) as response:
        assert urllib.parse.parse_qs(urllib.parse.urlsplit(response.url).query)["p"] == ["2"]


def test_an_overlong_link_is_trimmed_before_gradio_sees_it(browser, server):
    """Over 64 kB, Gradio's page route failed (httpx.InvalidURL: a bare 500) before the app's own limit applied."""
    query = DEMO + "&tab=about&q=" + "x" * 100_000
    with urllib.request.urlopen(server + query, timeout=60) as response:
        assert response.status == 200
        final = urllib.parse.parse_qs(urllib.parse.urlsplit(response.url).query)
        assert final == {"benchmark": ["Demo retrieval"], "tab": ["about"]}  # q= did not fit: dropped
    page = open_page(browser, server, DESKTOP, query, ready="#about")  # the view the trimmed link names
    expect(page.locator("#benchmark-select input")).to_have_value("Demo retrieval")
    page.close()


def test_an_overlong_link_split_over_reads_is_trimmed_too(server):
    """uvicorn's h11 parser refused (400 "Invalid HTTP request received") a request head not complete within
    the 16 KiB it had read: the same 100 kB link passed in one read and failed split over two (Chromium on a
    busy machine, in CI). The head's second part is sent only after the first has been sent and a pause, so
    the server reads them apart (a pause to split the reads, not a wait for a state)."""
    port = urllib.parse.urlsplit(server).port
    head = f"GET /{DEMO}&tab=about&q={'x' * 100_000} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=60) as connection:
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        connection.sendall(head.encode()[:20_000])
        time.sleep(0.5)
        connection.sendall(head.encode()[20_000:])
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    status, _, rest = answer.partition(b"\r\n")
    assert status == b"HTTP/1.1 307 Temporary Redirect", answer[:300]
    location = next(line for line in rest.split(b"\r\n") if line.lower().startswith(b"location:"))
    assert urllib.parse.parse_qs(location.split(b"?", 1)[1].decode()) == {
        "benchmark": ["Demo retrieval"],
        "tab": ["about"],
    }


def test_a_link_picking_ten_thousand_models_renders_and_names_those_not_on_the_board(browser, server):
    names = ["bm25"] + [f"m{i}" for i in range(10_000)]
    page = open_page(browser, server, DESKTOP, DEMO + "&tab=views&models=" + "|".join(names))
    note = tab_view(page, "views", benchmark="Demo retrieval", picks="bm25").locator(".picks-note")
    expect(note).to_contain_text("No models named “m0”, “m1”")
    expect(note).to_contain_text(re.compile(r"and \d+ more has results on Demo retrieval"))
    expect(page.locator("#view-models")).to_contain_text("bm25")
    page.close()


def test_a_link_to_a_benchmark_the_board_lacks_says_so(browser, server):
    page = open_page(browser, server, DESKTOP, "?benchmark=no-such-board")
    page.wait_for_selector("#unknown-benchmark")
    assert "No benchmark named no-such-board" in page.locator("#benchmark-summary").inner_text()
    page.close()


def test_header_click_sorts_on_the_server_negative_values_included(browser, server):
    """Followish has one task: its column is the Score (not repeated), sorted by a click on the server."""
    page = open_page(browser, server, DESKTOP, "?benchmark=Followish")
    index = header_index(page, "Score")
    assert "p-MRR" in page.locator("#board-table thead th").nth(index).inner_text()  # the metric, named once
    assert column(page, index) == [0.31, 0.05, -0.12, -0.45]  # by rank
    page.locator("#board-table thead th").nth(index).click()
    wait_url(page, "sort", "agg.desc")
    board_view(page, sort="agg.desc").locator("th[aria-sort=descending]").wait_for()
    assert column(page, index) == [0.31, 0.05, -0.12, -0.45]  # descending
    page.locator("#board-table thead th").nth(index).click()
    board_view(page, sort="agg.asc").locator("th[aria-sort=ascending]").wait_for()
    assert column(page, index) == [-0.45, -0.12, 0.05, 0.31]  # ascending: numeric, not "-0.12" < "-0.45"
    texts = page.locator(f"#board-table tbody.ranked td:nth-child({index + 1}) .v").all_inner_texts()
    assert texts == ["\u22120.4500", "\u22120.1200", "0.0500", "0.3100"]  # the true minus sign
    link = page.url
    assert "sort=agg.asc" in link
    page.close()
    again = open_page(browser, server, DESKTOP, link[len(server) :])  # the sort is restored from the link
    board_view(again, sort="agg.asc").locator("th[aria-sort=ascending]").wait_for()
    assert column(again, index) == [-0.45, -0.12, 0.05, 0.31]
    again.close()


def test_selector_changes_table_and_url_and_the_url_restores_it(browser, server):
    page = open_page(browser, server, query=DEMO)
    assert "p-MRR" not in page.locator("#board-table thead").inner_text()
    select_benchmark(page, "Followish")
    expect(page.locator("#board-table thead")).to_contain_text("p-MRR")
    page.locator("#filters").get_by_text("Filters and columns").click()
    page.locator("#filter-search input, #filter-search textarea").first.fill("tiny")
    wait_url(page, "q", "tiny")
    page.get_by_role("tab", name="About").click()
    wait_url(page, "tab", "about")
    link = page.url
    assert "benchmark=Followish" in link
    page.close()

    shared = open_page(browser, link, ready="#about")  # the About tab, restored
    expect(shared.locator("#benchmark-select input")).to_have_value("Followish")
    shared.get_by_role("tab", name="Leaderboard").click()
    board = board_view(shared, benchmark="Followish")
    expect(board.locator("thead")).to_contain_text("p-MRR")
    expect(board.locator("tbody.ranked td.c-model")).to_have_text(["tiny-dense-model"])
    shared.close()


def test_about_names_every_benchmark_paper(browser, server):
    page = open_page(browser, server, query="?tab=about", ready="#about")
    about = page.locator("#about")
    shown = [b for b in BENCHMARKS if b.get("public", True)] + [
        {"name": "Example topics", "reference": "https://example.org/example-topics"}
    ]
    for benchmark in shown:
        assert benchmark["name"] in about.inner_text()
        assert about.locator(f'a[href="{benchmark["reference"]}"]').count() >= 1
    assert "Hidden demo" not in about.inner_text()  # not public: not on the public board
    assert re.search(r"\d+ models, \d+ result files", about.inner_text())
    assert "How to submit" in about.inner_text()
    page.close()


def test_limit_result_is_listed_but_never_ranked(browser, server):
    page = open_page(browser, server, query=DEMO)
    ranked = page.locator("#board-table tbody.ranked").inner_text()
    unranked = page.locator("#board-table tbody.unranked").inner_text()
    assert "limited-model" not in ranked and "limited-model" in unranked
    assert "partial result only (--limit 5" in unranked
    page.close()


def test_intervals_and_significance_marks_are_shown_and_explained(browser, server):
    page = open_page(browser, server, query=DEMO)
    second = page.locator("#board-table tbody.ranked tr").nth(1)
    assert second.locator("td.c-rank").inner_text().strip() == "2 ≈"
    assert re.fullmatch(r"0\.\d{3}–0\.\d{3}", second.locator("td.c-agg .ci").inner_text())
    assert second.locator("td.c-agg").get_attribute("style").startswith("--heat")  # the colour scale
    notes = page.locator("#board-notes").inner_text()
    assert "not significantly different from #1" in notes and "randomization" in notes
    assert "Score = score" not in notes
    page.close()


def test_hostile_model_name_is_text_and_filters_and_csv_work(browser, server, tmp_path):
    page = open_page(browser, server, query=DEMO)
    assert HOSTILE in page.locator("#board-table").inner_text()
    assert page.locator('img[src="x"]').count() == 0 and page.dialogs == []
    page.locator("#filters").get_by_text("Filters and columns").click()
    page.locator("#filter-kind").get_by_label("dense").uncheck()
    expect(page.locator("#board-table")).not_to_contain_text("tiny-dense-model")
    assert "bm25" in page.locator("#board-table").inner_text()
    assert wait_url_has(page, "kind", "sparse")
    with page.expect_download() as download:
        page.locator("#download-csv").click()
    target = tmp_path / "view.csv"
    download.value.save_as(target)
    import pandas as pd

    frame = pd.read_csv(target)
    assert frame["model"].tolist() == ["bm25"] and frame["score"].dtype == float
    page.close()


def test_the_example_plugin_task_gets_its_own_declared_view(browser, server):
    """No app code names the example task: its view comes from the `views` its results declare."""
    page = open_page(browser, server, query="?benchmark=Example+topics")
    assert "Example topics" in page.locator("#benchmark-summary").inner_text()
    assert page.locator("#board-table tbody.ranked td.c-model a.to-model").all_inner_texts() == ["bm25"]
    page.get_by_role("tab", name="Task views").click()
    tab_view(page, "views", benchmark="Example topics")
    page.wait_for_selector("text=example-topics: Reciprocal rank per topic")
    page.wait_for_selector(".view-plot canvas.marks, .view-plot svg.marks")
    assert "Both metrics" in page.inner_text("body")
    app_source = "".join(p.read_text() for p in (REPO / "leaderboard" / "app").rglob("*.py"))
    assert "example-topics" not in app_source and "Example topics" not in app_source
    page.close()


def test_the_chart_module_is_loaded_once_the_board_is_drawn_before_any_chart_is_opened(browser, server):
    """Gradio loads its chart module (Vega) on the first chart a page shows: a third of a second added to it. The
    page loads it once its first view is drawn and the browser is idle (``assets.chart_preload``)."""
    page = open_page(browser, server, query=DEMO)
    chart_module = "() => performance.getEntriesByType('resource').some(e => /\\/AltairPlot-[^/]*\\.js$/.test(e.name))"
    page.wait_for_function(chart_module)
    assert page.locator("#size-plot canvas, .view-plot canvas").count() == 0  # no chart was opened for it
    assert page.get_by_role("tab", name="Leaderboard", selected=True).count() == 1
    page.close()


@pytest.mark.parametrize("size", SIZES)
def test_every_tab_is_reachable_and_photographed(browser, server, shots, size):
    page = open_page(browser, server, SIZES[size], DEMO)
    settle(page)
    page.screenshot(path=str(shots / f"{size}-board-intervals-and-significance.png"))
    select_benchmark(page, "Conditions")
    expect(page.locator("#board-table thead")).to_contain_text("Task 1")
    drawn = {  # what each tab draws for Conditions, once opened
        "board": lambda: board_view(page, benchmark="Conditions"),
        "views": lambda: (
            tab_view(page, "views", benchmark="Conditions")
            and page.wait_for_selector(".view-plot canvas.marks, .view-plot svg.marks")
        ),
        "size": lambda: page.wait_for_selector("#size-plot canvas.marks, #size-plot svg.marks"),
        "time": lambda: tab_view(page, "time", benchmark="Conditions"),  # the fixtures' models have no dates
        "compare": lambda: comparison(page, benchmark="Conditions"),
        "side": lambda: tab_view(page, "side"),  # no picks yet: it says to pick 2 to 8 models
        "model": lambda: tab_view(page, "model"),
        "provenance": lambda: tab_view(page, "provenance", benchmark="Conditions"),
        "skipped": lambda: tab_view(page, "skipped"),
        "about": lambda: page.wait_for_selector("#about"),
    }
    assert set(drawn) == set(TABS)
    for tab, label in TABS.items():
        tab_button = page.get_by_role("tab", name=label, exact=True)  # "Model" is in "Compare two models"
        assert tab_button.is_visible()  # no tab hides behind a "…" menu
        tab_button.click()
        wait_url(page, "tab", tab)
        drawn[tab]()
        settle(page)
        page.screenshot(path=str(shots / f"{size}-{tab}.png"), full_page=tab != "board")
    page.close()


# -- ComLQ and NegConstraint results ------------------------------------------------------------------


def bm25_comlq(root):
    """bm25's newest ComLQ result (not the older revision, not the reported scores)."""
    found = [p for p in root.rglob("comlq.json") if not {"older", "reported"} & set(p.relative_to(root).parts)]
    return next(p for p in found if json.loads(p.read_text())["model"]["name"] == "bm25")


def per_query_of(path, metric="ndcg_at_10"):
    from leaderboard.records.result import PerQuery, decode_per_query

    data = json.loads(path.read_text())
    stored = decode_per_query(PerQuery.model_validate(data["per_query"]))
    return {q: v[metric] for q, v in stored.items()}


def test_per_type_intervals_come_from_that_types_queries_and_the_csv_agrees(
    browser, comlq_server, comlq_results, shots, tmp_path
):
    import numpy as np
    import pandas as pd
    from scipy import stats

    types = json.loads((comlq_results.parent / "comlq-types.json").read_text())
    bm25 = bm25_comlq(comlq_results)
    values = per_query_of(bm25)
    page = open_page(browser, comlq_server, DESKTOP, "?benchmark=ComLQ&q=bm25")
    page.wait_for_selector("#board-table tbody.ranked tr")
    row = page.locator("#board-table tbody.ranked tr").filter(has_text="bm25").first
    assert row.locator("td.c-model").inner_text().startswith("bm25")
    main = row.locator("td.c-agg .ci").inner_text()
    seen = set()
    for query_type in ("1p", "3p", "2in"):
        index = header_index(page, f"{'¬' if query_type == '2in' else ''}{query_type} nDCG@10")
        cell = row.locator(f"td:nth-child({index + 1})")
        low, high = (float(x) for x in cell.locator(".ci").inner_text().split("–"))
        own = np.array([v for q, v in values.items() if types[q] == query_type])
        assert float(cell.locator(".v").inner_text()) == pytest.approx(own.mean(), abs=1e-4)
        if own.std() == 0:
            assert low == high == pytest.approx(own.mean(), abs=1e-3)
            continue
        reference = stats.bootstrap((own,), np.mean, n_resamples=10_000, method="percentile", random_state=1)
        assert low == pytest.approx(reference.confidence_interval.low, abs=0.015), query_type
        assert high == pytest.approx(reference.confidence_interval.high, abs=0.015), query_type
        seen.add((low, high))
    assert f"{min(seen)[0]:.3f}–{min(seen)[1]:.3f}" != main  # not the whole benchmark's interval
    with page.expect_download() as download:
        page.locator("#download-csv").click()
    target = tmp_path / "comlq.csv"
    download.value.save_as(target)
    frame = pd.read_csv(target).set_index("model")
    index = header_index(page, "3p nDCG@10")
    cell = row.locator(f"td:nth-child({index + 1}) .ci").inner_text()
    low, high = (float(x) for x in cell.split("–"))
    assert frame.loc["bm25", "comlq:ndcg_at_10:type=3p:ci_low"] == pytest.approx(low, abs=6e-4)
    assert frame.loc["bm25", "comlq:ndcg_at_10:type=3p:ci_high"] == pytest.approx(high, abs=6e-4)
    page.close()


def test_two_revisions_of_a_model_are_one_row_unless_asked(browser, comlq_server, shots):
    phone = open_page(browser, comlq_server, PHONE, "?benchmark=ComLQ")
    phone.wait_for_selector("#board-table tbody.ranked tr")
    settle(phone)
    assert in_viewport(phone.locator("#board-table tbody.ranked tr").first.locator("td.c-agg .v"), PHONE)
    phone.screenshot(path=str(shots / "phone-board-comlq.png"))
    phone.close()
    page = open_page(browser, comlq_server, DESKTOP, "?benchmark=ComLQ")
    page.wait_for_selector("#board-table tbody.ranked tr")
    models = page.locator("#board-table tbody.ranked td.c-model a.to-model").all_inner_texts()
    assert [m for m in models if m.startswith("bm25") and "okapi" not in m] == ["bm25"]
    settle(page)
    page.screenshot(path=str(shots / "desktop-board-comlq.png"))
    page.locator("#filters").get_by_text("Filters and columns").click()
    page.locator("#filter-revisions input").check()
    wait_url(page, "revisions", "1")
    page.wait_for_function("() => document.querySelectorAll('#board-table td.c-model .rev').length >= 2")
    labels = page.locator("#board-table td.c-model .rev").all_inner_texts()
    assert "revision older-revision" in labels and any("bm25s" in label for label in labels)
    page.close()


def test_reported_and_reproduced_bm25_on_comlq_with_their_difference(browser, comlq_server, comlq_results, shots):
    reproduced = json.loads(bm25_comlq(comlq_results).read_text())["main_score"]
    for size in SIZES:
        page = open_page(browser, comlq_server, SIZES[size], "?benchmark=ComLQ")
        tier = page.locator("#board-table tbody.reported")
        tier.wait_for()
        row = tier.locator("tr").filter(has_text="BM25").first
        assert "reported in ComLQ, Table 3" in row.inner_text()
        score = row.locator("td.c-agg")
        assert score.locator(".v").inner_text() == "0.5050"
        assert score.locator(".ci").count() == 0  # no interval
        assert score.locator(".delta").inner_text() == f"reproduced {reproduced:.4f} · Δ {signed(reproduced - 0.505)}"
        assert row.locator("td.c-rank").inner_text().strip() == "rep."  # never ranked
        assert "BM25" not in page.locator("#board-table tbody.ranked").inner_text()
        other = tier.locator("tr").filter(has_text="facebook/contriever").first
        assert other.locator(".delta").count() == 0  # no reproduced run: no difference
        tier.scroll_into_view_if_needed()
        settle(page)
        page.screenshot(path=str(shots / f"{size}-reported-tier.png"))
        page.close()


def test_overall_ranks_over_the_chosen_set_which_is_in_the_url(browser, comlq_server, shots):
    query = "?benchmark=" + urllib.parse.quote("Overall (mean rank)") + "&overall=ComLQ|NegConstraint"
    for size in SIZES:
        page = open_page(browser, comlq_server, SIZES[size], query)
        page.wait_for_selector("#board-table tbody.ranked tr")
        summary = page.locator("#benchmark-summary").inner_text()
        assert "mean rank over 2 benchmarks" in summary and "ComLQ, NegConstraint" in summary
        expect(page.locator("#overall-set input:checked")).to_have_count(2)
        ranked = page.locator("#board-table tbody.ranked td.c-model a.to-model").all_inner_texts()
        assert sorted(ranked) == ["bm25", "bm25-okapi"]
        settle(page)
        first = page.locator("#board-table tbody.ranked tr").first.locator("td.c-agg")
        assert in_viewport(first, SIZES[size]), (size, first.bounding_box())  # the set does not push it down
        coverage = page.locator("#board-table thead th").filter(has_text="Coverage")
        assert fully_shown(coverage), (size, coverage.bounding_box())  # not cut by the table's scroll box
        page.screenshot(path=str(shots / f"{size}-overall.png"))
        if size == "desktop":
            page.locator("#overall-set").get_by_label("NegConstraint").uncheck()
            wait_url(page, "overall", "ComLQ")
            expect(page.locator("#benchmark-summary")).to_contain_text("over 1 benchmark")
        page.close()


def signed(value):
    return f"{value:+.4f}".replace("-", "\u2212")


def test_comparison_view_equals_the_compare_statistics(browser, comlq_server, comlq_results, shots):
    from leaderboard.app.data.comparison import compare_models
    from leaderboard.app.server import loading
    from leaderboard.cli.serve import registered_benchmarks

    board = loading.load(comlq_results, registered_benchmarks(), persist=False)
    okapi = next(key for key in (line.key for line in board.ranking("ComLQ").lines) if key[0] == "bm25-okapi")
    bm25 = next(key for key in (line.key for line in board.ranking("ComLQ").ranked) if key[0] == "bm25")
    expected = compare_models(board, "ComLQ", bm25, okapi)
    for size in SIZES:
        page = open_page(browser, comlq_server, SIZES[size], "?benchmark=ComLQ&tab=compare&a=bm25&b=bm25-okapi")
        comparison(page, benchmark="ComLQ", a="bm25", b="bm25-okapi", subsets="0").locator("#compare-table").wait_for()
        rows = page.locator("#compare-table tbody tr")
        first = rows.first.locator("td").all_inner_texts()
        task = expected.tasks[0]
        assert first[0] == "comlq" and first[1] == "all queries"
        assert first[2] == signed(task.difference)
        assert first[3] == f"{signed(task.ci_low)} to {signed(task.ci_high)}"
        # the first display is the task rows (what `leaderboard compare` prints); subsets on request
        assert rows.count() == len(expected.tasks)
        subsets = expected.subsets.get("comlq", [])
        if size == "desktop" and subsets:
            page.locator("#compare-subsets").click()
            count = sum(1 + len(expected.subsets.get(t.task, [])) for t in expected.tasks)
            expect(comparison(page, subsets="1").locator("#compare-table tbody tr")).to_have_count(count)
            # each subset row names its subset as the task's views do ("¬2in", not "type=2in") and its own
            # metric, in the board's column order
            labels = expected.labels()
            first_subset = expected.ordered(board.ranking("ComLQ"))[1]
            row = page.locator(f'#compare-table tbody tr:has(td[title="{first_subset.subset}"])').first
            texts = row.locator("td").all_inner_texts()
            subset_label, metric_label = labels[("comlq", first_subset.subset, first_subset.metric)]
            assert texts[1] == subset_label and texts[1] != first_subset.subset
            assert texts[2] == signed(first_subset.difference) and texts[6].startswith(metric_label)
            shown = page.locator("#compare-table tbody tr").evaluate_all(
                "rows => rows.slice(1).map(r => [r.cells[1].title, r.cells[6].title])"
            )
            columns = [(c.spec.subset, c.spec.metric) for c in board.ranking("ComLQ").columns]
            in_board = [tuple(s) for s in shown if tuple(s) in columns]
            assert in_board and in_board == [c for c in columns if c in in_board]
        settle(page)
        # On a phone too: the note whole (wrapped to the screen), and the difference, its interval and p.
        assert fully_shown(page.locator("#compare-table caption")), size
        for header in ("A − B", "95% CI", "p"):
            cell = page.locator("#compare-table thead th").filter(has_text=re.compile(f"^{re.escape(header)}$"))
            assert fully_shown(cell), (size, header, cell.bounding_box())
        page.screenshot(path=str(shots / f"{size}-compare-comlq.png"), full_page=False)
        page.close()


def test_model_pickers_are_filled_when_their_tab_opens_and_a_links_picks_wait_for_it(
    browser, comlq_server, comlq_results
):
    """The pickers list every model of the benchmark (thousands on a large board, seconds of browser work
    on every redraw), so they are filled when their tab opens; a link's models, a and b wait until then."""
    from leaderboard.app.server import loading
    from leaderboard.cli.serve import registered_benchmarks

    board = loading.load(comlq_results, registered_benchmarks(), persist=False)
    keys = {line.key[0]: line.key for line in board.ranking("ComLQ").ranked}
    value = lambda name: urllib.parse.quote("\x1f".join(keys[name]))
    query = f"?benchmark=ComLQ&models={value('bm25-okapi')}&a={value('bm25-okapi')}&b={value('bm25')}"
    page = open_page(browser, comlq_server, DESKTOP, query)  # the form pages wrote before: still understood
    assert page.locator("#compare-a").count() == 0 or page.locator("#compare-a input").input_value() == ""
    page.get_by_role("tab", name="Compare two models").click()
    comparison(page, benchmark="ComLQ", a="bm25-okapi", b="bm25").locator("#compare-table").wait_for()
    expect(page.locator("#compare-a input")).to_have_value(re.compile(r"^bm25-okapi"))  # the link's pair
    expect(page.locator("#compare-b input")).to_have_value(re.compile(r"^bm25(?!-okapi)"))
    page.get_by_role("tab", name="Task views").click()
    tab_view(page, "views", benchmark="ComLQ", picks="bm25-okapi")
    expect(page.locator("#view-models")).to_contain_text("bm25-okapi")
    assert wait_url_has(page, "models", "\x1f".join(keys["bm25-okapi"]))
    # A switch drops the link's picks; the tab open now is filled for the new benchmark, the other on opening.
    select_benchmark(page, "NegConstraint")
    expect(page.locator("#benchmark-summary")).to_contain_text(re.compile(r"^\s*NegConstraint"))
    assert all(wait_url_lacks(page, parameter) for parameter in ("models", "a", "b"))
    tab_view(page, "views", benchmark="NegConstraint", picks="")
    expect(page.locator("#view-models")).not_to_contain_text("bm25-okapi")
    page.locator("#view-models input").click()
    expect(page.get_by_role("option", name="bm25-okapi", exact=True)).to_have_count(1)  # NegConstraint's models
    page.keyboard.press("Escape")
    page.get_by_role("tab", name="Compare two models").click()
    top = [line.name for line in board.ranking("NegConstraint").ranked[:2]]
    comparison(page, benchmark="NegConstraint", a=top[0], b=top[1]).locator("#compare-table").wait_for()
    for side, name in zip("ab", top, strict=True):  # #1 and #2
        expect(page.locator(f"#compare-{side} input")).to_have_value(name)
    page.close()


def test_compare_links_take_model_names_and_name_a_pick_the_board_lacks(browser, comlq_server, shots):
    """a= and b= take a model's name (its shown revision) or name@revision; an unknown pick is named and its
    picker left empty, never replaced by #1 or #2."""
    page = open_page(browser, comlq_server, DESKTOP, "?benchmark=ComLQ&tab=compare&a=bm25-okapi&b=bm25")
    comparison(page, benchmark="ComLQ", a="bm25-okapi", b="bm25").locator("#compare-table tbody tr").first.wait_for()
    expect(page.locator("#compare-a input")).to_have_value("bm25-okapi")
    page.close()
    page = open_page(browser, comlq_server, DESKTOP, "?benchmark=ComLQ&tab=compare&a=bm25@older-revision&b=bm25")
    view = comparison(page, benchmark="ComLQ", a="bm25@older-revision", b="bm25")
    view.locator("#compare-table tbody tr").first.wait_for()
    expect(page.locator("#compare-a input")).to_have_value("bm25 @ older-revision")
    page.close()
    for size in SIZES:
        page = open_page(browser, comlq_server, SIZES[size], "?benchmark=ComLQ&tab=compare&a=no-such-model&b=bm25")
        view = comparison(page, benchmark="ComLQ", a="", b="bm25")
        expect(view.locator("#compare-unknown")).to_have_text(
            "No model named “no-such-model” has results on ComLQ (the link's a=)."
        )
        assert view.locator("#compare-table").count() == 0  # nothing compared in its place
        expect(page.locator("#compare-a input")).to_have_value("")
        settle(page)
        page.screenshot(path=str(shots / f"{size}-compare-unknown-pick.png"))
        page.close()


def test_the_selector_losing_focus_keeps_the_view(browser, comlq_server):
    """The benchmark dropdown fires its input event again on blur: the same benchmark is not redrawn, and
    its sort and page stay (in the table and in the URL)."""
    page = open_page(browser, comlq_server, DESKTOP, "?benchmark=ComLQ&sort=model.asc")
    board_view(page, benchmark="ComLQ", sort="model.asc").locator("th[aria-sort=ascending]").wait_for()
    page.locator("#benchmark-select input").click()
    page.get_by_role("option", name="ComLQ", exact=True).click()  # the same benchmark again
    page.locator("#benchmark-summary").click()
    # whatever the blur sent is answered and drawn (Gradio may keep the answer stream open with nothing left)
    events_done(page, open_stream_ok=True)
    assert "sort=model.asc" in page.url
    assert page.locator("#board-table th[aria-sort=ascending]").count() == 1
    page.close()


def test_a_folder_without_declarations_shows_each_task_as_a_ranked_board(browser, comlq_results, tmp_path_factory):
    """No benchmarks.json and no benchmark plugin: each task with results is its own board."""
    env = plain_env(tmp_path_factory.mktemp("plain"), plugins="bm25")
    with serve_results(comlq_results, env) as url:
        page = open_page(browser, url)
        first = page.locator("#home .home-card").first
        assert 0 < float(first.locator("td.c-agg .v").first.inner_text()) <= 1
        name = first.get_attribute("data-benchmark")
        first.locator("h3 a").click()
        board_view(page, benchmark=name).locator("tbody.ranked tr").first.wait_for()
        assert page.locator("#board-table tbody.ranked td.c-agg .v").count() >= 2
        page.close()


def test_about_states_each_tasks_mean_cw_as_the_papers_cw(browser, comlq_server, comlq_results):
    """The mean CW the engine records per result (eq. 1 of the complexity paper) is on the About page."""
    recorded = json.loads(bm25_comlq(comlq_results).read_text())["task_details"]["complexity"]["mean_cw"]
    page = open_page(browser, comlq_server, DESKTOP, "?benchmark=ComLQ&tab=about")
    page.wait_for_selector("#about .mean-cw")
    text = page.locator("#about .about-benchmark").filter(has_text="ComLQ").first.locator(".mean-cw").inner_text()
    assert "the paper's CW, eq. 1" in text and f"comlq {recorded:.2f}" in text
    page.close()
