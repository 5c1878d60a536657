"""The ``leaderboard`` command line."""

from __future__ import annotations

import json
import os
import time
import traceback
from pathlib import Path

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from . import __version__
from .dense import EmbeddingMemo
from .pipeline import FirstStageRuns
from .errors import BadInput, LeaderboardError
from .plugins import get_registry
from .progress import use_progress
from .resultfiles import result_files
from .results import read_result
from .runner import RunOptions, load_model, run_one

console = Console(stderr=True)
out = Console()


class Group(click.Group):
    """Turns our exceptions into exit codes: bad input 2, internal failure 1, no traceback."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except LeaderboardError as exc:
            label = "Error" if isinstance(exc, BadInput) else "Internal error"
            console.print(f"[bold red]{label}:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
            if os.environ.get("LEADERBOARD_DEBUG"):
                traceback.print_exc()
            ctx.exit(exc.exit_code)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except Exception as exc:  # an unexpected failure: still no traceback unless asked for
            console.print(f"[bold red]Internal error:[/] {type(exc).__name__}: {escape(str(exc))} (set LEADERBOARD_DEBUG=1 for the traceback)", highlight=False, soft_wrap=True)
            if os.environ.get("LEADERBOARD_DEBUG"):
                traceback.print_exc()
            ctx.exit(1)


def _progress() -> Progress:
    return Progress(
        SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=console, transient=False, disable=not console.is_terminal and not os.environ.get("LEADERBOARD_PROGRESS"),
    )


@click.group(cls=Group)
@click.version_option(__version__, prog_name="leaderboard")
def cli() -> None:
    """Evaluate retrievers and rerankers on hard-query benchmarks and publish the results."""


@cli.command()
@click.option("--model", "-m", "models", multiple=True, required=True, help="Model name (see `leaderboard models`); repeatable.")
@click.option("--task", "-t", "tasks", multiple=True, required=True, help="Task name or BEIR directory (see `leaderboard tasks`); repeatable.")
@click.option("--output", "-o", type=click.Path(file_okay=False, path_type=Path), default=Path("results"), show_default=True, help="Results folder.")
@click.option("--batch-size", type=click.IntRange(min=1), default=32, show_default=True)
@click.option("--device", default=None, help="torch device, e.g. cpu or cuda:0 (default: the model's choice).")
@click.option("--max-length", type=click.IntRange(min=1), default=None, help="Truncate model inputs to this many tokens.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Evaluate only the first N queries (candidate-set tasks: the first N sets); recorded in the result.")
@click.option("--data-dir", "data_dirs", multiple=True, help="Local data folder for a task: TASK=DIR (repeatable), or DIR for every task. Overrides the task's environment variable.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--overwrite", is_flag=True, help="Re-run and replace existing results.")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the on-disk embedding cache.")
def run(models, tasks, output, batch_size, device, max_length, limit, data_dirs, seed, overwrite, no_cache) -> None:
    """Evaluate each --model on each --task and write one result file per pair."""
    registry = get_registry()
    options = RunOptions(output=output, batch_size=batch_size, device=device, max_length=max_length, limit=limit, overwrite=overwrite,
                         seed=seed, data_dirs=_data_dirs(data_dirs, tasks), use_cache=not no_cache)
    outcomes = []
    loaded: dict = {}  # models built in this run, shared by pipelines (e.g. one BM25 feeding two rerankers)
    first_stage = FirstStageRuns()
    with _progress() as progress, use_progress(progress):
        for spec in models:
            start = time.perf_counter()
            model, resolved = load_model(registry, spec, options, loaded)
            load_seconds = time.perf_counter() - start
            memo = _memo_for(model, options)  # a text shared by several tasks is encoded once per model and run
            for task_spec in tasks:
                outcomes.append(run_one(registry, model, resolved, task_spec, options, load_seconds, memo, first_stage))
                load_seconds = 0.0  # the model was loaded once for all its tasks
    table = Table(title="Results")
    for column in ("model", "task", "main score", "value", "status", "file"):
        table.add_column(column, overflow="fold")
    for o in outcomes:
        table.add_row(escape(o.model), escape(o.task), o.result["task"]["main_score"], f"{o.result['main_score']:.4f}", o.status, escape(str(o.path)))
    out.print(table)
    if first_stage.computed or first_stage.reused:
        out.print(f"first-stage runs: {first_stage.computed} computed, {first_stage.reused} reused")
    for o in outcomes:
        c = o.result.get("counts", {})
        if o.status == "written" and c.get("cache_hits", 0) + c.get("cache_misses", 0) > 0:
            out.print(f"embedding cache for {escape(o.model)} on {escape(o.task)}: {c['cache_hits']} hits, {c['cache_misses']} misses"
                      + (f", {c['cache_corrupt_recomputed']} corrupt entries recomputed" if c["cache_corrupt_recomputed"] else ""))


def _memo_for(model, options: RunOptions) -> EmbeddingMemo:
    """An in-run memo, backed by the on-disk cache for dense models (and a pipeline's dense stage)."""
    from .cache import EmbeddingCache
    from .model import DenseModel

    target = getattr(model, "first", model)
    if not options.use_cache or not isinstance(target, DenseModel):
        return EmbeddingMemo()
    settings = target.settings() | {"query_prompt": target.metadata.query_prompt, "document_prompt": target.metadata.document_prompt}
    return EmbeddingMemo(EmbeddingCache(target.metadata.name, target.metadata.revision, settings))


def _data_dirs(values: tuple[str, ...], tasks: tuple[str, ...]) -> dict[str, str]:
    """--data-dir TASK=DIR or DIR (for every task) -> task spec -> folder."""
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


def _registrations_table(kind: str) -> Table:
    registry = get_registry()
    table = Table(title=f"{kind.capitalize()}s")
    for column in ("name", "plugin", "description"):
        table.add_column(column, overflow="fold")
    for name in registry.names(kind):
        reg = registry.entries[kind][name]
        table.add_row(escape(name + ("<argument>" if reg.is_prefix else "")), escape(reg.plugin), escape(reg.description))
    return table


@cli.command()
def tasks() -> None:
    """List the registered tasks."""
    out.print(_registrations_table("task"))


@cli.command()
def models() -> None:
    """List the registered models."""
    out.print(_registrations_table("model"))


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def plugins(as_json: bool) -> None:
    """List plugins: version, hooks, what they registered, load errors."""
    registry = get_registry()
    infos = list(registry.plugins.values())
    if as_json:
        out.print_json(json.dumps([vars(i) for i in infos]))
        return
    table = Table(title="Plugins")
    for column in ("plugin", "distribution", "version", "hooks", "registered", "errors"):
        table.add_column(column, overflow="fold")
    for i in infos:
        registered = [f"task {n}" for n in i.tasks] + [f"model {n}" for n in i.models]
        table.add_row(escape(i.name), escape(i.distribution or "-"), escape(i.version or "-"), ", ".join(i.hooks), escape(", ".join(registered)), f"[red]{escape('; '.join(i.errors))}[/]" if i.errors else "")
    out.print(table)


@cli.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
def show(directory: Path) -> None:
    """Show a table of the results under DIRECTORY."""
    rows, skipped = [], []
    for path in result_files(directory):
        try:
            rows.append((path, read_result(path)))
        except BadInput as exc:
            skipped.append((path, str(exc)))
    table = Table(title=f"Results in {escape(str(directory))}")
    for column in ("model", "revision", "task", "main score", "value", "queries", "created"):
        table.add_column(column, overflow="fold")
    for path, r in rows:
        table.add_row(escape(r["model"]["name"]), escape(str(r["model"]["revision"])), escape(r["task"]["name"]), r["task"]["main_score"], f"{r['main_score']:.4f}", str(r.get("counts", {}).get("queries", "")), r["created_at"])
    out.print(table)
    for path, reason in skipped:
        console.print(f"[yellow]skipped[/] {escape(str(path))}: {escape(reason)}", highlight=False)
    if not rows and not skipped:
        console.print(f"No result files under {escape(str(directory))}.")


@cli.command()
@click.argument("results_dir", type=click.Path(path_type=Path))
@click.option("--repo", required=True, help="The results dataset, ORG/NAME.")
@click.option("--endpoint", default=None, help="Hub endpoint (default: huggingface_hub's; it reads HF_ENDPOINT only at import).")
@click.option("--create-pr", is_flag=True, help="Open a pull request on the dataset instead of committing to main (community submissions).")
@click.option("--dry-run", is_flag=True, help="Validate and print the exact operations; send nothing.")
@click.option("--message", default=None, help="Commit message.")
def push(results_dir: Path, repo: str, endpoint: str | None, create_pr: bool, dry_run: bool, message: str | None) -> None:
    """Validate every result under RESULTS_DIR and push them to a Hugging Face dataset in one commit."""
    from .store import HubStore, collect

    uploads = collect(results_dir)
    message = message or f"Add {sum(1 for u in uploads if not u.path_in_repo.endswith('model_card.json'))} result(s) with retrieval-leaderboard"
    if dry_run:
        out.print(f"dry run: one commit to dataset {escape(repo)}{' as a pull request' if create_pr else ''}, parent = current head, message {message!r}")
        for u in uploads:
            out.print(f"  add {escape(u.path_in_repo)}  ({len(u.data)} bytes, sha256 {u.sha256[:16]})", highlight=False)
        return
    url = HubStore(repo, endpoint).push(uploads, message, create_pr=create_pr)
    out.print(f"{'Opened pull request' if create_pr else 'Committed'} {len(uploads)} file(s): {url}", highlight=False)


@cli.command()
@click.argument("dest", type=click.Path(file_okay=False, path_type=Path))
@click.option("--repo", required=True, help="The results dataset, ORG/NAME.")
@click.option("--endpoint", default=None, help="Hub endpoint.")
@click.option("--revision", default=None, help="A commit, branch or refs/pr/N (default: main).")
def pull(dest: Path, repo: str, endpoint: str | None, revision: str | None) -> None:
    """Fetch the results dataset (a snapshot) into DEST."""
    from .store import HubStore

    path = HubStore(repo, endpoint).pull(dest, revision)
    count = sum(1 for p in (path / "results").rglob("*.json")) if (path / "results").is_dir() else 0
    out.print(f"Pulled {count} file(s) from {escape(repo)} into {escape(str(path))}", highlight=False)


@cli.command("export")
@click.argument("destination", metavar="OUT", type=click.Path(file_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["mteb"]), default="mteb", show_default=True)
@click.option("--results", "results_dir", type=click.Path(exists=True, file_okay=False, path_type=Path), default=Path("results"), show_default=True)
def export_cmd(destination: Path, fmt: str, results_dir: Path) -> None:
    """Export results as mteb TaskResult files (<org>__<model>/<revision>/<Task>.json + model_meta.json)."""
    from .mteb_results import export_mteb

    written = export_mteb(results_dir, destination)
    out.print(f"Exported {len(written)} result(s) to {escape(str(destination))} in the mteb results layout", highlight=False)


@cli.command("import")
@click.argument("source", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["mteb"]), default="mteb", show_default=True)
@click.option("--output", "-o", type=click.Path(file_okay=False, path_type=Path), default=Path("results"), show_default=True)
def import_cmd(source: Path, fmt: str, output: Path) -> None:
    """Import mteb result files for tasks we also run (marked as imported, with their provenance)."""
    from .mteb_results import import_mteb

    written, skipped = import_mteb(source, output, set(get_registry().names("task")))
    out.print(f"Imported {len(written)} result(s) into {escape(str(output))}; skipped {len(skipped)}", highlight=False)
    for reason in skipped:
        console.print(f"[yellow]skipped[/] {escape(reason)}", highlight=False)


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
def validate(paths: tuple[Path, ...]) -> None:
    """Check submissions: spec schema, plugin discoverable, results current, no duplicates, sane scores."""
    from .submissions import validate_paths

    count, problems = validate_paths(list(paths), get_registry())
    for problem in problems:
        console.print(f"[red]✗[/] {escape(problem)}", highlight=False, soft_wrap=True)
    if problems:
        raise BadInput(f"{len(problems)} problem(s) in {count} submission(s).")
    out.print(f"✓ {count} submission(s) valid")


@cli.command()
@click.option("--results", "results_spec", required=True, help="A results folder, or hf://ORG/NAME for a results dataset.")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=int, default=7860, show_default=True)
@click.option("--endpoint", default=None, help="Hub endpoint for hf:// results.")
def serve(results_spec: str, host: str, port: int, endpoint: str | None) -> None:
    """Serve the leaderboard app (Gradio) over a results folder or dataset."""
    from .app.sources import resolve_results
    from .app.ui import build_app

    folder = resolve_results(results_spec, endpoint)
    app = build_app(folder)
    console.print(f"Serving {escape(str(folder))} on http://{host}:{port}", highlight=False)
    app.launch(server_name=host, server_port=port, show_error=True)


def main() -> None:
    cli(prog_name="leaderboard")


if __name__ == "__main__":
    main()
