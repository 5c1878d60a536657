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
    from leaderboard.errors import BadInput, DataUnavailable
    from leaderboard.submission.verification import NO_DATA
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
    missing = [c for c in checks if c.status == NO_DATA]
    bad = [c for c in checks if c.status not in ("match", NO_DATA)]
    if missing and not bad:  # nothing was compared: that says nothing about the submission
        tasks = ", ".join(dict.fromkeys(c.task for c in missing))
        raise DataUnavailable(
            f"the data of {tasks} could not be had here, so {len(missing)} of {len(checks)} re-run(s) did not run "
            f"(nothing about the submission was decided): pass --data-dir TASK=DIR (a local copy of each task's "
            f"data) or the task's environment variable and verify again. {missing[0].detail}"
        )
    if bad:
        also = f" ({len(missing)} more could not run: no data here, see --data-dir)" if missing else ""
        raise BadInput(
            f"{len(bad)} of {len(checks)} re-run result(s) do not reproduce the submission: "
            + "; ".join(f"{c.task}: {c.status}{' (' + c.detail + ')' if c.detail else ''}" for c in bad)
            + also
        )
    err().print(f"✓ {len(checks)} of {len(checks)} re-run result(s) match within {tolerance:g}", highlight=False)


COMMANDS = [verify]
