"""The evaluation queue without running an evaluation: the request record, plugin specs, submit's checks,
the atomic claim and the lease, against the local stand-in hub (tests/hub_server.py)."""

import json
import subprocess
import sys
import threading
from datetime import timedelta
from importlib import resources

import pytest
from conftest import HUB_TOKEN, run_cli
from hub_server import HubServer
from queue_fixtures import BENCHMARK, REQUESTS, WORD_OVERLAP, build_wheel, hub_env

from leaderboard.errors import BadInput
from leaderboard.queue import plugin_spec
from leaderboard.queue.claim import LeaseLost, LeaseSettings, claim, heartbeat, plan_claim, settle
from leaderboard.queue.dataset import RequestsDataset, Snapshot
from leaderboard.queue.requests import EvalRequest, Event, Lease, new_id, now, read_request, schema_text
from leaderboard.queue.submit import Submission, submit

pytestmark = pytest.mark.usefixtures("hub_online")
COMMIT = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture(scope="module")
def wheels(tmp_path_factory):
    """A local package index (a --find-links folder) holding leaderboard-word-overlap 0.3.0."""
    root = tmp_path_factory.mktemp("index")
    build_wheel(root / "src", root / "wheels", "leaderboard-word-overlap", "leaderboard_word_overlap", WORD_OVERLAP,
                "0.3.0")  # fmt: skip
    return root / "wheels"


@pytest.fixture
def hub():
    with HubServer() as server:
        RequestsDataset(REQUESTS, server.endpoint, HUB_TOKEN).ensure_exists()
        yield server


def dataset(hub) -> RequestsDataset:
    return RequestsDataset(REQUESTS, hub.endpoint, HUB_TOKEN)


def request(model="m", status="pending", minutes_ago=10, **changes) -> EvalRequest:
    at = now() - timedelta(minutes=minutes_ago)
    data = dict(
        id=new_id(model, at), plugin="p==1.0", model=model, benchmarks=[BENCHMARK], contact="me@example.org",
        submitted_at=at, history=[Event(at=at, status="pending", by="submit")],
    )  # fmt: skip
    return EvalRequest.model_validate(data | {"status": status} | changes)


def put(hub, *requests: EvalRequest) -> None:
    store = dataset(hub).store
    store.commit({r.path: r.to_bytes() for r in requests}, "test", store.head())


# -- the record ---------------------------------------------------------------------------------------------
def test_checked_in_request_schema_equals_the_generated_one():
    shipped = resources.files("leaderboard.records").joinpath("schema", "eval-request-1.json").read_text("utf-8")
    assert shipped == schema_text(), "regenerate it with `python -m leaderboard.queue.requests`"


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"{not json", "not valid JSON"),
        (b"[]", "not a request"),
        (b"\xff\xfe", "utf-8"),
        (b" " * 300_000, "more than a request's"),
        (json.dumps({"schema_version": "1", "id": "x"}).encode(), "id: String should match pattern"),
    ],
)
def test_a_file_that_is_not_a_request_is_refused_naming_it(data, expected):
    with pytest.raises(BadInput, match="requests/x.json") as caught:
        read_request(data, "requests/x.json")
    assert expected.lower() in str(caught.value).lower()


def test_a_running_request_without_a_lease_is_not_a_request():
    with pytest.raises(ValueError, match="a running request has a lease"):
        request(status="running")


def test_a_hostile_file_in_the_requests_dataset_is_skipped_and_named(hub):
    good = request()
    store = dataset(hub).store
    broken, other = request("broken").path, request("x").path
    files = {good.path: good.to_bytes(), broken: b"{", other: request("o").to_bytes()}
    store.commit(files, "test", store.head())
    snapshot = dataset(hub).snapshot()
    assert list(snapshot.requests) == [good.id]
    assert {path for path, _ in snapshot.unreadable} == {broken, other}
    assert "holds request" in dict(snapshot.unreadable)[other]


