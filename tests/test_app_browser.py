"""The leaderboard app in a real browser (Debian's Chromium driven by Playwright), at 1440x900 and 390x844.

`leaderboard serve --public` runs over the app fixtures plus a result of the example task plugin
(plugins/leaderboard-example-task, put on PYTHONPATH with a dist-info, as an install leaves it);
the plugin's benchmark comes from the registry through `serve`, its views from its result alone.
Screenshots of every tab at both sizes go to a temporary folder, and to docs/screenshots/ only with
LEADERBOARD_UPDATE_SCREENSHOTS=1.
"""

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

import pytest
from app_fixtures import BENCHMARKS, HOSTILE, build_results, install_example_plugin
from conftest import REPO

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DESKTOP, PHONE = {"width": 1440, "height": 900}, {"width": 390, "height": 844}
SIZES = {"desktop": DESKTOP, "phone": PHONE}
TABS = {"board": "Leaderboard", "views": "Task views", "size": "Size vs score", "provenance": "Provenance"}
TABS |= {"skipped": "Skipped", "about": "About"}
pytestmark = pytest.mark.skipif(
    not os.path.exists(CHROMIUM), reason="Debian's chromium is not installed (.ci/run installs it)"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
    port = free_port()
    command = [sys.executable, "-m", "leaderboard", "serve", "--results", str(root), "--port", str(port), "--public"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2)
            break
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(proc.stdout.read().decode()) from None
            time.sleep(0.5)
    else:
        proc.kill()
        raise RuntimeError("the app did not start within 120 s")
    yield url
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
        )
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    folder = tmp_path_factory.mktemp("screenshots")
    yield folder
    if os.environ.get("LEADERBOARD_UPDATE_SCREENSHOTS") == "1":
        target = REPO / "docs" / "screenshots"
        target.mkdir(parents=True, exist_ok=True)
        for old in target.glob("*.png"):
            old.unlink()
        for shot in sorted(folder.glob("*.png")):
            shutil.copy(shot, target / shot.name)


def open_page(browser, server, size=DESKTOP, query=""):
    page = browser.new_page(viewport=size, accept_downloads=True)
    page.dialogs = []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    page.goto(server + query)
    page.wait_for_selector("#board-table, #board-empty", state="attached", timeout=30000)
    return page


def select_benchmark(page, name):
    page.locator("#benchmark-select input").click()
    page.get_by_role("option", name=name, exact=True).click()
    page.wait_for_function(
        "(name) => new URL(location.href).searchParams.get('benchmark') === name", arg=name, timeout=15000
    )


def column(page, index, body="ranked"):
    cells = page.locator(f"#board-table tbody.{body} tr td:nth-child({index + 1})")
    return [float(v) for v in cells.evaluate_all("cells => cells.map(c => c.dataset.v)")]


def header_index(page, text):
    headers = page.locator("#board-table thead th").all_inner_texts()
    return next(i for i, h in enumerate(headers) if h.startswith(text))


@pytest.mark.parametrize("size", SIZES)
def test_first_ranked_score_is_on_the_first_screen(browser, server, size):
    page = open_page(browser, server, SIZES[size])
    first = page.locator("#board-table tbody.ranked tr").first
    score = first.locator("td.c-agg .v")
    value = float(score.inner_text())  # a number, not a string with decorations
    assert value == pytest.approx(0.828, abs=1e-3)
    viewport = SIZES[size]
    for cell in (first.locator("td.c-rank"), first.locator("td.c-model"), score):
        box = cell.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], (size, box)
        assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"], (size, box)
    assert first.locator("td.c-model").inner_text() == "bm25"
    page.close()


@pytest.mark.parametrize("size", SIZES)
def test_header_click_sorts_numerically_negative_values_included(browser, server, size):
    page = open_page(browser, server, SIZES[size], "?benchmark=Followish")
    index = header_index(page, "Followish")
    assert column(page, index) == [0.31, 0.05, -0.12, -0.45]  # by rank
    page.locator("#board-table thead th").nth(index).click()
    assert column(page, index) == [0.31, 0.05, -0.12, -0.45]  # descending
    page.locator("#board-table thead th").nth(index).click()
    assert column(page, index) == [-0.45, -0.12, 0.05, 0.31]  # ascending: numeric, not "-0.12" < "-0.45"
    texts = page.locator(f"#board-table tbody.ranked td:nth-child({index + 1}) .v").all_inner_texts()
    assert texts == ["-0.4500", "-0.1200", "0.0500", "0.3100"]
    page.close()


