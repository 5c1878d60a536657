"""``leaderboard run``: evaluate models on tasks through the Python API."""

from __future__ import annotations

from pathlib import Path

import click

from leaderboard.cli.console import QUIET_HELP, escape, out, progress
from leaderboard.contract.model import DEFAULT_BATCH_SIZE, DTYPES

EXAMPLES = """Examples:
  leaderboard run --model bm25 --task demo
  leaderboard run -m all-MiniLM-L6-v2 -m bm25 -t comlq --data-dir comlq=../shared/data/comlq"""


# "\b" alone on a line: click keeps the next paragraph's line breaks (one example a line) instead of rewrapping it.
@click.command(epilog="\b\n" + EXAMPLES)
@click.option("--model", "-m", "models", multiple=True, help="Model name (see `leaderboard models`); repeatable.")
@click.option(
    "--task", "-t", "tasks", multiple=True, help="Task name or data folder (see `leaderboard tasks`); repeatable."
)
@click.option(
    "--output",
    "-o",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("results"),
    show_default=True,
    help="Results folder.",
)
@click.option("--batch-size", type=click.IntRange(min=1), default=DEFAULT_BATCH_SIZE, show_default=True)
@click.option("--device", default=None, help="torch device, e.g. cpu or cuda:0 (default: the model's choice).")
@click.option(
    "--max-length", type=click.IntRange(min=1), default=None, help="Truncate model inputs to this many tokens."
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=None,
    help="Evaluate only the first N queries (candidate-set tasks: the first N sets); the result is partial.",
)
@click.option(
    "--corpus-sample",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Search a seeded sample of N documents: the kept queries' judged ones plus random others (--seed); "
    "the result is partial.",
)
@click.option(
    "--data-dir",
    "data_dirs",
    multiple=True,
    help="Local data folder for a task: TASK=DIR (repeatable), or DIR for every task. "
    "Overrides the task's environment variable.",
)
@click.option(
    "--task-option",
    "task_options",
    multiple=True,
    metavar="KEY=VALUE",
    help="A task setting, e.g. ignore_identical_ids=false (see `leaderboard tasks`); recorded in the result.",
)
@click.option(
    "--dtype",
    type=click.Choice(DTYPES),
    default=None,
    help="Weights dtype (default: the model's own); float16 also stores corpus embedding shards in float16.",
)
@click.option(
    "--shard-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Folder for corpus embedding shards (default: the cache folder); must be shared by Ray workers.",
)
@click.option(
    "--ray",
    "ray_address",
    is_flag=False,
    flag_value="auto",
    default=None,
    metavar="[ADDRESS]",
    help="Run on a Ray cluster (extra 'ray'): ADDRESS, or alone for RAY_ADDRESS or a new local cluster.",
)
@click.option(
    "--ray-start-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    metavar="SECONDS",
    help="With --ray: how long to wait for the cluster to start a worker and offer a node for the jobs before "
    "stopping with exit 2 (default: LEADERBOARD_RAY_START_S, else 120).",
)
@click.option(
    "--allow-partial",
    is_flag=True,
    help="Write a result found incomplete while scoring (e.g. its LLM judge stopped answering) as a partial "
    "result (never ranked or pushed); without it such a run exits 2 and writes nothing.",
)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--overwrite", is_flag=True, help="Re-run and replace existing results.")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the on-disk embedding cache.")
@click.option("--quiet", "-q", is_flag=True, help=QUIET_HELP)
def run(  # noqa: PLR0913 (a click command: one keyword per option)
    *,
    models,
    tasks,
    output,
    batch_size,
    device,
    max_length,
    limit,
    corpus_sample,
    data_dirs,
    task_options,
    dtype,
    shard_dir,
    ray_address,
    ray_start_timeout,
    allow_partial,
    seed,
    overwrite,
    no_cache,
    quiet,
) -> None:
    """Evaluate each --model on each --task and write one result file per pair."""
    if not models or not tasks:
        missing = " and ".join(o for o, given in (("--model", models), ("--task", tasks)) if not given)
        raise click.UsageError(f"Missing {missing}.\n\n{EXAMPLES}")
    from leaderboard.engine.api import Session
    from leaderboard.engine.options import RunOptions
    from leaderboard.progress import use_progress
    from leaderboard.registry import get_registry

    options = RunOptions(
        output=output,
        batch_size=batch_size,
        device=device,
        max_length=max_length,
        limit=limit,
        corpus_sample=corpus_sample,
        overwrite=overwrite,
        seed=seed,
        data_dirs=data_dirs_option(data_dirs, tasks),
        use_cache=not no_cache,
        task_options=key_values(task_options, "--task-option"),
        dtype=dtype,
        shard_dir=shard_dir,
        ray=ray_address,
        ray_start_timeout=ray_start_timeout,
        allow_partial=allow_partial,
    )
    session = Session(get_registry(), options)
    with progress(quiet) as bar, use_progress(bar):
        outcomes = session.run_all(models, tasks)
    _report(outcomes, session)


def _report(outcomes, session) -> None:
    from rich.table import Table

    from leaderboard.metrics.labels import metric_label

    table = Table(title="Results")
    for column in ("model", "task", "main score", "value", "status", "file"):
        table.add_column(column, overflow="fold")
    for o in outcomes:
        r = o.result
        table.add_row(
            escape(o.model),
            escape(o.task),
            escape(metric_label(r.task.model_dump(mode="json"), r.task.main_score)),  # nDCG@10, as every table
            f"{r.main_score:.4f}",
            o.status + ("" if r.is_complete else " (partial)"),
            escape(o.path),
        )
    out().print(table)
    first = session.first_stage
    if first.computed or first.reused:
        out().print(f"first-stage runs: {first.computed} computed, {first.reused} reused")
    for o in outcomes:
        c = o.result.counts
        if o.status == "written" and c.get("cache_hits", 0) + c.get("cache_misses", 0) > 0:
            corrupt = c.get("cache_corrupt_recomputed", 0)
            hits = f"{c['cache_hits']} hits, {c['cache_misses']} misses"
            out().print(
                f"embedding cache for {escape(o.model)} on {escape(o.task)}: {hits}"
                + (f", {corrupt} corrupt entries recomputed" if corrupt else "")
            )


def key_values(values: tuple[str, ...], option: str) -> dict[str, str]:
    from leaderboard.errors import BadInput, shorten

    pairs = {}
    for value in values:
        key, sep, setting = value.partition("=")
        if not sep or not key.strip():
            raise BadInput(f"{option} {shorten(value, 60)!r}: expected KEY=VALUE.")
        pairs[key.strip()] = setting.strip()
    return pairs


def data_dirs_option(values: tuple[str, ...], tasks: tuple[str, ...]) -> dict[str, str]:
    """--data-dir TASK=DIR or DIR (for every task) -> task spec -> folder."""
    from leaderboard.errors import BadInput

    chosen: dict[str, str] = {}
    for value in values:
        name, sep, folder = value.partition("=")
        if sep and name in tasks:
            chosen[name] = folder
        elif sep and not Path(value).exists():
            raise BadInput(f"--data-dir {value!r}: {name!r} is not one of the --task names ({', '.join(tasks)}).")
        else:
            chosen.update({task: value for task in tasks if task not in chosen})
    return chosen


COMMANDS = [run]
