"""A first day's rough edges: each mistake a new user makes ends with exit 2 and a message that names the thing
and what was expected (no traceback), and the stand-in hub runs as a command (`leaderboard dev-hub`)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
from click.testing import CliRunner
from conftest import run_cli

from leaderboard.cli import cli

LAYOUT = "results/<org>__<model>/<revision>/<Task>.json"


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def refused(ran, *words: str) -> None:
    """Exit 2, no traceback, and the message names each of ``words``."""
    output = getattr(ran, "output", None) or (ran.stdout + ran.stderr)
    code = getattr(ran, "exit_code", None)
    code = ran.returncode if code is None else code
    assert code == 2, output
    assert "Traceback" not in output, output
    flat = " ".join(output.split())  # rich wraps long lines
    for word in words:
        assert word in flat, (word, output)


def closed_port() -> int:
    """A loopback port nobody listens on (bound once, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# -- A. import of a folder holding no mteb results ---------------------------------------------------------


def test_import_of_an_empty_folder_names_the_layout_and_writes_nothing(tmp_path):
    (tmp_path / "empty").mkdir()
    ran = invoke("import", str(tmp_path / "empty"), "--output", str(tmp_path / "out"))
    refused(ran, "no mteb results found", LAYOUT)
    assert not (tmp_path / "out").exists()


def test_import_of_a_folder_of_other_json_names_what_it_found(tmp_path):
    (tmp_path / "src" / "notes").mkdir(parents=True)
    (tmp_path / "src" / "notes" / "a.json").write_text("{}", encoding="utf-8")
    ran = invoke("import", str(tmp_path / "src"), "--output", str(tmp_path / "out"))
    refused(ran, "no mteb results found", "1 other .json file(s), e.g. notes/a.json", LAYOUT)
    assert not (tmp_path / "out").exists()


# -- B. a hub id without hub access ------------------------------------------------------------------------


def check_hub(tmp_path, **env: str) -> subprocess.CompletedProcess:
    """leaderboard.model_weights.check_hub on a model missing from an empty hub cache, in a fresh process
    (huggingface_hub reads its endpoint and offline switch at import)."""
    code = (
        "from leaderboard.errors import LeaderboardError\n"
        "from leaderboard.model_weights import check_hub\n"
        "try:\n"
        "    check_hub('BAAI/bge-small-en-v1.5', None, 'sentence-transformers model')\n"
        "except LeaderboardError as exc:\n"
        "    print(type(exc).__name__, exc.exit_code, exc)\n"
    )
    full = {**os.environ, "HF_HOME": str(tmp_path / "hf"), "HF_HUB_CACHE": str(tmp_path / "hf" / "hub"), **env}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full, timeout=300)


def test_a_hub_id_with_the_hub_switched_off_says_so(tmp_path):
    ran = check_hub(tmp_path, HF_HUB_OFFLINE="1")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("DataUnavailable 2 The Hugging Face hub is switched off (HF_HUB_OFFLINE=1)")
    assert "'BAAI/bge-small-en-v1.5' is not in the local Hugging Face cache" in ran.stdout


def test_a_hub_id_with_an_unreachable_hub_names_the_endpoint(tmp_path):
    endpoint = f"http://127.0.0.1:{closed_port()}"
    ran = check_hub(tmp_path, HF_HUB_OFFLINE="0", HF_ENDPOINT=endpoint)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith(f"DataUnavailable 2 The Hugging Face hub at {endpoint} is unreachable"), ran.stdout
    assert "does not exist" not in ran.stdout


