"""Violation judges as plugins: lexical-v1, the LLM judge against a local OpenAI-compatible stub, the
judgment cache (a re-run makes no calls), LSNC labelled with its judge, and Cohen's kappa."""

from __future__ import annotations

import gzip
import json

import pytest
from openai_stub import openai_stub
from test_comlq_negconstraint import comlq_fixture  # noqa: F401  (a fixture)

import leaderboard
from leaderboard.contract.judge import Judge, JudgeItem, prompt_sha256
from leaderboard.errors import BadInput
from leaderboard.metrics.agreement import cohen_kappa
from leaderboard.metrics.negation import lsnc, top_k_ids

SECRET = "sk-test-never-printed-0123456789"
STUB_WORDS = ("rings", "dynasty")  # the stub calls a passage a violation when it holds one of these


@pytest.fixture
def judge_env(tmp_path, monkeypatch):
    monkeypatch.setenv("LEADERBOARD_JUDGMENTS_DIR", str(tmp_path / "judgments"))
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    return tmp_path / "judgments"


def test_built_in_judges_are_registered():
    from leaderboard.registry import get_registry

    registry = get_registry()
    assert {"lexical-v1", "llm:"} <= set(registry.names("judge"))
    assert registry.entries["judge"]["llm:"].requires == ("openai",)


def test_lexical_judge_through_the_contract():
    from leaderboard.toolkit import build_judge as make_judge

    judge = make_judge("lexical-v1")
    assert isinstance(judge, Judge) and judge.name == "lexical-v1"
    query = "Which kings ruled over Israel but were not founders of a dynasty?"
    items = [
        JudgeItem("q", query, "both", "Omri was the founder of a new dynasty in Israel."),
        JudgeItem("q", query, "one", "Ahab ruled the northern kingdom; his dynasty ended violently."),
        JudgeItem("r", "Which rivers flow north?", "x", "The Nile flows north."),  # no negation cue: no label
    ]
    assert judge.judge(items) == [True, False, None]
    identity = judge.identity()
    assert identity == {"name": "lexical-v1", "version": "1", "model": None, "prompt_sha256": None} | {
        "rules_sha256": identity["rules_sha256"]
    }
    assert len(identity["rules_sha256"]) == 64 and int(identity["rules_sha256"], 16) >= 0


def test_a_cached_judgments_file_from_another_judge_version_is_not_reused(
    comlq_fixture,  # noqa: F811
    tmp_path,
    judge_env,
    monkeypatch,
):
    """A run with lexical-v1's rule as it was (another threshold) leaves its judgments
    in the folder; today's judge has another identity, so its run judges every item anew and its labels are
    today's, not the file's. Labels never change once written: only a new identity keeps old ones out."""
    from leaderboard_judges import lexical

    today, _ = _run(comlq_fixture, tmp_path / "today-first", "lexical-v1")
    (judge_env / today["task_details"]["judgments"]["file"]).unlink()

    with monkeypatch.context() as older:  # the rule as an older version had it: a keyword more than today's
        older.setattr(lexical.LexicalJudge, "needed", staticmethod(lambda n_keywords: n_keywords + 1))
        old, _ = _run(comlq_fixture, tmp_path / "older", "lexical-v1")
    old_details = old["task_details"]["judgments"]
    assert (judge_env / old_details["file"]).is_file() and old_details["judged_now"] == old_details["items"] > 0

    again, _ = _run(comlq_fixture, tmp_path / "today-again", "lexical-v1")
    details = again["task_details"]["judgments"]
    assert details["key"] != old_details["key"] and details["file"] != old_details["file"]
    assert details["from_cache"] == 0 and details["judged_now"] == details["items"]
    assert details["labels_sha256"] == today["task_details"]["judgments"]["labels_sha256"]
    assert details["labels_sha256"] != old_details["labels_sha256"]  # the older rule labelled otherwise
    assert again["scores"] == today["scores"]
    assert old["task_details"]["judge"]["rules_sha256"] != again["task_details"]["judge"]["rules_sha256"]


def test_unknown_judge_is_bad_input(comlq_fixture, tmp_path):  # noqa: F811
    with pytest.raises(BadInput, match="Unknown judge 'lexcal-v1'.*lexical-v1"):
        leaderboard.evaluate(
            ["bm25"],
            ["comlq"],
            output=tmp_path / "out",
            data_dirs={"comlq": str(comlq_fixture)},
            task_options={"judge": "lexcal-v1"},
        )


