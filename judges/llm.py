"""An LLM violation judge over any OpenAI-compatible chat-completions endpoint (registered as ``llm:<model>``).

    LEADERBOARD_JUDGE_ENDPOINT=http://localhost:8000/v1 leaderboard run -m bm25 -t comlq \\
        --task-option judge=llm:Qwen/Qwen2.5-7B-Instruct

vLLM, Ollama (``http://localhost:11434/v1``), llama.cpp's server and hosted APIs all speak this
protocol. The key comes from ``OPENAI_API_KEY`` (local servers need none) and is never recorded or
printed. Every item is one chat completion at temperature 0 with the prompt below; the reply's
first word decides (yes: violates, no: does not, anything else: no label). The endpoint, model,
prompt, its sha256 and the temperature are recorded in the result; labels are cached by the
judgment store, so an item is asked once.

The ``openai`` client is used (extra ``judge``) rather than raw HTTP: it handles retries with
backoff, timeouts and the protocol's error shapes.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from leaderboard import BadInput
from leaderboard.contract.judge import Judge, JudgeItem, JudgeRequest

ENDPOINT_ENV = "LEADERBOARD_JUDGE_ENDPOINT"
KEY_ENV = "OPENAI_API_KEY"
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


class LLMJudge(Judge):
    version = "1"
    prompt = PROMPT

    def __init__(
        self,
        model: str,
        endpoint: str | None = None,
        concurrency: int = 8,
        timeout: float = 120.0,
        max_retries: int = 3,
    ):
        if not model:
            raise BadInput("llm judge: name the model after the prefix, e.g. --task-option judge=llm:gpt-4o-mini")
        self.name = f"llm:{model}"
        self.model = model
        self.endpoint = endpoint or os.environ.get(ENDPOINT_ENV) or None
        self.concurrency, self.timeout, self.max_retries = concurrency, timeout, max_retries
        self._client: Any = None

    def describe(self) -> dict[str, Any]:
        return super().describe() | {"endpoint": self.endpoint, "temperature": TEMPERATURE}

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
                api_key=os.environ.get(KEY_ENV) or "not-needed",  # local servers accept any key
                timeout=self.timeout,
                max_retries=self.max_retries,  # with backoff, for rate limits and restarts
            )
        return self._client

    def ask(self, item: JudgeItem) -> bool | None:
        import openai

        messages = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": USER.format(query=item.query, passage=item.passage)},
        ]
        try:
            reply = self.client().chat.completions.create(model=self.model, messages=messages, temperature=TEMPERATURE)
        except openai.APIError as exc:  # connection, status and protocol errors; the message holds no key
            raise BadInput(
                f"judge {self.name}: the endpoint {self.endpoint} failed ({type(exc).__name__}: {exc})"
            ) from None
        choices = reply.choices or []
        return parse_label(choices[0].message.content if choices else None)

    def judge(self, items: Sequence[JudgeItem]) -> list[bool | None]:
        if not items:
            return []
        self.client()  # fail once, clearly, before any thread starts
        with ThreadPoolExecutor(max_workers=max(1, self.concurrency)) as pool:
            return list(pool.map(self.ask, items))


def from_request(request: JudgeRequest) -> LLMJudge:
    options = request.options
    return LLMJudge(
        request.argument or "",
        endpoint=options.get("endpoint"),
        concurrency=int(options.get("concurrency", 8)),
    )
