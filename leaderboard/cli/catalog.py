"""``leaderboard tasks`` / ``models`` / ``benchmarks`` / ``judges`` / ``plugins``: what the installed plugins provide.

Each takes ``--format table|json|csv`` (``plugins --json`` is kept as a shorthand for ``--format json``).
``benchmarks`` also shows each task's mean query complexity (CW, eq. 1 of Complexity-Aware Training),
read from results on disk (``--results``): a result records it for the queries it evaluated, so the
listing needs neither the tasks' data nor a run. A task without a complete result there shows none.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from leaderboard.cli.formats import emit, format_option


def _registrations(kind: str, mean_cw: dict[str, float] | None = None) -> list[dict[str, Any]]:
    from leaderboard.registry import get_registry

    registry = get_registry()
    rows = []
    for name in registry.names(kind):
        reg = registry.entries[kind][name]
        missing = reg.missing
        row: dict[str, Any] = {
            "name": name + ("<argument>" if reg.is_prefix else ""),
            "plugin": reg.plugin,
            "description": reg.description,
            "disabled": (reg.install or "pip install " + " ".join(missing)) if missing else None,
        }
        if kind == "benchmark":
            row.update(_benchmark_columns(reg))
            row["mean_cw"] = {t: mean_cw[t] for t in row["tasks"] or () if mean_cw and t in mean_cw} or None
        rows.append(row)
    return rows


def mean_cw_from_results(root: Path) -> dict[str, float]:
    """Task -> the mean CW its newest complete result under ``root`` records (``task_details.complexity``)."""
    from leaderboard.errors import BadInput
    from leaderboard.records.files import read_result
    from leaderboard.records.index import build_index

    if not root.is_dir():
        return {}
    newest: dict[str, tuple[str, Path]] = {}
    for path, summary in build_index(root).rows:
        task = summary["task"]["name"]
        if (
            summary["complete"]
            and not summary["task_options"]
            and (task not in newest or summary["created_at"] > newest[task][0])
        ):
            newest[task] = (summary["created_at"], path)
    found = {}
    for task, (_, path) in newest.items():
        try:
            complexity = read_result(path).task_details.get("complexity")
        except BadInput:  # changed since it was indexed: no number rather than a wrong one
            continue
        value = complexity.get("mean_cw") if isinstance(complexity, dict) else None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            found[task] = float(value)
    return found


def _benchmark_columns(registration: Any) -> dict[str, Any]:
    """A benchmark's tasks and aggregate, from its declaration (factories take no arguments)."""
    try:
        declared = registration.factory()
    except Exception as exc:  # a broken plugin is listed with its error, never stops the listing
        return {"tasks": None, "aggregate": f"error: {type(exc).__name__}: {exc}", "public": None, "declaration": None}
    return {
        "tasks": list(dict.fromkeys(t.task for t in declared.tasks)),  # each once: a task has several columns
        "aggregate": declared.formula or declared.aggregate_label or declared.aggregate,
        "public": declared.public,
        "declaration": declared.to_json(),
    }


COLUMNS = {
    "task": ("name", "plugin", "description", "disabled"),
    "model": ("name", "plugin", "description", "disabled"),
    "benchmark": ("name", "plugin", "tasks", "aggregate", "public", "mean_cw", "description"),
    "judge": ("name", "plugin", "description", "disabled"),
}


def _listing(kind: str) -> click.Command:
    @click.command(
        name=f"{kind}s", help=f"List the registered {kind}s (disabled ones with the command that enables them)."
    )
    @format_option
    def command(fmt: str) -> None:
        emit(_registrations(kind), fmt, f"{kind.capitalize()}s", COLUMNS[kind], {"disabled": "yellow"})

    return command


@click.command()
@format_option
@click.option(
    "--results",
    "results_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("results"),
    show_default=True,
    help="Results folder the mean CW of each task is read from.",
)
def benchmarks(fmt: str, results_dir: Path) -> None:
    """List the registered benchmarks: tasks, aggregate, and each task's mean query complexity.

    mean CW: the mean over a task's queries of CW (unique non-stopword tokens longer than one character,
    eq. 1 of Complexity-Aware Training), as its newest complete result under --results records it.
    """
    rows = _registrations("benchmark", mean_cw_from_results(results_dir))
    title = "Benchmarks (mean CW: eq. 1 of Complexity-Aware Training, from --results)"
    if fmt.lower() != "table":
        emit(rows, fmt, title, COLUMNS["benchmark"])
        return
    # Three columns, names one a line and never cut in two: the benchmark (its plugin, public or not), each
    # task with its mean CW, and the score (the description, then the formula).
    table = []
    for row in rows:
        cw = row["mean_cw"] or {}
        public = {True: "public", False: "not public"}.get(row["public"], "")
        score = ": ".join(str(part) for part in (row["description"], row["aggregate"]) if part)
        table.append(
            {
                "benchmark": [row["name"], f"plugin {row['plugin']}", *([public] if public else [])],
                "tasks": [f"{t} (CW {cw[t]:.2f})" if t in cw else t for t in row["tasks"] or ()] or None,
                "score": score,
            }
        )
    emit(table, fmt, title, ("benchmark", "tasks", "score"), whole=("benchmark", "tasks"))


@click.command()
@format_option
@click.option("--json", "as_json", is_flag=True, help="Shorthand for --format json.")
def plugins(fmt: str, as_json: bool) -> None:
    """List plugins: version, hooks, what they registered, disabled names, load errors."""
    from leaderboard.registry import get_registry

    infos = list(get_registry().plugins.values())
    if as_json or fmt == "json":
        emit([vars(i) for i in infos], "json", "Plugins", ())
        return
    rows = [
        vars(i)
        | {
            "registered": [
                f"{kind} {n}" for kind in ("task", "model", "benchmark", "judge") for n in getattr(i, kind + "s")
            ]
        }
        for i in infos
    ]
    columns = ("name", "distribution", "version", "hooks", "registered", "disabled", "errors")
    emit(rows, fmt, "Plugins", columns, {"disabled": "yellow", "errors": "red"})


COMMANDS = [_listing("task"), _listing("model"), benchmarks, _listing("judge"), plugins]