@pytest.mark.slow  # imports torch and sentence-transformers
def test_run_with_a_hub_id_offline_says_the_hub_is_unreachable_not_a_missing_folder(tmp_path):
    pytest.importorskip("sentence_transformers")
    env = {"HF_HOME": str(tmp_path / "hf"), "HF_HUB_CACHE": str(tmp_path / "hf" / "hub"), "HF_HUB_OFFLINE": "1"}
    ran = run_cli("run", "-m", "st:BAAI/bge-small-en-v1.5", "-t", "demo", "--output", str(tmp_path / "r"), env=env)
    refused(ran, "Data unavailable:", "hub is switched off", "'BAAI/bge-small-en-v1.5'")
    assert "folder" not in ran.stderr.split("cache")[0]  # not "model folder ... does not exist"
    assert not (tmp_path / "r").exists()


# -- C. --data-dir errors name the task and the TASK=DIR form ---------------------------------------------


def test_one_data_dir_for_two_tasks_names_both_and_the_task_form(tmp_path):
    ran = invoke(
        "run", "-m", "bm25", "-t", "comlq", "-t", "negconstraint", "--data-dir", str(tmp_path),
        "--output", str(tmp_path / "r"),
    )  # fmt: skip
    refused(
        ran, "task comlq:", f"--data-dir {tmp_path} was given to every task (comlq, negconstraint)",
        "--data-dir comlq=DIR --data-dir negconstraint=DIR",
    )  # fmt: skip
    assert not (tmp_path / "r").exists()


def test_negconstraint_without_data_names_its_form_and_environment_variable(tmp_path, monkeypatch):
    import tasks.negconstraint

    monkeypatch.delenv("LEADERBOARD_NEGCONSTRAINT_DIR", raising=False)
    # A download that cannot succeed anywhere (no network is needed to fail): a closed loopback port.
    monkeypatch.setattr(tasks.negconstraint, "BASE_URL", f"http://127.0.0.1:{closed_port()}/NegConstraint")
    ran = invoke("run", "-m", "bm25", "-t", "negconstraint", "--output", str(tmp_path / "r"))
    refused(
        ran, "Data unavailable: task negconstraint:", "LEADERBOARD_NEGCONSTRAINT_DIR", "--data-dir negconstraint=DIR"
    )
    assert not (tmp_path / "r").exists()


def test_a_data_dir_that_is_no_folder_names_the_task(tmp_path):
    ran = invoke(
        "run", "-m", "bm25", "-t", "negconstraint", "--data-dir", f"negconstraint={tmp_path / 'nope'}",
        "--output", str(tmp_path / "r"),
    )  # fmt: skip
    refused(ran, "task negconstraint:", "which is not a directory")


def test_a_bad_record_in_a_task_given_as_a_folder_names_that_folder_not_a_data_dir(tmp_path):
    from conftest import write_beir

    folder = write_beir(tmp_path / "bad-data", {"d1": "a passage"}, {"q1": "a query"}, {"q1": {"d1": 1}})
    (folder / "queries.jsonl").write_text('{"_id": "q1"}\n')  # no "text"
    ran = run_cli("run", "-m", "bm25", "-t", str(folder), "--output", str(tmp_path / "r"), env={"COLUMNS": "1000"})
    refused(ran, f"task {folder}: {folder / 'queries.jsonl'}, line 1: missing field 'text'")
    assert ran.stderr.strip().count("\n") == 0, ran.stderr  # one line
    assert ran.stderr.strip().endswith(
        f"This task's data is the folder {folder} given as --task: correct the file named, "
        "or see `leaderboard tasks` for what such a folder holds."
    ), ran.stderr
    assert "--data-dir" not in ran.stderr and not (tmp_path / "r").exists()


# -- D. show --task / --benchmark -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def two_tasks(tmp_path_factory):
    out = tmp_path_factory.mktemp("results")
    ran = CliRunner().invoke(
        cli, ["run", "-m", "bm25", "-t", "demo", "-t", "multiconir-demo-task1", "--output", str(out)]
    )
    assert ran.exit_code == 0, ran.output
    return out


def shown_tasks(*args: str) -> set[str]:
    ran = invoke("show", *args, "--format", "json")
    assert ran.exit_code == 0, ran.output
    return {row["task"] for row in json.loads(ran.stdout)}


