"""Consoles for the CLI, created on first use (rich costs import time that --help should not pay)."""

from __future__ import annotations

import os
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

    from leaderboard.cli.progress_lines import ProgressLines


def _width(fd: int) -> int | None:
    # Piped output is not wrapped at 80 columns: tables, messages and paths stay on one line each.
    return None if os.isatty(fd) else 10_000


# emoji=False: names and paths are printed as they are (a model named "a:smile:b" is not given an
# emoji), and rich's emoji table (~4 ms to import) is not loaded.
@cache
def out() -> Console:
    from rich.console import Console

    return Console(width=_width(1), soft_wrap=not os.isatty(1), emoji=False)


@cache
def err() -> Console:
    from rich.console import Console

    return Console(stderr=True, width=_width(2), soft_wrap=not os.isatty(2), emoji=False)


def progress(quiet: bool = False) -> Progress | ProgressLines:
    """Where long steps report: rich bars on a terminal (or with LEADERBOARD_PROGRESS=1), plain timed lines
    when stderr is a file or a pipe (``cli.progress_lines``), nothing with ``quiet`` (``--quiet``)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    console = err()
    if not quiet and not console.is_terminal and not os.environ.get("LEADERBOARD_PROGRESS"):
        from leaderboard.cli.progress_lines import ProgressLines

        return ProgressLines()
    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
        disable=quiet,
    )


def escape(text: object) -> str:
    """Text from a result, a plugin or the user, for rich: without control or bidi characters, markup escaped."""
    from leaderboard.cli.sanitize import terminal

    return terminal(text)
