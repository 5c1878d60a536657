"""The doors hold: built-ins use only the public API and never each other, each core package imports only
what its layer allows, no import cycle.

Each check parses the source (ast), so a lazy import inside a function counts as much as one at
the top of a module.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest
from conftest import REPO

import leaderboard.toolkit as toolkit

PUBLIC = ("leaderboard", "leaderboard.contract", "leaderboard.toolkit")
# Each built-in package: installed name -> its folder, as pyproject's [tool.setuptools] package-dir installs it.
BUILTIN_PACKAGES = {
    name: folder
    for name, folder in tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"][
        "package-dir"
    ].items()
    if name != "leaderboard"
}
BUILTIN_DIRS = tuple(BUILTIN_PACKAGES.values())
TEMPLATES = REPO / "leaderboard" / "cli" / "templates" / "plugin"


def _builtin_sources() -> list[Path]:
    files = [p for d in BUILTIN_DIRS for p in (REPO / d).rglob("*.py") if "build" not in p.parts]
    return sorted(files + sorted(TEMPLATES.glob("*.py.tmpl")))


def _parse(path: Path) -> ast.Module:
    text = path.read_text("utf-8")
    if path.suffix == ".tmpl":  # string.Template placeholders ($name, ${name}) become identifiers
        text = re.sub(r"\$\{?(\w+)\}?", r"placeholder_\1", text)
    return ast.parse(text, str(path))


def imported_modules(tree: ast.Module, module: str = "", is_package: bool = False) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in the tree, relative ones resolved against ``module``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = module.split(".") if is_package else module.split(".")[:-1]
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            found.append((node.lineno, base))
    return found


def _is_public(name: str) -> bool:
    return name in PUBLIC or name.startswith("leaderboard.contract.")


@pytest.mark.parametrize("path", _builtin_sources(), ids=lambda p: str(p.relative_to(REPO)))
def test_builtins_and_scaffolds_import_only_the_public_api(path):
    bad = [
        f"{path.relative_to(REPO)}:{line}: imports {name}"
        for line, name in imported_modules(_parse(path))
        if (name == "leaderboard" or name.startswith("leaderboard.")) and not _is_public(name)
    ]
    assert not bad, (
        "built-ins may import only leaderboard, leaderboard.contract and leaderboard.toolkit:\n" + "\n".join(bad)
    )


def _module_name(path: Path) -> tuple[str, bool]:
    """(installed module name, is a package) of a built-in source file."""
    relative = path.relative_to(REPO)
    package = next(name for name, folder in BUILTIN_PACKAGES.items() if relative.parts[0] == folder)
    parts = [package, *relative.with_suffix("").parts[1:]]
    is_package = parts[-1] == "__init__"
    return ".".join(parts[:-1] if is_package else parts), is_package


def _other_builtins(path: Path) -> list[str]:
    """The imports of another built-in package in ``path`` (a relative import is resolved first)."""
    module, is_package = _module_name(path)
    own = module.split(".")[0]
    return [
        f"{path.relative_to(REPO)}:{line}: imports {name}"
        for line, name in imported_modules(_parse(path), module, is_package)
        if name.split(".")[0] in BUILTIN_PACKAGES and name.split(".")[0] != own
    ]


def test_the_builtin_packages_are_the_installed_ones():
    assert set(BUILTIN_PACKAGES) == {
        "leaderboard_tasks",
        "leaderboard_plugins",
        "leaderboard_judges",
        "leaderboard_mteb",
    }
    assert all((REPO / folder / "__init__.py").is_file() for folder in BUILTIN_DIRS)


@pytest.mark.parametrize(
    "path", [p for p in _builtin_sources() if p.suffix == ".py"], ids=lambda p: str(p.relative_to(REPO))
)
def test_builtins_never_import_each_other(path):
    bad = _other_builtins(path)
    assert not bad, "a built-in package imports only the public API and itself, never another built-in:\n" + "\n".join(
        bad
    )


def test_the_builtin_door_test_catches_an_import_of_another_builtin(tmp_path, monkeypatch):
    monkeypatch.setattr(
        "test_layers._parse",
        lambda path: ast.parse(
            "from leaderboard_judges.builtin import make_judge\nfrom .beir import beir_metadata\n"
            "import leaderboard_mteb.bridge\nfrom . import declarations\n"
        ),
    )
    found = _other_builtins(REPO / "tasks" / "comlq.py")
    assert [line.split(": imports ")[1] for line in found] == ["leaderboard_judges.builtin", "leaderboard_mteb.bridge"]


def test_the_door_test_catches_a_private_import():
    tree = ast.parse("from leaderboard.engine.dense import encode_unique\nimport leaderboard.records.files\n")
    names = [name for _, name in imported_modules(tree)]
    assert names == ["leaderboard.engine.dense", "leaderboard.records.files"]
    assert not any(_is_public(n) for n in names)
    assert _is_public("leaderboard.contract.model") and _is_public("leaderboard.toolkit")


@pytest.mark.parametrize("name", toolkit.__all__)
def test_every_toolkit_name_resolves(name):
    assert getattr(toolkit, name) is not None


def _core_modules() -> dict[str, Path]:
    modules = {}
    for path in (REPO / "leaderboard").rglob("*.py"):
        parts = path.relative_to(REPO).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    return modules


def _import_graph() -> dict[str, set[str]]:
    """module -> the core modules it imports (anywhere in its body); "leaderboard" is the root facade itself."""
    modules = _core_modules()

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text("utf-8"))
        edges = set()
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = imported_modules(ast.Module(body=[node], type_ignores=[]), name, path.name == "__init__.py")[0][
                    1
                ]
                # "from pkg import submodule" depends on the submodule, not on the package
                targets = [
                    f"{base}.{a.name}" if resolve(f"{base}.{a.name}") == f"{base}.{a.name}" else base
                    for a in node.names
                ]
            for target in targets:
                resolved = resolve(target)
                if resolved and resolved != name:
                    edges.add(resolved)
        graph[name] = edges
    return graph


# What each package of the core may import, one line each (docs/explanation/architecture.md says what each
# owns). A package or module missing here fails the test, so a new one is placed in the layers on purpose.
ALLOWED_IMPORTS: dict[str, set[str]] = {
    "errors": set(),
    "lazy_names": set(),
    "fileio": set(),
    "safe_json": set(),
    "progress": set(),
    "provenance": set(),
    "sqlite_damage": set(),
    "contract": {"errors", "lazy_names"},
    "registry": {"contract", "errors"},
    "metrics": {"contract"},
    "data": {"contract", "errors", "fileio", "progress", "safe_json"},
    "records": {"contract", "errors", "fileio", "metrics", "safe_json", "sqlite_damage"},
    "analysis": {"errors", "metrics", "records"},
    # credentials kept out of print and reach, and the attestation reader: never the queue (the app reads it)
    "security": {"errors", "records"},
    "hub": {"analysis", "errors", "fileio", "progress", "provenance", "records", "security"},
    "engine": {
        "contract",
        "data",
        "errors",
        "fileio",
        "metrics",
        "progress",
        "provenance",
        "records",
        "registry",
        "sqlite_damage",
    },
    "judgments": {"contract", "errors", "fileio", "records"},
    "model_weights": {"data", "errors"},
    "mteb": {"contract", "errors", "fileio", "hub", "metrics", "records"},
    "queue": {"contract", "engine", "errors", "hub", "records", "registry", "safe_json", "security"},
    "app": {"analysis", "contract", "errors", "fileio", "hub", "metrics", "mteb", "queue", "records", "security"},
    "cli": {
        "analysis",
        "app",
        "contract",
        "engine",
        "errors",
        "fileio",
        "hub",
        "metrics",
        "mteb",
        "progress",
        "queue",
        "records",
        "registry",
        "security",
    },
    "toolkit": {
        "contract",
        "data",
        "engine",
        "errors",
        "fileio",
        "hub",
        "judgments",
        "metrics",
        "lazy_names",
        "model_weights",
        "mteb",
        "progress",
        "records",
        "security",
    },
    "": {"analysis", "contract", "engine", "errors", "lazy_names", "provenance"},  # the root package's lazy door
    "__main__": {"cli"},
}


def package_imports(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Core package (name under ``leaderboard``, "" for the root) -> the other core packages it imports."""

    def package(module: str) -> str:
        return module.split(".")[1] if "." in module else ""

    found: dict[str, set[str]] = {}
    for module, targets in graph.items():
        found.setdefault(package(module), set()).update(package(t) for t in targets if package(t) != package(module))
    return found


