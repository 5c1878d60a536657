"""The leaderboard app in a real browser: Debian's Chromium driven by Playwright.

Saves a screenshot of each tab under test-artifacts/screenshots/.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from app_fixtures import HOSTILE, build_results
from conftest import REPO

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SHOTS = REPO / "test-artifacts" / "screenshots"
pytestmark = pytest.mark.skipif(
    not os.path.exists(CHROMIUM), reason="Debian's chromium is not installed (.ci/run installs it)"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = build_results(tmp_path_factory.mktemp("served"))
    port = free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "leaderboard", "serve", "--results", str(root), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
    )
    url = f"http://127.0.0.1:{port}/"
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2)
            break
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(proc.stdout.read().decode())
            time.sleep(0.5)
    else:
        proc.kill()
        raise RuntimeError("the app did not start within 90 s")
    yield url, root
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture(scope="module")
def page(server):
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--disable-quic",
            ],
        )
        page = browser.new_page(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
        page.dialogs = []
        page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
        page.goto(server[0], wait_until="networkidle")
        page.wait_for_selector("#overview-table")
        yield page
        browser.close()


def table_text(page, selector="#overview-table"):
    return page.locator(selector).inner_text()


def test_overview_shows_models_and_scores(page, server):
    _, root = server
    demo = json.loads(next((root / "bm25").rglob("demo.json")).read_text())
    text = table_text(page)
    assert "bm25" in text and "tiny-dense-model" in text
    assert f"{demo['main_score']:.4f}" in text  # the Demo column shows bm25's nDCG@10
    page.screenshot(path=str(SHOTS / "overview.png"), full_page=True)


def test_hostile_model_name_renders_as_text(page):
    assert HOSTILE in table_text(page)
    assert page.locator('#overview-table img[src="x"]').count() == 0
    assert page.locator('img[src="x"]').count() == 0
    assert page.dialogs == []  # no script ran


def test_kind_filter_removes_a_model(page):
    page.locator("#filter-kind").get_by_label("dense").uncheck()
    page.wait_for_function(
        "() => !document.querySelector('#overview-table').innerText.includes('tiny-dense-model')", timeout=15000
    )
    assert "bm25" in table_text(page) and HOSTILE not in table_text(page)
    page.screenshot(path=str(SHOTS / "overview-filtered.png"), full_page=True)
    page.locator("#filter-kind").get_by_label("dense").check()
    page.wait_for_function(
        "() => document.querySelector('#overview-table').innerText.includes('tiny-dense-model')", timeout=15000
    )


def test_search_and_csv_download(page, tmp_path):
    page.locator("#filter-search textarea, #filter-search input").first.fill("tiny")
    page.wait_for_function("() => !document.querySelector('#overview-table').innerText.includes('bm25')", timeout=15000)
    with page.expect_download() as download:
        page.locator("#download-csv").click()
    target = tmp_path / "view.csv"
    download.value.save_as(target)
    content = target.read_text()
    assert "tiny-dense-model" in content and "bm25" not in content
    page.locator("#filter-search textarea, #filter-search input").first.fill("")
    page.wait_for_function("() => document.querySelector('#overview-table').innerText.includes('bm25')", timeout=15000)


def test_multiconir_tab_shows_the_chart(page):
    page.get_by_role("tab", name="MultiConIR").click()
    page.wait_for_selector("#wr-plot canvas, #wr-plot svg", timeout=20000)
    assert page.locator("#wr-plot canvas, #wr-plot svg").count() > 0
    assert "Books" in page.locator("#flip-table").inner_text()
    page.screenshot(path=str(SHOTS / "multiconir.png"), full_page=True)


@pytest.mark.parametrize(
    "tab, selector",
    [
        ("ComLQ", "#comlq-types"),
        ("Instruction following", "#instruction-table"),
        ("Provenance", "#provenance-table"),
        ("Skipped (2)", "#skipped-table"),
    ],
)
def test_other_tabs(page, tab, selector):
    page.get_by_role("tab", name=tab).click()
    page.wait_for_selector(selector, state="visible", timeout=15000)
    if tab.startswith("Skipped"):
        text = page.locator(selector).inner_text()
        assert "broken.json" in text and "future.json" in text and "unknown schema_version" in text
    if tab == "Provenance":
        assert "sha256:" in page.locator(selector).inner_text()
    page.screenshot(path=str(SHOTS / f"{tab.split(' ')[0].lower()}.png"), full_page=True)
