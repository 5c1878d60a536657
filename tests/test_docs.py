"""Docs that cannot rot (datasette's test_docs.py is the model).

* Every code block of README and the tutorials runs, in order, in a fresh folder per page, or is
  marked not runnable with a reason by an HTML comment on the line before it:
  ``<!-- not-run: why -->`` (README's ``<!-- main-command -->`` and ``<!-- test-command -->`` blocks are
  run by .ci/run). ``<!-- slow: why -->`` before a block runs it only in the slow variant of its page;
  ``<!-- slow-page: why -->`` anywhere makes the whole page slow (it installs into a fresh venv).
* Every CLI command and option, every ``LEADERBOARD_*`` variable the code reads, every hook and
  ``register`` keyword, and every top-level package is in the hand-written docs.
"""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import click
import pytest
from conftest import REPO
from venv_helpers import make_child_venv

from leaderboard.contract import hookspecs
from leaderboard.registry import KINDS, Registry, _make_register

DOCS = REPO / "docs"
README = REPO / "README.md"
TUTORIALS = sorted((DOCS / "tutorials").glob("*.md"))
RUNNABLE_PAGES = [README, *TUTORIALS]
HOOKS = sorted(name for name, _ in inspect.getmembers(hookspecs, inspect.isfunction) if name.startswith("register_"))
REGISTER_KEYWORDS = [p.name for p in inspect.signature(_make_register(Registry(), "task", "docs")).parameters.values()]
CLI_PAGE = DOCS / "reference" / "cli.md"
# Named in the docs before the code that provides them lands (work on another branch):
# the reverse check below lets them be missing from the CLI, never from the docs.
PENDING_CLI: set[tuple[str, ...]] = set()

FENCE = re.compile(r"^(?P<indent>\s*)```(?P<lang>[\w+-]*)\s*$")
MARKER = re.compile(r"^\s*<!--\s*(?P<kind>not-run|slow|main-command|test-command)(?::\s*(?P<reason>.*?))?\s*-->\s*$")
SLOW_PAGE = re.compile(r"<!--\s*slow-page:\s*\S.*?-->")
RUNNERS = {"bash": "bash", "sh": "bash", "python": "python"}


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # 1-based line of the opening fence
    lang: str
    code: str
    marker: str | None  # "not-run", "slow", "main-command", "test-command" or None
    reason: str


def code_blocks(page: Path) -> list[Block]:
    """The fenced blocks of a Markdown page, each with the marker on the line before it (blank lines skipped)."""
    lines = page.read_text("utf-8").splitlines()
    blocks, i = [], 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent = len(opening["indent"])
        end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
        code = "\n".join(line[indent:] for line in lines[i + 1 : end]) + "\n"
        before = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        marker = MARKER.match(before)
        blocks.append(
            Block(
                page,
                i + 1,
                opening["lang"],
                code,
                marker["kind"] if marker else None,
                (marker and marker["reason"]) or "",
            )
        )
        i = end + 1
    return blocks


def _page_params():
    for page in RUNNABLE_PAGES:
        name = page.relative_to(REPO).as_posix()
        text = page.read_text("utf-8")
        has_slow_blocks = any(b.marker == "slow" for b in code_blocks(page))
        if SLOW_PAGE.search(text):
            yield pytest.param(page, True, id=f"{name}[all]", marks=pytest.mark.slow)
            continue
        yield pytest.param(page, False, id=name)
        if has_slow_blocks:
            yield pytest.param(page, True, id=f"{name}[all]", marks=pytest.mark.slow)


