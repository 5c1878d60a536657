"""Exceptions that the CLI turns into exit codes and one-paragraph messages."""


class LeaderboardError(Exception):
    """An internal failure: exit code 1."""

    exit_code = 1


class BadInput(LeaderboardError):
    """The user's input is wrong (a name, a file, a row, a field, an option): exit code 2.

    The message must name the offending file/line/field and say what was expected.
    """

    exit_code = 2


class DataUnavailable(BadInput):
    """A task's data could not be had here (a download failed, the hub is unreachable): exit code 2.

    Headed "Data unavailable:" rather than "Error:", so that a caller running `leaderboard run` (``verify``)
    can tell "no data here" from "a wrong result". The message names what failed and the flag to use."""

    label = "Data unavailable"


def shorten(value: object, limit: int = 80) -> str:
    """``value`` as text for a message: cut to ``limit`` characters, saying how long it was (a 100 kB
    option value or a 300-character name must not flood the terminal)."""
    text = str(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


class Note(UserWarning):
    """Something the user should know that does not stop the run (an option a model does not use).
    Raised with ``warnings.warn``; the CLI prints it as one ``note:`` line."""
