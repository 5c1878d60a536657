"""``leaderboard dev-hub``: the stand-in Hugging Face hub on a port, to try push, pull and the Space locally."""

from __future__ import annotations

import click

from leaderboard.cli.console import escape, out

# Any token passes (the stand-in checks none); huggingface_hub only needs one to be set for writes.
DEV_TOKEN = "dev-hub-any-token"


@click.command("dev-hub")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True, help="0: a free port.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
def dev_hub(port: int, host: str) -> None:
    """Serve a local stand-in for the Hugging Face hub until Ctrl-C (datasets and Spaces, kept in memory).

    It answers what push, pull, serve --results hf://... and the queue ask of the hub, so they can be
    tried without an account; everything it holds is lost when it stops."""
    from leaderboard.errors import BadInput
    from leaderboard.hub.devhub import HubServer

    try:
        server = HubServer(port=port, host=host)
    except OSError as exc:  # port taken, address not on this machine
        reason = exc.strerror or exc
        raise BadInput(f"dev-hub cannot listen on {host}:{port} ({reason}); choose another --port.") from None
    try:
        endpoint = escape(server.endpoint)
        console = out()
        console.print(f"Stand-in hub serving at {endpoint} (Ctrl-C stops it; nothing is kept).", highlight=False)
        console.print("In another shell, set:", highlight=False)
        console.print(f"  export HF_ENDPOINT={endpoint}", highlight=False)
        console.print(f"  export HF_TOKEN={DEV_TOKEN}", highlight=False)
        console.print("  export HF_HUB_OFFLINE=0", highlight=False)
        console.print("then e.g.: leaderboard push results --repo me/results", highlight=False, soft_wrap=True)
        server.server.serve_forever()  # in this thread: Ctrl-C lands here
    except KeyboardInterrupt:
        out().print("Stopped.", highlight=False)
    finally:
        server.server.server_close()


COMMANDS = [dev_hub]