def test_show_filters_by_task_and_by_benchmark(two_tasks):
    assert shown_tasks(str(two_tasks)) == {"demo", "multiconir-demo-task1"}
    assert shown_tasks(str(two_tasks), "--task", "demo") == {"demo"}
    assert shown_tasks(str(two_tasks), "--task", "DEMO") == {"demo"}  # case aside, as run -t reads names
    assert shown_tasks(str(two_tasks), "--benchmark", "multiconir-demo") == {"multiconir-demo-task1"}
    both = shown_tasks(str(two_tasks), "--task", "demo", "--benchmark", "multiconir-demo")
    assert both == {"demo", "multiconir-demo-task1"}


def test_show_filters_apply_to_paper_tables(two_tasks):
    ran = invoke("show", str(two_tasks), "--task", "multiconir-demo-task1", "--format", "markdown")
    assert ran.exit_code == 0, ran.output
    assert "multiconir-demo-task1" in ran.stdout and "| demo" not in ran.stdout


def test_show_unknown_task_or_benchmark_lists_the_known_ones(two_tasks):
    refused(invoke("show", str(two_tasks), "--task", "demoo"), "--task 'demoo'", "demo, multiconir-demo-task1")
    refused(invoke("show", str(two_tasks), "--benchmark", "nope"), "Unknown benchmark 'nope'", "Known benchmarks:")


# -- E. leaderboard dev-hub ------------------------------------------------------------------------------------


def answers(endpoint: str) -> bool:
    try:
        urllib.request.urlopen(f"{endpoint}/api/datasets/none/none", timeout=5)
    except urllib.error.HTTPError:
        return True  # any HTTP answer: it is serving
    except OSError:
        return False
    return True


def test_dev_hub_serves_push_and_pull_until_interrupted(two_tasks, tmp_path):
    port = closed_port()
    endpoint = f"http://127.0.0.1:{port}"
    env = {**os.environ, "COLUMNS": "250"}
    # Ctrl-C as at a terminal: a suite started in the background (nohup, `cmd &`) passes SIGINT on ignored,
    # and a Python started with SIGINT ignored never raises KeyboardInterrupt.
    hub = subprocess.Popen(
        [sys.executable, "-m", "leaderboard", "dev-hub", "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120  # a bound on a busy machine; the loop ends as soon as it answers
        while not answers(endpoint):
            assert hub.poll() is None, hub.communicate()
            assert time.monotonic() < deadline, "dev-hub never answered"
            time.sleep(0.2)
        hub_env = {"HF_ENDPOINT": endpoint, "HF_TOKEN": "dev-hub-any-token", "HF_HUB_OFFLINE": "0"}
        pushed = run_cli("push", str(two_tasks), "--repo", "me/results", env=hub_env)
        assert pushed.returncode == 0, pushed.stdout + pushed.stderr
        pulled = run_cli("pull", str(tmp_path / "back"), "--repo", "me/results", env=hub_env)
        assert pulled.returncode == 0, pulled.stdout + pulled.stderr
        sent = {p.relative_to(two_tasks).as_posix(): p.read_bytes() for p in two_tasks.rglob("*.json")}
        back = tmp_path / "back" / "results"  # pull lays the dataset out as it is: results/<model>/...
        assert sent and all((back / path).read_bytes() == data for path, data in sent.items())
        busy = run_cli("dev-hub", "--port", str(port))
        refused(busy, f"cannot listen on 127.0.0.1:{port}", "choose another --port")
    finally:
        hub.send_signal(signal.SIGINT)
        stdout, stderr = hub.communicate(timeout=60)
    assert hub.returncode == 0, stderr
    for line in (f"export HF_ENDPOINT={endpoint}", "export HF_TOKEN=dev-hub-any-token", "export HF_HUB_OFFLINE=0"):
        assert line in stdout
    assert stdout.rstrip().endswith("Stopped.") and "Traceback" not in stderr
