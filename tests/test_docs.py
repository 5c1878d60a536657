"""Every hook and every keyword of ``register(...)`` is documented (datasette's test_docs.py is the model)."""

from __future__ import annotations

import inspect
import re

import pytest
from conftest import REPO

from leaderboard.contract import hookspecs
from leaderboard.registry import KINDS, Registry, _make_register

HOOKS = sorted(name for name, _ in inspect.getmembers(hookspecs, inspect.isfunction) if name.startswith("register_"))
README = (REPO / "README.md").read_text("utf-8")
REGISTER_KEYWORDS = [p.name for p in inspect.signature(_make_register(Registry(), "task", "docs")).parameters.values()]


def test_there_is_one_hook_per_kind():
    assert sorted(f"register_{kind}s" for kind in KINDS) == HOOKS


@pytest.mark.parametrize("hook", HOOKS)
def test_every_hook_has_a_docstring_and_a_readme_entry(hook):
    doc = inspect.getdoc(getattr(hookspecs, hook)) or ""
    assert len(doc) > 40, f"{hook} has no real docstring in leaderboard/contract/hookspecs.py"
    assert f"`{hook}`" in README, f"README does not document the hook {hook}"


@pytest.mark.parametrize("keyword", REGISTER_KEYWORDS)
def test_every_register_keyword_is_documented(keyword):
    module_doc = hookspecs.__doc__ or ""
    assert re.search(rf"^``{keyword}``$", module_doc, re.M), f"hookspecs' docstring does not document {keyword!r}"
    assert f"`{keyword}`" in README, f"README does not document register(..., {keyword}=...)"


def test_readme_names_the_toolkit_and_the_door():
    assert "`leaderboard.toolkit`" in README and "tests/test_layers.py" in README


@pytest.mark.parametrize("name", __import__("leaderboard.toolkit").toolkit.__all__)
def test_every_toolkit_name_is_documented(name):
    """What plugins may import besides the contract is listed in the toolkit's docstring, with a docstring."""
    import leaderboard.toolkit as toolkit

    assert f"``{name}" in (toolkit.__doc__ or ""), f"leaderboard.toolkit's docstring does not list {name}"
    value = getattr(toolkit, name)
    if callable(value):
        assert len(inspect.getdoc(value) or "") > 15, f"toolkit.{name} has no docstring"
