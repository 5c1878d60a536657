"""``leaderboard verify``: the maintainers' re-run of a submission, automated."""

from __future__ import annotations

from pathlib import Path

import click

from leaderboard.cli.console import err, escape
from leaderboard.cli.formats import QUEUE_KEY_HELP, emit, format_option


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
@click.option(
    "--attestations",
    is_flag=True,
    help="Instead of re-running: check the queue's attestation of every result under SUBMISSION (a results "
    "folder) against --queue-key; exit 2 when one does not hold (bad signature, another key, a changed file).",
)
@click.option("--queue-key", default=None, metavar="PEM|hf://ORG/NAME", help=QUEUE_KEY_HELP)
@click.option("--endpoint", default=None, help="Hub endpoint (for --queue-key hf://...).")
@format_option
def verify(  # noqa: PLR0913 (a click command: one keyword per option)
    *,
    submission: Path,
    sample_size: int,
    every: bool,
    seed: int,
    tolerance: float,
    data_dirs: tuple[str, ...],
    pip_args: tuple[str, ...],
    attestations: bool,
    queue_key: str | None,
    endpoint: str | None,
    fmt: str,
) -> None:
    """Re-run a sample of SUBMISSION's results with its plugin at the spec's version; exit 2 on a mismatch.

    The plugin comes from this environment when the spec's version is installed here, otherwise
    from a temporary virtual environment (pip install of plugin.install, or package==version).
    With --attestations, check the queue's signatures of a results folder instead.
    """
    if attestations:
        _verify_attestations(submission, queue_key, endpoint, fmt)
        return
    from leaderboard.errors import BadInput, DataUnavailable
    from leaderboard.queue.verification import NO_DATA
    from leaderboard.queue.verification import verify as run_verify

    def log(message: str) -> None:
        err().print(f"[dim]{escape(message)}[/]", highlight=False)

    env, checks = run_verify(
        submission, sample_size=None if every else sample_size, seed=seed, tolerance=tolerance, data_dirs=data_dirs,
        log=log, pip_args=pip_args,
    )  # fmt: skip
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


def _verify_attestations(folder: Path, queue_key: str | None, endpoint: str | None, fmt: str) -> None:
    """Every result's attestation checked; results without one are listed as pushed (not a failure: not a claim)."""
    from leaderboard.errors import BadInput
    from leaderboard.hub.queue_keys import queue_key_option
    from leaderboard.records.listing import result_files
    from leaderboard.security.attestation import check, provenance

    key = queue_key_option(queue_key, endpoint)
    if key is None:
        raise BadInput(
            "verify --attestations needs the queue's public key: --queue-key PEM or hf://ORG/NAME of the requests "
            "dataset (or LEADERBOARD_QUEUE_PUBLIC_KEY)."
        )
    checked = [(path, check(path, key)) for path in result_files(folder)]
    rows = [{"file": str(p), "provenance": provenance(v), "detail": v.detail} for p, v in checked]
    emit(
        rows,
        fmt,
        f"attestations in {folder} ({key.described()})",
        ["file", "provenance", "detail"],
    )
    bad = [(p, v) for p, v in checked if v.status == "invalid"]
    if bad:
        raise BadInput(
            f"{len(bad)} of {len(checked)} result(s) carry an attestation that does not hold: "
            + "; ".join(f"{p}: {v.detail}" for p, v in bad[:5])
        )
    attested = sum(v.attested for _, v in checked)
    err().print(
        f"✓ {attested} of {len(checked)} result(s) evaluated by the queue (attestations hold); "
        f"{len(checked) - attested} pushed without one",
        highlight=False,
    )


COMMANDS = [verify]
