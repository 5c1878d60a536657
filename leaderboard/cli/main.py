"""The ``leaderboard`` group: exit codes and messages shared by every command."""

from __future__ import annotations

import os
import re
import sys
import warnings
from typing import Any

import click

from leaderboard.cli.console import err, escape

DEBUG_HINT = "(set LEADERBOARD_DEBUG=1 for the traceback)"


# Command name -> the module (under leaderboard.cli) that defines it in its COMMANDS. A command's
# module is imported only when that command runs (or --help lists them all), as click's docs show
# for lazily loaded subcommands: ``leaderboard show`` pays for no other command's imports.
# tests/test_cli_output.py checks this map against every module's COMMANDS.
COMMAND_MODULES = {
    "run": "run",
    **dict.fromkeys(("tasks", "models", "benchmarks", "judges", "plugins"), "catalog"),
    **dict.fromkeys(("show", "push", "pull", "export", "import", "validate"), "records"),
    "serve": "serve",
    "dev-hub": "dev_hub",
    "verify": "verify",
    "compare": "compare",
    "cite": "cite",
    "new-plugin": "scaffold",
    "space": "space",
    "submit": "submit",
    "worker": "worker",
    "queue": "queue",
    "queue-key": "queue_key",
}


class Group(click.Group):
    """Turns our exceptions into exit codes: bad input 2, push conflict 3, internal failure 1, no traceback.

    An exception may carry a ``label`` (e.g. "Push conflict") that heads its message instead of the
    default "Error" (bad input) or "Internal error".
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *COMMAND_MODULES})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            from importlib import import_module

            module = import_module(f"leaderboard.cli.{COMMAND_MODULES[cmd_name]}")
            for command in module.COMMANDS:
                self.add_command(command)
        return self.commands.get(cmd_name)

    def invoke(self, ctx: click.Context):
        from leaderboard.errors import BadInput, LeaderboardError

        try:
            with warnings.catch_warnings():
                warnings.showwarning = _show_warning
                return super().invoke(ctx)
        except ModuleNotFoundError as exc:  # a command whose extra is not installed (serve without gradio, ...)
            install = extra_for(exc.name or "")
            if install is None:
                _fail(ctx, f"[bold red]Internal error:[/] {type(exc).__name__}: {escape(exc)} {DEBUG_HINT}", 1)
            hint = f"{ctx.invoked_subcommand or 'this command'} needs {exc.name}, which is not installed"
            _fail(ctx, f"[bold red]Error:[/] {escape(hint)}. Enable it with: {escape(install)}", BadInput.exit_code)
        except LeaderboardError as exc:
            label = getattr(exc, "label", None) or ("Error" if isinstance(exc, BadInput) else "Internal error")
            _fail(ctx, f"[bold red]{escape(label)}:[/] {escape(exc)}", exc.exit_code)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except BrokenPipeError:  # `leaderboard show ... | head`: the reader has all it wants, not a failure of ours
            _reader_gone()
        except SystemExit as exc:
            # click ends commands with its own Exit; a SystemExit here comes from plugin or library code
            # (sys.exit(3) in a factory) and must not pass for one of our exit codes (3 is a push conflict).
            if exc.code in (None, 0):
                raise
            called = f"sys.exit({escape(repr(exc.code))})"
            _fail(ctx, f"[bold red]Internal error:[/] plugin or library code called {called} {DEBUG_HINT}", 1)
        except Exception as exc:  # an unexpected failure: still no traceback unless asked for
            _fail(ctx, f"[bold red]Internal error:[/] {type(exc).__name__}: {escape(exc)} {DEBUG_HINT}", 1)


def _reader_gone() -> None:
    """Stop quietly, as a command killed by SIGPIPE does (exit 141): no message, no second error at exit.

    Python's advice for a closed pipe: point stdout at devnull so the interpreter's final flush cannot fail too.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    raise SystemExit(141)


LONG_WORD = re.compile(r"\S{201,}")


def _cut_long_words(message: str) -> str:
    """A message echoing a 100 kB value or a 300-character name shows its first 200 characters."""
    from leaderboard.errors import shorten

    return LONG_WORD.sub(lambda m: shorten(m.group(), 200), message)


_SHOW_WARNING = warnings.showwarning


def _show_warning(message: Any, category: type[Warning], *args: Any, **kwargs: Any) -> None:
    """Our notes (``leaderboard.errors.Note``) as one ``note:`` line; other warnings as Python shows them."""
    from leaderboard.errors import Note

    if not issubclass(category, Note):
        return _SHOW_WARNING(message, category, *args, **kwargs)
    err().print(f"[yellow]note:[/] {escape(_cut_long_words(str(message)))}", highlight=False, soft_wrap=True)


def extra_for(module: str) -> str | None:
    """The ``pip install`` that provides a missing module, read from the package's own extras (None: not ours)."""
    from importlib.metadata import PackageNotFoundError, requires

    top = module.partition(".")[0]
    try:
        requirements = requires("retrieval-leaderboard") or []
    except PackageNotFoundError:
        return None
    for requirement in requirements:  # e.g. 'gradio<7,>=6.31; extra == "app"', in pyproject order
        name, _, marker = requirement.partition(";")
        extra = re.search(r"extra\s*==\s*['\"]([\w-]+)['\"]", marker)
        distribution = re.match(r"[A-Za-z0-9._-]+", name.strip())
        if not extra or not distribution or extra.group(1) in ("all", "test"):
            continue
        if re.sub(r"[-.]", "_", distribution.group().lower()) == top.lower():
            return f"pip install 'retrieval-leaderboard[{extra.group(1)}]'"
    return None


def _fail(ctx: click.Context, message: str, code: int) -> None:
    message = _cut_long_words(message)
    err().print(message, highlight=False, soft_wrap=True)
    if os.environ.get("LEADERBOARD_DEBUG"):
        import traceback

        traceback.print_exc()
    ctx.exit(code)


@click.group(cls=Group)
@click.version_option(package_name="retrieval-leaderboard", prog_name="leaderboard")
@click.option(
    "--plugin-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    metavar="SECONDS",
    help="Seconds each plugin may take to load (and each of its hooks); default LEADERBOARD_PLUGIN_TIMEOUT or 30.",
)
def cli(plugin_timeout: float | None) -> None:
    """Evaluate retrievers and rerankers on hard-query benchmarks and publish the results."""
    if plugin_timeout is not None:  # the registry reads it when it first loads, in this process and in runs it starts
        from leaderboard.registry import TIMEOUT_ENV

        os.environ[TIMEOUT_ENV] = f"{plugin_timeout:g}"


def main() -> None:
    cli(prog_name="leaderboard")
