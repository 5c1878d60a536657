"""The queue a stranger can trust, without running an evaluation: what a request may publish, forged leases,
paths in the requests dataset that are not request files, secrets cut out of whatever a run publishes, and
isolation "process" refusing to start while a credential is within a plugin's reach. Against the stand-in
hub where the hub is involved; the end-to-end hostile plugins are in test_queue_worker.py."""

import json
import os
import subprocess
import sys
from datetime import timedelta

import pytest
from conftest import HUB_TOKEN, run_cli
from hub_server import HubServer
from queue_fixtures import BENCHMARK, REQUESTS, RESULTS, hub_env

from leaderboard.errors import BadInput
from leaderboard.hub.store import Upload
from leaderboard.queue.claim import LeaseSettings, claim, plan_claim
from leaderboard.queue.dataset import RequestsDataset, Snapshot
from leaderboard.queue.requests import EvalRequest, Event, Lease, new_id, now
from leaderboard.queue.results_check import RequestFailed, only_this_model, replaced_results, requested_model
from leaderboard.queue.sandbox import Limits, Sandbox, check_process_isolation
from leaderboard.security.redaction import Redactor, secret_variables

pytestmark = pytest.mark.usefixtures("hub_online")


@pytest.fixture
def hub():
    with HubServer() as server:
        RequestsDataset(REQUESTS, server.endpoint, HUB_TOKEN).ensure_exists()
        yield server


def request(model="m", status="pending", minutes_ago=10, **changes) -> EvalRequest:
    at = now() - timedelta(minutes=minutes_ago)
    data = dict(
        id=new_id(model, at), plugin="p==1.0", model=model, benchmarks=[BENCHMARK], contact="me@example.org",
        submitted_at=at, history=[Event(at=at, status="pending", by="submit")],
    )  # fmt: skip
    return EvalRequest.model_validate(data | {"status": status} | changes)


def put(hub, files: dict[str, bytes]) -> None:
    store = RequestsDataset(REQUESTS, hub.endpoint, HUB_TOKEN).store
    store.commit(files, "test", store.head())


# -- 1. a request publishes exactly what it asked for ------------------------------------------------------------
def test_results_of_another_model_than_the_requested_one_fail_the_request_naming_both():
    impostor = request("impostor")
    with pytest.raises(RequestFailed, match="results are of model 'bm25' at revision '9.9.9', but the request is for"):
        requested_model(impostor, "bm25", "9.9.9")
    requested_model(request("st:org/name"), "org/name", "abc")  # a prefix plugin's model carries the name after it
    requested_model(request("m"), "m", "anything")  # no revision asked for: any
    with pytest.raises(RequestFailed, match="request is for revision '2.0'"):
        requested_model(request("m", revision="2.0"), "m", "1.0")


def test_only_the_requested_models_results_its_card_and_the_benchmarks_file_are_published():
    results = ["m/1.0/negconstraint.json"]
    ours = [Upload("results/m/1.0/negconstraint.json", b"{}"), Upload("results/m/model_card.json", b"{}"),
            Upload("benchmarks.json", b"[]")]  # fmt: skip
    only_this_model(ours, results)
    with pytest.raises(RequestFailed, match="files of no requested result: results/bm25/model_card.json"):
        only_this_model([*ours, Upload("results/bm25/model_card.json", b"{}")], results)


def card(**fields) -> bytes:
    return json.dumps({"name": "m", "plugin": "p", "revision": "1.0"} | fields).encode()


@pytest.mark.parametrize(
    ("theirs", "replaced"),
    [
        (card(revision="0.9"), False),  # the same model from the same plugin: its newer run updates the card
        (card(name="bm25"), True),  # another model's card
        (card(plugin="bm25"), True),  # the same name from another plugin
        (b"not json", True),
    ],
)
def test_a_model_card_follows_the_replace_rule_of_results(theirs, replaced):
    from leaderboard.hub.store import git_blob_sha1

    path = "results/m/model_card.json"
    remote = {path: git_blob_sha1(theirs)}
    found = replaced_results([Upload(path, card())], remote, lambda p: theirs)
    assert found == ([path] if replaced else [])
    assert replaced_results([Upload(path, card())], remote) == [path]  # unread: never replaced


