"""The built-in violation judges, registered through the ``register_judges`` hook like any plugin's.

* ``lexical-v1``: the keyword rule of ``negation_judge`` (a heuristic proxy; no model, no network).
* ``llm:<model>``: any OpenAI-compatible chat-completions endpoint (``llm_judge``; extra ``judge``).

A task picks its judge by name through the registry (``leaderboard.toolkit.build_judge``), so a
third-party judge plugin is used exactly like these.
"""

from __future__ import annotations

from collections.abc import Callable

from leaderboard import hookimpl
from leaderboard.contract.judge import Judge, JudgeRequest

DEFAULT_JUDGE = "lexical-v1"
JUDGE_INSTALL = "pip install 'retrieval-leaderboard[judge]'"


def _lexical(request: JudgeRequest) -> Judge:
    from .lexical import LexicalJudge

    return LexicalJudge()


def _llm(request: JudgeRequest) -> Judge:
    from .llm import from_request

    return from_request(request)


@hookimpl
def register_judges(register: Callable[..., None]) -> None:
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