@pytest.mark.parametrize("page", RUNNABLE_PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_block_is_runnable_or_says_why_not(page):
    for block in code_blocks(page):
        where = f"{block.page.relative_to(REPO)}:{block.line}"
        if block.marker in ("not-run", "slow"):
            assert block.reason.strip(), f"{where}: <!-- {block.marker}: ... --> needs a reason"
        if block.marker not in ("not-run", "main-command", "test-command"):
            assert block.lang in RUNNERS, (
                f"{where}: a ```{block.lang or '(no language)'} block is not runnable: "
                "mark it <!-- not-run: reason --> or make it bash or python"
            )


def _environment(work: Path) -> dict[str, str]:
    """A user's shell in a fresh folder: the harness on PATH (through a child venv, so `pip install` in a
    tutorial installs there and never into this environment), its own cache, no hub, no token."""
    python = make_child_venv(work.parent / "venv")
    bin_dir = python.parent
    # The child venv has no console scripts: `leaderboard` runs the module with the child's python, so a
    # plugin a tutorial installs into the child venv is found.
    launcher = bin_dir / "leaderboard"
    launcher.write_text(f'#!/bin/sh\nexec "{python}" -m leaderboard "$@"\n')
    launcher.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEADERBOARD_", "HF_", "PIP_"))}
    env.pop("VIRTUAL_ENV", None)
    env.update(
        PATH=os.pathsep.join([str(bin_dir), str(Path(sys.executable).parent), env.get("PATH", "")]),
        XDG_CACHE_HOME=str(work.parent / "cache"),
        HF_HOME=str(work.parent / "hf-home"),
        HF_HUB_OFFLINE="1",
        # pip as the tutorials type it, offline: the harness and every dependency are already there
        PIP_NO_INDEX="1",
        PIP_NO_BUILD_ISOLATION="0",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        COLUMNS="160",
    )
    return env


@pytest.mark.parametrize(("page", "run_slow"), list(_page_params()))
def test_code_blocks_run(page, run_slow, tmp_path):
    """Each runnable block of the page, in order, in one fresh folder (later blocks use what earlier ones wrote)."""
    blocks = [b for b in code_blocks(page) if b.marker is None or (b.marker == "slow" and run_slow)]
    if not blocks:
        pytest.skip("no runnable block")
    work = tmp_path / "work"
    work.mkdir()
    shared = REPO.parent / "shared"
    if shared.is_dir():  # the repository's neighbour, as in a checkout: ../shared/data resolves from `work`
        (tmp_path / "shared").symlink_to(shared)
    elif any("../shared/" in b.code for b in blocks):
        pytest.skip(f"{page.name} uses ../shared/data, not found beside the repository")
    env = _environment(work)
    for block in blocks:
        runner = RUNNERS[block.lang]
        command = (
            ["bash", "-e", "-o", "pipefail", "-c", block.code] if runner == "bash" else ["python", "-c", block.code]
        )
        if runner == "python":
            command[0] = str(tmp_path / "venv" / "bin" / "python")
        done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=900)
        where = f"{page.relative_to(REPO)}:{block.line}"
        assert done.returncode == 0, f"{where} exited {done.returncode}\n{block.code}\n{done.stdout}\n{done.stderr}"
        assert "Traceback" not in done.stderr, f"{where} printed a traceback\n{done.stderr}"


# --- everything the code offers is in the docs --------------------------------------------------------


def _hand_written() -> str:
    """README and every docs page, without the generated parts (mkdocs-click and mkdocstrings directives)."""
    pages = [README, *sorted(DOCS.rglob("*.md"))]
    text = "\n".join(p.read_text("utf-8") for p in pages)
    return re.sub(r"^:::.*(?:\n    .*)*", "", text, flags=re.M)


def _cli_commands() -> dict[tuple[str, ...], list[str]]:
    """Every (sub)command path of `leaderboard` with its long options."""
    from leaderboard.cli.main import cli

    found: dict[tuple[str, ...], list[str]] = {}

    def walk(group: click.Group, path: tuple[str, ...]) -> None:
        ctx = click.Context(group)
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            assert command is not None
            if isinstance(command, click.Group):
                walk(command, (*path, name))
                continue
            found[(*path, name)] = [
                opt for p in command.params if isinstance(p, click.Option) for opt in p.opts if opt.startswith("--")
            ]

    walk(cli, ())
    return found


def _cli_table() -> dict[tuple[str, ...], str]:
    """The rows of the "Commands at a glance" table: command path -> the row's options cell."""
    rows = {}
    for line in CLI_PAGE.read_text("utf-8").splitlines():
        row = re.match(r"^\| `leaderboard (?P<command>[a-z -]+)` \|\s*(?P<options>[^|]*?)\s*\|", line)
        if row:
            rows[tuple(row["command"].split())] = row["options"]
    return rows


def test_every_cli_command_and_option_is_in_the_cli_table():
    table = _cli_table()
    for command, options in _cli_commands().items():
        name = "leaderboard " + " ".join(command)
        assert command in table, f"docs/reference/cli.md has no row for `{name}`"
        for option in options:
            assert f"`{option}`" in table[command], f"docs/reference/cli.md: the `{name}` row lacks `{option}`"


def test_the_cli_table_names_nothing_the_cli_lacks():
    commands = _cli_commands()
    for command, cell in _cli_table().items():
        if command not in commands:
            assert command in PENDING_CLI, f"docs/reference/cli.md documents `leaderboard {' '.join(command)}`"
            continue
        for option in re.findall(r"`(--[a-z-]+)`", cell):
            assert option in commands[command] or (*command, option) in PENDING_CLI, (
                f"docs/reference/cli.md: `leaderboard {' '.join(command)}` has no option {option}"
            )