# -- 3. the queue survives its own dataset ------------------------------------------------------------------------
def test_a_path_that_is_not_a_request_file_is_skipped_and_named_and_the_queue_keeps_working(hub, tmp_path):
    good = request(status="cancelled")  # nothing for a worker to run
    evil = {"requests/../escape.json": good.to_bytes(), "requests/sub/x.json": b"{}", "requests/odd.json": b"{}"}
    put(hub, {good.path: good.to_bytes()})
    repo = hub.state.repos[REQUESTS]
    with hub.state.lock:  # huggingface_hub refuses to commit such a path; a hostile hub or git push does not
        repo.files = {**repo.files, **evil}
    snapshot = RequestsDataset(REQUESTS, hub.endpoint, HUB_TOKEN).snapshot()
    assert list(snapshot.requests) == [good.id]
    assert {path for path, _ in snapshot.unreadable} == set(evil)
    assert "requests/../escape.json" not in hub.state.downloads  # skipped unread

    env = hub_env(hub.endpoint)
    listed = run_cli("queue", "--requests", REQUESTS, env=env)
    assert listed.returncode == 0, listed.stderr
    assert "skipped requests/../escape.json: not a request file: expected requests/<request id>.json" in listed.stderr
    assert good.id in listed.stdout
    worker = ("worker", "--requests", REQUESTS, "--results", RESULTS, "--once", "--work-dir", str(tmp_path / "work"),
              "--isolation", "process", "--token-stdin")  # fmt: skip
    without = {k: v for k, v in env.items() if k != "HF_TOKEN"} | {"HF_HOME": str(tmp_path / "hf")}
    worked = subprocess.run([sys.executable, "-m", "leaderboard", *worker], env=without, input=HUB_TOKEN + "\n",
                            capture_output=True, text=True, timeout=300)  # fmt: skip
    assert worked.returncode == 0 and "no pending request" in worked.stderr, worked.stderr


def _lease(claimed, beat):
    return Lease(worker="forger", attempt=1, claimed_at=claimed, heartbeat=beat)


@pytest.mark.parametrize(
    ("claimed", "beat", "why"),
    [
        (0, 2099, "the lease of forger its heartbeat is dated 2099-01-01 00:00:00 UTC, in the future"),
        (2099, 2099, "the lease of forger its claim is dated 2099-01-01 00:00:00 UTC, in the future"),
        (-7200, -3600 * 3, "the lease of forger its heartbeat"),  # before its claim
        (-7200, -3600, "the lease of forger expired"),
    ],
)
def test_a_forged_or_old_lease_counts_as_expired_and_the_history_says_why(claimed, beat, why):
    at = now()

    def when(value):
        return (
            at.replace(year=2099, month=1, day=1, hour=0, minute=0, second=0)
            if value == 2099
            else (at + timedelta(seconds=value))
        )

    forged = request("r", "running", attempts=1, lease=_lease(when(claimed), when(beat)))
    claimed_request, _ = plan_claim(Snapshot("h", {forged.id: forged}), "w2", LeaseSettings(seconds=60), at)
    assert claimed_request is not None and claimed_request.attempts == 2
    assert why in claimed_request.history[-1].note


def test_the_2099_lease_on_the_hub_is_retried_by_the_next_claim(hub):
    at = now()
    forged = request("r", "running", attempts=1, lease=_lease(at, at.replace(year=2099)))
    put(hub, {forged.path: forged.to_bytes()})
    claimed = claim(RequestsDataset(REQUESTS, hub.endpoint, HUB_TOKEN), "w2", LeaseSettings(seconds=60))
    assert claimed.id == forged.id and claimed.lease.worker == "w2" and claimed.attempts == 2
    assert "in the future" in claimed.history[-1].note


# -- 2. no secret within a plugin's reach; none published -----------------------------------------------------------
TOKENS = {
    "hub": "hf_" + "A1b2C3d4" * 4,
    "github": "ghp_" + "x" * 36,
    "github fine-grained": "github_pat_" + "11ABCDEFG0" * 5,
    "aws": "AKIA" + "ABCDEFGHIJKLMNOP",
    "openai": "sk-proj-" + "q" * 40,
    "slack": "xoxb-123456789012-abcdefghijkl",
    "bearer": "Authorization: Bearer abc.def-ghi",
    "private key": "-----BEGIN OPENSSH PRIVATE KEY-----",
}


@pytest.mark.parametrize("kind", sorted(TOKENS))
def test_common_token_formats_are_redacted(kind):
    cleaned = Redactor(environ={})(f"the plugin printed {TOKENS[kind]} here")
    assert TOKENS[kind].split()[-1] not in cleaned and "***" in cleaned and cleaned.startswith("the plugin printed")


