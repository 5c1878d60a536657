"""Links that name ``page``: redirected to the same view with the app's own parameter ``p``.

Gradio reads a ``page`` query parameter on ``/`` and ``/config`` for its multipage routing and
answers a value that names no page of the app with a bare "Internal Server Error" (a KeyError in
``gradio.routes``). The board's pager once wrote ``page=N``, so such links exist: this ASGI
middleware answers them with a redirect (307) to the link with ``page`` renamed ``p`` (``p`` wins
when both are given), before Gradio sees the request.
"""

from __future__ import annotations

import urllib.parse
from typing import Any

from leaderboard.app.url_state import PAGE

GRADIO_PAGE = "page"


def without_gradio_page(query: str) -> str | None:
    """The query with ``page`` renamed to ``p``; None when it names no ``page`` (nothing to do)."""
    pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
    if not any(key == GRADIO_PAGE for key, _ in pairs):
        return None
    has_page = any(key == PAGE for key, _ in pairs)
    kept: list[tuple[str, str]] = []
    for key, value in pairs:
        if key != GRADIO_PAGE:
            kept.append((key, value))
        elif not has_page:
            kept.append((PAGE, value))
            has_page = True
    return urllib.parse.urlencode(kept)


class LegacyPageLinks:
    """ASGI middleware: a GET or HEAD of the page (``/``) whose query names ``page`` is redirected without it."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        root = scope.get("root_path", "").rstrip("/")
        is_page = scope.get("path", "").rstrip("/") in ("", root)
        if scope.get("type") == "http" and scope.get("method") in ("GET", "HEAD") and is_page:
            query = scope.get("query_string", b"").decode("latin-1")
            fixed = without_gradio_page(query) if "page" in query else None
            if fixed is not None:
                # A relative reference ("?..."): the browser keeps the path, behind any proxy prefix.
                location = "?" + fixed
                await send(
                    {
                        "type": "http.response.start",
                        "status": 307,
                        "headers": [(b"location", location.encode("latin-1")), (b"content-length", b"0")],
                    }
                )
                await send({"type": "http.response.body", "body": b""})
                return
        await self.app(scope, receive, send)
