"""Run ergonomics and output formats: `run` with no arguments shows examples; names resolve case-insensitively
and typos get the right spelling; a reranker alone gets the pipeline hint before any download; every
listing takes --format json|csv|table; piped tables never wrap a path."""

import csv
import io
import json

import pytest
from click.testing import CliRunner
from conftest import run_cli

from leaderboard.cli import cli


def test_run_without_arguments_prints_two_example_commands():
    ran = run_cli("run")
    assert ran.returncode == 2
    examples = [line.strip() for line in ran.stderr.splitlines() if line.strip().startswith("leaderboard run")]
    assert len(examples) == 2 and "--model bm25 --task demo" in examples[0], ran.stderr


def test_run_help_prints_one_example_a_line():
    ran = run_cli("run", "--help", env={"COLUMNS": "80"})
    assert ran.returncode == 0, ran.stderr
    lines = [line.strip() for line in ran.stdout.splitlines()]
    examples = [line for line in lines if line.startswith("leaderboard run")]
    assert examples == [
        "leaderboard run --model bm25 --task demo",
        "leaderboard run -m all-MiniLM-L6-v2 -m bm25 -t comlq --data-dir comlq=../shared/data/comlq",
    ]
    assert lines[lines.index(examples[0]) - 1] == "Examples:"


def test_task_names_resolve_case_insensitively(tmp_path):
    ran = run_cli("run", "-m", "bm25", "-t", "DEMO", "--output", str(tmp_path))
    assert ran.returncode == 0, ran.stderr
    assert (tmp_path / "bm25").is_dir() and list(tmp_path.rglob("demo.json"))


def test_comlq_in_any_case_is_the_comlq_task():
    from leaderboard.registry import get_registry

    for spelling in ("ComLQ", "COMLQ", "comlq"):
        assert get_registry().resolve("task", spelling).registration.name == "comlq"


def test_a_typo_suggests_the_right_spelling():
    ran = run_cli("run", "-m", "bm25", "-t", "comlqq")
    assert ran.returncode == 2 and "Did you mean 'comlq'?" in ran.stderr


def test_a_reranker_alone_gets_the_pipeline_hint_before_any_download(tmp_path):
    """Offline, with no weights: the hint and exit 2, not a download error."""
    ran = run_cli(
        "run", "-m", "ce:cross-encoder/ms-marco-MiniLM-L6-v2", "-t", "demo", "--output", str(tmp_path),
        env={"HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "empty-hf-home")},
    )  # fmt: skip
    assert ran.returncode == 2, ran.stderr
    assert 'Put a first-stage retriever in front of it, e.g. --model "bm25 >> cross-encoder/ms-marco' in ran.stderr
    assert "Traceback" not in ran.stderr and "offline" not in ran.stderr.lower()
    assert not list(tmp_path.rglob("*.json"))


@pytest.fixture(scope="module")
def long_results(tmp_path_factory):
    """A result under a long folder path, for the no-wrap check."""
    root = tmp_path_factory.mktemp("r") / ("a-rather-long-folder-name-" * 4).strip("-")
    ran = run_cli("run", "-m", "bm25", "-t", "demo", "--output", str(root))
    assert ran.returncode == 0, ran.stderr
    return root


def test_show_formats(long_results):
    table = run_cli("show", str(long_results), env={"COLUMNS": "80"})
    assert table.returncode == 0 and "bm25" in table.stdout and "0.8280" in table.stdout
    rows = json.loads(run_cli("show", str(long_results), "--format", "json").stdout)
    assert rows[0]["model"] == "bm25" and rows[0]["task"] == "demo" and rows[0]["complete"] is True
    assert rows[0]["file"].endswith("demo.json") and isinstance(rows[0]["value"], float)
    (row,) = list(csv.DictReader(io.StringIO(run_cli("show", str(long_results), "--format", "csv").stdout)))
    assert row["model"] == "bm25" and row["coverage"] == "complete" and row["file"] == rows[0]["file"]


def test_piped_tables_do_not_wrap_paths(long_results):
    ran = run_cli("run", "-m", "bm25", "-t", "demo", "--output", str(long_results), env={"COLUMNS": "80"})
    assert ran.returncode == 0, ran.stderr
    path = str(next(long_results.rglob("demo.json")))
    assert len(path) > 80 and any(path in line for line in ran.stdout.splitlines()), ran.stdout


def invoke(*args):
    ran = CliRunner().invoke(cli, list(args))
    assert ran.exit_code == 0, ran.output
    return ran.output


@pytest.mark.parametrize("command", ["tasks", "models", "plugins", "benchmarks", "judges"])
def test_listings_take_every_format(command):
    assert command.capitalize() in invoke(command)  # the table's title
    rows = json.loads(invoke(command, "--format", "json"))
    assert isinstance(rows, list) and all("name" in row for row in rows)
    parsed = list(csv.DictReader(io.StringIO(invoke(command, "--format", "csv"))))
    assert [r["name"] for r in parsed] == [r["name"] for r in rows]
    if command in ("tasks", "models"):
        assert {"demo", "bm25"} & {r["name"] for r in rows}


def test_plugins_hooks_are_listed_once():
    rows = json.loads(invoke("plugins", "--format", "json"))
    assert rows and all(len(r["hooks"]) == len(set(r["hooks"])) for r in rows)
    assert json.loads(invoke("plugins", "--json")) == rows
