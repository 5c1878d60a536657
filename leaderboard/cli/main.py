"""The ``leaderboard`` group: exit codes and messages shared by every command."""

from __future__ import annotations

import os
import traceback

import click

from leaderboard.cli.console import err, escape

DEBUG_HINT = "(set LEADERBOARD_DEBUG=1 for the traceback)"


class Group(click.Group):
    """Turns our exceptions into exit codes: bad input 2, push conflict 3, internal failure 1, no traceback.

    An exception may carry a ``label`` (e.g. "Push conflict") that heads its message instead of the
    default "Error" (bad input) or "Internal error".
    """

    def invoke(self, ctx: click.Context):
        from leaderboard.errors import BadInput, LeaderboardError

        try:
            return super().invoke(ctx)
        except LeaderboardError as exc:
            label = getattr(exc, "label", None) or ("Error" if isinstance(exc, BadInput) else "Internal error")
            _fail(ctx, f"[bold red]{escape(label)}:[/] {escape(exc)}", exc.exit_code)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except SystemExit as exc:
            # click ends commands with its own Exit; a SystemExit here comes from plugin or library code
            # (sys.exit(3) in a factory) and must not pass for one of our exit codes (3 is a push conflict).
            if exc.code in (None, 0):
                raise
            called = f"sys.exit({escape(repr(exc.code))})"
            _fail(ctx, f"[bold red]Internal error:[/] plugin or library code called {called} {DEBUG_HINT}", 1)
        except Exception as exc:  # an unexpected failure: still no traceback unless asked for
            _fail(ctx, f"[bold red]Internal error:[/] {type(exc).__name__}: {escape(exc)} {DEBUG_HINT}", 1)


def _fail(ctx: click.Context, message: str, code: int) -> None:
    err().print(message, highlight=False, soft_wrap=True)
    if os.environ.get("LEADERBOARD_DEBUG"):
        traceback.print_exc()
    ctx.exit(code)


@click.group(cls=Group)
@click.version_option(package_name="retrieval-leaderboard", prog_name="leaderboard")
def cli() -> None:
    """Evaluate retrievers and rerankers on hard-query benchmarks and publish the results."""


def _register_commands() -> None:
    from leaderboard.cli import catalog, compare, records, run, scaffold, serve, verify

    for module in (run, catalog, records, serve, verify, compare, scaffold):
        for command in module.COMMANDS:
            cli.add_command(command)


_register_commands()


def main() -> None:
    cli(prog_name="leaderboard")