def test_every_secret_named_variables_value_is_redacted_and_ordinary_text_is_kept():
    environ = {"MY_API_KEY": "plain-value-0123", "DB_PASSWORD": "hunter2-long", "SHORT_TOKEN": "1", "HOME": "/root",
               "AWS_CA_BUNDLE": "/etc/ssl/certs/ca.pem"}  # fmt: skip
    assert set(secret_variables(environ)) == {"MY_API_KEY", "DB_PASSWORD", "SHORT_TOKEN"}
    redact = Redactor("the-hub-token-123", environ=environ)
    text = "plain-value-0123 hunter2-long the-hub-token-123 /etc/ssl/certs/ca.pem nDCG@10 0.4321 installed x-1.0"
    assert redact(text) == "*** *** *** /etc/ssl/certs/ca.pem nDCG@10 0.4321 installed x-1.0"


@pytest.mark.parametrize("isolation", ["bwrap", "process"])
def test_a_run_gets_only_the_allowlisted_environment(tmp_path, monkeypatch, isolation):
    from leaderboard.queue.sandbox import bwrap_available

    if isolation == "bwrap" and not bwrap_available():
        pytest.skip("bubblewrap cannot run here")
    monkeypatch.setenv("WORKER_OWN_SETTING", "not for plugins")
    monkeypatch.setenv("HF_TOKEN", HUB_TOKEN)
    sandbox = Sandbox(tmp_path / "box", isolation, pass_env=("WORKER_PASSED",))
    monkeypatch.setenv("WORKER_PASSED", "named")
    show = [sys.executable, "-c", "import json, os; print(json.dumps(dict(os.environ)))"]
    ran = sandbox.run(show, Limits(120))
    assert ran.ok, ran.log
    seen = json.loads(ran.log.splitlines()[-1])
    assert "WORKER_OWN_SETTING" not in seen and "HF_TOKEN" not in seen and seen["WORKER_PASSED"] == "named"
    assert HUB_TOKEN not in ran.log
    expected = set(Sandbox(tmp_path / "box", isolation, pass_env=("WORKER_PASSED",)).environment())
    with pytest.raises(BadInput, match="--pass-env HF_TOKEN: looks like a secret"):
        Sandbox(tmp_path / "box", isolation, pass_env=("HF_TOKEN",))
    assert set(seen) - expected <= {"PWD", "SHLVL", "_", "LC_CTYPE"}  # what a shell or bwrap adds itself


def test_process_isolation_refuses_to_start_while_a_credential_is_within_reach(monkeypatch, tmp_path):
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_TOKEN_PATH", str(tmp_path / "token"))
    monkeypatch.setattr(huggingface_hub.constants, "HF_STORED_TOKENS_PATH", str(tmp_path / "stored_tokens"))
    for name in secret_variables():
        monkeypatch.delenv(name)
    check_process_isolation(network=True)  # nothing within reach: it starts
    with pytest.raises(BadInput, match="cannot be enforced without bubblewrap"):
        check_process_isolation(network=False)
    (tmp_path / "token").write_text(HUB_TOKEN)
    with pytest.raises(BadInput, match=f"token file {tmp_path / 'token'} \\(exists\\)") as caught:
        check_process_isolation(network=True)
    assert "Use --isolation bwrap" in str(caught.value) and HUB_TOKEN not in str(caught.value)
    (tmp_path / "token").unlink()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-" + "q" * 40)
    with pytest.raises(BadInput, match=r"its environment variable OPENAI_API_KEY \(secret-named\)"):
        check_process_isolation(network=True)


def test_cli_worker_in_process_isolation_refuses_hf_token_and_no_network_with_exit_2(tmp_path):
    env = hub_env("http://127.0.0.1:9") | {"HF_HOME": str(tmp_path / "hf")}
    args = ("worker", "--requests", REQUESTS, "--results", RESULTS, "--isolation", "process", "--once",
            "--work-dir", str(tmp_path / "work"))  # fmt: skip
    ran = run_cli(*args, env=env)
    assert ran.returncode == 2, ran.stderr
    said = " ".join(ran.stderr.split())
    assert "refusing to start because of its environment variable HF_TOKEN (secret-named)" in said
    assert "Traceback" not in ran.stderr
    assert HUB_TOKEN not in ran.stdout + ran.stderr
    without = {k: v for k, v in env.items() if k != "HF_TOKEN"}
    ran = subprocess.run([sys.executable, "-m", "leaderboard", *args, "--token-stdin", "--no-network"], env=without,
                         input=HUB_TOKEN + "\n", capture_output=True, text=True, timeout=300)  # fmt: skip
    assert ran.returncode == 2 and "--no-network cannot be enforced without bubblewrap" in ran.stderr, ran.stderr
    assert not os.path.exists(tmp_path / "work")


