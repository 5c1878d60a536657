"""Publishing and finishing a request are idempotent: the receipt a worker pushes with a request's results
(``queue/<id>.json`` in the results dataset, in the same commit) lets a retry finish a request whose earlier
attempt pushed and died, without running or pushing again; results without a receipt for this very
request, or changed since, are never taken and never replaced. Against the stand-in hub; nothing is run
(the kill -9 between push and finish, with a real evaluation, is in test_queue_worker.py)."""

import threading
from datetime import timedelta

import pytest
from conftest import HUB_TOKEN
from hub_server import HubServer
from queue_fixtures import BENCHMARK, REQUESTS, RESULTS

from leaderboard.hub.store import HubStore, HubUnreachable, Upload
from leaderboard.queue.claim import LeaseSettings
from leaderboard.queue.dataset import RequestsDataset
from leaderboard.queue.receipts import published, receipt_path, receipt_upload
from leaderboard.queue.requests import EvalRequest, Event, Lease, new_id, now
from leaderboard.queue.results_check import RequestFailed
from leaderboard.queue.worker import Worker, WorkerSettings

pytestmark = pytest.mark.usefixtures("hub_online")
RESULT = "results/m/1.0/negconstraint.json"
CARD = "results/m/model_card.json"


@pytest.fixture
def hub():
    with HubServer() as server:
        RequestsDataset(REQUESTS, server.endpoint, HUB_TOKEN).ensure_exists()
        HubStore(RESULTS, server.endpoint, HUB_TOKEN).create()
        yield server


def running(worker="doomed", attempt=1, seconds_ago=3600, **changes) -> EvalRequest:
    """A request whose worker claimed it ``seconds_ago`` and never beat again (its lease has expired)."""
    at = now() - timedelta(seconds=seconds_ago)
    lease = Lease(worker=worker, attempt=attempt, claimed_at=at, heartbeat=at)
    data = dict(
        id=new_id("m", at), plugin="no-such-plugin==1.0", model="m", benchmarks=[BENCHMARK], contact="me@example.org",
        submitted_at=at, status="running", attempts=attempt, lease=lease, started_at=at,
        history=[Event(at=at, status="pending", by="submit"), Event(at=at, status="running", by=worker)],
    )  # fmt: skip
    return EvalRequest.model_validate(data | changes)


def commit(hub, repo, files: dict[str, bytes]) -> str:
    store = HubStore(repo, hub.endpoint, HUB_TOKEN)
    return store.commit(files, "test", store.head())


def publish(hub, request: EvalRequest, data: bytes = b'{"a result": 1}\n') -> dict[str, bytes]:
    """What the request's worker pushed before it died: a result, a model card and the receipt, in one commit."""
    receipt = receipt_upload(request, request.lease, REQUESTS, [Upload(RESULT, data)])
    files = {RESULT: data, CARD: b"{}\n", receipt.path_in_repo: receipt.data}
    commit(hub, RESULTS, files)
    return files


def worker(hub, tmp_path, lines=None) -> Worker:
    settings = WorkerSettings(
        REQUESTS, RESULTS, hub.endpoint, HUB_TOKEN, worker_id="rescuer", lease=LeaseSettings(seconds=60),
        isolation="process", work_dir=tmp_path / "work", pip_args=("--no-index",),
    )  # fmt: skip
    return Worker(settings, (lines if lines is not None else []).append)


def results_head(hub) -> str:
    return hub.state.repos[RESULTS].head


def test_a_retry_finishes_a_request_whose_results_an_earlier_attempt_pushed_without_running_it(hub, tmp_path):
    dead = running()
    commit(hub, REQUESTS, {dead.path: dead.to_bytes()})
    publish(hub, dead)
    head = results_head(hub)
    lines = []
    (final,) = worker(hub, tmp_path, lines).run(once=True)
    assert final.status == "finished", final.failure
    assert final.attempts == 2 and final.results == [RESULT] and final.results_repo == RESULTS
    assert [e.by for e in final.history] == ["submit", "doomed", "rescuer", "rescuer"]
    assert final.history[-1].note == (
        f"1 result file(s) pushed by attempt 1 (doomed): receipt {RESULTS}/{receipt_path(dead.id)}"
    )
    assert results_head(hub) == head  # nothing pushed again
    assert not [line for line in lines if "installing" in line]  # nor installed or run: its plugin does not exist
    log = hub.state.repos[REQUESTS].files[final.log].decode()
    assert "attempt 1 (doomed) already pushed this request's results" in log