def _run(fixture, output, judge):
    (outcome,) = leaderboard.evaluate(
        ["bm25"], ["comlq"], output=output, data_dirs={"comlq": str(fixture)}, task_options={"judge": judge}
    )
    return outcome.result.to_json(), outcome.path


def test_llm_judge_end_to_end_against_a_stub(comlq_fixture, tmp_path, judge_env, monkeypatch):  # noqa: F811
    from leaderboard_plugins.bm25 import BM25

    from leaderboard.data.beir import load_beir

    with openai_stub(STUB_WORDS) as (endpoint, stub):
        monkeypatch.setenv("LEADERBOARD_JUDGE_ENDPOINT", endpoint)
        result, path = _run(comlq_fixture, tmp_path / "first", "llm:stub-model")
        calls = len(stub.requests)

        # What the stub should have been asked, and what LSNC follows from its answers.
        data = load_beir(comlq_fixture)
        run = BM25().search(data.corpus, data.queries, 100)
        expected_items, expected_lsnc = 0, {}
        for qid in ("q3", "q4"):  # the negation queries (2in_2, 3in_1)
            asked = [d for d in top_k_ids(run.get(qid, {}), 100) if d not in data.qrels[qid]]
            expected_items += len(asked)
            violations = [d for d in asked[:10] if any(w in data.corpus[d].lower() for w in STUB_WORDS)]
            expected_lsnc[qid] = lsnc(len([d for d in top_k_ids(run[qid], 10) if d in violations]), 10)
        assert calls == expected_items > 0
        for request in stub.requests:
            body = request["body"]
            assert request["path"] == "/v1/chat/completions"
            assert body["model"] == "stub-model" and body["temperature"] == 0
            assert request["headers"]["authorization"] == f"Bearer {SECRET}"  # sent, but never recorded

        scores = result["scores"]["test"]
        assert scores["type=2in"]["lsnc_llm_stub_model_at_10"] == pytest.approx(expected_lsnc["q3"])
        assert scores["type=3in"]["lsnc_llm_stub_model_at_10"] == pytest.approx(expected_lsnc["q4"])
        assert not any(name.startswith("lsnc_lexical") for name in scores["default"])
        metric = next(m for m in result["task"]["metrics"] if m["name"] == "lsnc_llm_stub_model_at_10")
        assert "llm:stub-model" in metric["description"] and "2 of 2 negation queries judged" in metric["description"]
        view = next(v for v in result["task"]["views"] if v["title"].startswith("LSNC, violations judged by"))
        assert "llm:stub-model" in view["title"] and "lsnc_llm_stub_model_at_10" in view["metrics"]

        details = result["task_details"]
        assert details["violation_judge"] == "llm:stub-model"
        from leaderboard_judges.llm import PROMPT

        assert details["judge"] == {
            "name": "llm:stub-model",
            "version": "1",
            "model": "stub-model",
            "prompt": PROMPT,
            "prompt_sha256": prompt_sha256(PROMPT),
            "endpoint": endpoint,
            "temperature": 0.0,
            "timeout_s": 60.0,
            "deadline_s": 3600.0,
            "idle_s": 50.0,
            "max_retries": 2,
            "max_reply_bytes": 2**20,
        }
        assert details["judge_coverage"] == {"judged": 2, "negation_queries": 2, "rate": 1.0}
        assert details["judgments"]["judged_now"] == calls and details["judgments"]["from_cache"] == 0
        assert SECRET not in path.read_text()  # the key is nowhere in the result

        # The judgments are materialised in the judgments folder, keyed by data hash and judge identity.
        stored = judge_env / details["judgments"]["file"]
        payload = json.loads(gzip.decompress(stored.read_bytes()))
        assert payload["judge"]["model"] == "stub-model" and payload["key"] == details["judgments"]["key"]
        assert sum(len(docs) for docs in payload["labels"].values()) == calls
        assert SECRET not in stored.read_bytes().decode("latin-1")

        # A re-run (another output folder, so the runner does not skip it) makes no call at all.
        again, _ = _run(comlq_fixture, tmp_path / "second", "llm:stub-model")
        assert len(stub.requests) == calls
        assert again["scores"] == result["scores"]
        assert again["task_details"]["judgments"]["judged_now"] == 0
        assert again["task_details"]["judgments"]["from_cache"] == calls


