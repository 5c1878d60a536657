"""A local stand-in for an OpenAI-compatible chat-completions server (no real endpoint is reachable here).

It answers POST /v1/chat/completions with the protocol's JSON shape, replying "yes" when the user
message's passage contains one of ``violating_words`` and "no" otherwise, and records every request
(path, headers, body) so tests can count calls and check what was sent.

``state.mode`` makes it hostile (tests switch it while the server runs):

* ``"ok"``: the protocol's reply (default);
* ``"echo_auth_500"``: HTTP 500 whose body echoes the request's Authorization header;
* ``"hang"``: reads the request and never answers (until the server shuts down);
* ``"huge"``: a 100 MiB body, streamed without Content-Length;
* ``"garbage"``, ``"html"``, ``"wrong_shape"``: a 200 reply that is not the protocol's JSON;
* ``"maybe"``: the protocol's shape, answering "Maybe" (no label);
* ``"slow"``: the protocol's reply after ``state.delay`` seconds (a live but slow server).
"""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

MODES = ("ok", "echo_auth_500", "hang", "huge", "garbage", "html", "wrong_shape", "maybe", "slow")


@dataclass
class StubState:
    violating_words: tuple[str, ...]
    mode: str = "ok"
    delay: float = 0.0  # seconds before each reply in "slow" mode
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stop: threading.Event = field(default_factory=threading.Event)

    def reply(self, body: dict[str, Any]) -> str:
        if self.mode == "maybe":
            return "Maybe"
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        passage = user.split("Passage:", 1)[1].split("\n\n", 1)[0].lower()
        return "Yes." if any(word in passage for word in self.violating_words) else "No"


def _handler(state: StubState) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def _send(self, status: int, data: bytes, content_type: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with state.lock:
                state.requests.append(
                    {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body}
                )
            if self.path != "/v1/chat/completions":
                self.send_error(404)
                return
            mode = state.mode
            if mode == "hang":
                state.stop.wait()
                return
            if mode == "slow":
                state.stop.wait(state.delay)
            if mode == "echo_auth_500":
                echo = {"error": {"message": f"upstream failed for Authorization: {self.headers['Authorization']}"}}
                self._send(500, json.dumps(echo).encode())
                return
            if mode == "huge":
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                chunk = b" " * 2**20
                try:
                    for _ in range(100):  # 100 MiB of whitespace before any JSON
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.write(b"0\r\n\r\n")
                except OSError:
                    pass  # the client stopped reading, as it should
                return
            if mode == "garbage":
                self._send(200, b'{"choices": [{"message": {"content": "yes"')
                return
            if mode == "html":
                self._send(200, b"<html><body><h1>502 Bad Gateway</h1></body></html>", "text/html")
                return
            if mode == "wrong_shape":
                self._send(200, json.dumps({"choices": {"text": "yes"}}).encode())
                return
            payload = {
                "id": f"chatcmpl-{len(state.requests)}",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": state.reply(body)},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
            self._send(200, json.dumps(payload).encode())

    return Handler


@contextmanager
def openai_stub(violating_words: tuple[str, ...], mode: str = "ok") -> Iterator[tuple[str, StubState]]:
    """Yield (base URL ending in /v1, state) for a server on 127.0.0.1 that lives for the block."""
    assert mode in MODES, mode
    state = StubState(tuple(w.lower() for w in violating_words), mode)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", state
    finally:
        state.stop.set()  # release any hanging handler
        server.shutdown()
        server.server_close()
