"""Links the app cannot take as they are, mended before Gradio sees them: ``page`` and over-long queries.

Gradio reads a ``page`` query parameter on ``/`` and ``/config`` for its multipage routing and
answers a value that names no page of the app with a bare "Internal Server Error" (a KeyError in
``gradio.routes``). Links with ``page=N`` exist (an earlier pager wrote them): this ASGI
middleware answers them with a redirect (307) to the link with ``page`` renamed ``p`` (``p`` wins
when both are given), before Gradio sees the request.

A query string over 64 kB makes Gradio's page route fail (httpx refuses the URL it builds: a bare
500) before the app's own limit applies; the app reads at most ``url_state.MAX_QUERY`` characters
anyway. So a longer query is trimmed as ``url_state.trim`` does (the page's request redirected to the
trimmed link, any other request's trimmed in place).
"""

from __future__ import annotations

import urllib.parse
from typing import Any

from leaderboard.app.data.url_state import MAX_QUERY, PAGE, trim

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


def repaired(query: str) -> str | None:
    """The query as the app takes it (``page`` renamed ``p``, trimmed to ``MAX_QUERY``); None when it is already."""
    fixed = trim(query)
    if "page" in fixed:
        fixed = without_gradio_page(fixed) or fixed
    return None if fixed == query else fixed


REQUEST_HEAD_LIMIT = 4 * 2**20  # bytes of a request's line and headers uvicorn's h11 parser may wait for


def accept_long_links(limit: int = REQUEST_HEAD_LIMIT) -> None:
    """Let uvicorn read a long request head whole, so that this middleware, not the parser, answers it.

    uvicorn's default HTTP parser (h11) refuses a request whose line and headers are not complete
    within 16 KiB of what it has read ("400 Invalid HTTP request received"). A 100 kB link that
    arrives in one read passes, and the same link split over reads (a busy server, a proxy) does not,
    so such a link failed now and then. uvicorn has a setting for this, ``h11_max_incomplete_event_size``,
    but Gradio builds uvicorn's ``Config`` itself and passes no such setting. So the module default
    that uvicorn falls back on is raised before the server starts. (httptools, uvicorn's other parser,
    is not installed by the ``app`` extra.)
    """
    try:
        from uvicorn.protocols.http import h11_impl
    except ImportError:  # no h11 parser: nothing to raise
        return
    default = "DEFAULT_MAX_INCOMPLETE_EVENT_SIZE"  # a module default uvicorn does not export: set by its name
    setattr(h11_impl, default, max(getattr(h11_impl, default), limit))


class LegacyPageLinks:
    """ASGI middleware: a link the app cannot take as it is, mended before Gradio sees it.

    A GET or HEAD of the page (``/``) whose query names ``page`` or is longer than ``MAX_QUERY`` is
    redirected to the mended link (the browser's address then holds what the app shows); any other
    request with an over-long query has it trimmed in place (Gradio's routes build URLs from it, and
    httpx refuses one over 64 kB: a 500).
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        raw = scope.get("query_string", b"")
        root = scope.get("root_path", "").rstrip("/")
        is_page = scope.get("path", "").rstrip("/") in ("", root) and scope.get("method") in ("GET", "HEAD")
        if is_page and (b"page" in raw or len(raw) > MAX_QUERY):
            fixed = repaired(raw.decode("latin-1"))
            if fixed is not None:
                # A relative reference ("?..."): the browser keeps the path, behind any proxy prefix.
                await send(
                    {
                        "type": "http.response.start",
                        "status": 307,
                        "headers": [(b"location", ("?" + fixed).encode("latin-1")), (b"content-length", b"0")],
                    }
                )
                await send({"type": "http.response.body", "body": b""})
                return
        elif len(raw) > MAX_QUERY:
            scope = {**scope, "query_string": trim(raw.decode("latin-1")).encode("latin-1")}
        await self.app(scope, receive, send)