def test_selector_changes_table_and_url_and_the_url_restores_it(browser, server):
    page = open_page(browser, server)
    assert "Followish" not in page.locator("#board-table thead").inner_text()
    select_benchmark(page, "Followish")
    page.wait_for_function("() => document.querySelector('#board-table thead').innerText.includes('Followish')")
    page.get_by_role("tab", name="About").click()
    page.wait_for_function("() => new URL(location.href).searchParams.get('tab') === 'about'")
    link = page.url
    assert "benchmark=Followish" in link
    page.close()

    shared = browser.new_page(viewport=DESKTOP)
    shared.goto(link)
    shared.wait_for_selector("#about", timeout=30000)  # the About tab, restored
    assert shared.locator("#benchmark-select input").input_value() == "Followish"
    shared.get_by_role("tab", name="Leaderboard").click()
    shared.wait_for_function("() => document.querySelector('#board-table thead').innerText.includes('Followish')")
    shared.close()


def test_about_names_every_benchmark_paper(browser, server):
    page = open_page(browser, server, query="?tab=about")
    page.wait_for_selector("#about", timeout=30000)
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
    page = open_page(browser, server)
    ranked = page.locator("#board-table tbody.ranked").inner_text()
    unranked = page.locator("#board-table tbody.unranked").inner_text()
    assert "limited-model" not in ranked and "limited-model" in unranked
    assert "partial result only (--limit 5" in unranked
    page.close()


def test_intervals_and_significance_marks_are_shown_and_explained(browser, server):
    page = open_page(browser, server)
    second = page.locator("#board-table tbody.ranked tr").nth(1)
    assert second.locator("td.c-rank").inner_text().strip() == "2 ≈"
    assert re.fullmatch(r"0\.\d{3}–0\.\d{3}", second.locator("td.c-agg .ci").inner_text())
    notes = page.locator("#board-notes").inner_text()
    assert "≈ not significantly different from #1" in notes and "randomization" in notes
    page.close()


def test_hostile_model_name_is_text_and_filters_and_csv_work(browser, server, tmp_path):
    page = open_page(browser, server)
    assert HOSTILE in page.locator("#board-table").inner_text()
    assert page.locator('img[src="x"]').count() == 0 and page.dialogs == []
    page.locator("#filters").get_by_text("Filters and columns").click()
    page.locator("#filter-kind").get_by_label("dense").uncheck()
    page.wait_for_function("() => !document.querySelector('#board-table').innerText.includes('tiny-dense-model')")
    assert "bm25" in page.locator("#board-table").inner_text()
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
    assert "Example topics" in page.locator("#board-table thead").inner_text()
    assert page.locator("#board-table tbody.ranked td.c-model").all_inner_texts() == ["bm25"]
    page.get_by_role("tab", name="Task views").click()
    page.wait_for_selector("text=example-topics: Reciprocal rank per topic", timeout=30000)
    page.wait_for_selector(".view-plot canvas.marks, .view-plot svg.marks", timeout=30000)
    assert "Both metrics" in page.inner_text("body")
    app_source = "".join(p.read_text() for p in (REPO / "leaderboard" / "app").glob("*.py"))
    assert "example-topics" not in app_source and "Example topics" not in app_source
    page.close()


@pytest.mark.parametrize("size", SIZES)
def test_every_tab_is_reachable_and_photographed(browser, server, shots, size):
    page = open_page(browser, server, SIZES[size], "?benchmark=" + urllib.parse.quote("Demo retrieval"))
    page.wait_for_timeout(500)
    page.screenshot(path=str(shots / f"{size}-board-intervals-and-significance.png"))
    select_benchmark(page, "Conditions")
    page.wait_for_function("() => document.querySelector('#board-table thead').innerText.includes('Task 1')")
    for tab, label in TABS.items():
        tab_button = page.get_by_role("tab", name=label)
        assert tab_button.is_visible()  # no tab hides behind a "…" menu
        tab_button.click()
        page.wait_for_function("(t) => new URL(location.href).searchParams.get('tab') === t", arg=tab)
        if tab == "views":
            page.wait_for_selector(".view-plot canvas.marks, .view-plot svg.marks", timeout=30000)
        if tab == "size":
            page.wait_for_selector("#size-plot canvas.marks, #size-plot svg.marks", timeout=30000)
        page.wait_for_timeout(1200)  # charts finish drawing
        page.screenshot(path=str(shots / f"{size}-{tab}.png"), full_page=tab != "board")
    page.close()
