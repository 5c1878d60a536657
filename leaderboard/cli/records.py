"""Commands over result files: show, push, pull, export, import, validate."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from leaderboard.cli.console import QUIET_HELP, err, escape, out, progress
from leaderboard.cli.formats import (
    PAPER_FORMATS,
    QUEUE_KEY_HELP,
    check_columns,
    columns_option,
    emit,
    paper_format_option,
)
from leaderboard.hub.licenses import license_option
from leaderboard.hub.repo_names import repo_option

if TYPE_CHECKING:
    from leaderboard.records.index import Index
    from leaderboard.records.reported import ReportedScore


def _registry():
    from leaderboard.registry import get_registry

    return get_registry()


@click.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@paper_format_option
@click.option(
    "--reported",
    "with_reported",
    is_flag=True,
    help="Also list the scores papers report (DIRECTORY/reported/<paper>.json), each marked 'reported in <paper>, "
    "Table N': numbers copied from a paper, never runs of this harness (a table of their own).",
)
@click.option(
    "--subsets",
    "with_subsets",
    is_flag=True,
    help="Each task's numbers per subset (ComLQ per query type with LSNC, NegConstraint per category with the "
    "violation metrics, MultiConIR per domain: what the task's views show), each with its 95% interval.",
)
@columns_option(
    "model, revision and task names (default: model, revision where a model has several, every task); with "
    "--subsets, metric names as JSON names them (ndcg_at_10,paired_win_rate; default: every metric)"
)
@click.option("--queue-key", default=None, metavar="PEM|hf://ORG/NAME", help=QUEUE_KEY_HELP)
@click.option("--endpoint", default=None, help="Hub endpoint (for --queue-key hf://...).")
@click.option(
    "--task",
    "tasks",
    multiple=True,
    metavar="TASK",
    help="Only this task's results (repeatable; a task of the folder's results, case aside).",
)
@click.option(
    "--benchmark",
    "benchmarks",
    multiple=True,
    metavar="NAME",
    help="Only the results of this benchmark's tasks (repeatable; see `leaderboard benchmarks`); with --task, "
    "both sets are shown.",
)
def show(
    *,
    directory: Path,
    fmt: str,
    with_reported: bool,
    with_subsets: bool,
    columns: tuple[str, ...],
    queue_key: str | None,
    endpoint: str | None,
    tasks: tuple[str, ...],
    benchmarks: tuple[str, ...],
) -> None:
    """Show the results under DIRECTORY (invalid files are listed on stderr as skipped, with the reason)."""
    from leaderboard.records.index import build_index

    check_columns(columns, fmt)
    index = build_index(directory)
    chosen: set[str] | None = None
    if tasks or benchmarks:
        from leaderboard.cli.show_filters import chosen_tasks, only_tasks

        chosen = chosen_tasks(tasks, benchmarks, (r["task"]["name"] for _, r in index.rows), directory)
        index = only_tasks(index, chosen)
    if with_subsets:  # the per-subset tables (cli/subset_tables.py) instead of the listing
        from leaderboard.cli.subset_tables import show_subsets

        show_subsets([path for path, _ in index.rows], fmt, f"Results in {directory}", columns)
        _print_skipped(index)
        return
    if fmt.lower() in PAPER_FORMATS:  # complete results as models x tasks, with intervals and significance marks
        from leaderboard.cli.paper_tables import results_table

        click.echo(results_table(index, fmt.lower(), columns=columns), nl=False)
        _print_skipped(index)
        if with_reported:
            click.echo("\n" + _reported_paper_table(directory, fmt.lower()), nl=False)
        return
    rows, listing = _listing(index, directory, fmt, queue_key, endpoint)
    reported = _reported_scores(directory, chosen, benchmarks) if with_reported else None
    _emit_listing(rows, listing, fmt, directory, reported)
    _print_skipped(index)
    if chosen is not None and not index.rows:
        err().print(f"No results of {escape(', '.join(sorted(chosen)))} under {escape(directory)}.")
    elif not index.rows and not index.skipped:
        err().print(f"No result files under {escape(directory)}.")


def _print_skipped(index: Index) -> None:
    for path, reason in index.skipped:
        err().print(f"[yellow]skipped[/] {escape(path)}: {escape(reason)}", highlight=False)


def _listing(
    index: Index, directory: Path, fmt: str, queue_key: str | None, endpoint: str | None
) -> tuple[list[dict[str, Any]], list[str]]:
    """One row per result (and the columns to show): its main score, coverage, date, file and provenance."""
    rows = [
        {
            "model": r["model"]["name"],
            "revision": r["model"]["revision"],
            "task": r["task"]["name"],
            "main_score": r["task"]["main_score"],
            "value": r["main_score"],
            "queries": r["queries"],
            "complete": r["complete"],
            "coverage": "complete" if r["complete"] else "partial",
            "created": r["created_at"],
            "file": str(path),
        }
        for path, r in index.rows
    ]
    listing = ["model", "revision", "task", "main_score", "value", "queries", "coverage", "created"]
    if _mark_provenance(directory, rows, queue_key, endpoint):
        listing.append("provenance")
    listing += ["file"] if fmt == "csv" else []
    if fmt.lower() == "table":  # a reader's table names the metric as every table does (nDCG@10); JSON/CSV the key
        from leaderboard.metrics.labels import metric_label

        declarations = index.tasks()
        for row in rows:
            row["main_score"] = metric_label(declarations.get(row["task"]), row["main_score"])
    return rows, listing


def _reported_scores(directory: Path, chosen: set[str] | None, benchmarks: tuple[str, ...]) -> list[ReportedScore]:
    """The papers' scores under DIRECTORY/reported (of the chosen tasks or benchmarks); unreadable ones named."""
    from leaderboard.records.reported import load_reported

    scores, reported_skipped = load_reported(directory)
    if chosen is not None:
        named = {b.casefold() for b in benchmarks}
        scores = [x for x in scores if x.task in chosen or (x.benchmark or "").casefold() in named]
    for reason in reported_skipped:
        err().print(f"[yellow]skipped[/] {escape(reason)}", highlight=False)
    return scores


