"""A user's mistakes on the command line: each ends with exit 2 and one line saying what was wrong and what
to type instead; where a name is taken, the line suggests the close names that exist."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest
from conftest import run_cli, word_overlap_plugin

import leaderboard


def one_line(ran) -> str:
    """The single line a refused command printed (progress lines aside), after checking it exited 2."""
    lines = [line for line in ran.stderr.splitlines() if line.strip() and not line.startswith("[progress")]
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert len(lines) == 1, ran.stderr
    assert "Traceback" not in ran.stderr and not ran.stdout.strip()
    return lines[0]


@pytest.fixture(scope="module")
def demo_results(tmp_path_factory) -> Path:
    """bm25, bm25-okapi and an unregistered word-overlap model (a model object) on the demo task."""
    root = tmp_path_factory.mktemp("mistakes") / "results"
    namespace: dict = {}
    exec(word_overlap_plugin("r1"), namespace)
    leaderboard.evaluate(["bm25", "bm25-okapi", namespace["WordOverlap"]()], ["demo"], output=root)
    return root


@pytest.mark.parametrize("where", ["file", "proc"])
def test_an_unwritable_output_folder_is_named_before_any_work(tmp_path, where):
    if where == "proc" and not Path("/proc").is_dir():
        pytest.skip("no /proc here")
    (tmp_path / "a-file").write_text("not a folder")
    output = "/proc/nope" if where == "proc" else str(tmp_path / "a-file" / "results")
    line = one_line(run_cli("run", "-m", "bm25", "-t", "demo", "--output", output))
    assert line.startswith("Error: Cannot write results to") and output in line and "--output" in line
    assert "Internal error" not in line


def test_a_rerank_depth_apart_from_its_arrow_is_shown_in_the_arrow_form():
    line = one_line(run_cli("run", "-m", "bm25 >> 20 ce:org/reranker", "-t", "demo"))
    assert "starts with a number" in line and '"bm25 >>20 ce:org/reranker"' in line


def test_an_offline_hub_id_fails_at_once_without_a_network_attempt(tmp_path):
    """HF_HUB_OFFLINE=1 and an empty cache: the model cannot load, said before torch is imported and without
    any connection to the hub (a listening socket stands in for it and must see none)."""
    hub = socket.socket()
    hub.bind(("127.0.0.1", 0))
    hub.listen()
    hub.setblocking(False)
    started = time.monotonic()
    ran = run_cli(
        "run",
        "-m",
        "st:BAAI/bge-small-en-v1.5",
        "-t",
        "demo",
        "--output",
        str(tmp_path / "results"),
        env={
            "HF_HUB_OFFLINE": "1",
            "HF_HOME": str(tmp_path / "hf-home"),
            "HF_ENDPOINT": f"http://127.0.0.1:{hub.getsockname()[1]}",
        },
    )
    elapsed = time.monotonic() - started
    line = one_line(ran)
    with pytest.raises(BlockingIOError):
        hub.accept()  # nobody knocked
    hub.close()
    assert line.startswith("Data unavailable:") and "HF_HUB_OFFLINE=1" in line and "BAAI/bge-small-en-v1.5" in line
    assert elapsed < 10, f"took {elapsed:.1f} s"
    assert not (tmp_path / "results").exists()


def test_compare_suggests_a_model_that_has_results_but_no_plugin(demo_results):
    line = one_line(run_cli("compare", "word-overlap", "word-overlop", "-t", "demo", "--results", str(demo_results)))
    assert "Unknown model 'word-overlop'" in line and "Did you mean 'word-overlap'?" in line


def test_compare_suggests_a_registered_model(demo_results):
    line = one_line(run_cli("compare", "bm25", "bm25-okapy", "-t", "demo", "--results", str(demo_results)))
    assert "Did you mean 'bm25-okapi'?" in line


def test_cite_suggests_the_benchmark_meant():
    line = one_line(run_cli("cite", "comlqq"))
    assert "Unknown benchmark 'comlqq'" in line and "Did you mean 'ComLQ'?" in line


def test_show_task_and_benchmark_suggest_the_name_meant(demo_results):
    line = one_line(run_cli("show", str(demo_results), "--task", "demoo"))
    assert "--task 'demoo'" in line and "Did you mean 'demo'?" in line
    line = one_line(run_cli("show", str(demo_results), "--benchmark", "comlqq"))
    assert "--benchmark" in line and "Did you mean 'ComLQ'?" in line


def test_compare_queries_shows_each_querys_text_from_the_tasks_data(demo_results):
    from leaderboard.engine.query_texts import load_texts

    texts, _ = load_texts("demo", None, {})
    ran = run_cli(
        "compare", "bm25", "bm25-okapi", "-t", "demo", "--results", str(demo_results), "--queries", "3", "-q",
        "--format", "json",
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    found = json.loads(ran.stdout)["queries"]["demo"]
    rows = [*found["a_better"], *found["b_better"]]
    assert rows and all(row["text"] == texts[row["query_id"]] for row in rows)
    table = run_cli("compare", "bm25", "bm25-okapi", "-t", "demo", "--results", str(demo_results), "--queries", "1")
    assert texts[rows[0]["query_id"]] in table.stdout


def test_compare_queries_says_why_no_text_is_shown(demo_results):
    """The demo task's plugin is not loaded: the results still compare, and one line says why no text."""
    ran = run_cli(
        "compare", "bm25", "bm25-okapi", "-t", "demo", "--results", str(demo_results), "--queries", "2", "-q",
        env={"LEADERBOARD_PLUGINS": "bm25,bm25-okapi"},
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    notes = [line for line in ran.stderr.splitlines() if "no query texts shown" in line]
    assert len(notes) == 1 and "Unknown task 'demo'" in notes[0] and "--data-dir demo=DIR" in notes[0]


@pytest.mark.parametrize("width", [100, 160])
def test_benchmarks_wraps_between_task_names_never_inside_one(demo_results, width):
    listed = json.loads(run_cli("benchmarks", "--format", "json").stdout)
    ran = run_cli("benchmarks", "--results", str(demo_results), env={"COLUMNS": str(width)})
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    assert max(len(line) for line in lines) <= width
    for benchmark in listed:
        for task in (benchmark["tasks"] or [])[:12]:  # a table lists the first twelve
            assert any(task in line for line in lines), f"{benchmark['name']}: {task} is cut in the table"
    assert any("demo (CW " in line for line in lines)  # the mean CW beside its task
