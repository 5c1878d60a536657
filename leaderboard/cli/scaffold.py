"""``leaderboard new-plugin NAME --kind dense|sparse|reranker|task``: a ready plugin package.

The templates live in ``leaderboard/cli/templates/plugin/*.tmpl`` and are filled with
``string.Template`` from the standard library. The files only need a handful of names substituted
(package, module, class, kind); cookiecutter and copier both install from PyPI, but each would add
five to twelve packages (requests, pyyaml, arrow, plumbum, questionary, ...) to every install for
that, and a per-kind module is a file choice, not template logic.
"""

from __future__ import annotations

import re
from pathlib import Path
from string import Template

import click

from leaderboard.cli.console import escape, out

KINDS = ("dense", "sparse", "reranker", "task")
NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
MAX_NAME = 64  # it names a folder, a distribution and a module; file systems stop at 255 bytes

SUBMIT = """## Submit

1. Run the tasks you submit into the submission folder:
   `leaderboard run -m $name -t comlq --data-dir comlq=DIR --output submissions/$name/results`
2. Fill in the TODOs of `submissions/$name/model.json`, copy the folder into the leaderboard's
   `submissions/`, then `leaderboard validate submissions/$name` and `leaderboard verify submissions/$name`.
3. Open a pull request on the leaderboard's repository.
"""
SUBMIT_TASK = """## Share

Publish the package (PyPI or a git URL); anyone who installs it can run
`leaderboard run -m bm25 -t $name`. A public benchmark of your task is declared with the
`register_benchmarks` hook (see Hooks in the harness's documentation).
"""


def _template(name: str) -> Template:
    from importlib import resources  # here, not at import: every command would pay for it

    text = resources.files("leaderboard.cli").joinpath("templates", "plugin", f"{name}.tmpl").read_text("utf-8")
    return Template(text)


def _harness_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return ".".join(version("retrieval-leaderboard").split(".")[:2])
    except PackageNotFoundError:  # a source tree that was never installed
        return "0.2"


# A task's test shows how the harness names a mistake: what load() returns is checked before any model runs.
CONTRACT_CHECK = """

def test_a_mistake_in_the_data_is_named_before_any_model_runs(tmp_path: Path) -> None:
    import pytest

    from $module.plugin import $cls

    class Unhashed($cls):
        def load(self) -> leaderboard.RetrievalData:
            data = super().load()
            data.source.content_hash = None  # a result's identity: the hash of exactly what was loaded
            return data

    message = "returned RetrievalData whose source.content_hash is None; expected the sha256 of what was loaded"
    with pytest.raises(leaderboard.BadInput, match=r"^task '$name': load\\(\\) " + message):
        leaderboard.evaluate(["bm25"], [Unhashed()], output=tmp_path)
    assert not list(tmp_path.rglob("*.json"))  # nothing written, no model loaded
"""


def plan(name: str, kind: str) -> dict[str, str]:
    """Relative path -> file text for a new plugin package (nothing is written)."""
    from leaderboard.errors import BadInput, shorten

    if len(name) > MAX_NAME or not NAME.match(name):
        raise BadInput(
            f"new-plugin {shorten(name, 60)!r}: expected a lowercase name of at most {MAX_NAME} letters, digits "
            "and single hyphens, starting with a letter (e.g. my-model); it becomes the plugin's and the model's name."
        )
    distribution = name if name.startswith("leaderboard-") else f"leaderboard-{name}"
    module = distribution.replace("-", "_")
    values = {
        "name": name,
        "kind": kind,
        "distribution": distribution,
        "module": module,
        "cls": "".join(part.capitalize() for part in name.split("-")) + ("Task" if kind == "task" else ""),
        "harness_version": _harness_version(),
    }
    if kind == "task":
        values |= {
            "where": "itself with BM25",
            "evaluate_models": '"bm25"',
            "evaluate_tasks": f'"{name}"',
            "version_check": f'assert outcome.result.task.name == "{name}"',
            "run_example": f"leaderboard run --model bm25 --task {name}",
            "contract_check": Template(CONTRACT_CHECK).substitute(name=name, module=module, cls=values["cls"]),
        }
    elif kind == "reranker":
        values |= {
            "where": "the demo task behind BM25",
            "evaluate_models": f'"bm25 >>20 {name}"',
            "evaluate_tasks": '"demo"',
            "version_check": 'assert outcome.result.model.components[1].plugin_version == "0.1.0"  # recorded',
            "run_example": f'leaderboard run --model "bm25 >>20 {name}" --task demo',
        }
    else:
        values |= {
            "where": "the demo task",
            "evaluate_models": f'"{name}"',
            "evaluate_tasks": '"demo"',
            "version_check": 'assert outcome.result.model.plugin_version == "0.1.0"  # recorded in the result',
            "run_example": f"leaderboard run --model {name} --task demo",
        }
    values.setdefault("contract_check", "")
    values["submit_section"] = Template(SUBMIT_TASK if kind == "task" else SUBMIT).substitute(values)
    files = {
        "pyproject.toml": "pyproject.toml",
        "README.md": "README.md",
        f"{module}/__init__.py": "__init__.py",
        f"{module}/plugin.py": "task.py" if kind == "task" else f"model_{kind}.py",
        f"tests/test_{module}.py": "test_plugin.py",
    }
    if kind != "task":
        files[f"submissions/{name}/model.json"] = "model.json"
    return {path: _template(template).substitute(values) for path, template in files.items()}


def write(root: Path, files: dict[str, str]) -> list[Path]:
    from leaderboard.errors import BadInput

    if root.exists() and any(root.iterdir()):
        raise BadInput(f"{root} already exists and is not empty; choose another NAME or --output.")
    written = []
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


@click.command("new-plugin")
@click.argument("name")
@click.option("--kind", type=click.Choice(KINDS), default="dense", show_default=True, help="What the plugin adds.")
@click.option(
    "--output",
    "-o",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="Folder to create the package in (as <output>/leaderboard-NAME).",
)
def new_plugin(name: str, kind: str, output: Path) -> None:
    """Scaffold a plugin package: pyproject with the entry point, a plugin module on the public
    contract, a test that runs it through leaderboard.evaluate, a README and a submission stub."""
    files = plan(name, kind)
    root = output / (name if name.startswith("leaderboard-") else f"leaderboard-{name}")
    written = write(root, files)
    out().print(f"Created {escape(root)} ({len(written)} files):", highlight=False)
    for path in written:
        out().print(f"  {escape(path.relative_to(root))}", highlight=False)
    out().print(f"Next: {escape(next_step(root))}", highlight=False)


def next_step(root: Path) -> str:
    """The commands that install the new package and run its test, in the environment the harness is in.

    The package's ``test`` extra brings pytest, which the README's main install (``.[minilm]``) lacks."""
    import shlex

    return f"pip install -e {shlex.quote(f'{root}[test]')} && python -m pytest {shlex.quote(str(root / 'tests'))}"


COMMANDS = [new_plugin]