# -- plugin specs ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("spec", "requirement"),
    [
        ("my-plugin==1.2", "my-plugin==1.2"),
        ("My_Plugin[gpu] == 1.2.0", "My_Plugin[gpu]==1.2.0"),
        (f"git+https://example.org/me/plugin.git@{COMMIT.upper()}", f"git+https://example.org/me/plugin.git@{COMMIT}"),
        (f"mine @ git+https://example.org/me/plugin@{COMMIT}", f"mine @ git+https://example.org/me/plugin@{COMMIT}"),
    ],
)
def test_pinned_specs_parse(spec, requirement):
    assert plugin_spec.parse(spec).requirement == requirement


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        ("my-plugin", "does not pin one version"),
        ("my-plugin>=1.0", "does not pin one version"),
        ("my-plugin==1.*", "does not pin one version"),
        ("my-plugin==1.0; python_version>'3'", "markers"),
        ("git+https://example.org/me/plugin@main", "not pinned to a full 40-hex commit"),
        (f"git+https://example.org/me/plugin@{COMMIT[:12]}", "not pinned to a full 40-hex commit"),
        (f"git+ssh://git@example.org/me/plugin@{COMMIT}", "only git+https:// URLs"),
        (f"git+ext::sh -c touch% /tmp/pwned@{COMMIT}", "only git+https:// URLs"),
        ("mine @ https://example.org/mine.whl", "must be a git URL"),
        ("--index-url=http://evil==1.0", "does not parse"),
        ("", "empty"),
    ],
)
def test_unpinned_or_unsafe_specs_are_refused_saying_what_is_expected(spec, why):
    with pytest.raises(BadInput, match="expected package==version") as caught:
        plugin_spec.parse(spec)
    assert why in str(caught.value)


def test_a_release_is_checked_on_the_configured_index(wheels):
    index = plugin_spec.index_args(None, (str(wheels),))
    plugin_spec.check_exists(plugin_spec.parse("leaderboard-word-overlap==0.3.0"), index)
    with pytest.raises(BadInput, match=r"has no version 0\.4\.0 on the package index .*newest: 0\.3\.0"):
        plugin_spec.check_exists(plugin_spec.parse("leaderboard-word-overlap==0.4.0"), index)
    with pytest.raises(BadInput, match="there is no package 'no-such-plugin' on the package index"):
        plugin_spec.check_exists(plugin_spec.parse("no-such-plugin==1.0"), index)


def test_a_commit_is_checked_in_its_repository(tmp_path, monkeypatch):
    monkeypatch.setenv("GIT_ALLOW_PROTOCOL", "file")
    repo = tmp_path / "plugin"
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for name in ("first", "second"):  # the first commit is no branch's tip: still found
        (repo / name).write_text(name)
        subprocess.run([*git, "add", name], check=True)
        subprocess.run([*git, "commit", "-qm", name], check=True)
    first = subprocess.run([*git, "rev-list", "--max-parents=0", "HEAD"], capture_output=True, text=True).stdout.strip()
    plugin_spec.check_exists(plugin_spec.parse(f"git+file://{repo}@{first}"))
    with pytest.raises(BadInput, match=f"commit {COMMIT} is not in file://{repo}"):
        plugin_spec.check_exists(plugin_spec.parse(f"git+file://{repo}@{COMMIT}"))
    with pytest.raises(BadInput, match="could not reach"):
        plugin_spec.check_exists(plugin_spec.parse(f"git+file://{tmp_path}/missing@{COMMIT}"))


# -- submitting -------------------------------------------------------------------------------------------------
def test_submit_checks_every_field_before_writing_anything(hub):
    before = dataset(hub).store.head()
    bad = Submission("TODO: plugin==1.0", "TODO", ("NoSuchBenchmark",), "?", revision="TODO: fill")
    with pytest.raises(BadInput) as caught:
        submit(dataset(hub), bad, known_benchmarks=[BENCHMARK])
    message = str(caught.value)
    unknown = "benchmarks: no public benchmark named 'NoSuchBenchmark' (public: NegConstraint)"
    for field in ("model:", "revision", "contact:", unknown):
        assert field in message
    assert dataset(hub).store.head() == before


def test_submit_refuses_a_duplicate_and_too_many_open_requests_from_one_contact(hub, wheels):
    index = tuple(plugin_spec.index_args(None, (str(wheels),)))
    spec = "leaderboard-word-overlap==0.3.0"
    first = submit(dataset(hub), Submission(spec, "word-overlap", (BENCHMARK,), "Me@Example.org"), pip_index_args=index)
    assert first.status == "pending" and first.history[0].note == f"submitted: {spec}"
    head = dataset(hub).store.head()
    with pytest.raises(BadInput, match=f"word-overlap is already pending on NegConstraint \\(request {first.id}\\)"):
        submit(dataset(hub), Submission(spec, "word-overlap", (BENCHMARK,), "other@example.org"), pip_index_args=index)
    with pytest.raises(BadInput, match=r"me@example.org already has 1 request\(s\) pending or running \(at most 1\)"):
        submit(dataset(hub), Submission(spec, "other-model", (BENCHMARK,), "me@example.org"), max_open=1,
               pip_index_args=index)  # fmt: skip
    assert dataset(hub).store.head() == head
    # the same model on another benchmark is a new request
    second = submit(dataset(hub), Submission(spec, "word-overlap", ("ComLQ",), "me@example.org"), pip_index_args=index)
    assert set(dataset(hub).snapshot().requests) == {first.id, second.id}