def layer_violations(found: dict[str, set[str]]) -> list[str]:
    bad = [
        f"leaderboard.{p} is in no layer: add it to ALLOWED_IMPORTS"
        for p in sorted(found.keys() - ALLOWED_IMPORTS.keys())
    ]
    for package, targets in sorted(found.items()):
        bad += [
            f"leaderboard.{package} imports leaderboard.{t}"
            for t in sorted(targets - ALLOWED_IMPORTS.get(package, targets))
        ]
    return bad


def facade_importers(graph: dict[str, set[str]]) -> list[str]:
    """The core modules that import the root facade (``import leaderboard``, ``from leaderboard import X``)."""
    return sorted(module for module, targets in graph.items() if "leaderboard" in targets)


def test_no_core_module_imports_the_root_facade():
    """Inside the package a name is imported from its home module: the facade is for plugins and users."""
    assert facade_importers(_import_graph()) == []


def test_the_facade_test_sees_an_import_of_the_facade(tmp_path, monkeypatch):
    (tmp_path / "leaderboard" / "engine").mkdir(parents=True)
    for name, text in {
        "__init__.py": "",
        "errors.py": "",
        "engine/__init__.py": "",
        "engine/a.py": "from leaderboard import BadInput\n",
        "engine/b.py": "import leaderboard\n",
        "engine/c.py": "from leaderboard import errors\nfrom leaderboard.engine import a\n",
    }.items():
        (tmp_path / "leaderboard" / name).write_text(text)
    monkeypatch.setattr("test_layers.REPO", tmp_path)
    graph = _import_graph()
    assert facade_importers(graph) == ["leaderboard.engine.a", "leaderboard.engine.b"]
    assert graph["leaderboard.engine.c"] == {"leaderboard.errors", "leaderboard.engine.a"}


