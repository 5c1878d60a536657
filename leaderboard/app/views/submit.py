"""The Submit tab's answer: the request it wrote to the queue, or why nothing was submitted.

Every text from the request is the submitter's input: it goes through ``render.esc``.
"""

from __future__ import annotations

from leaderboard.app.views.render import esc
from leaderboard.queue.requests import EvalRequest


def submitted_html(request: EvalRequest, repo: str) -> str:
    return (
        f'<div class="summary" id="submit-answer">Submitted: request <b>{esc(request.id)}</b> evaluates '
        f"{esc(request.model)} ({esc(request.plugin)}) on {esc(', '.join(request.benchmarks))}. It is pending "
        f"in {esc(repo)}; follow it in the Queue tab. Its results appear on the board when a worker has "
        "evaluated it.</div>"
    )


def refused_html(message: str) -> str:
    return f'<div class="summary" id="submit-answer"><b>Not submitted.</b> {esc(message)}</div>'