def test_a_retry_whose_published_results_were_changed_since_fails_and_replaces_nothing(hub, tmp_path):
    dead = running()
    commit(hub, REQUESTS, {dead.path: dead.to_bytes()})
    publish(hub, dead)
    commit(hub, RESULTS, {RESULT: b'{"someone else": 2}\n'})
    head = results_head(hub)
    (final,) = worker(hub, tmp_path).run(once=True)
    assert final.status == "failed" and final.attempts == 2
    assert "attempt 1 (doomed) published this request's results" in final.failure
    assert f"1 of them were changed or removed since ({RESULT})" in final.failure
    assert results_head(hub) == head and hub.state.repos[RESULTS].files[RESULT] == b'{"someone else": 2}\n'


@pytest.mark.parametrize(
    ("tamper", "expected"),
    [
        (lambda r: r.model_copy(update={"model": "other", "id": new_id("other", now())}), "is a receipt for request"),
        (b"[not a receipt", "expected a receipt (JSON)"),
        (b'{"request": "x"}', "not a receipt (request: String should match pattern"),
    ],
)
def test_a_receipt_that_is_not_this_requests_is_refused_naming_it(hub, tamper, expected):
    mine = running()
    if isinstance(tamper, bytes):
        commit(hub, RESULTS, {receipt_path(mine.id): tamper})
    else:
        other = tamper(mine)
        upload = receipt_upload(other, other.lease, REQUESTS, [Upload(RESULT, b"x")])
        commit(hub, RESULTS, {RESULT: b"x", receipt_path(mine.id): upload.data})
    store = HubStore(RESULTS, hub.endpoint, HUB_TOKEN)
    with pytest.raises(RequestFailed, match=f"{RESULTS}: {receipt_path(mine.id)}") as caught:
        published(store, mine, store.files(), None)
    assert expected in str(caught.value)


def test_without_a_receipt_a_retry_never_takes_or_replaces_results_already_there(hub, tmp_path):
    """Results of the same model pushed by anything else (no receipt for this request) refuse the push."""
    mine = running(worker="rescuer", attempt=2, seconds_ago=0)
    commit(hub, RESULTS, {RESULT: b'{"pushed by hand": 1}\n'})
    store = HubStore(RESULTS, hub.endpoint, HUB_TOKEN)
    assert published(store, mine, store.files(), None) is None
    keeper = type("Keeper", (), {"lost": threading.Event()})()
    runner = worker(hub, tmp_path)
    with pytest.raises(RequestFailed, match="would replace 1 existing file"):
        runner.push(mine, [Upload(RESULT, b'{"ours": 1}\n')], keeper, lambda line: None)
    assert hub.state.repos[RESULTS].files[RESULT] == b'{"pushed by hand": 1}\n'


@pytest.mark.parametrize("landed", [True, False])
def test_a_push_whose_answer_is_lost_counts_as_pushed_only_when_its_receipt_landed(hub, tmp_path, landed):
    mine = running(worker="rescuer", attempt=1, seconds_ago=0)
    runner = worker(hub, tmp_path)
    push = runner.results.push

    def push_then_lose_the_answer(*args, **kwargs):
        if landed:
            push(*args, **kwargs)
        raise HubUnreachable("Cannot reach the hub (connection reset)")

    runner.results.push = push_then_lose_the_answer
    keeper = type("Keeper", (), {"lost": threading.Event()})()
    uploads = [Upload(RESULT, b'{"ours": 1}\n')]
    if not landed:
        with pytest.raises(HubUnreachable, match="connection reset"):
            runner.push(mine, uploads, keeper, lambda line: None)
        assert receipt_path(mine.id) not in hub.state.repos[RESULTS].files
        return
    outcome = runner.push(mine, uploads, keeper, lambda line: None)
    assert outcome["results"] == [RESULT] and "pushed by attempt 1 (rescuer)" in outcome["note"]
    assert hub.state.repos[RESULTS].files[RESULT] == b'{"ours": 1}\n'
