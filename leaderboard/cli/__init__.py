"""The ``leaderboard`` command line: a thin layer over the Python API and the records.

Each module holds one group of commands; heavy libraries are imported inside the commands that
need them, so ``leaderboard --help`` stays fast.
"""

from leaderboard.cli.main import cli, main

__all__ = ["cli", "main"]