# -- 4. load is never blamed on the submitter ------------------------------------------------------------------------
GATED_IMPORT = """
import os, time
while os.path.exists({gate!r}):  # the test holds the import here: slow for as long as it likes
    time.sleep(0.05)
from leaderboard import hookimpl


@hookimpl
def register_models(register):
    from leaderboard_plugins.bm25 import BM25

    register("slow-bm25", lambda request: BM25(), description="bm25 behind a slow import")
"""


def test_a_slow_plugin_load_is_named_with_its_limit_which_an_option_raises(tmp_path):
    from conftest import make_plugin_dist

    gate = tmp_path / "gate"
    gate.write_text("the import waits while this exists")
    site = make_plugin_dist(tmp_path / "site", "slow-plugin", "slow_plugin", GATED_IMPORT.format(gate=str(gate)),
                            {"slow": "slow_plugin"})  # fmt: skip
    env = {"PYTHONPATH": str(site), "LEADERBOARD_PLUGINS": "slow,demo"}
    ran = run_cli("--plugin-timeout", "1", "run", "-m", "slow-bm25", "-t", "demo", "-o", str(tmp_path / "out"), env=env)
    assert ran.returncode == 2, ran.stderr
    assert "plugin 'slow' did not finish loading within 1 s (raise the limit with LEADERBOARD_PLUGIN_TIMEOUT" in (
        ran.stderr
    )
    assert "so its models are unknown. Unknown model 'slow-bm25'" in ran.stderr
    listed = run_cli("plugins", "--json", env=env | {"LEADERBOARD_PLUGIN_TIMEOUT": "0.5"})
    slow = next(p for p in json.loads(listed.stdout) if p["name"] == "slow")
    assert slow["errors"] == [
        "plugin 'slow' did not finish loading within 0.5 s (raise the limit with LEADERBOARD_PLUGIN_TIMEOUT=SECONDS "
        "or `leaderboard --plugin-timeout SECONDS`); skipped"
    ]
    gate.unlink()  # the import finishes now: within any limit, the model is known
    ran = run_cli("--plugin-timeout", "600", "run", "-m", "slow-bm25", "-t", "demo", "-o", str(tmp_path / "out"),
                  env=env)  # fmt: skip
    assert ran.returncode == 0, ran.stderr


def test_a_worker_raises_the_plugin_load_limit_of_its_runs(monkeypatch):
    from leaderboard.queue.worker import WORKER_PLUGIN_TIMEOUT, WorkerSettings

    monkeypatch.delenv("LEADERBOARD_PLUGIN_TIMEOUT", raising=False)
    assert WorkerSettings(REQUESTS, RESULTS).plugin_timeout == WORKER_PLUGIN_TIMEOUT > 30
    monkeypatch.setenv("LEADERBOARD_PLUGIN_TIMEOUT", "5000")
    assert WorkerSettings(REQUESTS, RESULTS).plugin_timeout == 5000


def _pending_after(attempts: int) -> EvalRequest:
    """A request an earlier attempt gave back (pending, ``attempts`` made), whose plugin does not exist."""
    return request("m", attempts=attempts, plugin="no-such-plugin==1.0")


def _process_worker(hub, tmp_path, monkeypatch, **changes):
    import huggingface_hub.constants

    from leaderboard.queue.worker import Worker, WorkerSettings

    monkeypatch.setattr(huggingface_hub.constants, "HF_TOKEN_PATH", str(tmp_path / "no-token"))
    monkeypatch.setattr(huggingface_hub.constants, "HF_STORED_TOKENS_PATH", str(tmp_path / "no-stored-tokens"))
    for name in secret_variables():
        monkeypatch.delenv(name)
    settings = WorkerSettings(REQUESTS, RESULTS, hub.endpoint, HUB_TOKEN, worker_id="busy", isolation="process",
                              work_dir=tmp_path / "work", pip_args=("--no-index",), **changes)  # fmt: skip
    return Worker(settings, lambda line: None)