def test_each_package_imports_only_what_its_layer_allows():
    assert not layer_violations(package_imports(_import_graph()))


def test_the_layer_test_catches_an_import_across_layers():
    graph = {"leaderboard.records.files": {"leaderboard.engine.runner"}, "leaderboard.shiny.x": set()}
    assert layer_violations(package_imports(graph)) == [
        "leaderboard.shiny is in no layer: add it to ALLOWED_IMPORTS",
        "leaderboard.records imports leaderboard.engine",
    ]


def test_every_layer_in_the_table_exists():
    assert ALLOWED_IMPORTS.keys() <= package_imports(_import_graph()).keys()


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


# Known cycles still to fix (none now). The test fails on any other cycle, and on an entry here that
# no longer exists, so the list can only shrink.
PENDING_CYCLES: list[list[str]] = []


def test_no_import_cycles_in_the_core():
    found = _cycles(_import_graph())
    assert [c for c in found if c not in PENDING_CYCLES] == []
    assert [c for c in PENDING_CYCLES if c not in found] == [], "a pending cycle is fixed: remove it from the list"


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_package_level_layers_have_no_cycle():
    """engine -> records and queue -> engine, never back: the layers form a DAG."""
    packages: dict[str, set[str]] = {}
    for module, targets in _import_graph().items():
        top = ".".join(module.split(".")[:2])
        packages.setdefault(top, set()).update(
            ".".join(t.split(".")[:2]) for t in targets if ".".join(t.split(".")[:2]) != top
        )
    assert _cycles(packages) == []


# The app's own layers, one direction (docs/explanation/architecture.md): the board's data, the server's plumbing
# over it, the views that draw it as HTML, the tabs that wire them into Gradio, and the page on top
# (``leaderboard.app.ui``). A layer imports only those named here; a new module at the top fails until it is
# placed in a layer (or, a thin piece of the page, named in APP_TOP).
APP_LAYERS: dict[str, set[str]] = {
    "data": set(),
    "server": {"data"},
    "views": {"data"},
    "tabs": {"data", "server", "views"},
    "": {"data", "server", "views", "tabs"},  # the page
}
APP_TOP = {"leaderboard.app", "leaderboard.app.ui"}
# Gradio only where the page is wired: the data, the server's plumbing and the views work (and are tested) without it.
APP_LIBRARIES_REFUSED = {"data": {"gradio"}, "server": {"gradio"}, "views": {"gradio"}}