def _emit_listing(
    rows: list[dict[str, Any]], listing: list[str], fmt: str, directory: Path, reported: list[ReportedScore] | None
) -> None:
    """The listing; with the papers' scores, one document (JSON, CSV) or a second table beside it."""
    title = f"Results in {directory}"
    if reported is None:
        emit(rows, fmt, title, listing)
        return
    from leaderboard.records.reported import LISTING_COLUMNS, listing_rows

    if fmt.lower() in ("json", "csv"):  # one document: every row names where its number is from
        rows = [{"source": "reproduced", **row} for row in rows] + listing_rows(reported)
        listing = ["source", *listing, *(c for c in LISTING_COLUMNS if c not in listing and c != "source")]
        emit(rows, fmt, title, listing)
        return
    emit(rows, fmt, title, listing)
    papers = f"Reported in papers ({directory / 'reported'}): copied from the papers, not runs of this harness"
    emit(listing_rows(reported), fmt, papers, LISTING_COLUMNS)


def _mark_provenance(directory: Path, rows: list[dict], queue_key: str | None, endpoint: str | None) -> bool:
    """Each row's provenance ("evaluated by the queue", "pushed", ...), when a key is given or any result carries
    an attestation (a folder the queue never touched keeps its listing as it was); a bad attestation is named."""
    import os

    from leaderboard.records.listing import attestation_path

    # The queue's reader (pydantic, cryptography) is imported only when a key or an attestation asks for it:
    # a cold `show` of a folder the queue never touched stays light.
    asked = queue_key or os.environ.get("LEADERBOARD_QUEUE_PUBLIC_KEY")
    if not asked and not any(Path(attestation_path(row["file"])).is_file() for row in rows):
        return False
    from leaderboard.hub.queue_keys import queue_key_option
    from leaderboard.security.attestation import check, provenance

    key = queue_key_option(queue_key, endpoint)
    for row in rows:
        verdict = check(Path(row["file"]), key)
        row["provenance"] = provenance(verdict)
        if verdict.status == "invalid":
            err().print(f"[yellow]not attested[/] {escape(row['file'])}: {escape(verdict.detail)}", highlight=False)
    return True


