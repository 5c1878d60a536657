"""An LLM violation judge over any OpenAI-compatible chat-completions endpoint (registered as ``llm:<model>``).

    LEADERBOARD_JUDGE_ENDPOINT=http://localhost:8000/v1 leaderboard run -m bm25 -t comlq \\
        --task-option judge=llm:Qwen/Qwen2.5-7B-Instruct

vLLM, Ollama (``http://localhost:11434/v1``), llama.cpp's server and hosted APIs all speak this
protocol. The key comes from ``OPENAI_API_KEY`` (local servers need none) and is never recorded or
printed: every error text passes through the toolkit's ``redact``. Every item is one chat completion at
temperature 0 with the prompt below; the reply's first word decides (yes: violates, no: does not,
anything else: no label, which the judgment store asks again on the next run). The endpoint,
model, prompt, its sha256, the temperature and the limits below are recorded in the result.

Limits (environment variables; recorded in the result's ``task_details.judge``):

* ``LEADERBOARD_JUDGE_TIMEOUT``: seconds one request may take (default 60);
* ``LEADERBOARD_JUDGE_IDLE``: seconds the run waits without any answer (from its first request, or
  since the last answer) before it stops (default 50): an endpoint that never answers ends a run
  within a minute (50 s and the time to stop the threads), whatever the number of items, threads and
  retries; a live one only has to answer something every 50 s;
* ``LEADERBOARD_JUDGE_DEADLINE``: seconds all of a run's requests may take together (default 3600);
* ``LEADERBOARD_JUDGE_RETRIES``: retries of a failed request (connection, timeout, 429, 5xx; default 2);
* ``LEADERBOARD_JUDGE_MAX_REPLY_BYTES``: the largest reply read (default 1 MiB; a reply is a few hundred bytes).

A reply that is not the protocol's JSON (garbage, an HTML page, the wrong shape, too large) is bad
input naming the endpoint and the item (exit 2).

The ``openai`` client is used (extra ``judge``) for the protocol: request building, headers and its
error types. Retries are ours (a short loop below) because each attempt must fit in what is left of
the run's deadline, which the client's own retry loop cannot know.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from leaderboard import BadInput
from leaderboard.contract.judge import Judge, JudgeItem, JudgeRequest, JudgeUnavailable
from leaderboard.toolkit import redact

ENDPOINT_ENV = "LEADERBOARD_JUDGE_ENDPOINT"
KEY_ENV = "OPENAI_API_KEY"
TIMEOUT_ENV = "LEADERBOARD_JUDGE_TIMEOUT"
DEADLINE_ENV = "LEADERBOARD_JUDGE_DEADLINE"
IDLE_ENV = "LEADERBOARD_JUDGE_IDLE"
RETRIES_ENV = "LEADERBOARD_JUDGE_RETRIES"
MAX_REPLY_ENV = "LEADERBOARD_JUDGE_MAX_REPLY_BYTES"
DEFAULTS = {TIMEOUT_ENV: 60.0, IDLE_ENV: 50.0, DEADLINE_ENV: 3600.0, RETRIES_ENV: 2, MAX_REPLY_ENV: 2**20}
TEMPERATURE = 0.0
SYSTEM = (
    "You check search results for queries that contain a negation: a condition the answer must NOT meet. "
    "Reply with one word, yes or no."
)
USER = (
    "Query: {query}\n\n"
    "Passage: {passage}\n\n"
    "Does this passage describe something the query explicitly excludes, that is, does it meet the condition "
    "that the query negates? Answer yes or no."
)
PROMPT = json.dumps([{"role": "system", "content": SYSTEM}, {"role": "user", "content": USER}], ensure_ascii=False)
_FIRST_WORD = re.compile(r"[a-z]+")


def parse_label(reply: str | None) -> bool | None:
    word = _FIRST_WORD.search((reply or "").lower())
    if word is None:
        return None
    return {"yes": True, "no": False}.get(word.group(0))


def reply_content(body: bytes) -> str | None:
    """The first choice's message text of a chat-completions reply; ValueError naming what is wrong."""
    try:
        payload = json.loads(body)
    except (ValueError, RecursionError):
        start = body[:60].decode("utf-8", "replace")
        raise ValueError(f"not JSON (starts with {start!r})") from None
    if not isinstance(payload, dict):
        raise ValueError(f"expected a JSON object, got {type(payload).__name__}")
    choices = payload.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ValueError("field 'choices' must be a non-empty list of objects")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise ValueError("field 'choices[0].message' must be an object")
    content = message.get("content")
    if content is not None and not isinstance(content, str):
        raise ValueError(f"field 'choices[0].message.content' must be a string, got {type(content).__name__}")
    return content


