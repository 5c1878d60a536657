"""`leaderboard space build|deploy`: the public board's Hugging Face Space, one command away."""

from __future__ import annotations

from pathlib import Path

import click

from leaderboard.cli.console import escape, out
from leaderboard.hub.repo_names import repo_option

SOURCE_HELP = "The harness checkout to build the wheel from (default: the one running)."
REQUESTS_HELP = (
    "The evaluation queue's requests dataset, ORG/NAME (set as REQUESTS_REPO: the Submit and Queue tabs). "
    "The Space also needs an HF_TOKEN secret with write access to it, set by hand (never sent by deploy)."
)
REQUESTS_CHECK = repo_option("the requests dataset", prefixed=True)


def _queue(requests: str | None) -> str:
    return f", queue {requests} (REQUESTS_REPO; set the HF_TOKEN secret by hand)" if requests else ""


@click.group()
def space() -> None:
    """Build or deploy the leaderboard's Hugging Face Space (the harness as a wheel built from this checkout)."""


@space.command("build")
@click.argument("directory", type=click.Path(path_type=Path))
@click.option(
    "--results",
    default=None,
    callback=repo_option("the results dataset", prefixed=True),
    help="The results dataset the Space serves, ORG/NAME (default: none).",
)
@click.option("--requests", default=None, callback=REQUESTS_CHECK, help=REQUESTS_HELP)
@click.option("--source", type=click.Path(file_okay=False, path_type=Path), default=None, help=SOURCE_HELP)
def build_cmd(directory: Path, results: str | None, requests: str | None, source: Path | None) -> None:
    """Write a self-contained Space folder into DIRECTORY (new or empty).

    README.md (front matter: sdk gradio, python_version), app.py, space.json, requirements.txt naming
    the harness wheel built from this checkout with its app extra, and the wheel itself.
    """
    from leaderboard.hub.space import build

    folder = build(directory, results, source, requests=requests)
    out().print(
        f"Wrote the Space to {escape(str(folder.path))}: retrieval-leaderboard {escape(folder.version)} "
        f"({escape(folder.wheel)}), serving {escape(folder.results_repo or 'RESULTS_REPO (not set)')}"
        + escape(_queue(folder.requests_repo)),
        highlight=False,
    )


@space.command("deploy")
@click.option(
    "--repo", required=True, callback=repo_option("the Space"), help="The Space, ORG/NAME (created when missing)."
)
@click.option(
    "--results",
    required=True,
    callback=repo_option("the results dataset", prefixed=True),
    help="The results dataset it serves, ORG/NAME (set as RESULTS_REPO).",
)
@click.option("--endpoint", default=None, help="Hub endpoint (default: huggingface_hub's).")
@click.option(
    "--requests",
    default=None,
    callback=REQUESTS_CHECK,
    help=REQUESTS_HELP + " Without it, REQUESTS_REPO is left as it is.",
)
@click.option("--private", is_flag=True, help="Create the Space private.")
@click.option("--source", type=click.Path(file_okay=False, path_type=Path), default=None, help=SOURCE_HELP)
def deploy_cmd(
    repo: str, results: str, endpoint: str | None, requests: str | None, private: bool, source: Path | None
) -> None:
    """Build the Space and upload it to the hub as a Space repo in one commit, with RESULTS_REPO set."""
    from leaderboard.hub.space import deploy

    url = deploy(repo, results, endpoint=endpoint, source=source, private=private, requests=requests)
    out().print(
        f"Deployed the Space {escape(repo)} serving {escape(results)}{escape(_queue(requests))}: {escape(url)}",
        highlight=False,
    )


COMMANDS = [space]
