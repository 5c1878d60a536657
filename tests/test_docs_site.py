"""The documentation site as a reader gets it: `mkdocs build --strict`, served from the built folder, opened
in Chromium. Screenshots of the home page and a tutorial go to docs/screenshots/ with
LEADERBOARD_UPDATE_SCREENSHOTS=1 (site-home.png, site-tutorial.png)."""

from __future__ import annotations

import functools
import html
import http.server
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from browser_helpers import DESKTOP, chromium, chromium_missing, new_page, publish_screenshots
from conftest import REPO
from playwright.sync_api import expect

needs_chromium = pytest.mark.skipif(
    chromium_missing(), reason="Debian's chromium is not installed (apt-get install chromium)"
)
ISSUE_NUMBER = re.compile(r"\b[Ii]ssues? #?\d+|#\d{2,}\b(?! of \d)")  # "#11 of 167" is a rank, not an issue


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin"},
        timeout=600,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    return out


@pytest.fixture(scope="module")
def served(site) -> str:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format, *args):  # one line per file would bury a failure's message
            pass

    handler = functools.partial(Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


def test_the_site_builds_every_section(site):
    for page in ("index.html", "tutorials/evaluate-your-model/index.html", "reference/cli/index.html"):
        assert (site / page).is_file(), page
    cli = (site / "reference" / "cli" / "index.html").read_text()
    assert "--batch-size" in cli and "leaderboard run" in cli  # mkdocs-click rendered the commands
    api = (site / "reference" / "python-api" / "index.html").read_text()
    assert 'id="leaderboard.evaluate"' in api  # mkdocstrings rendered the API
    assert not (site / "checks").exists()  # docs/checks holds scripts, not pages


def _text(page: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text("utf-8")))


def test_the_api_reference_names_the_public_api_with_a_parameter_table_per_function(site):
    page = site / "reference" / "python-api" / "index.html"
    text = _text(page)
    for call in ("leaderboard.evaluate(", "leaderboard.Pipeline(", "leaderboard.per_query_frame("):
        assert call in text, f"the Python API page does not show {call}"
    assert "leaderboard.engine" not in text  # no module path a user does not import from
    evaluate = page.read_text("utf-8").split('id="leaderboard.evaluate"', 1)[1].split('id="leaderboard.Pipeline"', 1)[0]
    table = _text_of(evaluate.split("<table", 1)[1].split("</table>", 1)[0])
    assert "Parameters:" in _text_of(evaluate) and all(name in table for name in ("models", "tasks", "output"))
    contract = _text(site / "reference" / "plugin-contract" / "index.html")
    assert "leaderboard.DenseModel" in contract and "leaderboard.RetrievalTask" in contract


def _text_of(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", fragment))


def test_the_site_holds_no_issue_number_and_no_working_notes(site):
    found = []
    for page in sorted(site.rglob("*.html")):
        name = page.relative_to(site).as_posix()
        assert not re.search(r"\d+[a-z]*-notes|-notes/", name), f"a working-notes page is built: {name}"
        found += [f"{name}: {m.group()!r}" for m in ISSUE_NUMBER.finditer(_text(page))]
    assert not found, "\n".join(found)


@pytest.mark.browser
def test_home_page_and_a_tutorial_in_chromium(served, tmp_path):
    requests_outside: list[str] = []
    with chromium() as browser:
        page = new_page(browser, DESKTOP)
        page.on("request", lambda r: r.url.startswith(served) or requests_outside.append(r.url))
        page.goto(served)
        expect(page.locator("h1")).to_contain_text("retrieval-leaderboard")
        expect(page.locator("img[alt='The board on ComLQ']")).to_be_visible()
        page.wait_for_function("() => [...document.images].every(i => i.complete && i.naturalWidth > 0)")
        page.screenshot(path=tmp_path / "site-home.png")

        page.get_by_role("link", name="Evaluate your model").first.click()
        expect(page.locator("h1")).to_contain_text("Evaluate your model in ten minutes")
        expect(page.locator("pre code").first).to_be_visible()
        page.screenshot(path=tmp_path / "site-tutorial.png")
    assert not requests_outside, f"the site fetched from outside: {requests_outside}"  # offline
    publish_screenshots(tmp_path, REPO / "docs" / "screenshots")
