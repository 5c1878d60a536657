"""Whether the server's own background work is running: the warm-up after a start and the next page ahead.

A tool that times a reader's clicks (``perf/perf_app.py``) must start each click on a server that has
finished that work. The server's CPU cannot tell: an idle Gradio server still polls its queue, so its
CPU never drops to nothing. The work itself knows when it runs, so it says so here,
and ``BackgroundState`` answers ``GET /_leaderboard/background`` with ``{"idle": ..., "running": [...]}``
before any other middleware, so asking is not a reader's request that the work would give way to.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections import Counter
from collections.abc import Iterator
from typing import Any

PATH = "/_leaderboard/background"
_lock = threading.Lock()
_running: Counter[str] = Counter()


def begin(name: str) -> None:
    """Background work ``name`` starts (or is asked for); each ``begin`` is matched by one ``end``."""
    with _lock:
        _running[name] += 1


def end(name: str) -> None:
    with _lock:
        _running[name] -= 1
        if _running[name] <= 0:
            del _running[name]


@contextlib.contextmanager
def working(name: str) -> Iterator[None]:
    begin(name)
    try:
        yield
    finally:
        end(name)


def state() -> dict[str, Any]:
    """``{"idle": True}`` when no background work runs or waits; ``running``: the names of what does."""
    with _lock:
        running = sorted(_running)
    return {"idle": not running, "running": running}


class BackgroundState:
    """ASGI middleware: ``GET /_leaderboard/background`` answers ``state()`` as JSON; everything else passes."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or scope.get("path") != PATH:
            await self.app(scope, receive, send)
            return
        body = json.dumps(state()).encode()
        headers = [(b"content-type", b"application/json"), (b"cache-control", b"no-store")]
        headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})