def app_layer(module: str) -> str:
    """The layer of a module of the app ("" for the page on top)."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[2] in APP_LAYERS else ""


def app_violations(graph: dict[str, set[str]], libraries: dict[str, set[str]]) -> list[str]:
    """Imports across the app's layers against their direction, and refused libraries (``libraries``: module ->
    the top-level names of what it imports outside the core)."""
    bad = []
    for module in sorted(m for m in graph if m == "leaderboard.app" or m.startswith("leaderboard.app.")):
        layer = app_layer(module)
        if not layer and module not in APP_TOP:
            bad.append(f"{module} is in no layer of the app: move it into data, server, views or tabs")
        for target in sorted(graph[module]):
            if not target.startswith("leaderboard.app.") or target in APP_TOP - {"leaderboard.app.ui"}:
                continue
            wanted = app_layer(target) if target not in APP_TOP else "the page"
            if wanted != layer and wanted not in APP_LAYERS[layer]:
                bad.append(f"{module} ({layer or 'the page'}) imports {target} ({wanted or 'the page'})")
        refused = libraries.get(module, set()) & APP_LIBRARIES_REFUSED.get(layer, set())
        bad += [f"{module} ({layer}) imports {name}" for name in sorted(refused)]
    return bad


def _app_libraries() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for name, path in _core_modules().items():
        if name.startswith("leaderboard.app"):
            tree = ast.parse(path.read_text("utf-8"))
            found[name] = {
                target.split(".")[0] for _, target in imported_modules(tree, name, path.name == "__init__.py")
            }
    return found


def test_the_app_imports_in_one_direction():
    assert app_violations(_import_graph(), _app_libraries()) == []


def test_the_app_layer_test_catches_an_import_against_the_direction():
    graph = {
        "leaderboard.app.data.ranking": {"leaderboard.app.views.board", "leaderboard.app.data.values"},
        "leaderboard.app.server.live": {"leaderboard.app.tabs.base", "leaderboard.app.data.board"},
        "leaderboard.app.views.board": {"leaderboard.app.tabs.board", "leaderboard.app.server.prefetch"},
        "leaderboard.app.tabs.board": {"leaderboard.app.views.board", "leaderboard.app.ui"},
        "leaderboard.app.ui": {"leaderboard.app.tabs.board", "leaderboard.app.server.live"},
        "leaderboard.app.charts": set(),
    }
    libraries = {"leaderboard.app.views.board": {"gradio", "pandas"}, "leaderboard.app.tabs.board": {"gradio"}}
    assert app_violations(graph, libraries) == [
        "leaderboard.app.charts is in no layer of the app: move it into data, server, views or tabs",
        "leaderboard.app.data.ranking (data) imports leaderboard.app.views.board (views)",
        "leaderboard.app.server.live (server) imports leaderboard.app.tabs.base (tabs)",
        "leaderboard.app.tabs.board (tabs) imports leaderboard.app.ui (the page)",
        "leaderboard.app.views.board (views) imports leaderboard.app.server.prefetch (server)",
        "leaderboard.app.views.board (views) imports leaderboard.app.tabs.board (tabs)",
        "leaderboard.app.views.board (views) imports gradio",
    ]


# The readers of the queue's attestations check what the queue signed without the queue's code
# (security.attestation, the keyring through hub.queue_keys): module -> the functions that read them.
ATTESTATION_READERS = {
    "leaderboard/app/data/board.py": ("attestation", "mark_attested"),
    "leaderboard/app/server/queue_keyring.py": (),
    "leaderboard/cli/compare.py": ("compare", "_vouched"),
    "leaderboard/cli/records.py": ("_mark_provenance",),
    "leaderboard/cli/verify.py": ("_verify_attestations",),
    "leaderboard/hub/queue_keys.py": (),
}


@pytest.mark.parametrize("path", sorted(ATTESTATION_READERS))
def test_the_readers_of_attestations_import_nothing_of_the_queue(path):
    tree = ast.parse((REPO / path).read_text("utf-8"))
    wanted = ATTESTATION_READERS[path]
    scopes = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name in wanted]
    assert len(scopes) == len(wanted), f"{path}: {wanted}"
    if not wanted:  # a reader module: all of it
        scopes = [tree]
    names = [name for scope in scopes for _, name in imported_modules(ast.Module(body=[scope], type_ignores=[]))]
    assert not [n for n in names if n.startswith("leaderboard.queue")], names
    assert any(n.startswith(("leaderboard.security", "leaderboard.hub.queue_keys")) for n in names), names


def test_redaction_is_one_module_that_no_one_reaches_into_the_push_client_for():
    for name, path in _core_modules().items():
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "leaderboard.hub.store":
                assert "redact" not in {a.name for a in node.names}, f"{name} imports redact from the push client"
    assert not hasattr(__import__("leaderboard.hub.store").hub.store, "_SECRET")
