"""The evaluation queue through the Space, in Chromium: a model author submits in the Submit tab, a worker
evaluates the plugin (a wheel in a local index) on local NegConstraint data, the model appears on the
board and the Queue shows the request finished (and another author's failing plugin failed, with the
reason). The Space is space/app.py itself, served against the stand-in hub with a results dataset (a
bm25 baseline) and a requests dataset; its write token is a server-side secret that never reaches the
browser. Screenshots go to a temporary folder, and to docs/screenshots/ only with
LEADERBOARD_UPDATE_SCREENSHOTS=1.
"""

import subprocess
import sys
import urllib.request

import pytest
from app_fixtures import write_negconstraint
from browser_helpers import (
    DESKTOP,
    chromium,
    chromium_missing,
    free_port,
    new_page,
    publish_screenshots,
    settle,
    wait_until_served,
)
from conftest import HUB_TOKEN, REPO, run_cli
from hub_server import HubServer
from playwright.sync_api import expect
from queue_fixtures import BENCHMARK, REQUESTS, RESULTS, WORD_OVERLAP, build_wheel, hostile_plugin, hub_env

from leaderboard.queue.dataset import RequestsDataset
from leaderboard.queue.sandbox import bwrap_available

pytestmark = [
    pytest.mark.browser,
    pytest.mark.venv,  # the queue installs each plugin into a fresh venv in its sandbox
    pytest.mark.usefixtures("hub_online"),
    pytest.mark.skipif(chromium_missing(), reason="Debian's chromium is not installed (.ci/run installs it)"),
    pytest.mark.skipif(not bwrap_available(), reason="bubblewrap cannot run here (.ci/run installs it)"),
]


def baseline(hub, work):
    """bm25 on the local NegConstraint data, pushed with the benchmark declarations, as a maintainer would."""
    import leaderboard
    from leaderboard.hub.store import HubStore, collect
    from leaderboard.registry import get_registry

    leaderboard.evaluate(
        ["bm25"], ["negconstraint"], output=work / "baseline", data_dirs={"negconstraint": str(work / "data")}
    )
    declaration = get_registry().entries["benchmark"][BENCHMARK].factory().to_json()
    HubStore(RESULTS, hub.endpoint, HUB_TOKEN).push(
        collect(work / "baseline", [declaration]), "baseline", flat_table=True
    )
    RequestsDataset(REQUESTS, hub.endpoint, HUB_TOKEN).ensure_exists()