def test_cached_labels_need_no_endpoint(comlq_fixture, tmp_path, judge_env, monkeypatch):  # noqa: F811
    with openai_stub(STUB_WORDS) as (endpoint, _):
        monkeypatch.setenv("LEADERBOARD_JUDGE_ENDPOINT", endpoint)
        first, _ = _run(comlq_fixture, tmp_path / "a", "llm:stub-model")
    monkeypatch.delenv("LEADERBOARD_JUDGE_ENDPOINT")
    again, _ = _run(comlq_fixture, tmp_path / "b", "llm:stub-model")  # published labels: no server needed
    assert again["scores"] == first["scores"] and again["task_details"]["judge"]["endpoint"] is None


def test_llm_judge_without_endpoint_or_unreachable_is_bad_input(monkeypatch):
    from leaderboard_judges.llm import LLMJudge, parse_label

    monkeypatch.delenv("LEADERBOARD_JUDGE_ENDPOINT", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    item = JudgeItem("q", "not x", "d", "x")
    with pytest.raises(BadInput, match="no endpoint: set LEADERBOARD_JUDGE_ENDPOINT"):
        LLMJudge("m").judge([item])
    with pytest.raises(BadInput, match=r"endpoint http://127.0.0.1:9/v1 failed") as info:
        LLMJudge("m", endpoint="http://127.0.0.1:9/v1", max_retries=0, timeout=5).judge([item])
    assert SECRET not in str(info.value)
    assert [parse_label(r) for r in ("Yes.", "no", " NO, it does not", "maybe", "", None)] == [
        True,
        False,
        False,
        None,
        None,
        None,
    ]
    with pytest.raises(BadInput, match="name the model"):
        LLMJudge("")


def test_judge_agreement_between_lexical_and_llm(comlq_fixture, tmp_path, judge_env, monkeypatch, capsys):  # noqa: F811
    from leaderboard_judges.agreement import main

    from leaderboard.toolkit import read_judgments as read_payload

    lexical, _ = _run(comlq_fixture, tmp_path / "lex", "lexical-v1")
    with openai_stub(STUB_WORDS) as (endpoint, _):
        monkeypatch.setenv("LEADERBOARD_JUDGE_ENDPOINT", endpoint)
        llm, _ = _run(comlq_fixture, tmp_path / "llm", "llm:stub-model")
    file_a = judge_env / lexical["task_details"]["judgments"]["file"]
    file_b = judge_env / llm["task_details"]["judgments"]["file"]
    a, b = read_payload(file_a)["labels"], read_payload(file_b)["labels"]
    common = [(q, d) for q in a for d in a[q] if a[q][d] is not None and b.get(q, {}).get(d) is not None]
    assert common  # both judges labelled the same pairs (the same BM25 run)
    expected = cohen_kappa([a[q][d] for q, d in common], [b[q][d] for q, d in common])
    assert main([str(file_a), str(file_b), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["items"] == len(common)
    assert printed["kappa"] == pytest.approx(expected, nan_ok=True)
    sklearn = pytest.importorskip("sklearn.metrics")
    if printed["violations_a"] not in (0, len(common)) or printed["violations_b"] not in (0, len(common)):
        assert printed["kappa"] == pytest.approx(
            sklearn.cohen_kappa_score([a[q][d] for q, d in common], [b[q][d] for q, d in common])
        )
    (tmp_path / "other.json.gz").write_bytes(gzip.compress(json.dumps({"format": "x"}).encode()))
    assert main([str(file_a), str(tmp_path / "other.json.gz")]) == 2
    assert "format leaderboard-judgments/1" in capsys.readouterr().err


# -- a hostile endpoint (issue 23): every failure is exit 2 naming the endpoint and the item, never a secret ---------

QUERY = "Which kings were not founders of a dynasty?"
ITEMS = [JudgeItem(f"q{i}", QUERY, f"d{i}", "Omri founded a dynasty.") for i in range(3)]


def _judge(endpoint, **limits):
    from leaderboard_judges.llm import LLMJudge

    return LLMJudge("stub-model", endpoint=endpoint, **({"max_retries": 0} | limits))


def test_an_error_echoing_the_key_is_redacted(judge_env):
    with openai_stub(STUB_WORDS, mode="echo_auth_500") as (endpoint, stub):
        with pytest.raises(BadInput) as info:
            _judge(endpoint, max_retries=1).judge(ITEMS[:1])
        assert len(stub.requests) == 2  # a 5xx is retried, then reported
    message = str(info.value)
    assert SECRET not in message and "Bearer ***" in message  # the stub really echoed it: redacted, not dropped
    assert endpoint in message and "HTTP 500" in message and "'q0'" in message and "'d0'" in message


def test_an_endpoint_that_never_answers_ends_at_the_deadline(judge_env):
    import time

    items = [JudgeItem(f"q{i}", "not x", f"d{i}", "x") for i in range(16)]  # more items than threads
    with openai_stub(STUB_WORDS, mode="hang") as (endpoint, _):
        started = time.monotonic()
        with pytest.raises(BadInput, match=r"deadline of 1\.5 s \(LEADERBOARD_JUDGE_DEADLINE\)|failed after 2") as info:
            _judge(endpoint, timeout=0.5, deadline=1.5, max_retries=1).judge(items)
        elapsed = time.monotonic() - started
    assert elapsed < 5, elapsed  # per-request timeout and the run's deadline, not 120 s x 3 retries x 8 threads
    assert endpoint in str(info.value)


def test_a_dead_endpoint_ends_the_run_within_the_idle_limit_whatever_the_other_limits(judge_env):
    """Issue 31: with the default timeout (60 s), retries (2) and deadline (3600 s), a run on an endpoint
    that never answers took over 240 s (each item: 3 x 60 s, items queued behind 8 threads). The silence
    limit (default 50 s; 1.5 s here) caps every attempt, and the first failure drops the queued items."""
    import time

    from leaderboard_judges.llm import LLMJudge

    assert LLMJudge("m", endpoint="http://127.0.0.1:9/v1").describe()["idle_s"] <= 50  # the default bound
    items = [JudgeItem(f"q{i}", "not x", f"d{i}", "x") for i in range(40)]
    with openai_stub(STUB_WORDS, mode="hang") as (endpoint, stub):
        judge = LLMJudge("stub-model", endpoint=endpoint, idle=1.5)
        assert (judge.timeout, judge.max_retries, judge.deadline) == (60.0, 2, 3600.0)
        started = time.monotonic()
        with pytest.raises(BadInput, match=r"answered nothing for 1\.5 s \(LEADERBOARD_JUDGE_IDLE\)") as info:
            judge.judge(items)
        elapsed = time.monotonic() - started
        asked = len(stub.requests)
    assert elapsed < 30, elapsed  # one silence, not one 60 s timeout per attempt
    assert asked <= 8 * 3  # the items queued behind the threads were never sent
    assert endpoint in str(info.value) and "labels received so far are kept" in str(info.value)


def test_a_slow_live_endpoint_is_not_silent(judge_env):
    """The silence restarts with every answer: an endpoint that answers keeps the run going past the limit."""
    from leaderboard_judges.llm import LLMJudge

    items = [JudgeItem(f"q{i}", QUERY, f"d{i}", "Omri founded a dynasty.") for i in range(12)]
    with openai_stub(STUB_WORDS, mode="slow") as (endpoint, stub):
        stub.delay = 0.3
        judge = LLMJudge("stub-model", endpoint=endpoint, idle=3.0, concurrency=1)
        labels = judge.judge(items)  # 12 answers one after another: 3.6 s in all, each 0.3 s after the last
    assert labels == [True] * 12


def test_limits_come_from_the_environment_and_are_recorded(judge_env, monkeypatch):
    from leaderboard_judges.llm import LLMJudge

    monkeypatch.setenv("LEADERBOARD_JUDGE_TIMEOUT", "7.5")
    monkeypatch.setenv("LEADERBOARD_JUDGE_DEADLINE", "90")
    monkeypatch.setenv("LEADERBOARD_JUDGE_RETRIES", "0")
    monkeypatch.setenv("LEADERBOARD_JUDGE_MAX_REPLY_BYTES", "4096")
    described = LLMJudge("m", endpoint="http://127.0.0.1:9/v1").describe()
    limits = ("timeout_s", "deadline_s", "max_retries", "max_reply_bytes")
    assert [described[name] for name in limits] == [7.5, 90.0, 0, 4096]
    monkeypatch.setenv("LEADERBOARD_JUDGE_TIMEOUT", "soon")
    with pytest.raises(BadInput, match="LEADERBOARD_JUDGE_TIMEOUT='soon': expected a positive number"):
        LLMJudge("m")


def test_a_huge_reply_is_refused_without_reading_it_whole(judge_env):
    import time

    with openai_stub(STUB_WORDS, mode="huge") as (endpoint, _):
        started = time.monotonic()
        with pytest.raises(BadInput, match=r"reply larger than LEADERBOARD_JUDGE_MAX_REPLY_BYTES=1048576") as info:
            _judge(endpoint).judge(ITEMS[:1])
        assert time.monotonic() - started < 10
    assert endpoint in str(info.value) and "'q0'" in str(info.value)


@pytest.mark.parametrize(
    ("mode", "why"),
    [
        ("garbage", "not JSON"),
        ("html", "not JSON \\(starts with '<html>"),
        ("wrong_shape", "field 'choices' must be a non-empty list"),
    ],
)
def test_a_malformed_reply_is_bad_input_naming_endpoint_and_item(judge_env, mode, why):
    with (
        openai_stub(STUB_WORDS, mode=mode) as (endpoint, _),
        pytest.raises(BadInput, match=f"malformed reply \\({why}") as info,
    ):
        _judge(endpoint).judge(ITEMS[:1])
    assert f"the endpoint {endpoint}" in str(info.value) and "query 'q0', document 'd0'" in str(info.value)


def test_a_malformed_reply_through_the_cli_exits_2(comlq_fixture, tmp_path, judge_env):  # noqa: F811
    from conftest import run_cli

    with openai_stub(STUB_WORDS, mode="html") as (endpoint, _):
        ran = run_cli(
            "run", "-m", "bm25", "-t", "comlq", "-o", str(tmp_path / "out"),
            "--data-dir", f"comlq={comlq_fixture}", "--task-option", "judge=llm:stub-model",
            env={"LEADERBOARD_JUDGE_ENDPOINT": endpoint, "LEADERBOARD_JUDGE_RETRIES": "0",
                 "OPENAI_API_KEY": SECRET, "LEADERBOARD_JUDGMENTS_DIR": str(judge_env)},
        )  # fmt: skip
    assert ran.returncode == 2, ran.stderr
    assert "malformed reply" in ran.stderr and endpoint in ran.stderr and "Traceback" not in ran.stderr
    assert SECRET not in ran.stderr + ran.stdout
    assert not list((tmp_path / "out").rglob("*.json"))  # no result written half-way


def test_unlabelled_answers_are_asked_again_on_the_next_run(tmp_path, judge_env):
    from leaderboard.toolkit import JudgmentStore
    from leaderboard.toolkit import read_judgments as read_payload

    with openai_stub(STUB_WORDS, mode="maybe") as (endpoint, stub):
        flaky = JudgmentStore(_judge(endpoint), "sha256:" + "0" * 64, tmp_path / "j")
        first = flaky.lookup(ITEMS)
        assert first.labels == {f"q{i}": {f"d{i}": None} for i in range(3)} and first.computed == 3
        assert read_payload(flaky.path)["labels"]["q0"] == {"d0": None}  # asked, recorded, not final
        stub.mode = "ok"  # the endpoint recovers
        second = JudgmentStore(_judge(endpoint), "sha256:" + "0" * 64, tmp_path / "j").lookup(ITEMS)
        assert len(stub.requests) == 6 and second.computed == 3 and second.cached == 0
        assert second.labels == {f"q{i}": {f"d{i}": True} for i in range(3)}  # "dynasty": the stub says yes
        third = JudgmentStore(_judge(endpoint), "sha256:" + "0" * 64, tmp_path / "j").lookup(ITEMS)
        assert len(stub.requests) == 6 and third.cached == 3  # labels are final
    # a late "no label" from another run never replaces a label already stored
    flaky.write({"q0": {"d0": None}})
    assert read_payload(flaky.path)["labels"]["q0"] == {"d0": True}
