"""Commands over result files: show, push, pull, export, import, validate."""

from __future__ import annotations

from pathlib import Path

import click

from leaderboard.cli.console import err, escape, out


def _registry():
    from leaderboard.registry import get_registry

    return get_registry()


@click.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
def show(directory: Path) -> None:
    """Show a table of the results under DIRECTORY (invalid files are listed as skipped, with the reason)."""
    from rich.table import Table

    from leaderboard.records.index import build_index

    index = build_index(directory)
    table = Table(title=f"Results in {escape(directory)}")
    for column in ("model", "revision", "task", "main score", "value", "queries", "complete", "created"):
        table.add_column(column, overflow="fold")
    for _, r in index.rows:
        table.add_row(
            escape(r["model"]["name"]),
            escape(r["model"]["revision"]),
            escape(r["task"]["name"]),
            escape(r["task"]["main_score"]),
            f"{r['main_score']:.4f}",
            escape(r["queries"] or ""),
            "yes" if r["complete"] else "partial",
            escape(r["created_at"]),
        )
    out().print(table)
    for path, reason in index.skipped:
        err().print(f"[yellow]skipped[/] {escape(path)}: {escape(reason)}", highlight=False)
    if not index.rows and not index.skipped:
        err().print(f"No result files under {escape(directory)}.")


@click.command()
@click.argument("results_dir", type=click.Path(path_type=Path))
@click.option("--repo", required=True, help="The results dataset, ORG/NAME.")
@click.option(
    "--endpoint", default=None, help="Hub endpoint (default: huggingface_hub's; it reads HF_ENDPOINT only at import)."
)
@click.option(
    "--create-pr",
    is_flag=True,
    help="Open a pull request on the dataset instead of committing to main (community submissions).",
)
@click.option("--dry-run", is_flag=True, help="Validate and print the exact operations; send nothing.")
@click.option("--message", default=None, help="Commit message.")
def push(
    results_dir: Path, repo: str, endpoint: str | None, create_pr: bool, dry_run: bool, message: str | None
) -> None:
    """Validate every result under RESULTS_DIR and push them to a Hugging Face dataset in one commit."""
    from leaderboard.records.store import HubStore, collect

    uploads = collect(results_dir)
    message = (
        message
        or f"Add {sum(1 for u in uploads if not u.path_in_repo.endswith('model_card.json'))} result(s) with retrieval-leaderboard"
    )
    if dry_run:
        out().print(
            f"dry run: one commit to dataset {escape(repo)}{' as a pull request' if create_pr else ''}, parent = current head, message {message!r}"
        )
        for u in uploads:
            out().print(
                f"  add {escape(u.path_in_repo)}  ({len(u.data)} bytes, sha256 {u.sha256[:16]})", highlight=False
            )
        return
    url = HubStore(repo, endpoint).push(uploads, message, create_pr=create_pr)
    out().print(f"{'Opened pull request' if create_pr else 'Committed'} {len(uploads)} file(s): {url}", highlight=False)


@click.command()
@click.argument("dest", type=click.Path(file_okay=False, path_type=Path))
@click.option("--repo", required=True, help="The results dataset, ORG/NAME.")
@click.option("--endpoint", default=None, help="Hub endpoint.")
@click.option("--revision", default=None, help="A commit, branch or refs/pr/N (default: main).")
def pull(dest: Path, repo: str, endpoint: str | None, revision: str | None) -> None:
    """Fetch the results dataset (a snapshot) into DEST."""
    from leaderboard.records.store import HubStore

    path = HubStore(repo, endpoint).pull(dest, revision)
    count = sum(1 for p in (path / "results").rglob("*.json")) if (path / "results").is_dir() else 0
    out().print(f"Pulled {count} file(s) from {escape(repo)} into {escape(str(path))}", highlight=False)


@click.command("export")
@click.argument("destination", metavar="OUT", type=click.Path(file_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["mteb"]), default="mteb", show_default=True)
@click.option(
    "--results",
    "results_dir",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=Path("results"),
    show_default=True,
)
def export_cmd(destination: Path, fmt: str, results_dir: Path) -> None:
    """Export results as mteb TaskResult files (<org>__<model>/<revision>/<Task>.json + model_meta.json)."""
    from leaderboard.records.mteb_results import export_mteb

    written = export_mteb(results_dir, destination)
    out().print(
        f"Exported {len(written)} result(s) to {escape(str(destination))} in the mteb results layout", highlight=False
    )


@click.command("import")
@click.argument("source", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["mteb"]), default="mteb", show_default=True)
@click.option(
    "--output", "-o", type=click.Path(file_okay=False, path_type=Path), default=Path("results"), show_default=True
)
def import_cmd(source: Path, fmt: str, output: Path) -> None:
    """Import mteb result files for tasks we also run (marked as imported, with their provenance)."""
    from leaderboard.records.mteb_results import import_mteb

    written, skipped = import_mteb(source, output, _main_score_of)
    out().print(
        f"Imported {len(written)} result(s) into {escape(str(output))}; skipped {len(skipped)}", highlight=False
    )
    for reason in skipped:
        err().print(f"[yellow]skipped[/] {escape(reason)}", highlight=False)


def _main_score_of(task_name: str) -> str | None:
    """The main score our task of that name declares, or None when no installed plugin has it."""
    from leaderboard.engine.runner import RunOptions, make_task
    from leaderboard.errors import LeaderboardError

    if task_name not in _registry().names("task"):
        return None
    try:
        task, _ = make_task(_registry(), task_name, RunOptions())
    except LeaderboardError:
        return None
    return task.metadata.main_score


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
def validate(paths: tuple[Path, ...]) -> None:
    """Check submissions: spec schema, plugin discoverable, results current, no duplicates, sane scores."""
    from leaderboard.records.submissions import validate_paths

    count, problems = validate_paths(list(paths), _registry())
    for problem in problems:
        err().print(f"[red]✗[/] {escape(problem)}", highlight=False, soft_wrap=True)
    if problems:
        from leaderboard.errors import BadInput

        raise BadInput(f"{len(problems)} problem(s) in {count} submission(s).")
    out().print(f"✓ {count} submission(s) valid")


COMMANDS = [show, push, pull, export_cmd, import_cmd, validate]
