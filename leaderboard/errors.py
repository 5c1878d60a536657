"""Exceptions that the CLI turns into exit codes and one-paragraph messages."""


class LeaderboardError(Exception):
    """An internal failure: exit code 1."""

    exit_code = 1


class BadInput(LeaderboardError):
    """The user's input is wrong (a name, a file, a row, a field, an option): exit code 2.

    The message must name the offending file/line/field and say what was expected.
    """

    exit_code = 2
