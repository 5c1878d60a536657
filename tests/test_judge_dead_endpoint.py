"""The LLM judge against an endpoint that never answers (issue 36, item 5): a real listening socket that
accepts connections and never replies. The run exits 2 naming the endpoint (never the key) and writes no
result; a partial result only with --allow-partial."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from conftest import run_cli
from test_comlq_negconstraint import comlq_fixture  # noqa: F401  (a fixture)

SECRET = "sk-test-never-printed-0123456789"


@contextmanager
def silent_endpoint() -> Iterator[str]:
    """A base URL whose socket listens (connections complete in the kernel's backlog) and never answers."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"


def _run(fixture, output, endpoint, judgments, *extra):
    return run_cli(
        "run", "-m", "bm25", "-t", "comlq", "-o", str(output),
        "--data-dir", f"comlq={fixture}", "--task-option", "judge=llm:stub-model", *extra,
        env={"LEADERBOARD_JUDGE_ENDPOINT": endpoint, "LEADERBOARD_JUDGE_IDLE": "1",
             "LEADERBOARD_JUDGE_TIMEOUT": "1", "LEADERBOARD_JUDGE_RETRIES": "0",
             "OPENAI_API_KEY": SECRET, "LEADERBOARD_JUDGMENTS_DIR": str(judgments)},
    )  # fmt: skip


def test_a_dead_endpoint_exits_2_naming_it_and_writes_no_result(comlq_fixture, tmp_path):  # noqa: F811
    with silent_endpoint() as endpoint:
        ran = _run(comlq_fixture, tmp_path / "out", endpoint, tmp_path / "judgments")
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert endpoint in ran.stderr and "Traceback" not in ran.stderr
    assert SECRET not in ran.stdout + ran.stderr
    assert not list((tmp_path / "out").rglob("*.json"))  # no result, not even a partial one


def test_a_partial_result_only_with_allow_partial(comlq_fixture, tmp_path):  # noqa: F811
    with silent_endpoint() as endpoint:
        ran = _run(comlq_fixture, tmp_path / "out", endpoint, tmp_path / "judgments", "--allow-partial")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert SECRET not in ran.stdout + ran.stderr
    (written,) = (tmp_path / "out").rglob("*.json")
    assert ".partial-" in written.name
    result = json.loads(written.read_text())
    assert result["coverage"]["complete"] is False
    assert result["coverage"]["reason"].startswith(f"judge llm:stub-model: the endpoint {endpoint} ")
    assert endpoint in result["task_details"]["judgments"]["stopped"]
    assert SECRET not in written.read_text()


def test_the_judge_names_a_dead_endpoint_as_unavailable(tmp_path, monkeypatch):
    """The judge's own failure is a JudgeUnavailable (a BadInput: exit 2), naming the endpoint, never the key."""
    from leaderboard_judges.llm import LLMJudge

    from leaderboard.contract.judge import JudgeItem, JudgeUnavailable

    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    judge = LLMJudge("m", idle=0.5, timeout=0.5, max_retries=0)
    with silent_endpoint() as endpoint, pytest.raises(JudgeUnavailable) as info:
        judge.endpoint = endpoint
        judge.judge([JudgeItem("q", "not x", "d", "x")])
    assert endpoint in str(info.value) and SECRET not in str(info.value)
