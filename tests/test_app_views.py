"""The app's convention holds: each tab's view (``app/views/<id>.py``) beside its Gradio wiring (``app/tabs/<id>.py``).

A view turns the board's data into HTML and imports neither Gradio nor a tab module, so it renders (and is
tested) without a server; every tab has its view module.
"""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import REPO
from test_layers import imported_modules

APP = REPO / "leaderboard" / "app"
WIRING = ("gradio", "leaderboard.app.tabs", "leaderboard.app.ui")


def wiring_imports(source: str, module: str) -> list[str]:
    """'line: module' for each import of Gradio or of the app's wiring (its tabs, its page) in ``source``."""
    found = imported_modules(ast.parse(source), module)
    return [f"{line}: {name}" for line, name in found if any(name == w or name.startswith(w + ".") for w in WIRING)]


def test_views_import_neither_gradio_nor_the_tabs():
    bad = {
        path.name: found
        for path in sorted((APP / "views").glob("*.py"))
        if (found := wiring_imports(path.read_text("utf-8"), f"leaderboard.app.views.{path.stem}"))
    }
    assert not bad, bad


def test_the_check_catches_a_view_that_imports_gradio_or_a_tab():
    assert wiring_imports("def f():\n    import gradio as gr\n", "leaderboard.app.views.x") == ["2: gradio"]
    assert wiring_imports("from ..tabs.base import Shell\n", "leaderboard.app.views.x") == [
        "1: leaderboard.app.tabs.base"
    ]
    assert wiring_imports("from leaderboard.app import render\n", "leaderboard.app.views.x") == []


def tab_ids(folder: Path) -> set[str]:
    """The ``ID`` each tab module declares (the URL's ``tab=`` value)."""
    ids = set()
    for path in folder.glob("*.py"):
        for node in ast.parse(path.read_text("utf-8")).body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "ID" for t in node.targets):
                ids.add(ast.literal_eval(node.value))
    return ids


def test_every_tab_has_its_view_module_named_by_its_id():
    ids = tab_ids(APP / "tabs")
    assert len(ids) >= 11  # the tabs are found (an empty set would pass the check below)
    assert ids <= {path.stem for path in (APP / "views").glob("*.py")}
