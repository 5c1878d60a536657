"""Readers first (``leaderboard.app.foreground``): the server's background work waits while a reader is served."""

import asyncio
import threading

import pytest

from leaderboard.app.server import foreground


@pytest.fixture(autouse=True)
def quick(monkeypatch):
    monkeypatch.setattr(foreground, "QUIET", 0.05)


def _waiter():
    done = threading.Event()
    thread = threading.Thread(target=lambda: (foreground.wait_for_readers(limit=120), done.set()), daemon=True)
    thread.start()
    return done


def test_background_work_waits_while_a_reader_is_served_and_goes_on_after():
    with foreground.serving():
        done = _waiter()
        assert not done.wait(0.5)  # never before the reader is served (the limit is 120 s)
    assert done.wait(120)
    foreground.wait_for_readers(limit=120)  # nobody served: returns (after the quiet pause at most)


def test_background_work_waits_at_most_its_limit_however_busy_the_board():
    with foreground.serving():
        foreground.wait_for_readers(limit=0.1)  # returns: the background still gets its turn


def _served_during(scope):
    seen = []

    async def app(scope, receive, send):
        seen.append(foreground.busy())

    asyncio.run(foreground.ReadersFirst(app)(scope, None, None))
    return seen


def test_each_request_counts_as_served_but_not_the_event_streams_a_page_keeps_open():
    assert _served_during({"type": "http", "path": "/gradio_api/queue/join"}) == [True]
    assert _served_during({"type": "http", "path": "/"}) == [True]
    assert _served_during({"type": "http", "path": "/gradio_api/queue/data"}) == [False]
    assert _served_during({"type": "http", "path": "/gradio_api/heartbeat/abc"}) == [False]
    assert _served_during({"type": "lifespan"}) == [False]
    assert not foreground.busy()


def test_each_event_counts_as_served():
    class Blocks:
        async def process_api(self, *args, **kwargs):
            return foreground.busy()

    blocks = Blocks()
    assert foreground.serve_events(blocks)
    assert asyncio.run(blocks.process_api(1, inputs=[])) is True
    assert not foreground.busy()
    assert foreground.serve_events(object()) is False  # a Gradio without it: events do not count, nothing breaks


def test_the_app_is_served_with_readers_first():
    """``ui.launch`` installs both on the app it serves."""
    from leaderboard.app import ui

    class App:
        launched: dict = {}

        async def process_api(self, *args, **kwargs):
            return foreground.busy()

        def launch(self, **kwargs):
            self.launched = kwargs

        def block_thread(self):
            pass

    app = App()
    ui.launch(app)
    middleware = [m.cls for m in app.launched["app_kwargs"]["middleware"]]
    assert foreground.ReadersFirst in middleware
    assert asyncio.run(app.process_api()) is True
