"""``leaderboard queue``: the evaluation queue, or one request's whole life."""

from __future__ import annotations

import click

from leaderboard.cli.console import err, escape
from leaderboard.cli.formats import emit, format_option


@click.command()
@click.argument("request_id", required=False)
@click.option("--requests", "requests_repo", required=True, help="The requests dataset, ORG/NAME.")
@click.option("--endpoint", default=None, help="Hub endpoint (default: huggingface_hub's).")
@click.option(
    "--cancel",
    "cancel_reason",
    default=None,
    metavar="REASON",
    help="Cancel REQUEST_ID (pending or running; its worker stops), saying why.",
)
@format_option
def queue(
    request_id: str | None, requests_repo: str, endpoint: str | None, cancel_reason: str | None, fmt: str
) -> None:
    """List the queue's requests (open ones first), or REQUEST_ID's history: each change of state.

    Cancelling writes to the requests dataset (a token with write access: HF_TOKEN or `hf auth login`).
    """
    from leaderboard.errors import BadInput
    from leaderboard.queue import view
    from leaderboard.queue.dataset import RequestsDataset
    from leaderboard.queue.requests import now

    dataset = RequestsDataset(requests_repo, endpoint)
    dataset.require_exists()
    if cancel_reason is not None:
        if request_id is None:
            raise BadInput("--cancel needs the REQUEST_ID to cancel.")
        from leaderboard.queue.submit import cancel

        cancel(dataset, request_id, "leaderboard queue --cancel", cancel_reason)
    snapshot = dataset.snapshot()
    for path, why in snapshot.unreadable:
        err().print(f"[yellow]skipped {escape(path)}:[/] {escape(why)}", highlight=False)
    if request_id is None:
        emit(view.rows(snapshot, now()), fmt, f"Evaluation queue {dataset.repo_id}", view.COLUMNS)
        return
    request = snapshot.requests.get(request_id)
    if request is None:
        raise BadInput(f"No request {request_id!r} in {dataset.repo_id} (see `leaderboard queue --requests ...`).")
    title = f"{request.id}: {request.model} ({request.plugin}) on {', '.join(request.benchmarks)}: {request.status}"
    emit(view.history_rows(request), fmt, title, ("at", "status", "by", "note"))


COMMANDS = [queue]