def serve_space(hub, work, wheels):
    port = free_port()
    env = hub_env(hub.endpoint) | {
        "RESULTS_REPO": RESULTS,
        "REQUESTS_REPO": REQUESTS,
        "LEADERBOARD_POLL_SECONDS": "2",
        "GRADIO_SERVER_NAME": "127.0.0.1",
        "GRADIO_SERVER_PORT": str(port),
        "XDG_CACHE_HOME": str(work / "space-cache"),
        "HF_HOME": str(work / "space-hf-home"),
        "PIP_NO_INDEX": "1",  # the submit check asks pip; pip reads its index from its own variables
        "PIP_FIND_LINKS": str(wheels),
    }
    proc = subprocess.Popen(
        [sys.executable, str(REPO / "space" / "app.py")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        env=env, cwd=work,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/"
    try:
        wait_until_served(url, proc)
    except RuntimeError:
        proc.kill()
        raise
    return proc, url


@pytest.fixture
def shots(tmp_path):
    folder = tmp_path / "screenshots"
    folder.mkdir()
    yield folder
    publish_screenshots(folder, REPO / "docs" / "screenshots")


def test_submit_in_the_space_then_a_worker_evaluates_it_and_the_board_and_queue_show_it(tmp_path, shots):
    wheels = tmp_path / "wheels"
    build_wheel(tmp_path / "src", wheels, "leaderboard-word-overlap", "leaderboard_word_overlap", WORD_OVERLAP, "0.3.0")
    build_wheel(tmp_path / "src", wheels, "leaderboard-quitter", "leaderboard_quitter",
                hostile_plugin("quitter", "import sys\nsys.exit(3)"), "1.0.0")  # fmt: skip
    write_negconstraint(tmp_path / "data")
    with HubServer() as hub:
        baseline(hub, tmp_path)
        space, url = serve_space(hub, tmp_path, wheels)
        try:
            with chromium() as browser:
                page = new_page(browser, DESKTOP)
                page.goto(url + "?benchmark=" + BENCHMARK)
                page.wait_for_selector("#board-table tbody.ranked tr")
                assert "word-overlap" not in page.locator("#board-table").inner_text()

                page.get_by_role("tab", name="Submit").click()
                page.locator("#submit-plugin textarea, #submit-plugin input").first.fill(
                    "leaderboard-word-overlap==0.3.0"
                )
                page.locator("#submit-model textarea, #submit-model input").first.fill("word-overlap")
                page.locator("#submit-benchmarks").get_by_label(BENCHMARK).check()
                page.locator("#submit-contact textarea, #submit-contact input").first.fill("author@example.org")
                page.locator("#submit-button").click()
                page.wait_for_selector("#submit-answer")
                answer = page.locator("#submit-answer").inner_text()
                assert answer.startswith("Submitted: request "), answer
                settle(page)
                page.screenshot(path=str(shots / "queue-1-submitted.png"), full_page=True)
                (request_id,) = RequestsDataset(REQUESTS, hub.endpoint, HUB_TOKEN).snapshot().requests
                assert request_id in answer

                page.get_by_role("tab", name="Queue").click()
                page.wait_for_selector("#queue-table tbody.queue-pending")
                assert "word-overlap" in page.locator("#queue-table").inner_text()
                settle(page)
                page.screenshot(path=str(shots / "queue-2-pending.png"), full_page=True)

                # A second author's plugin exits in its search: its request fails, with the reason shown.
                quitter = run_cli(
                    "submit", "--plugin", "leaderboard-quitter==1.0.0", "--model", "quitter", "--benchmark", BENCHMARK,
                    "--contact", "other@example.org", "--requests", REQUESTS, "--find-links", str(wheels),
                    env=hub_env(hub.endpoint),
                )  # fmt: skip
                assert quitter.returncode == 0, quitter.stderr
                outputs = ""
                for _ in range(2):
                    worker = run_cli(
                        "worker", "--requests", REQUESTS, "--results", RESULTS, "--once",
                        "--data-dir", f"negconstraint={tmp_path / 'data'}",
                        "--pip-arg=--no-index", f"--pip-arg=--find-links={wheels}",
                        env=hub_env(hub.endpoint),
                    )  # fmt: skip
                    assert worker.returncode == 0, worker.stdout + worker.stderr
                    outputs += worker.stdout + worker.stderr
                assert f"{request_id} finished" in outputs

                # The open Queue tab follows the requests dataset with the board's poll: no reload.
                page.wait_for_selector("#queue-table tbody.queue-finished")
                page.wait_for_selector("#queue-table tbody.queue-failed")
                finished = page.locator("#queue-table tbody.queue-finished").inner_text()
                assert "word-overlap" in finished and "1 result(s)" in finished
                failed = page.locator("#queue-table tbody.queue-failed").inner_text()
                assert "quitter" in failed and "plugin or library code called sys.exit(3)" in failed
                settle(page)
                page.screenshot(path=str(shots / "queue-3-finished.png"), full_page=True)

                page.get_by_role("tab", name="Leaderboard").click()
                expect(page.locator("#board-table")).to_contain_text("word-overlap")
                models = page.locator("#board-table tbody.ranked td.c-model a.to-model").all_inner_texts()
                assert {m.strip() for m in models} >= {"bm25", "word-overlap"}, models
                settle(page)
                page.screenshot(path=str(shots / "queue-4-on-the-board.png"))

                # The write token is a server-side secret: not in the page, nor in the config the browser loads.
                config = urllib.request.urlopen(url + "config", timeout=30).read().decode()
                assert HUB_TOKEN not in page.content() and HUB_TOKEN not in config
                assert "author@example.org" not in page.locator("#queue-table").inner_text()  # contacts stay private
        finally:
            space.terminate()
            output = space.communicate(timeout=30)[0].decode()
    assert HUB_TOKEN not in output + outputs