def fail_results_reads(hub):
    """The stand-in hub answers HTTP 500 to every read of the results dataset (a hub error, not the plugin's)."""
    base = hub.server.RequestHandlerClass

    class Failing(base):
        def _get(self, head_only):
            if f"/{RESULTS}" in self.path:
                return self._send(500, {"error": "the hub is having a bad day"}, head_only=head_only)
            return super()._get(head_only)

    hub.server.RequestHandlerClass = Failing


def test_a_hub_error_is_the_workers_failure_retried_until_the_last_attempt(hub, tmp_path, monkeypatch):
    from leaderboard.hub.store import HubStore

    HubStore(RESULTS, hub.endpoint, HUB_TOKEN).create()
    earlier = _pending_after(1)
    put(hub, {earlier.path: earlier.to_bytes()})
    fail_results_reads(hub)
    runner = _process_worker(hub, tmp_path, monkeypatch)
    (retried,) = runner.run(once=True)
    assert retried.status == "pending" and retried.attempts == 2 and retried.lease is None
    note = retried.history[-1].note
    assert note.startswith("the worker's own failure (not the plugin's): Hub error") or note.startswith(
        "the worker's own failure (not the plugin's): Cannot read"
    ), note
    assert "HTTP 500" in note and note.endswith("to be retried (attempt 2 of 3)") and HUB_TOKEN not in note
    (final,) = runner.run(once=True)  # the last attempt: failed, and said to be the workers'
    assert final.status == "failed" and final.attempts == 3
    assert final.failure.endswith("no worker got past its own failures in 3 attempts")
    assert final.failure.startswith("the worker's own failure (not the plugin's)")


def test_an_install_past_its_time_limit_is_the_workers_failure_and_retried(hub, tmp_path, monkeypatch):
    from leaderboard.hub.store import HubStore

    HubStore(RESULTS, hub.endpoint, HUB_TOKEN).create()
    fresh = request("m", plugin="no-such-plugin==1.0")
    put(hub, {fresh.path: fresh.to_bytes()})
    # 1 ms: pip cannot even start in that time, on any machine
    (retried,) = _process_worker(hub, tmp_path, monkeypatch, install_time_limit=0.001).run(once=True)
    assert retried.status == "pending" and retried.attempts == 1, retried.failure
    assert retried.history[-1].note == (
        "the worker's own failure (not the plugin's): installing no-such-plugin==1.0 took too long on this worker: "
        "time limit exceeded: stopped after 0.001 s; to be retried (attempt 1 of 3)"
    )


@pytest.mark.parametrize("network", [True, False])
def test_no_network_under_bubblewrap_blocks_egress_to_a_local_listener(tmp_path, network):
    import socket

    from leaderboard.queue.sandbox import bwrap_available

    if not bwrap_available():
        pytest.skip("bubblewrap cannot run here")
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        call = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=10); print('sent')"
        ran = Sandbox(tmp_path / "box", "bwrap", network=network).run([sys.executable, "-c", call], Limits(120))
        if network:
            assert ran.ok and "sent" in ran.log, ran.log
            server.settimeout(10)
            conn, _ = server.accept()
            conn.close()
        else:  # its own network namespace: 127.0.0.1 there is not the worker's
            assert not ran.ok and "sent" not in ran.log, ran.log
            assert "Connection refused" in ran.log or "Network is unreachable" in ran.log, ran.log
            server.setblocking(False)
            with pytest.raises(BlockingIOError):  # the run is over: a connection would be waiting here
                server.accept()


def test_process_isolation_refuses_when_the_process_that_started_the_worker_holds_a_secret(tmp_path):
    """`env -u MY_API_KEY leaderboard worker` from a shell that exported it: the shell's environ is in reach."""
    env = {k: v for k, v in hub_env("http://127.0.0.1:9").items() if k != "HF_TOKEN"}
    env |= {"HF_HOME": str(tmp_path / "hf"), "MY_API_KEY": "a-secret-in-the-shell-0123"}
    worker = f"{sys.executable} -m leaderboard worker --requests {REQUESTS} --results {RESULTS} --once "
    worker += f"--isolation process --token-stdin --work-dir {tmp_path / 'work'}"
    ran = subprocess.run(["sh", "-c", f"env -u MY_API_KEY {worker}; echo exit=$?"], env=env, input=HUB_TOKEN + "\n",
                         capture_output=True, text=True, timeout=300)  # fmt: skip
    assert "exit=2" in ran.stdout, ran.stdout + ran.stderr
    assert "which it descends from, has the variable MY_API_KEY (secret-named)" in " ".join(ran.stderr.split())
    assert "a-secret-in-the-shell-0123" not in ran.stderr