def _setting(name: str, kind: type) -> Any:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return DEFAULTS[name]
    try:
        value = kind(raw)
    except ValueError:
        value = -1
    if value < 0 or (kind is float and value == 0):
        raise BadInput(f"{name}={raw[:40]!r}: expected a positive {'number' if kind is float else 'integer'}.")
    return value


class _Retryable(Exception):
    """A failed attempt worth repeating (connection, timeout, 429, 5xx)."""


class LLMJudge(Judge):
    version = "1"
    prompt = PROMPT

    def __init__(
        self,
        model: str,
        endpoint: str | None = None,
        *,
        concurrency: int = 8,
        timeout: float | None = None,
        max_retries: int | None = None,
        deadline: float | None = None,
        max_reply_bytes: int | None = None,
        idle: float | None = None,
    ):
        if not model:
            raise BadInput("llm judge: name the model after the prefix, e.g. --task-option judge=llm:gpt-4o-mini")
        self.name = f"llm:{model}"
        self.model = model
        self.endpoint = endpoint or os.environ.get(ENDPOINT_ENV) or None
        self.concurrency = concurrency
        self.timeout = float(timeout if timeout is not None else _setting(TIMEOUT_ENV, float))
        self.max_retries = int(max_retries if max_retries is not None else _setting(RETRIES_ENV, int))
        self.deadline = float(deadline if deadline is not None else _setting(DEADLINE_ENV, float))
        self.idle = float(idle if idle is not None else _setting(IDLE_ENV, float))
        self.max_reply_bytes = int(max_reply_bytes if max_reply_bytes is not None else _setting(MAX_REPLY_ENV, int))
        self._client: Any = None
        self._ends_at: float | None = None  # the run's deadline, from the first item asked
        self._last_answer: float | None = None  # when an answer last arrived (the first ask counts as one)
        self._stopped: str | None = None  # why the run stopped: later items fail at once with it
        self._lock = threading.Lock()

    def describe(self) -> dict[str, Any]:
        return super().describe() | {
            "endpoint": self.endpoint,
            "temperature": TEMPERATURE,
            "timeout_s": self.timeout,
            "deadline_s": self.deadline,
            "idle_s": self.idle,
            "max_retries": self.max_retries,
            "max_reply_bytes": self.max_reply_bytes,
        }

    def client(self) -> Any:
        if self._client is None:
            if not self.endpoint:
                raise BadInput(
                    f"judge {self.name} has items to label but no endpoint: set {ENDPOINT_ENV} to an "
                    "OpenAI-compatible base URL, e.g. http://localhost:8000/v1"
                )
            import openai

            self._client = openai.OpenAI(
                base_url=self.endpoint,
                api_key=self._key() or "not-needed",  # local servers accept any key
                timeout=self.timeout,
                max_retries=0,  # ours, bounded by the deadline (see the module docstring)
            )
        return self._client

    def _key(self) -> str | None:
        return os.environ.get(KEY_ENV)

    def _fail(self, item: JudgeItem, what: str, kind: type[BadInput] = BadInput) -> BadInput:
        where = f"item (query {item.query_id[:80]!r}, document {item.doc_id[:80]!r})"
        return kind(redact(f"judge {self.name}: the endpoint {self.endpoint} {what} for {where}", self._key()))

    def _remaining(self) -> tuple[float, str]:
        """Seconds left before the run stops, and what stops it then (the total deadline or the silence)."""
        with self._lock:
            now = time.monotonic()
            if self._ends_at is None:
                self._ends_at = now + self.deadline
            if self._last_answer is None:
                self._last_answer = now
            total, silent = self._ends_at - now, self._last_answer + self.idle - now
        if silent < total:
            return silent, f"answered nothing for {self.idle:g} s ({IDLE_ENV})"
        return total, f"did not answer within the run's deadline of {self.deadline:g} s ({DEADLINE_ENV})"

    def _answered(self) -> None:
        """An answer arrived (or a call began): the silence starts again from now."""
        with self._lock:
            self._last_answer = time.monotonic()

    def ask(self, item: JudgeItem) -> bool | None:
        for attempt in range(self.max_retries + 1):
            remaining, why = self._remaining()
            if self._stopped or remaining <= 0:
                self._stopped = self._stopped or why
                raise self._fail(item, f"{self._stopped}; labels received so far are kept", JudgeUnavailable)
            try:
                label = parse_label(self._attempt(item, min(self.timeout, remaining)))
            except _Retryable as exc:
                if attempt == self.max_retries:
                    failed = f"failed after {attempt + 1} attempt(s) ({exc})"
                    raise self._fail(item, failed, JudgeUnavailable) from None
                time.sleep(min(0.5 * 2**attempt, 8.0, max(self._remaining()[0], 0)))
                continue
            self._answered()
            return label
        raise AssertionError("unreachable")

    def _attempt(self, item: JudgeItem, timeout: float) -> str | None:
        import openai

        messages = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": USER.format(query=item.query, passage=item.passage)},
        ]
        create = self.client().with_options(timeout=timeout).chat.completions.with_streaming_response.create
        try:
            with create(model=self.model, messages=messages, temperature=TEMPERATURE) as response:
                body = self._read_capped(response, item)
        except openai.APIStatusError as exc:
            status = exc.status_code
            text = f"HTTP {status}: {' '.join(str(exc).split())[:300]}"
            if status == 429 or status >= 500:
                raise _Retryable(text) from None
            raise self._fail(item, f"refused the request ({text})") from None
        except openai.APIError as exc:  # connection and timeout errors
            raise _Retryable(f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}") from None
        try:
            return reply_content(body)
        except ValueError as exc:
            raise self._fail(item, f"sent a malformed reply ({exc})") from None

    def _read_capped(self, response: Any, item: JudgeItem) -> bytes:
        """The reply's body, refused as soon as it passes ``max_reply_bytes`` (declared or actual)."""
        declared = response.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > self.max_reply_bytes:
            raise self._fail(
                item, f"sent a reply of {declared} bytes (more than {MAX_REPLY_ENV}={self.max_reply_bytes})"
            )
        chunks, size = [], 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > self.max_reply_bytes:
                raise self._fail(item, f"sent a reply larger than {MAX_REPLY_ENV}={self.max_reply_bytes} bytes")
            chunks.append(chunk)
        return b"".join(chunks)

    def judge(self, items: Sequence[JudgeItem]) -> list[bool | None]:
        if not items:
            return []
        self.client()  # fail once, clearly, before any thread starts
        self._answered()  # the silence is counted from this call's start (the run does other work between calls)
        pool = ThreadPoolExecutor(max_workers=max(1, self.concurrency))
        try:
            return list(pool.map(self.ask, items))
        finally:  # the first failure ends the run: queued items are dropped, running ones end by the same clock
            pool.shutdown(wait=True, cancel_futures=True)


def from_request(request: JudgeRequest) -> LLMJudge:
    options = request.options
    return LLMJudge(
        request.argument or "",
        endpoint=options.get("endpoint"),
        concurrency=int(options.get("concurrency", 8)),
    )
