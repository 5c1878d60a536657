"""How long the LLM judge, every limit at its default, takes to give up on an endpoint that never answers.

Goal: at most 60 s per run. A stub server (tests/openai_stub.py, mode "hang")
accepts every request and never replies; 200 items are asked with 8 threads. Prints the seconds to the
error, the requests sent and the error's start. Run from the repository root:

    python perf/perf_judge_silence.py
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from leaderboard_judges.llm import LLMJudge
from openai_stub import openai_stub

from leaderboard.contract.judge import JudgeItem
from leaderboard.errors import BadInput

items = [JudgeItem(f"q{i}", "not x", f"d{i}", "x") for i in range(200)]
with openai_stub(("x",), mode="hang") as (endpoint, stub):
    judge = LLMJudge("m", endpoint=endpoint)
    limits = {k: judge.describe()[k] for k in ("timeout_s", "idle_s", "deadline_s", "max_retries")}
    started = time.monotonic()
    try:
        judge.judge(items)
        print("the judge answered: the stub is not silent")
    except BadInput as exc:
        elapsed = time.monotonic() - started
        print(f"defaults {limits}: gave up after {elapsed:.1f} s, {len(stub.requests)} requests sent")
        print(f"  {str(exc)[:140]}")
