"""The public facades' names, listed once: the explicit re-exports of each facade's type-checking block.

A facade (``leaderboard``, ``leaderboard.contract``, ``leaderboard.toolkit``) names each public name
once, as ``from home.module import Name as Name`` under ``if TYPE_CHECKING:``, which is what mypy
``--strict`` and other type checkers read (``from other_facade import *`` there takes that facade's
names). Nothing there is imported at run time: the first lookup of a name reads the block into a
table (name -> module), then imports only the module that defines it, so ``leaderboard --help`` never
imports numpy, pydantic or pluggy. ``__all__`` is the table's names. The scientific Python projects'
``lazy_loader`` reads a ``.pyi`` stub the same way; it takes only relative imports of a package's own
submodules, which a module facade (``toolkit``) and absolute homes are not.
"""

from __future__ import annotations

import functools
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import ast


@functools.cache
def exported(module: str) -> dict[str, str]:
    """A facade's public names -> the module each is defined in, from its ``if TYPE_CHECKING:`` block."""
    import ast  # here: reading a facade's names is paid by its first lookup, never by `leaderboard --help`
    from importlib.util import find_spec
    from pathlib import Path

    spec = find_spec(module)  # finds the file without running the facade (its parent is imported already)
    if spec is None or spec.origin is None:
        raise ImportError(f"cannot find the facade {module}")
    tree = ast.parse(Path(spec.origin).read_text("utf-8"))
    table: dict[str, str] = {}
    for node in _type_checking_block(tree):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            table[node.target.id] = module  # declared here, defined by the facade itself (``__version__``)
        if not isinstance(node, ast.ImportFrom) or node.module is None:
            continue
        for alias in node.names:
            if alias.name == "*":
                table.update(exported(node.module))
            elif alias.asname == alias.name:  # "X as X": re-exported; a plain import only serves annotations
                table[alias.name] = node.module
    return table


def _type_checking_block(tree: ast.Module) -> list[ast.stmt]:
    import ast

    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            return node.body
    return []


def resolve(facade: str, name: str, namespace: dict[str, Any]) -> Any:
    """What ``facade.name`` is (importing its module now, caching it in ``namespace``), or AttributeError."""
    if name == "__all__":
        value: Any = sorted(exported(facade), key=str.lower)
    elif exported(facade).get(name, facade) != facade:
        value = getattr(import_module(exported(facade)[name]), name)
    else:
        raise AttributeError(f"module {facade!r} has no attribute {name!r}")
    namespace[name] = value  # later lookups are plain attribute reads
    return value


def listed(facade: str, namespace: dict[str, Any]) -> list[str]:
    """``dir(facade)``: what the module holds now and every public name it can load."""
    return sorted({*namespace, *exported(facade)})