def _reported_paper_table(directory: Path, fmt: str) -> str:
    """`show --reported --format markdown|latex`: the papers' scores in a table of their own."""
    from leaderboard.cli.paper_tables import render
    from leaderboard.metrics.labels import metric_label
    from leaderboard.records.reported import PAPER_COLUMNS, PAPER_NOTE, load_reported

    scores, skipped = load_reported(directory)
    for reason in skipped:
        err().print(f"[yellow]skipped[/] {escape(reason)}", highlight=False)

    def text(score, column: str) -> str:  # a harness metric by its label (nDCG@10); a paper's label as printed
        return metric_label(None, score.metric) if column == "metric" else str(getattr(score, column))

    rows = [[(text(s, c), False) for c in PAPER_COLUMNS[:-1]] + [(f"{s.value:.4f}", False)] for s in scores]
    return render(PAPER_COLUMNS, rows, fmt, "Reported in papers", [PAPER_NOTE], text_columns=len(PAPER_COLUMNS) - 1)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _benchmark_declarations() -> list[dict]:
    """Every registered benchmark as JSON; a broken one is skipped with a warning (it never stops a push)."""
    from leaderboard.cli.serve import skipped_benchmark
    from leaderboard.registry import installed_benchmarks

    declarations = []
    for benchmark in installed_benchmarks(skipped_benchmark):
        try:
            declarations.append(benchmark.to_json())
        except Exception as exc:  # a plugin's declaration that cannot be written
            skipped_benchmark(str(getattr(benchmark, "name", "?")), exc)
    return declarations


REPO_HELP = "The results dataset, ORG/NAME (checked with huggingface_hub's validator before anything else)."


@click.command()
@click.argument("results_dir", type=click.Path(path_type=Path))
@click.option("--repo", required=True, callback=repo_option(), help=REPO_HELP)
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
@click.option(
    "--reported",
    "reported_dir",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="A folder of scores reported in papers (<paper>.json, e.g. submissions/reported): validated and "
    "published as reported/ beside results/. Default: RESULTS_DIR/reported when it exists (what `serve` and "
    "`show --reported` preview).",
)
@click.option(
    "--no-reported",
    "no_reported",
    is_flag=True,
    help="Leave RESULTS_DIR/reported out of the push (results only).",
)
@click.option(
    "--license",
    "license_id",
    default=None,
    callback=license_option,
    help="License id written in the dataset card's front matter (default: cc-by-4.0): one of the Hub's license ids "
    "(https://huggingface.co/docs/hub/repositories-licenses), checked before anything else.",
)
def push(
    *,
    results_dir: Path,
    repo: str,
    endpoint: str | None,
    create_pr: bool,
    dry_run: bool,
    message: str | None,
    license_id: str | None,
    reported_dir: Path | None,
    no_reported: bool,
) -> None:
    """Validate every result under RESULTS_DIR and push the changed ones to a Hugging Face dataset in one commit.

    Partial results (--limit) are refused, naming each file. benchmarks.json (every installed
    benchmark's declaration) is written beside results/ so the app ranks without task plugins.
    Files identical to the dataset's are skipped; with nothing changed, nothing is sent.
    The same commit regenerates the dataset's flat table (data/results.parquet) and card
    (README.md) from every result in the dataset after the push.
    """
    from leaderboard.hub.store import PREFIX, HubStore, collect

    reported_dir = _reported_folder(results_dir, reported_dir, no_reported)
    uploads = collect(results_dir, _benchmark_declarations())
    if reported_dir is not None:  # all or none, like results: a file the board would skip stops the push
        from leaderboard.hub.store import Upload
        from leaderboard.records.reported import reported_uploads

        uploads += [Upload(path, data) for path, data in reported_uploads(reported_dir)]
    count = sum(1 for u in uploads if u.path_in_repo.startswith(PREFIX) and not u.path_in_repo.endswith("card.json"))
    message = message or f"Add {_plural(count, 'result')} with retrieval-leaderboard"
    if dry_run:
        out().print(
            f"dry run: one commit to dataset {escape(repo)}{' as a pull request' if create_pr else ''}, "
            f"parent = current head, message {escape(repr(message))}; files identical to the dataset's are skipped",
            highlight=False,
        )
        for u in uploads:
            out().print(
                f"  add {escape(u.path_in_repo)}  ({len(u.data)} bytes, sha256 {u.sha256[:16]})", highlight=False
            )
        out().print(
            "  regenerate data/results.parquet and README.md from all results in the dataset after the push",
            highlight=False,
        )
        return
    store = HubStore(repo, endpoint)
    report = store.push(uploads, message, create_pr=create_pr, flat_table=True, license_id=license_id)
    if report.url is None:
        out().print(
            f"Nothing to push: all {_plural(len(report.unchanged), 'file')} are identical to {escape(repo)} "
            f"at {escape((report.parent or '?')[:12])}.",
            highlight=False,
        )
        return
    files = _plural(len(report.pushed), "file")
    skipped = f" ({_plural(len(report.unchanged), 'unchanged file')} skipped)" if report.unchanged else ""
    what = (
        f"Opened pull request #{report.pr_number} with {files}" if create_pr else f"Committed {files} to {escape(repo)}"
    )
    out().print(f"{what}{skipped}: {report.url}", highlight=False)
    if report.derived:
        regenerated = ", ".join(escape(u.path_in_repo) for u in report.derived)
        out().print(f"Regenerated from all results in the dataset: {regenerated}", highlight=False)


