"""The server says when its own background work is done (``leaderboard.app.background``): the perf tools wait
for that, not for the server's CPU to drop (an idle Gradio server still polls its queue)."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
import urllib.request

import pytest

from leaderboard.app.server import background, foreground, live, prefetch


def _until(condition, what: str, bound: float = 120.0) -> None:
    """Wait for a state of another thread; ``bound`` only ends a failure."""
    end = time.monotonic() + bound
    while not condition():
        assert time.monotonic() < end, f"never reached: {what}"
        time.sleep(0.01)


def test_work_is_named_while_it_runs():
    assert background.state() == {"idle": True, "running": []}
    with background.working("warm-up"), background.working("warm-up"):
        background.begin("next page ahead")
        assert background.state() == {"idle": False, "running": ["next page ahead", "warm-up"]}
        background.end("next page ahead")
    assert background.state()["idle"]


def _ask(path: str) -> tuple[list[dict], list[bool]]:
    sent, passed = [], []

    async def app(scope, receive, send):
        passed.append(foreground.busy())

    async def send(message):
        sent.append(message)

    asyncio.run(foreground_first(app)({"type": "http", "path": path, "method": "GET"}, None, send))
    return sent, passed


def foreground_first(app):
    """The middleware as ``ui.launch`` stacks it: BackgroundState outside ReadersFirst."""
    return background.BackgroundState(foreground.ReadersFirst(app))


def test_the_endpoint_answers_the_state_and_is_not_a_readers_request():
    with background.working("warm-up"):
        sent, passed = _ask(background.PATH)
    assert passed == []  # answered before ReadersFirst: asking never makes the background wait
    assert sent[0]["status"] == 200 and (b"content-type", b"application/json") in sent[0]["headers"]
    assert json.loads(sent[1]["body"]) == {"idle": False, "running": ["warm-up"]}
    sent, passed = _ask("/")
    assert sent == [] and passed == [True]  # any other request goes on to the app, as a reader's


def test_a_warm_up_counts_from_before_its_thread_starts_until_it_ends(monkeypatch):
    release = threading.Event()
    monkeypatch.setattr(live, "_warm_steps", lambda board, warmers: release.wait(120))
    board = live.LiveBoard.__new__(live.LiveBoard)  # only _ready's bookkeeping is under test
    board.warming, board.warmers = True, []
    board._ready(object())
    assert background.state()["running"] == ["warm-up"]  # at once: no idle moment before the thread runs
    release.set()
    _until(lambda: background.state()["idle"], "the warm-up's end")


def test_the_next_page_ahead_counts_until_nothing_more_is_asked(monkeypatch):
    from leaderboard.app.data import page_statistics

    release = threading.Event()
    computed = []
    monkeypatch.setattr(foreground, "QUIET", 0.0)
    monkeypatch.setattr(
        page_statistics, "with_statistics", lambda board, ranking, lines: (release.wait(120), computed.append(lines))
    )
    prefetch.ahead("board", "ranking", ["row 1"])
    assert background.state()["running"] == ["next page ahead"]
    prefetch.ahead("board", "ranking", ["row 2"])  # asked again meanwhile: still one piece of work
    release.set()
    _until(lambda: background.state()["idle"], "the pages ahead computed")
    assert computed[-1] == ["row 2"]


def test_the_server_is_marked_busy_from_listening_until_its_warm_up_runs():
    from leaderboard.app import ui

    seen = {}

    class App:
        launched: dict = {}
        live_board = None

        def launch(self, **kwargs):
            self.launched = kwargs
            seen["during launch"] = background.state()["running"]

        def block_thread(self):
            seen["after"] = background.state()["running"]

    app = App()
    ui.launch(app)
    assert seen == {"during launch": ["start"], "after": []}
    middleware = [m.cls for m in app.launched["app_kwargs"]["middleware"]]
    assert middleware.index(background.BackgroundState) < middleware.index(foreground.ReadersFirst)


@pytest.mark.slow
def test_a_real_server_reports_its_warm_up_done(tmp_path):
    """``leaderboard serve`` over real results: the endpoint answers, and reports idle once the warm-up is over."""
    import shutil
    from pathlib import Path

    from browser_helpers import serve_results

    root = tmp_path / "results"
    for path in sorted((Path(__file__).resolve().parents[1] / "submissions").glob("bm25*/results/**/*.json")):
        target = root / path.parent.name / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "HF_HUB_OFFLINE": "1"}
    with serve_results(root, env) as url:
        answers = []

        def idle() -> bool:
            with urllib.request.urlopen(url.rstrip("/") + background.PATH, timeout=30) as answer:
                answers.append(json.load(answer))
            return answers[-1]["idle"]

        _until(idle, "the server's warm-up done", bound=600)
    assert all(set(a) == {"idle", "running"} for a in answers)
    assert all(set(a["running"]) <= {"start", "warm-up", "next page ahead"} for a in answers)
