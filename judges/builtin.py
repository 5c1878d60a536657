"""The built-in violation judges, registered through the ``register_judges`` hook like any plugin's.

* ``lexical-v1``: the keyword rule of ``negation_judge`` (a heuristic proxy; no model, no network).
* ``llm:<model>``: any OpenAI-compatible chat-completions endpoint (``llm_judge``; extra ``judge``).

A task picks its judge by name through the registry (``make_judge``), so a third-party judge plugin
is used exactly like these.
"""

from __future__ import annotations

import re

from leaderboard import hookimpl
from leaderboard.contract.judge import Judge, JudgeRequest
from leaderboard.toolkit import build_judge

DEFAULT_JUDGE = "lexical-v1"
JUDGE_INSTALL = "pip install 'retrieval-leaderboard[judge]'"


def judge_slug(name: str) -> str:
    """A judge name as it appears inside metric names: 'llm:gpt-4o-mini' -> 'llm_gpt_4o_mini'."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def make_judge(spec: str) -> Judge:
    """The judge registered under ``spec`` (a name, or a prefix plus its argument), built now."""
    return build_judge(spec)


def _lexical(request: JudgeRequest) -> Judge:
    from .lexical import LexicalJudge

    return LexicalJudge()


def _llm(request: JudgeRequest) -> Judge:
    from .llm import from_request

    return from_request(request)


@hookimpl
def register_judges(register):
    register(
        DEFAULT_JUDGE,
        _lexical,
        description="Keyword rule: a passage violates when it mentions the negated condition's keywords (proxy)",
    )
    register(
        "llm:",
        _llm,
        description="llm:<model>: an LLM over any OpenAI-compatible endpoint (LEADERBOARD_JUDGE_ENDPOINT), "
        "temperature 0, labels cached",
        requires=("openai",),
        install=JUDGE_INSTALL,
    )
