"""``leaderboard verify``: the maintainers' re-run of a submission, automated."""

from __future__ import annotations

from pathlib import Path

import click

from leaderboard.cli.console import err, escape
from leaderboard.cli.formats import emit, format_option


@click.command()
@click.argument("submission", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--sample",
    "sample_size",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="How many submitted (model, task) results to re-run, chosen with --seed.",
)
@click.option("--all", "every", is_flag=True, help="Re-run every submitted result.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the sample.")
@click.option(
    "--tolerance",
    type=click.FloatRange(min=0),
    default=1e-4,
    show_default=True,
    help="Largest absolute main-score difference still counted as the same result.",
)
@click.option(
    "--data-dir", "data_dirs", multiple=True, metavar="[TASK=]DIR", help="Local data for the re-run tasks, as in `run`."
)
@click.option(
    "--pip-arg",
    "pip_args",
    multiple=True,
    metavar="ARG",
    help="Extra argument for pip when installing the plugin, e.g. --pip-arg=--index-url=URL (repeatable).",
)
@format_option
def verify(
    submission: Path,
    sample_size: int,
    every: bool,
    seed: int,
    tolerance: float,
    data_dirs: tuple[str, ...],
    pip_args: tuple[str, ...],
    fmt: str,
) -> None:
    """Re-run a sample of SUBMISSION's results with its plugin at the spec's version; exit 2 on a mismatch.

    The plugin comes from this environment when the spec's version is installed here, otherwise
    from a temporary virtual environment (pip install of plugin.install, or package==version).
    """
    from leaderboard.errors import BadInput
    from leaderboard.submission.verification import verify as run_verify

    def log(message: str) -> None:
        err().print(f"[dim]{escape(message)}[/]", highlight=False)

    env, checks = run_verify(submission, None if every else sample_size, seed, tolerance, data_dirs, log, pip_args)
    err().print(escape(env.note), highlight=False)
    rows = [
        {
            "task": c.task,
            "model": c.model,
            "submitted": c.submitted,
            "re_run": c.rerun,
            "difference": c.difference,
            "status": c.status,
            "detail": c.detail,
            "file": str(c.path),
        }
        for c in checks
    ]
    emit(
        rows,
        fmt,
        f"verify {submission} (tolerance {tolerance:g})",
        ["task", "model", "submitted", "re_run", "difference", "status", "detail"],
    )
    bad = [c for c in checks if c.status != "match"]
    if bad:
        raise BadInput(
            f"{len(bad)} of {len(checks)} re-run result(s) do not reproduce the submission: "
            + "; ".join(f"{c.task}: {c.status}{' (' + c.detail + ')' if c.detail else ''}" for c in bad)
        )
    err().print(f"✓ {len(checks)} of {len(checks)} re-run result(s) match within {tolerance:g}", highlight=False)


COMMANDS = [verify]
