"""The ``leaderboard`` group: exit codes and messages shared by every command."""

from __future__ import annotations

import os
import traceback

import click

from leaderboard.cli.console import err, escape


class Group(click.Group):
    """Turns our exceptions into exit codes: bad input 2, push conflict 3, internal failure 1, no traceback."""

    def invoke(self, ctx: click.Context):
        from leaderboard.errors import BadInput, LeaderboardError

        try:
            return super().invoke(ctx)
        except LeaderboardError as exc:
            label = getattr(exc, "label", None) or ("Error" if isinstance(exc, BadInput) else "Internal error")
            err().print(f"[bold red]{label}:[/] {escape(exc)}", highlight=False, soft_wrap=True)
            if os.environ.get("LEADERBOARD_DEBUG"):
                traceback.print_exc()
            ctx.exit(exc.exit_code)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except Exception as exc:  # an unexpected failure: still no traceback unless asked for
            err().print(
                f"[bold red]Internal error:[/] {type(exc).__name__}: {escape(exc)} (set LEADERBOARD_DEBUG=1 for the traceback)",
                highlight=False,
                soft_wrap=True,
            )
            if os.environ.get("LEADERBOARD_DEBUG"):
                traceback.print_exc()
            ctx.exit(1)


@click.group(cls=Group)
@click.version_option(package_name="retrieval-leaderboard", prog_name="leaderboard")
def cli() -> None:
    """Evaluate retrievers and rerankers on hard-query benchmarks and publish the results."""


def _register_commands() -> None:
    from leaderboard.cli import catalog, records, run, serve

    for module in (run, catalog, records, serve):
        for command in module.COMMANDS:
            cli.add_command(command)


_register_commands()


def main() -> None:
    cli(prog_name="leaderboard")
