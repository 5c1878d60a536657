"""``leaderboard compare A B --task T ...``: paired significance tests between two models.

Results alone suffice: when A's or B's complete result for a task is under ``--results`` (with its
per-query values and data hash), it is read and said to be "reused"; neither the task's data nor its
plugin is needed. Only what is missing is run (through the engine), which needs both. ``--per-subset``
adds the app's per-subset comparison (``analysis.comparison.compare_subsets``), ``--queries N`` the
queries where the two differ most (``analysis.query_differences``), with their text given the data.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from leaderboard.cli.compare_tables import query_tables, subset_json, subset_table
from leaderboard.cli.console import QUIET_HELP, err, escape, out, progress
from leaderboard.cli.formats import QUEUE_KEY_HELP, at_floor, check_columns, columns_option, format_p
from leaderboard.cli.run import data_dirs_option

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
@click.option(
    "--per-subset",
    is_flag=True,
    help="Also compare each subset, as the app's Compare tab does: the main score on every subset both results "
    "name, and each other metric the task's views show (LSNC on the negation queries both judges labelled); "
    "Holm across each task's subset rows.",
)
@click.option(
    "--queries",
    "top_queries",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Also list the N queries where A is better by most and the N where B is (main score), with their "
    "subsets; with --data-dir for the task, their text.",
)
@columns_option(
    "task, metric, queries, a, b, difference, p, p_holm (default: all; with one task p, not p_holm, which equals it)"
)
@click.option("--queue-key", default=None, metavar="PEM|hf://ORG/NAME", help=QUEUE_KEY_HELP)
@click.option("--endpoint", default=None, help="Hub endpoint (for --queue-key hf://...).")
@click.option("--quiet", "-q", is_flag=True, help=QUIET_HELP)
def compare(  # noqa: PLR0913 (a click command: one keyword per option)
    *,
    model_a,
    model_b,
    tasks,
    results_dir,
    data_dirs,
    resamples,
    seed,
    fmt,
    per_subset,
    top_queries,
    columns,
    queue_key,
    endpoint,
    quiet,
) -> None:
    """Is A better than B? Paired bootstrap and randomization tests per task, Holm-corrected across tasks.

    Complete results of A and B under --results are reused (no data or task plugin needed); missing
    ones are run first (through leaderboard.evaluate) and written there. Each task's main score is
    compared on the same queries; results of different task versions, main scores or data are refused.
    """
    from leaderboard.metrics.bootstrap import N_RESAMPLES  # declared once there; numpy only when comparing

    resamples = resamples or N_RESAMPLES
    check_columns(columns, fmt)
    from leaderboard.analysis.comparison import compare_task, with_holm
    from leaderboard.errors import BadInput
    from leaderboard.registry import UnknownName

    fmt = fmt.lower()
    if model_a == model_b:
        raise BadInput(
            f"A and B are the same model ({model_a}): a result compared with itself differs by 0 on every query; "
            "name two models."
        )
    tasks = tuple(dict.fromkeys(tasks))  # each task once: Holm counts comparisons
    from leaderboard.hub.queue_keys import queue_key_option

    key = queue_key_option(queue_key, endpoint)
    finder = _Finder(results_dir)
    runner = _Runner(results_dir, data_dirs, tasks)
    comparisons, pairs, found_paths = [], [], []
    with progress(quiet) as bar:
        for task in tasks:
            try:
                found = [finder.find(spec, task) or runner.run(spec, task, bar) for spec in (model_a, model_b)]
            except UnknownName as exc:
                raise finder.unknown(exc) from None
            for status, path, _ in found:
                err().print(f"{status}: {escape(path)}", highlight=False, soft_wrap=True)
            (_, path_a, a), (_, path_b, b) = found
            if Path(path_a).resolve() == Path(path_b).resolve():
                raise BadInput(
                    f"A ({model_a}) and B ({model_b}) are the same result, {path_a}: a result compared with "
                    "itself differs by 0 on every query; name two models."
                )
            comparisons.append(compare_task(task, a, b, str(path_a), str(path_b), n_resamples=resamples, seed=seed))
            pairs.append((a, b))
            found_paths.append((str(path_a), str(path_b)))
    with_holm(comparisons)
    vouched = [_vouched(task, paths, key) for task, paths in zip(tasks, found_paths)]
    extra = _extras(
        tasks, pairs, found_paths, per_subset=per_subset, top_queries=top_queries, data_dirs=data_dirs,
        resamples=resamples, seed=seed,
    )  # fmt: skip
    if fmt == "json":
        document: dict[str, Any] = {
            "a": model_a,
            "b": model_b,
            "tasks": [c.to_json() | {"per_query_values": v} for c, v in zip(comparisons, vouched)],
        }
        if per_subset:
            document["subsets"] = {
                task: [subset_json(row, labels[(row.subset, row.metric)]) for row in rows]
                for task, (rows, labels) in extra["subsets"].items()
            }
        if top_queries:
            document["queries"] = {
                task: {"metric": metric, "a_better": [r.to_json() for r in a], "b_better": [r.to_json() for r in b]}
                for task, (metric, (a, b)) in extra["queries"].items()
            }
        click.echo(json.dumps(document, indent=2, ensure_ascii=False))
        return
    if fmt in ("markdown", "latex"):
        from leaderboard.cli.paper_tables import comparison_table

        click.echo(comparison_table(model_a, model_b, comparisons, pairs, resamples, fmt, columns=columns), nl=False)
    else:
        _table(model_a, model_b, comparisons, pairs, resamples)
    for task, (rows, labels) in extra.get("subsets", {}).items():
        text = subset_table(task, model_a, model_b, rows, labels, fmt)
        if text is not None:
            click.echo("\n" + text, nl=False)
    for task, (metric, found_queries) in extra.get("queries", {}).items():
        text = query_tables(task, metric, model_a, model_b, found_queries, fmt)
        if text is not None:
            click.echo("\n" + text, nl=False)


def _vouched(task: str, paths: tuple[str, str], key: Any) -> dict[str, Any]:
    """Whether an attestation by the queue vouches for each side's per-query values, said on stderr when one
    does not: the interval and p rest on them, and anyone who can write a results folder can rewrite them
    (replace each query's value by its subset's mean, recompute means and checksums) without any other trace."""
    from leaderboard.security.attestation import EVALUATED_BY_THE_QUEUE, check

    verdicts = {side: check(Path(path), key) for side, path in zip(("a", "b"), paths)}
    for side, path in zip(("a", "b"), paths):
        verdict = verdicts[side]
        if verdict.status == "invalid":
            err().print(f"[yellow]{escape(path)}: {escape(verdict.detail)}[/]", highlight=False, soft_wrap=True)
    unvouched = [side.upper() for side, v in verdicts.items() if not v.attested]
    if unvouched:
        whose = " and ".join(unvouched)
        err().print(
            f"{escape(task)}: the interval and p rest on per-query values that no attestation vouches for "
            f"({whose}: not {EVALUATED_BY_THE_QUEUE}"
            + ("" if key is not None else "; no queue key given, --queue-key")
            + ")",
            highlight=False,
            soft_wrap=True,
        )
    return {side: {"provenance": v.status, "detail": v.detail} for side, v in verdicts.items()}


def _extras(tasks, pairs, paths, *, per_subset, top_queries, data_dirs, resamples, seed) -> dict[str, Any]:
    """--per-subset rows (with their labels) and --queries lists, per task."""
    from leaderboard.analysis.comparison import cell_labels, comparable, compare_cells, skipped_text
    from leaderboard.analysis.query_differences import largest_differences
    from leaderboard.errors import BadInput
    from leaderboard.records.per_query_columns import of_result

    extra: dict[str, Any] = {"subsets": {}, "queries": {}}
    folders = data_dirs_option(data_dirs, tasks) if top_queries else {}
    for task, (a, b), (path_a, path_b) in zip(tasks, pairs, paths):
        declaration = a.task.model_dump(mode="json")
        if per_subset:
            comparable(a, b, path_a, path_b)
            rows, skipped = compare_cells(task, declaration, of_result(a), of_result(b), resamples, seed)
            labels = {(r.subset, r.metric): cell_labels(declaration, r.subset, r.metric) for r in rows}
            extra["subsets"][task] = (rows, labels)
            if skipped:
                err().print(
                    f"{escape(task)}: not compared per subset: {escape(skipped_text(skipped))}", highlight=False
                )
        if top_queries:
            metric = a.task.main_score
            found = largest_differences(of_result(a), of_result(b), metric, a.direction, top_queries)
            if isinstance(found, str):
                raise BadInput(f"{task}: {found}.")
            texts = _texts(task, folders[task], a, path_a) if task in folders else _texts_at_hand(task, a, path_a)
            for row in (*found[0], *found[1]):
                row.text = texts.get(row.query_id)
            extra["queries"][task] = (metric, found)
    return extra


def _texts(task: str, folder: str | None, result: Any, where: str) -> dict[str, str]:
    """The task's query texts from ``folder`` (None: where ``run`` finds the task's data), refused when that
    data is not the data the result was scored on."""
    from leaderboard.engine.query_texts import load_texts
    from leaderboard.errors import BadInput

    options = getattr(result.settings, "task_options", None) or {}
    texts, content_hash = load_texts(task, folder, {str(k): str(v) for k, v in options.items()})
    expected = result.task.source.content_hash
    if expected and content_hash and content_hash != expected:
        given = f"--data-dir {folder}: its data" if folder else "the task's data here"
        raise BadInput(
            f"{given} ({content_hash}) is not the data {where} was scored on ({expected}): "
            "the texts would not be the queries compared."
        )
    return texts


def _texts_at_hand(task: str, result: Any, where: str) -> dict[str, str]:
    """The query texts from the task's own data when it loads here without --data-dir (embedded, cached or
    named by its environment variable); else none, and a note saying why and how to get them."""
    from leaderboard.errors import LeaderboardError

    try:
        texts = _texts(task, None, result, where)
    except LeaderboardError as exc:
        why = str(exc)
    else:
        if texts:
            return texts
        why = "its data names no query texts before a run"
    hint = "" if "--data-dir" in why else f" Give --data-dir {task}=DIR to show them."
    err().print(
        f"{escape(task)}: no query texts shown: {escape(why.rstrip('.'))}.{escape(hint)}",
        highlight=False,
        soft_wrap=True,
    )
    return {}


class _Finder:
    """Complete, default-protocol results with per-query values under the results folder, by task and model."""

    def __init__(self, root: Path):
        self.root = root
        self._rows: list[tuple[Path, dict[str, Any]]] | None = None

    def rows(self, task: str) -> list[tuple[Path, dict[str, Any]]]:
        return [
            (path, s)
            for path, s in self.rows_all()
            if s["task"]["name"] == task and s["complete"] and s["has_per_query"] and not s["task_options"]
        ]

    def unknown(self, exc: Any) -> Exception:
        """An unknown model's error, its suggestions taken from the models with results here as well."""
        if exc.kind != "model" or not self.rows_all():
            return exc
        from leaderboard.registry import UnknownName, did_you_mean, get_registry

        here = sorted({s["model"]["name"] for _, s in self.rows_all()})
        known = get_registry().names("model")
        return UnknownName(
            f"Unknown model {exc.name!r}: no result of it under {self.root} and no plugin provides it."
            f"{did_you_mean(exc.name, [*here, *known])} Models with results there: {', '.join(here)}; "
            f"known models: {', '.join(known)} (see `leaderboard models`).",
            exc.kind,
            exc.name,
        )

    def rows_all(self) -> list[tuple[Path, dict[str, Any]]]:
        if self._rows is None:
            from leaderboard.records.index import build_index

            self._rows = build_index(self.root).rows if self.root.is_dir() else []
        return self._rows

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


def _table(model_a: str, model_b: str, comparisons, pairs, resamples: int) -> None:
    from rich.table import Table

    from leaderboard.metrics.labels import metric_label

    table = Table(title=f"{escape(model_a)} (A) vs {escape(model_b)} (B): paired tests over the same queries")
    for column in ("task", "metric", "queries", "A", "B", "A − B", "95% CI", "p", "p (Holm)"):
        table.add_column(column, overflow="fold", justify="left" if column in ("task", "metric") else "right")
    for c, (a, _) in zip(comparisons, pairs):
        arrow = "" if c.direction == "higher" else " (lower is better)"
        label = metric_label(a.task.model_dump(mode="json"), c.metric).rstrip(" ↑↓")  # nDCG@10, as every table
        table.add_row(
            escape(c.task),
            escape(label + arrow),
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
