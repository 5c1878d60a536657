"""``leaderboard cite BENCHMARK...``: the BibTeX of each benchmark's paper(s) and of this harness.

A benchmark declaration carries its BibTeX (``Benchmark.bibtex``); a declaration with only a citation
line gets a @misc entry built from that line and its reference, marked as built here.
"""

from __future__ import annotations

import click

from leaderboard.contract.citation import benchmark_bibtex
from leaderboard.errors import BadInput

__all__ = ["COMMANDS", "benchmark_bibtex", "harness_bibtex"]

HARNESS_KEY = "retrieval_leaderboard"
# The harness's software entry; the repository's CITATION.cff says the same (a test keeps them equal).
HARNESS_TITLE = (
    "retrieval-leaderboard: a plugin-based evaluation harness and leaderboard for retrievers and rerankers on "
    "hard queries"
)
HARNESS_AUTHOR = "retrieval-leaderboard contributors"
HARNESS_NOTE = "Scores with per-query 95% bootstrap intervals and paired significance tests"


def harness_bibtex() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        release = version("retrieval-leaderboard")
    except PackageNotFoundError:  # run from a checkout that is not installed
        release = "unknown"
    note = HARNESS_NOTE.replace("%", "\\%")
    return (
        f"@software{{{HARNESS_KEY},\n"
        f"  title = {{{HARNESS_TITLE}}},\n"
        f"  author = {{{{{HARNESS_AUTHOR}}}}},\n"
        f"  version = {{{release}}},\n"
        f"  note = {{{note}}}\n"
        "}"
    )


@click.command()
@click.argument("benchmarks", nargs=-1, required=True, metavar="BENCHMARK...")
def cite(benchmarks: tuple[str, ...]) -> None:
    """Print the BibTeX of each BENCHMARK's paper(s) (see `leaderboard benchmarks`) and of this harness."""
    from leaderboard.registry import get_registry

    registry = get_registry()
    names = [registry.resolve("benchmark", b).registration.name for b in benchmarks]  # unknown: did you mean
    entries = []
    for name in dict.fromkeys(names):
        try:
            declaration = registry.entries["benchmark"][name].factory()
        except Exception as exc:  # a plugin's bug is named, not a traceback
            raise BadInput(f"benchmark {name!r}: its declaration failed ({type(exc).__name__}: {exc}).") from None
        entries.append(benchmark_bibtex(declaration))
    entries.append(harness_bibtex())
    from leaderboard.cli.sanitize import plain

    click.echo(plain("\n\n".join(entries)))  # a plugin's BibTeX, without control or bidi characters


COMMANDS = [cite]
