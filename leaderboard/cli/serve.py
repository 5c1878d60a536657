"""``leaderboard serve``: the leaderboard app."""

from __future__ import annotations

import click

from leaderboard.cli.console import err, escape


@click.command()
@click.option(
    "--results", "results_spec", required=True, help="A results folder, or hf://ORG/NAME for a results dataset."
)
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=int, default=7860, show_default=True)
@click.option("--endpoint", default=None, help="Hub endpoint for hf:// results.")
def serve(results_spec: str, host: str, port: int, endpoint: str | None) -> None:
    """Serve the leaderboard app (Gradio) over a results folder or dataset."""
    from leaderboard.app.sources import resolve_results
    from leaderboard.app.ui import build_app

    folder = resolve_results(results_spec, endpoint)
    app = build_app(folder)
    err().print(f"Serving {escape(str(folder))} on http://{host}:{port}", highlight=False)
    app.launch(server_name=host, server_port=port, show_error=True)


COMMANDS = [serve]
