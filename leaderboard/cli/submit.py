"""``leaderboard submit``: ask the leaderboard's workers to evaluate a model (a request in the queue)."""

from __future__ import annotations

import click

from leaderboard.cli.console import escape, out

ENDPOINT_HELP = "Hub endpoint (default: huggingface_hub's; it reads HF_ENDPOINT only at import)."
EXAMPLES = """Examples:
  leaderboard submit --plugin my-retriever==1.2.0 --model my-retriever --benchmark NegConstraint \\
      --contact me@example.org --requests my-org/requests
  leaderboard submit --plugin 'git+https://github.com/me/plugin@<40-hex commit>' --model mine \\
      --revision v2 --benchmark ComLQ --benchmark NegConstraint --contact me --requests my-org/requests"""


@click.command(epilog=EXAMPLES)
@click.option("--plugin", required=True, help="The plugin: package==version, or git+https://HOST/REPO@<40-hex commit>.")
@click.option("--model", required=True, help="The model id, as `leaderboard run --model` takes it.")
@click.option("--revision", default=None, help="The model revision its results must carry (default: any).")
@click.option(
    "--benchmark",
    "benchmarks",
    multiple=True,
    required=True,
    help="A public benchmark to run (see `leaderboard benchmarks`; those marked public).",
)
@click.option("--contact", required=True, help="An e-mail address or hub user name where you can be reached.")
@click.option("--requests", "requests_repo", required=True, help="The requests dataset, ORG/NAME.")
@click.option("--endpoint", default=None, help=ENDPOINT_HELP)
@click.option("--index-url", default=None, help="The package index to check --plugin on (default: pip's).")
@click.option("--find-links", multiple=True, metavar="PATH", help="A folder or page of packages (as pip's).")
@click.option(
    "--max-open",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="Requests one contact may have pending or running.",
)
def submit(
    *,
    plugin: str,
    model: str,
    revision: str | None,
    benchmarks: tuple[str, ...],
    contact: str,
    requests_repo: str,
    endpoint: str | None,
    index_url: str | None,
    find_links: tuple[str, ...],
    max_open: int,
) -> None:
    """Queue a model for evaluation by the leaderboard's workers (`leaderboard worker`).

    Checks before writing anything: the fields, that the plugin names a real release or commit, that
    the model is not already queued or evaluated on these benchmarks, and the contact's open requests.
    Writing needs a token with write access to the requests dataset (HF_TOKEN or `hf auth login`).
    """
    from leaderboard.cli.serve import registered_benchmarks
    from leaderboard.errors import BadInput
    from leaderboard.queue.dataset import RequestsDataset
    from leaderboard.queue.plugin_spec import index_args
    from leaderboard.queue.submit import Submission, requestable, submit

    dataset = RequestsDataset(requests_repo, endpoint)
    if not dataset.store.token:
        raise BadInput(
            "No Hugging Face token: set HF_TOKEN or log in with `hf auth login` (the token is never printed)."
        )
    dataset.require_exists()
    request = submit(
        dataset,
        Submission(plugin, model, benchmarks, contact, revision),
        known_benchmarks=requestable(registered_benchmarks()),
        max_open=max_open,
        pip_index_args=tuple(index_args(index_url, find_links)),
    )
    out().print(
        f"Submitted request {escape(request.id)}: {escape(request.model)} ({escape(request.plugin)}) on "
        f"{escape(', '.join(request.benchmarks))}, pending in {escape(dataset.repo_id)}",
        highlight=False,
    )


COMMANDS = [submit]
