"""``leaderboard tasks`` / ``models`` / ``benchmarks`` / ``judges`` / ``plugins``: what the installed plugins provide.

Each takes ``--format table|json|csv`` (``plugins --json`` is kept as a shorthand for ``--format json``).
"""

from __future__ import annotations

from typing import Any

import click

from leaderboard.cli.formats import emit, format_option


def _registrations(kind: str) -> list[dict[str, Any]]:
    from leaderboard.registry import get_registry

    registry = get_registry()
    rows = []
    for name in registry.names(kind):
        reg = registry.entries[kind][name]
        missing = reg.missing
        row = {
            "name": name + ("<argument>" if reg.is_prefix else ""),
            "plugin": reg.plugin,
            "description": reg.description,
            "disabled": (reg.install or "pip install " + " ".join(missing)) if missing else None,
        }
        if kind == "benchmark":
            row.update(_benchmark_columns(reg))
        rows.append(row)
    return rows


def _benchmark_columns(registration: Any) -> dict[str, Any]:
    """A benchmark's tasks and aggregate, from its declaration (factories take no arguments)."""
    try:
        declared = registration.factory()
    except Exception as exc:  # a broken plugin is listed with its error, never stops the listing
        return {"tasks": None, "aggregate": f"error: {type(exc).__name__}: {exc}", "public": None, "declaration": None}
    return {
        "tasks": [t.task for t in declared.tasks],
        "aggregate": declared.formula or declared.aggregate_label or declared.aggregate,
        "public": declared.public,
        "declaration": declared.to_json(),
    }


COLUMNS = {
    "task": ("name", "plugin", "description", "disabled"),
    "model": ("name", "plugin", "description", "disabled"),
    "benchmark": ("name", "plugin", "tasks", "aggregate", "public", "description"),
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


COMMANDS = [_listing("task"), _listing("model"), _listing("benchmark"), _listing("judge"), plugins]