def _reported_folder(results_dir: Path, given: Path | None, leave_out: bool) -> Path | None:
    """The reported scores a push publishes: --reported, else RESULTS_DIR/reported (the board previewed over
    RESULTS_DIR shows it, so the public one must too); --no-reported leaves them out."""
    from leaderboard.errors import BadInput
    from leaderboard.records.listing import REPORTED_FOLDER, holds_reported_scores

    inside = results_dir / REPORTED_FOLDER
    found = inside if inside.is_dir() and holds_reported_scores(inside) else None
    if leave_out:
        if given is not None:
            raise BadInput("--reported and --no-reported: give one of them.")
        return None
    if given is not None and found is not None and given.resolve() != found.resolve():
        raise BadInput(
            f"--reported {given}: {results_dir} holds its own {found}; push one folder of reported scores "
            f"(--reported {found}), or leave {found} out with --no-reported."
        )
    if given is None and found is not None:
        out().print(
            f"Taking {escape(str(found))} along: scores reported in papers (--no-reported leaves them out).",
            highlight=False,
        )
    return given or found


@click.command()
@click.argument("dest", type=click.Path(file_okay=False, path_type=Path))
@click.option("--repo", required=True, callback=repo_option(), help=REPO_HELP)
@click.option("--endpoint", default=None, help="Hub endpoint.")
@click.option("--revision", default=None, help="A commit, branch or refs/pr/N (default: main).")
@click.option("--quiet", "-q", is_flag=True, help=QUIET_HELP)
def pull(dest: Path, repo: str, endpoint: str | None, revision: str | None, quiet: bool) -> None:
    """Fetch the dataset's results/ and benchmarks.json into DEST (nothing else: no hub cache folder)."""
    from leaderboard.hub.store import HubStore
    from leaderboard.progress import use_progress

    with progress(quiet) as bar, use_progress(bar):
        report = HubStore(repo, endpoint).pull_report(dest, revision)
    out().print(
        f"Pulled {_plural(len(report.files), 'file')} from {escape(repo)} at {escape((report.revision or '?')[:12])} "
        f"into {escape(str(report.path))}",
        highlight=False,
    )
    if report.skipped:
        from leaderboard.hub.store import PullIncomplete

        raise PullIncomplete(
            f"skipped {_plural(len(report.skipped), 'file')} that cannot be written: "
            + " | ".join(f"{name[:200]!r}: {why}" for name, why in report.skipped[:20])
            + (f" | and {len(report.skipped) - 20} more" if len(report.skipped) > 20 else "")
        )


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
    from leaderboard.mteb.export import export_mteb

    written = export_mteb(results_dir, destination)
    out().print(
        f"Exported {len(written)} result(s) to {escape(str(destination))} in the mteb results layout", highlight=False
    )


