"""``leaderboard compare A B --task T ...``: paired significance tests between two models."""

from __future__ import annotations

import json
from pathlib import Path

import click

from leaderboard.cli.console import err, escape, out, progress
from leaderboard.cli.run import data_dirs_option

DATA_DIR_HELP = "Local data folder for a task, as in `run`: TASK=DIR (repeatable), or DIR for every task."


@click.command()
@click.argument("model_a", metavar="A")
@click.argument("model_b", metavar="B")
@click.option("--task", "-t", "tasks", multiple=True, required=True, help="Task to compare on; repeatable.")
@click.option(
    "--results",
    "results_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("results"),
    show_default=True,
    help="Where existing results are read from, and missing ones written to.",
)
@click.option("--data-dir", "data_dirs", multiple=True, metavar="[TASK=]DIR", help=DATA_DIR_HELP)
@click.option("--resamples", type=click.IntRange(min=100), default=10_000, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap and the sign flips.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
def compare(model_a, model_b, tasks, results_dir, data_dirs, resamples, seed, fmt) -> None:
    """Is A better than B? Paired bootstrap and randomization tests per task, Holm-corrected across tasks.

    Complete results of A and B under --results are used; missing ones are run first (through
    leaderboard.evaluate) and written there. Each task's main score is compared on the same queries.
    """
    from leaderboard.engine.api import Session
    from leaderboard.engine.options import RunOptions
    from leaderboard.progress import use_progress
    from leaderboard.records.comparison import compare_task, with_holm
    from leaderboard.registry import get_registry

    tasks = tuple(dict.fromkeys(tasks))  # each task once: Holm counts comparisons
    options = RunOptions(output=results_dir, data_dirs=data_dirs_option(data_dirs, tasks))
    session = Session(get_registry(), options)
    comparisons = []
    with progress() as bar, use_progress(bar):
        for task in tasks:
            a, b = session.run(model_a, task), session.run(model_b, task)
            for outcome in (a, b):
                err().print(f"{outcome.status}: {escape(outcome.path)}", highlight=False, soft_wrap=True)
            comparisons.append(compare_task(a.task, a.result, b.result, str(a.path), str(b.path), resamples, seed))
    with_holm(comparisons)
    if fmt == "json":
        click.echo(json.dumps({"a": model_a, "b": model_b, "tasks": [c.to_json() for c in comparisons]}, indent=2))
        return
    _table(model_a, model_b, comparisons, resamples)


def _table(model_a: str, model_b: str, comparisons, resamples: int) -> None:
    from rich.table import Table

    table = Table(title=f"{escape(model_a)} (A) vs {escape(model_b)} (B): paired tests over the same queries")
    for column in ("task", "metric", "queries", "A", "B", "A − B", "95% CI", "p", "p (Holm)"):
        table.add_column(column, overflow="fold", justify="left" if column in ("task", "metric") else "right")
    for c in comparisons:
        arrow = "" if c.direction == "higher" else " (lower is better)"
        table.add_row(
            escape(c.task),
            escape(c.metric + arrow),
            str(c.queries),
            f"{c.mean_a:.4f}",
            f"{c.mean_b:.4f}",
            f"{c.difference:+.4f}",
            f"[{c.ci_low:+.4f}, {c.ci_high:+.4f}]",
            _p(c.p_value, _at_floor(c, resamples)),
            _p(c.p_holm, _at_floor(c, resamples)),
        )
    out().print(table)
    out().print(
        f"95% CI: percentile bootstrap of the per-query differences ({resamples:,} paired resamples). "
        f"p: two-sided paired randomization test (sign flips; exact when 2^n <= {resamples:,}). "
        f"Holm: adjusted across the {len(comparisons)} task(s). ≤: the smallest p that {resamples:,} sampled "
        f"sign flips can give, 2/({resamples:,} + 1), was reached; the true p is at most this.",
        highlight=False,
    )


def _at_floor(comparison, resamples: int) -> bool:
    """A sampled test's smallest p, 2 / (resamples + 1) two-sided: the true p may be smaller."""
    return not comparison.exact and comparison.p_value <= 2 / (resamples + 1) * (1 + 1e-9)


def _p(value: float, upper_bound: bool) -> str:
    text = f"{value:.4f}" if value >= 1e-4 else f"{value:.1e}"
    return f"≤{text}" if upper_bound else text


COMMANDS = [compare]
