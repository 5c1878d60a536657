"""``leaderboard serve``: the leaderboard app."""

from __future__ import annotations

import faulthandler
import signal
from typing import Any

import click

from leaderboard.cli.console import err, escape


def registered_benchmarks() -> list[Any]:
    """The installed plugins' benchmark declarations (the app itself never imports a plugin)."""
    from leaderboard.registry import installed_benchmarks

    return installed_benchmarks(skipped_benchmark)


def skipped_benchmark(name: str, exc: BaseException) -> None:
    err().print(f"[yellow]benchmark {escape(name)} skipped:[/] {escape(type(exc).__name__)}: {escape(exc)}")


@click.command()
@click.option(
    "--results", "results_spec", required=True, help="A results folder, or hf://ORG/NAME for a results dataset."
)
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=int, default=7860, show_default=True)
@click.option("--endpoint", default=None, help="Hub endpoint for hf:// results.")
@click.option(
    "--public",
    is_flag=True,
    help="Show exactly the public board: public benchmarks only (default: also non-public benchmarks and tasks "
    "in no benchmark, labelled as local).",
)
@click.option(
    "--poll",
    "poll_seconds",
    type=float,
    default=None,
    help="Check the results for a new revision every N seconds and reload without a restart "
    "(default: 600 for hf://, off for a folder).",
)
@click.option(
    "--requests",
    "requests_repo",
    default=None,
    help="The evaluation queue's requests dataset, ORG/NAME: adds the Submit and Queue tabs "
    "(submitting writes with this machine's token).",
)
def serve(
    *,
    results_spec: str,
    host: str,
    port: int,
    endpoint: str | None,
    public: bool,
    poll_seconds: float | None,
    requests_repo: str | None,
) -> None:
    """Serve the leaderboard app (Gradio) over a results folder or dataset."""
    if results_spec.startswith("hf://"):  # a name the hub would refuse stops here, before gradio is imported
        from leaderboard.hub.repo_names import repo_id

        repo_id(results_spec, "--results", "the results dataset", prefixed=True)
    from leaderboard.app.server.live import DEFAULT_POLL_SECONDS
    from leaderboard.app.ui import build_app, launch

    if poll_seconds is None and results_spec.startswith("hf://"):
        poll_seconds = DEFAULT_POLL_SECONDS
    app = build_app(
        results_spec,
        registered_benchmarks(),
        public=public,
        endpoint=endpoint,
        poll_seconds=poll_seconds or None,
        requests=requests_repo,
    )
    board = app.live_board.board  # type: ignore[attr-defined]
    if hasattr(signal, "SIGUSR1"):  # `kill -USR1 <pid>`: every thread's stack on stderr, for a server that seems stuck
        faulthandler.register(signal.SIGUSR1, all_threads=True)
    err().print(
        f"Serving {escape(str(board.root))} ({len(board.rows)} results, {len(board.benchmarks)} benchmarks"
        f"{', public board' if public else ''}) on http://{host}:{port}",
        highlight=False,
        soft_wrap=True,
    )
    launch(app, host, port)


COMMANDS = [serve]