@click.command("import")
@click.argument("source", required=False, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--repo", default=None, help="Read the hub dataset ORG/NAME (e.g. mteb/results) instead of a folder.")
@click.option("--endpoint", default=None, help="Hub endpoint (with --repo).")
@click.option("--revision", default=None, help="A commit, branch or refs/pr/N of --repo (default: main).")
@click.option(
    "--repository",
    default=None,
    help="Where the folder comes from (its GitHub URL), for links to each file; a git checkout's origin is read.",
)
@click.option("--commit", default=None, help="The commit the folder holds (a git checkout's HEAD is read).")
@click.option("--format", "fmt", type=click.Choice(["mteb"]), default="mteb", show_default=True)
@click.option(
    "--output", "-o", type=click.Path(file_okay=False, path_type=Path), default=Path("results"), show_default=True
)
@click.option("--summary-json", type=click.Path(dir_okay=False, path_type=Path), help="Also write the counts as JSON.")
def import_cmd(
    *,
    source: Path | None,
    repo: str | None,
    endpoint: str | None,
    revision: str | None,
    repository: str | None,
    commit: str | None,
    fmt: str,
    output: Path,
    summary_json: Path | None,
) -> None:
    """Import mteb's results (its repository's folder, or the hub dataset with --repo) as runs made by mteb.

    Every text retrieval and reranking result is imported (a task a plugin registers keeps its name,
    any other becomes mteb:<Task>); files of other task types are counted, never read. Re-importing
    writes only what changed. Exit 4 when a file was skipped (each reason counted, with examples).
    """
    from leaderboard.errors import BadInput
    from leaderboard.mteb.importer import ImportIncomplete, import_results
    from leaderboard.mteb.sources import FolderSource, HubSource, ResultSource

    if (source is None) == (repo is None):
        raise BadInput("leaderboard import: give a folder (SOURCE) or --repo ORG/NAME, not both.")
    found: ResultSource
    if repo is not None:
        found = HubSource(repo, endpoint, revision)
    else:
        assert source is not None  # one of the two, checked above
        found = FolderSource(source, repository, commit)
    try:
        from leaderboard.progress import step, use_progress

        with progress() as bar, use_progress(bar), step("importing") as counted:
            report = import_results(found, output, _task_naming(), advance=counted.advance)
    finally:
        if isinstance(found, HubSource):
            found.close()
    if summary_json is not None:
        import json

        from leaderboard.fileio import atomic_open

        with atomic_open(summary_json) as handle:
            json.dump(report.to_json(), handle, indent=2)
    lines = report.lines()
    out().print(escape(lines[0]), highlight=False, soft_wrap=True)
    for line in lines[1:]:
        err().print(escape(line), highlight=False, soft_wrap=True)
    if report.skipped_total:
        raise ImportIncomplete(
            f"{_plural(report.skipped_total, 'file')} skipped (counted by reason above); the others are imported."
        )


def _task_naming():
    """How imported tasks are named: a task a plugin registers under mteb's name keeps it (and its declaration)."""
    from leaderboard.engine.building import make_task
    from leaderboard.engine.options import RunOptions
    from leaderboard.errors import LeaderboardError
    from leaderboard.mteb.importer import TaskNaming

    registry = _registry()

    def declare(name: str):
        try:
            task, _ = make_task(registry, name, RunOptions())
            return task.metadata.to_json(task.evaluation)
        except (LeaderboardError, ImportError):
            return None  # the plugin's extra is not installed: the record carries mteb's own description

    return TaskNaming(registry.names("task"), declare)


DATA_DIR_HELP = (
    "Local data folder for a task, as in `run`: TASK=DIR (repeatable), or DIR for every task. "
    "Overrides the task's environment variable."
)


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--data-dir", "data_dirs", multiple=True, metavar="[TASK=]DIR", help=DATA_DIR_HELP)
@click.option(
    "--require-plugins",
    is_flag=True,
    help="Fail (instead of reporting 'not verifiable here') when a submission's plugin is not installed.",
)
def validate(paths: tuple[Path, ...], data_dirs: tuple[str, ...], require_plugins: bool) -> None:
    """Check submissions: spec schema, plugin and version, results against the spec, data current, no duplicates.

    Every problem in every file is listed (exit 2 if any). A submission whose plugin package is not
    installed here is reported as "not verifiable here: plugin not installed" and does not fail.
    """
    from leaderboard.queue.validation import NOT_VERIFIABLE, task_data_dirs
    from leaderboard.queue.validation import validate as run_validation

    report = run_validation(list(paths), _registry(), task_data_dirs(data_dirs), require_plugins)
    for problem in report.problems:
        err().print(f"[red]✗[/] {escape(problem)}", highlight=False, soft_wrap=True)
    for note in report.not_verifiable:
        err().print(f"[yellow]?[/] {escape(note)}", highlight=False, soft_wrap=True)
    for note in report.notes:
        err().print(f"[yellow]note:[/] {escape(note)}", highlight=False, soft_wrap=True)
    if report.problems:
        from leaderboard.errors import BadInput

        raise BadInput(f"{_plural(len(report.problems), 'problem')} in {_plural(report.submissions, 'submission')}.")
    unverified = f" ({len(report.not_verifiable)} {NOT_VERIFIABLE})" if report.not_verifiable else ""
    out().print(f"✓ {_plural(report.submissions, 'submission')} valid{unverified}", highlight=False)


COMMANDS = [show, push, pull, export_cmd, import_cmd, validate]
