"""Readers first: the server's background work waits while a reader's request or event is being served.

After a start the server precomputes rankings, charts and comparisons (``live``'s warm-up), and after
each page the next one (``prefetch``). That work is Python, so it shares the interpreter's lock with
whatever a reader asked for: on a large board, a page opened during the warm-up waited for it (the
measurements are in docs/development/perf.md). Each request (``ReadersFirst``, an ASGI middleware; the
event streams that stay open are not requests being served) and each event (``serve_events``) counts
as served; the background calls ``wait_for_readers`` between its steps, which returns once nothing has
been served for ``QUIET`` seconds (a page load is a dozen requests with pauses between them, while the
browser reads what came). A step under way is not interrupted, and the background waits at most
``MAX_WAIT`` seconds at a time, so a busy board still gets its rankings computed.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

MAX_WAIT = 5.0  # seconds the background yields at a time, however many readers keep coming
QUIET = 0.5  # seconds without a request or event before the background goes on
STREAMS = ("/queue/data", "/heartbeat/")  # Gradio's long-lived event streams (open while a page is)
_state = threading.Condition()
_serving = 0
_last = float("-inf")  # time.monotonic() when the last request or event was served


@contextlib.contextmanager
def serving() -> Iterator[None]:
    """A reader's request or event is being served meanwhile."""
    global _serving, _last
    with _state:
        _serving += 1
    try:
        yield
    finally:
        with _state:
            _serving -= 1
            _last = time.monotonic()
            _state.notify_all()


def busy() -> bool:
    return _serving > 0


def wait_for_readers(limit: float = MAX_WAIT) -> None:
    """Return once no reader has been served for ``QUIET`` seconds (or after ``limit`` seconds): called by
    background work between its steps."""
    end = time.monotonic() + limit
    with _state:
        while (now := time.monotonic()) < end:
            quiet_from = _last + QUIET
            if _serving == 0 and now >= quiet_from:
                return
            _state.wait(min(end, quiet_from if _serving == 0 else end) - now)


class ReadersFirst:
    """ASGI middleware: every HTTP request but Gradio's event streams counts as served while it runs."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        path = str(scope.get("path", ""))
        if scope.get("type") != "http" or any(stream in path for stream in STREAMS):
            await self.app(scope, receive, send)
            return
        with serving():
            await self.app(scope, receive, send)


def serve_events(app: Any) -> bool:
    """Count each event the Gradio app processes as served (its ``process_api``, which runs every event's
    function and output processing). False where this Gradio has no such method: events then do not count."""
    original = getattr(app, "process_api", None)
    if original is None or not callable(original):
        return False

    async def process_api(*args: Any, **kwargs: Any) -> Any:
        with serving():
            return await original(*args, **kwargs)

    app.process_api = process_api
    return True
