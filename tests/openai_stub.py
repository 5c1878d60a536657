"""A local stand-in for an OpenAI-compatible chat-completions server (no real endpoint is reachable here).

It answers POST /v1/chat/completions with the protocol's JSON shape, replying "yes" when the user
message's passage contains one of ``violating_words`` and "no" otherwise, and records every request
(path, headers, body) so tests can count calls and check what was sent.
"""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any


@dataclass
class StubState:
    violating_words: tuple[str, ...]
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reply(self, body: dict[str, Any]) -> str:
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        passage = user.split("Passage:", 1)[1].split("\n\n", 1)[0].lower()
        return "Yes." if any(word in passage for word in self.violating_words) else "No"


def _handler(state: StubState) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with state.lock:
                state.requests.append(
                    {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body}
                )
            if self.path != "/v1/chat/completions":
                self.send_error(404)
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
            data = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


@contextmanager
def openai_stub(violating_words: tuple[str, ...]) -> Iterator[tuple[str, StubState]]:
    """Yield (base URL ending in /v1, state) for a server on 127.0.0.1 that lives for the block."""
    state = StubState(tuple(w.lower() for w in violating_words))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", state
    finally:
        server.shutdown()
        server.server_close()