def test_cli_submit_refuses_a_package_that_does_not_exist_and_writes_nothing(hub, wheels):
    head = dataset(hub).store.head()
    ran = run_cli(
        "submit", "--plugin", "no-such-plugin==1.0", "--model", "m", "--benchmark", BENCHMARK,
        "--contact", "me@example.org", "--requests", REQUESTS, "--find-links", str(wheels),
        env=hub_env(hub.endpoint),
    )  # fmt: skip
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert "there is no package 'no-such-plugin' on the package index" in ran.stderr
    assert "Traceback" not in ran.stderr and HUB_TOKEN not in ran.stdout + ran.stderr
    assert dataset(hub).store.head() == head


def test_cli_submit_prints_the_request_and_queue_lists_it(hub, wheels):
    ran = run_cli(
        "submit", "--plugin", "leaderboard-word-overlap==0.3.0", "--model", "word-overlap", "--benchmark", BENCHMARK,
        "--contact", "me@example.org", "--requests", REQUESTS, "--find-links", str(wheels),
        env=hub_env(hub.endpoint),
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    (request_id,) = dataset(hub).snapshot().requests
    assert (
        f"Submitted request {request_id}: word-overlap (leaderboard-word-overlap==0.3.0) on NegConstraint" in ran.stdout
    )
    listed = run_cli("queue", "--requests", REQUESTS, "--format", "json", env=hub_env(hub.endpoint))
    (row,) = json.loads(listed.stdout)
    assert row["id"] == request_id and row["status"] == "pending" and row["time"].startswith("waiting for")


def test_cli_submit_offers_and_accepts_public_benchmarks_only(hub, wheels):
    """demo and multiconir-demo are installed but not public: never requested, never listed as a choice."""
    from leaderboard.cli.serve import registered_benchmarks

    installed = {b.name: b.public for b in registered_benchmarks()}
    hidden = sorted(name for name, public in installed.items() if not public)
    assert {"demo", "multiconir-demo"} <= set(hidden)
    head = dataset(hub).store.head()
    ran = run_cli(
        "submit", "--plugin", "leaderboard-word-overlap==0.3.0", "--model", "word-overlap", "--benchmark", "demo",
        "--contact", "me@example.org", "--requests", REQUESTS, "--find-links", str(wheels),
        env=hub_env(hub.endpoint),
    )  # fmt: skip
    assert ran.returncode == 2, ran.stdout + ran.stderr
    public = ", ".join(sorted(name for name, is_public in installed.items() if is_public))
    assert f"benchmarks: no public benchmark named 'demo' (public: {public})" in " ".join(ran.stderr.split())
    for name in hidden:
        assert f"{name}," not in ran.stderr and f"{name})" not in ran.stderr
    assert dataset(hub).store.head() == head


def test_a_worker_refuses_a_request_for_a_benchmark_that_is_not_public(hub, tmp_path):
    """A request file written by hand, past submit's checks: failed before anything is installed or run."""
    from leaderboard.queue.worker import Worker, WorkerSettings

    put(hub, request(benchmarks=["demo"]))
    lines = []
    settings = WorkerSettings(REQUESTS, "lb/results", hub.endpoint, HUB_TOKEN, isolation="process",
                              work_dir=tmp_path)  # fmt: skip
    (final,) = Worker(settings, lines.append).run(once=True)
    assert final.status == "failed" and final.failure.startswith("no public benchmark named demo on this worker")
    assert "multiconir-demo" not in final.failure and not [line for line in lines if "installing" in line]


def test_submit_to_a_dataset_that_does_not_exist_says_so(wheels):
    with HubServer() as hub:
        ran = run_cli(
            "submit", "--plugin", "leaderboard-word-overlap==0.3.0", "--model", "m", "--benchmark", BENCHMARK,
            "--contact", "me@example.org", "--requests", "lb/missing", "--find-links", str(wheels),
            env=hub_env(hub.endpoint),
        )  # fmt: skip
    assert ran.returncode == 2, ran.stderr
    assert f"--requests lb/missing: no such dataset at {hub.endpoint}" in ran.stderr


def test_bad_requests_option_names_the_option():
    ran = run_cli("queue", "--requests", "not a repo")
    assert ran.returncode == 2 and "--requests 'not a repo': not a valid hub repository name" in ran.stderr, ran.stderr


# -- the claim and the lease -----------------------------------------------------------------------------------
def test_the_oldest_pending_request_is_claimed_and_a_live_lease_is_left_alone():
    settings = LeaseSettings(seconds=60, max_attempts=2)
    at = now()
    old, young = request("old", minutes_ago=30), request("young", minutes_ago=1)
    live = request(
        "live", "running", minutes_ago=60, attempts=1,
        lease=Lease(worker="w1", attempt=1, claimed_at=at - timedelta(seconds=90), heartbeat=at - timedelta(seconds=5)),
    )  # fmt: skip
    snapshot = Snapshot("h", {r.id: r for r in (young, old, live)})
    claimed, exhausted = plan_claim(snapshot, "w2", settings, at)
    assert claimed.id == old.id and claimed.status == "running" and claimed.attempts == 1 and not exhausted
    assert claimed.lease.worker == "w2" and claimed.history[-1].note == "claimed (attempt 1 of 2)"


def test_an_expired_lease_is_retried_until_the_last_attempt_then_failed():
    settings = LeaseSettings(seconds=60, max_attempts=2)
    at = now()
    stale = Lease(worker="w1", attempt=1, claimed_at=at - timedelta(hours=1), heartbeat=at - timedelta(seconds=61))
    retried = request("r", "running", attempts=1, lease=stale)
    claimed, _ = plan_claim(Snapshot("h", {retried.id: retried}), "w2", settings, at)
    assert claimed.attempts == 2 and claimed.lease.attempt == 2
    assert "the lease of w1 expired" in claimed.history[-1].note
    last = request("r", "running", attempts=2, lease=stale.model_copy(update={"attempt": 2}))
    claimed, exhausted = plan_claim(Snapshot("h", {last.id: last}), "w2", settings, at)
    assert claimed is None and exhausted[0].status == "failed" and exhausted[0].lease is None
    assert "no worker finished it in 2 attempts" in exhausted[0].failure


def test_two_workers_that_read_the_same_pending_request_make_one_claim(hub):
    """Both read the queue before either commits (a barrier in front of the commit): the hub takes one."""
    put(hub, request())
    barrier = threading.Barrier(2, timeout=60)
    claimed = {}

    def worker(name):
        ds = dataset(hub)
        commit = ds.store.commit
        tries = []

        def commit_after_both_read(*args, **kwargs):
            if not tries:
                barrier.wait()
            tries.append(1)
            return commit(*args, **kwargs)

        ds.store.commit = commit_after_both_read
        claimed[name] = claim(ds, name, LeaseSettings())

    threads = [threading.Thread(target=worker, args=(name,)) for name in ("w1", "w2")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winners = [name for name, r in claimed.items() if r is not None]
    assert len(winners) == 1, claimed
    (final,) = dataset(hub).snapshot().requests.values()
    assert final.status == "running" and final.lease.worker == winners[0] and final.attempts == 1
    assert [e.status for e in final.history] == ["pending", "running"]


def test_a_worker_that_lost_its_lease_writes_nothing(hub):
    put(hub, request())
    mine = claim(dataset(hub), "w1", LeaseSettings())
    heartbeat(dataset(hub), mine.id, mine.lease)
    assert dataset(hub).snapshot().requests[mine.id].lease.heartbeat >= mine.lease.heartbeat
    stolen = mine.model_copy(update={"lease": mine.lease.model_copy(update={"worker": "w2", "attempt": 2})})
    put(hub, stolen)
    head = dataset(hub).store.head()
    with pytest.raises(LeaseLost, match="held by w2"):
        heartbeat(dataset(hub), mine.id, mine.lease)
    with pytest.raises(LeaseLost, match="held by w2"):
        settle(dataset(hub), mine.id, mine.lease, "failed", "x", failure="x")
    assert dataset(hub).store.head() == head


def test_a_cancelled_request_is_dropped_by_its_worker_and_a_settled_one_cannot_be_cancelled(hub):
    put(hub, request())
    mine = claim(dataset(hub), "w1", LeaseSettings())
    ran = run_cli("queue", mine.id, "--requests", REQUESTS, "--cancel", "wrong plugin", env=hub_env(hub.endpoint))
    assert ran.returncode == 0, ran.stderr
    assert "cancelled: wrong plugin" in ran.stdout and "leaderboard queue --cancel" in ran.stdout
    with pytest.raises(LeaseLost, match="is cancelled now"):
        heartbeat(dataset(hub), mine.id, mine.lease)
    again = run_cli("queue", mine.id, "--requests", REQUESTS, "--cancel", "x", env=hub_env(hub.endpoint))
    assert again.returncode == 2 and "is cancelled; only a pending or running one can be cancelled" in again.stderr


# -- the Queue and Submit tabs ---------------------------------------------------------------------------------
def test_the_queue_page_shows_each_state_with_its_time_or_reason_and_escapes_everything():
    from leaderboard.app.views.queue import queue_html

    at = now()
    lease = Lease(worker="w<1>", attempt=1, claimed_at=at - timedelta(minutes=3), heartbeat=at)
    hostile = "<img src=x onerror=alert(1)>"
    requests = [
        request("pending-model", minutes_ago=2),
        request("running-model", "running", attempts=1, lease=lease, started_at=at - timedelta(minutes=3)),
        request("done", "finished", attempts=1, started_at=at - timedelta(minutes=9), finished_at=at,
                results=["results/done/1/negconstraint.json"]),
        request("bad", "failed", attempts=1, failure=f"the evaluation failed: {hostile}", finished_at=at),
    ]  # fmt: skip
    page = queue_html(Snapshot("h", {r.id: r for r in requests}), at, "lb/requests")
    for section in ("Running (1)", "Pending (1)", "Finished (1)", "Failed (1)"):
        assert section in page
    assert "running for 3m 00s" in page and "attempt 1 on w&lt;1&gt;" in page and "waiting for 2m 00s" in page
    assert "took 9m 00s" in page and "1 result(s)" in page
    assert hostile not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "me@example.org" not in page  # contacts are kept out of the public page
    assert page.index("Running (1)") < page.index("Pending (1)") < page.index("Finished (1)")


def test_the_app_has_submit_and_queue_tabs_only_with_a_requests_dataset(hub, tmp_path):
    from leaderboard.app.ui import build_app

    results = tmp_path / "results"
    results.mkdir()
    without = json.dumps(build_app(results).get_config_file(), default=str)
    assert "submit-plugin" not in without and '"label": "Queue"' not in without
    app = build_app(results, endpoint=hub.endpoint, requests=REQUESTS)
    config = json.dumps(app.get_config_file(), default=str)
    assert "submit-plugin" in config and '"label": "Queue"' in config
    assert "queue-table" not in config  # drawn when opened, not inlined
    assert HUB_TOKEN not in config


def test_a_worker_against_a_failing_hub_says_so_without_the_token(tmp_path):
    with HubServer(fail_status=500) as hub:
        env = {k: v for k, v in hub_env(hub.endpoint).items() if k != "HF_TOKEN"} | {"HF_HOME": str(tmp_path / "hf")}
        ran = subprocess.run(
            [sys.executable, "-m", "leaderboard", "worker", "--requests", REQUESTS, "--results", "lb/results", "--once",
             "--isolation", "process", "--token-stdin", "--work-dir", str(tmp_path)],
            env=env | {"HF_HUB_OFFLINE": "0"}, input=HUB_TOKEN + "\n", capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert f"Hub error: Cannot create {REQUESTS} at {hub.endpoint}: the hub answered HTTP 500" in ran.stderr
    assert HUB_TOKEN not in ran.stdout + ran.stderr and "Traceback" not in ran.stderr


def test_relative_paths_given_to_a_worker_are_taken_from_its_folder(tmp_path, monkeypatch):
    """Runs start in their own folder: `--find-links=wheels` and `--data-dir task=data` must not move with them."""
    from leaderboard.queue.worker import WorkerSettings

    (tmp_path / "wheels").mkdir()
    (tmp_path / "data").mkdir()
    monkeypatch.chdir(tmp_path)
    settings = WorkerSettings(
        REQUESTS, "lb/results", data_dirs=("negconstraint=data", "data"),
        pip_args=("--no-index", "--find-links=wheels", "--index-url=https://example.org/simple"),
    )  # fmt: skip
    assert settings.data_dirs == (f"negconstraint={tmp_path / 'data'}", str(tmp_path / "data"))
    assert settings.pip_args == (
        "--no-index",
        f"--find-links={tmp_path / 'wheels'}",
        "--index-url=https://example.org/simple",
    )


def test_a_worker_without_a_token_says_so_before_touching_anything(tmp_path):
    env = {k: v for k, v in hub_env("http://127.0.0.1:9").items() if k != "HF_TOKEN"} | {"HF_HOME": str(tmp_path)}
    ran = run_cli("worker", "--requests", REQUESTS, "--results", "lb/results", "--isolation", "process", env=env)
    assert ran.returncode == 2 and "No Hugging Face token" in ran.stderr, ran.stderr
