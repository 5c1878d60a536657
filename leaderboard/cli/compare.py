"""``leaderboard compare A B --task T ...``: paired significance tests between two models.

Results alone suffice: when A's or B's complete result for a task is under ``--results`` (with its
per-query values and data hash), it is read and said to be "reused"; neither the task's data nor its
plugin is needed. Only what is missing is run (through the engine), which needs both.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from leaderboard.cli.console import err, escape, out, progress
from leaderboard.cli.formats import at_floor, check_columns, columns_option, format_p
from leaderboard.cli.run import QUIET_HELP, data_dirs_option

DATA_DIR_HELP = "Local data folder for a task, as in `run`: TASK=DIR (repeatable), or DIR for every task."
FORMATS = ("table", "json", "markdown", "latex")


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
@click.option(
    "--resamples",
    type=click.IntRange(min=100),
    default=None,
    help="Bootstrap resamples and sampled sign flips [default: the harness's one count, 10,000].",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap and the sign flips.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS, case_sensitive=False),
    default="table",
    show_default=True,
    help="A table, JSON, or a paper-ready Markdown or LaTeX table.",
)
@columns_option(
    "task, metric, queries, a, b, difference, p, p_holm (default: all; with one task p, not p_holm, which equals it)"
)
@click.option("--quiet", "-q", is_flag=True, help=QUIET_HELP)
def compare(model_a, model_b, tasks, results_dir, data_dirs, resamples, seed, fmt, columns, quiet) -> None:
    """Is A better than B? Paired bootstrap and randomization tests per task, Holm-corrected across tasks.

    Complete results of A and B under --results are reused (no data or task plugin needed); missing
    ones are run first (through leaderboard.evaluate) and written there. Each task's main score is
    compared on the same queries.
    """
    from leaderboard.metrics.bootstrap import N_RESAMPLES  # declared once there; numpy only when comparing

    resamples = resamples or N_RESAMPLES
    check_columns(columns, fmt)
    from leaderboard.errors import BadInput
    from leaderboard.records.comparison import compare_task, with_holm

    tasks = tuple(dict.fromkeys(tasks))  # each task once: Holm counts comparisons
    finder = _Finder(results_dir)
    runner = _Runner(results_dir, data_dirs, tasks)
    comparisons, pairs = [], []
    with progress(quiet) as bar:
        for task in tasks:
            found = [finder.find(spec, task) or runner.run(spec, task, bar) for spec in (model_a, model_b)]
            for status, path, _ in found:
                err().print(f"{status}: {escape(path)}", highlight=False, soft_wrap=True)
            (_, path_a, a), (_, path_b, b) = found
            hash_a, hash_b = a.task.source.content_hash, b.task.source.content_hash
            if hash_a and hash_b and hash_a != hash_b:
                raise BadInput(
                    f"{path_a} and {path_b} were computed on different data ({hash_a} vs {hash_b}): "
                    "compare results on the same data."
                )
            comparisons.append(compare_task(task, a, b, str(path_a), str(path_b), resamples, seed))
            pairs.append((a, b))
    with_holm(comparisons)
    if fmt == "json":
        click.echo(json.dumps({"a": model_a, "b": model_b, "tasks": [c.to_json() for c in comparisons]}, indent=2))
        return
    if fmt in ("markdown", "latex"):
        from leaderboard.cli.paper_tables import comparison_table

        click.echo(comparison_table(model_a, model_b, comparisons, pairs, resamples, fmt, columns), nl=False)
        return
    _table(model_a, model_b, comparisons, resamples)


class _Finder:
    """Complete, default-protocol results with per-query values under the results folder, by task and model."""

    def __init__(self, root: Path):
        self.root = root
        self._rows: list[tuple[Path, dict[str, Any]]] | None = None

    def rows(self, task: str) -> list[tuple[Path, dict[str, Any]]]:
        if self._rows is None:
            from leaderboard.records.index import build_index

            self._rows = build_index(self.root).rows if self.root.is_dir() else []
        return [
            (path, s)
            for path, s in self._rows
            if s["task"]["name"] == task and s["complete"] and s["has_per_query"] and not s["task_options"]
        ]

    def find(self, spec: str, task: str) -> tuple[str, Path, Any] | None:
        """("reused", path, result) for the model's result of the task, or None to run it.

        A result matches when its model name is the spec as given; else the spec is resolved through
        the registry (model plugins only, no weights) to the name and revision it records."""
        from leaderboard.records.files import read_result

        rows = self.rows(task)
        if not rows:
            return None
        matches = [(p, s) for p, s in rows if s["model"]["name"] == spec]
        if len(matches) != 1:
            name, revision = _resolve(spec)
            matches = [(p, s) for p, s in rows if (s["model"]["name"], s["model"]["revision"]) == (name, revision)]
        if not matches:
            return None
        path, _ = max(matches, key=lambda m: m[1]["created_at"])  # the newest of equal runs
        return "reused", path, read_result(path)


def _resolve(spec: str) -> tuple[str, str | None]:
    """The model name and revision a spec records in its results (builds the model; loads no weights)."""
    from leaderboard.engine.api import Session
    from leaderboard.engine.options import RunOptions
    from leaderboard.registry import get_registry

    model = Session(get_registry(), RunOptions()).model(spec).model
    return model.metadata.name, model.metadata.revision


class _Runner:
    """Runs what is missing, one session for the whole comparison (models are built once)."""

    def __init__(self, results_dir: Path, data_dirs: tuple[str, ...], tasks: tuple[str, ...]):
        self.results_dir, self.data_dirs, self.tasks = results_dir, data_dirs, tasks
        self._session: Any = None

    def run(self, spec: str, task: str, bar: Any) -> tuple[str, Path, Any]:
        from leaderboard.progress import use_progress

        if self._session is None:
            from leaderboard.engine.api import Session
            from leaderboard.engine.options import RunOptions
            from leaderboard.registry import get_registry

            options = RunOptions(output=self.results_dir, data_dirs=data_dirs_option(self.data_dirs, self.tasks))
            self._session = Session(get_registry(), options)
        with use_progress(bar):
            outcome = self._session.run(spec, task)
        # a finished identical run found by the engine is read, not run: "reused" (never "skipped")
        status = "reused" if outcome.status == "skipped" else outcome.status
        return status, outcome.path, outcome.result


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
            format_p(c.p_value, at_floor(c, resamples)),
            format_p(c.p_holm, at_floor(c, resamples)),
        )
    out().print(table)
    out().print(
        f"95% CI: percentile bootstrap of the per-query differences ({resamples:,} paired resamples). "
        f"p: two-sided paired randomization test (sign flips; exact when 2^n <= {resamples:,}). "
        f"Holm: adjusted across the {len(comparisons)} task(s). ≤: the smallest p that {resamples:,} sampled "
        f"sign flips can give, 2/({resamples:,} + 1), was reached; the true p is at most this.",
        highlight=False,
    )


COMMANDS = [compare]