def _env_variables() -> set[str]:
    names = set()
    for folder in ("leaderboard", "tasks", "plugins", "judges", "benchmarks", "space"):
        for path in (REPO / folder).rglob("*.py"):
            if "/build/" not in path.as_posix():
                names |= set(re.findall(r"LEADERBOARD_[A-Z0-9_]*[A-Z0-9]_?", path.read_text("utf-8")))
    return names


def test_the_code_reads_leaderboard_variables():
    assert {"LEADERBOARD_DEBUG", "LEADERBOARD_CACHE_DIR", "LEADERBOARD_PLUGINS"} <= _env_variables()


@pytest.mark.parametrize("variable", sorted(_env_variables()))
def test_every_environment_variable_is_on_the_environment_page(variable):
    page = (DOCS / "reference" / "environment.md").read_text("utf-8")
    assert f"`{variable}" in page, f"docs/reference/environment.md does not document {variable}"


def test_there_is_one_hook_per_kind():
    assert sorted(f"register_{kind}s" for kind in KINDS) == HOOKS


@pytest.mark.parametrize("hook", HOOKS)
def test_every_hook_has_a_docstring_and_a_docs_entry(hook):
    doc = inspect.getdoc(getattr(hookspecs, hook)) or ""
    assert len(doc) > 40, f"{hook} has no real docstring in leaderboard/contract/hookspecs.py"
    assert f"| `{hook}` |" in (DOCS / "reference" / "hooks.md").read_text("utf-8"), (
        f"docs/reference/hooks.md lacks {hook}"
    )


@pytest.mark.parametrize("keyword", REGISTER_KEYWORDS)
def test_every_register_keyword_is_documented(keyword):
    module_doc = hookspecs.__doc__ or ""
    assert re.search(rf"^``{keyword}``$", module_doc, re.M), f"hookspecs' docstring does not document {keyword!r}"
    page = (DOCS / "reference" / "hooks.md").read_text("utf-8")
    assert f"| `{keyword}` |" in page, f"docs/reference/hooks.md does not document register(..., {keyword}=...)"


def test_the_docs_name_the_toolkit_and_the_door():
    text = _hand_written()
    assert "`leaderboard.toolkit`" in text and "tests/test_layers.py" in text


@pytest.mark.parametrize("name", __import__("leaderboard.toolkit").toolkit.__all__)
def test_every_toolkit_name_is_documented(name):
    """What plugins may import besides the contract is listed in the toolkit's docstring, with a docstring."""
    import leaderboard.toolkit as toolkit

    assert f"``{name}" in (toolkit.__doc__ or ""), f"leaderboard.toolkit's docstring does not list {name}"
    value = getattr(toolkit, name)
    if callable(value):
        assert len(inspect.getdoc(value) or "") > 15, f"toolkit.{name} has no docstring"


def _packages() -> list[str]:
    """The core's subpackages and modules, and the folders pyproject installs as top-level packages."""
    core = REPO / "leaderboard"
    names = [f"leaderboard/{p.name}/" for p in sorted(core.iterdir()) if (p / "__init__.py").is_file()]
    names += [
        f"leaderboard/{p.name}" for p in sorted(core.glob("*.py")) if p.name not in ("__init__.py", "__main__.py")
    ]
    import tomllib

    package_dirs = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    names += [f"{folder}/" for package, folder in package_dirs.items() if package != "leaderboard"]
    return [*names, "space/"]


@pytest.mark.parametrize("package", _packages())
def test_every_package_is_on_the_architecture_page(package):
    page = (DOCS / "explanation" / "architecture.md").read_text("utf-8")
    assert re.search(rf"^\| `{re.escape(package)}`", page, re.M), f"docs/explanation/architecture.md lacks {package}"


def test_every_docs_page_is_in_the_navigation_or_is_a_development_note():
    import yaml

    nav = yaml.safe_load((REPO / "mkdocs.yml").read_text())["nav"]

    def pages(entries):
        for entry in entries:
            value = next(iter(entry.values())) if isinstance(entry, dict) else entry
            yield from pages(value) if isinstance(value, list) else [value]

    listed = set(pages(nav))
    for path in DOCS.rglob("*.md"):
        name = path.relative_to(DOCS).as_posix()
        assert name in listed or name.startswith("development/"), f"docs/{name} is in no menu of mkdocs.yml"
        assert (DOCS / name).is_file()
    assert all((DOCS / name).is_file() for name in listed), "mkdocs.yml lists a page that does not exist"


def test_readme_is_short_and_its_links_resolve():
    text = README.read_text("utf-8")
    assert len(text.splitlines()) <= 250, "README.md is the front door, not the manual: the docs/ site holds the rest"
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if not target.startswith(("http://", "https://")):
            assert (REPO / target).exists(), f"README.md links to {target}, which does not exist"
    assert "<!-- test-command -->\n```bash\n" in text, ".ci/run reads the test command from the block after the marker"
