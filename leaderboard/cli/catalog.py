"""``leaderboard tasks`` / ``models`` / ``benchmarks`` / ``judges`` / ``plugins``: what the installed plugins provide."""

from __future__ import annotations

import json

import click

from leaderboard.cli.console import escape, out


def _registrations_table(kind: str):
    from rich.table import Table

    from leaderboard.registry import get_registry

    registry = get_registry()
    table = Table(title=f"{kind.capitalize()}s")
    for column in ("name", "plugin", "description"):
        table.add_column(column, overflow="fold")
    for name in registry.names(kind):
        reg = registry.entries[kind][name]
        missing = reg.missing
        description = escape(reg.description)
        if missing:
            description = (
                f"[yellow]disabled: {escape(reg.install or 'pip install ' + ' '.join(missing))}[/] " + description
            )
        table.add_row(escape(name + ("<argument>" if reg.is_prefix else "")), escape(reg.plugin), description)
    return table


def _listing(kind: str):
    @click.command(
        name=f"{kind}s", help=f"List the registered {kind}s (disabled ones with the command that enables them)."
    )
    def command() -> None:
        out().print(_registrations_table(kind))

    return command


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def plugins(as_json: bool) -> None:
    """List plugins: version, hooks, what they registered, disabled names, load errors."""
    from rich.table import Table

    from leaderboard.registry import get_registry

    infos = list(get_registry().plugins.values())
    if as_json:
        click.echo(json.dumps([vars(i) for i in infos], indent=2))
        return
    table = Table(title="Plugins")
    for column in ("plugin", "distribution", "version", "hooks", "registered", "disabled", "errors"):
        table.add_column(column, overflow="fold")
    for i in infos:
        registered = [f"{kind} {n}" for kind in ("task", "model", "benchmark", "judge") for n in getattr(i, kind + "s")]
        table.add_row(
            escape(i.name),
            escape(i.distribution or "-"),
            escape(i.version or "-"),
            ", ".join(i.hooks),
            escape(", ".join(registered)),
            f"[yellow]{escape('; '.join(i.disabled))}[/]" if i.disabled else "",
            f"[red]{escape('; '.join(i.errors))}[/]" if i.errors else "",
        )
    out().print(table)


COMMANDS = [_listing("task"), _listing("model"), _listing("benchmark"), _listing("judge"), plugins]
