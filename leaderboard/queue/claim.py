"""Taking a request and keeping it: the atomic claim, the lease, and the final state.

A claim is one commit, on the commit the claimer read, that moves the oldest claimable request to
"running" with a lease (worker id, attempt, heartbeat). Two workers that read the same pending
request both try; the hub accepts the first commit and refuses the other (its parent is no longer
the head), whose worker reads again and finds the request taken. The holder renews the heartbeat
every ``heartbeat_seconds`` (``LeaseKeeper``); a lease whose heartbeat is older than ``seconds``
has expired (its worker died, hung or lost the network), and so has one whose claim or heartbeat
lies in the future (beyond ``CLOCK_SKEW_SECONDS``) or whose heartbeat precedes its claim: a lease
written by hand (a heartbeat dated 2099) must not hold a request forever. The next claim retries it,
up to ``max_attempts`` attempts, after which it is failed. Every write re-checks that the writer
still holds the lease (same worker, same attempt), so a worker that lost its lease writes nothing.

Lease times are the workers' own clocks (UTC): workers must keep their clocks in step (NTP) to well
within a lease.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from leaderboard.errors import LeaderboardError
from leaderboard.queue.dataset import Change, RequestsDataset, Snapshot
from leaderboard.queue.requests import EvalRequest, Lease, Status, now

DEFAULT_LEASE_SECONDS = 1200.0  # 20 minutes without a heartbeat; a heartbeat is one hub commit
DEFAULT_MAX_ATTEMPTS = 3
# How far ahead of this worker's clock another worker's lease times may be before they count as forged.
CLOCK_SKEW_SECONDS = 60.0


class LeaseLost(LeaderboardError):
    """Another worker holds the request now (our lease expired) or it was cancelled: write nothing."""


@dataclass(frozen=True)
class LeaseSettings:
    seconds: float = DEFAULT_LEASE_SECONDS
    max_attempts: int = DEFAULT_MAX_ATTEMPTS

    @property
    def heartbeat_seconds(self) -> float:
        return self.seconds / 4  # three heartbeats may be lost before the lease expires


def expired(request: EvalRequest, at: datetime, settings: LeaseSettings) -> bool:
    return lease_problem(request, at, settings) is not None


def lease_problem(request: EvalRequest, at: datetime, settings: LeaseSettings) -> str | None:
    """Why a running request's lease no longer holds it (None while it does): the words its history gets."""
    lease = request.lease
    if request.status != "running" or lease is None:
        return None
    skew = min(CLOCK_SKEW_SECONDS, settings.seconds)
    for what, when in (("claim", lease.claimed_at), ("heartbeat", lease.heartbeat)):
        if (when - at).total_seconds() > skew:
            return f"its {what} is dated {when:%Y-%m-%d %H:%M:%S} UTC, in the future"
    if lease.heartbeat < lease.claimed_at:
        return f"its heartbeat ({lease.heartbeat:%Y-%m-%d %H:%M:%S} UTC) precedes its claim"
    if (at - lease.heartbeat).total_seconds() > settings.seconds:
        return f"expired (last heartbeat {lease.heartbeat:%H:%M:%S})"
    return None


def plan_claim(
    snapshot: Snapshot, worker: str, settings: LeaseSettings, at: datetime
) -> tuple[EvalRequest | None, list[EvalRequest]]:
    """(the request to claim, requests to fail because their last allowed attempt's lease expired)."""
    exhausted: list[EvalRequest] = []
    for request in snapshot.ordered():
        problem = lease_problem(request, at, settings)
        stale = problem is not None
        if stale and request.attempts >= settings.max_attempts:
            exhausted.append(_give_up(request, worker, settings, at, problem or ""))
            continue
        if request.status != "pending" and not stale:
            continue
        attempt = request.attempts + 1
        note = f"claimed (attempt {attempt} of {settings.max_attempts})"
        if stale and request.lease:
            note += f"; the lease of {request.lease.worker} {problem}"
        lease = Lease(worker=worker, attempt=attempt, claimed_at=at, heartbeat=at)
        claimed = request.moved("running", worker, note, at, attempts=attempt, lease=lease, started_at=at)
        return claimed, exhausted
    return None, exhausted


def _give_up(request: EvalRequest, worker: str, settings: LeaseSettings, at: datetime, problem: str) -> EvalRequest:
    assert request.lease is not None
    reason = (
        f"no worker finished it in {settings.max_attempts} attempts: the lease of {request.lease.worker} "
        f"{problem}; a worker that dies every time (killed, out of memory) fails the request"
    )
    return request.moved("failed", worker, reason, at, lease=None, finished_at=at, failure=reason)


def claim(dataset: RequestsDataset, worker: str, settings: LeaseSettings) -> EvalRequest | None:
    """The claimed request (now "running" under our lease), or None when nothing is claimable."""
    chosen: dict[str, EvalRequest | None] = {}

    def decide(snapshot: Snapshot) -> Change | None:
        claimed, exhausted = plan_claim(snapshot, worker, settings, now())
        chosen["request"] = claimed
        files = {r.path: r.to_bytes() for r in exhausted}
        if claimed is not None:
            files[claimed.path] = claimed.to_bytes()
        if not files:
            return None
        what = [f"claim {claimed.id}"] if claimed else []
        what += [f"fail {r.id} (attempts exhausted)" for r in exhausted]
        return Change(files, f"{worker}: " + ", ".join(what))

    dataset.update(decide)
    return chosen.get("request")


def held(snapshot: Snapshot, lease: Lease, request_id: str) -> EvalRequest:
    """The request as it is now, if we still hold its lease; LeaseLost otherwise."""
    current = snapshot.requests.get(request_id)
    if current is None or current.status != "running" or current.lease is None:
        state = current.status if current else "gone"
        raise LeaseLost(f"request {request_id} is {state} now; this worker no longer holds it")
    if (current.lease.worker, current.lease.attempt) != (lease.worker, lease.attempt):
        raise LeaseLost(
            f"request {request_id} is held by {current.lease.worker} (attempt {current.lease.attempt}) now; "
            "this worker's lease expired"
        )
    return current


def heartbeat(dataset: RequestsDataset, request_id: str, lease: Lease) -> None:
    """Renew our lease (LeaseLost when it is no longer ours)."""

    def decide(snapshot: Snapshot) -> Change:
        current = held(snapshot, lease, request_id)
        assert current.lease is not None
        renewed = current.model_copy(update={"lease": current.lease.model_copy(update={"heartbeat": now()})})
        return Change({renewed.path: renewed.to_bytes()}, f"{lease.worker}: heartbeat {request_id}")

    dataset.update(decide)


def settle(
    dataset: RequestsDataset,
    request_id: str,
    lease: Lease,
    status: Status,
    note: str,
    extra_files: dict[str, bytes] | None = None,
    **changes,
) -> EvalRequest:
    """Move our request to its final state (finished or failed), with any extra files in the same commit."""
    settled: dict[str, EvalRequest] = {}

    def decide(snapshot: Snapshot) -> Change:
        current = held(snapshot, lease, request_id)
        at = now()
        final = current.moved(status, lease.worker, note, at, lease=None, finished_at=at, **changes)
        settled["request"] = final
        files = {**(extra_files or {}), final.path: final.to_bytes()}
        return Change(files, f"{lease.worker}: {status} {request_id}")

    dataset.update(decide)
    return settled["request"]


def release(
    dataset: RequestsDataset,
    request_id: str,
    lease: Lease,
    settings: LeaseSettings,
    trouble: str,
    extra_files: dict[str, bytes] | None = None,
    **changes,
) -> EvalRequest:
    """Give our request back after the worker's own failure: pending again for another attempt, or, after
    the last allowed attempt, failed saying the failures were the workers' (never the submitter's)."""
    released: dict[str, EvalRequest] = {}

    def decide(snapshot: Snapshot) -> Change:
        current = held(snapshot, lease, request_id)
        at = now()
        note = f"the worker's own failure (not the plugin's): {trouble}"
        if current.attempts >= settings.max_attempts:
            reason = f"{note}; no worker got past its own failures in {settings.max_attempts} attempts"
            final = current.moved("failed", lease.worker, reason, at, lease=None, finished_at=at, failure=reason[:2000],
                                  **changes)  # fmt: skip
        else:
            note += f"; to be retried (attempt {current.attempts} of {settings.max_attempts})"
            final = current.moved("pending", lease.worker, note, at, lease=None, **changes)
        released["request"] = final
        files = {**(extra_files or {}), final.path: final.to_bytes()}
        return Change(files, f"{lease.worker}: {final.status} {request_id} (worker's failure)")

    dataset.update(decide)
    return released["request"]


class LeaseKeeper:
    """Renews a lease in a background thread while the request runs; ``lost`` is set when it is gone."""

    def __init__(
        self,
        dataset: RequestsDataset,
        request: EvalRequest,
        settings: LeaseSettings,
        log: Callable[[str], None] = lambda message: print(message, file=sys.stderr),
    ):
        assert request.lease is not None
        self.dataset, self.request_id, self.lease, self.settings, self.log = (
            dataset,
            request.id,
            request.lease,
            settings,
            log,
        )
        self.lost = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="leaderboard-lease", daemon=True)

    def __enter__(self) -> LeaseKeeper:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _loop(self) -> None:
        while not self._stop.wait(self.settings.heartbeat_seconds):
            try:
                heartbeat(self.dataset, self.request_id, self.lease)
            except LeaseLost as exc:
                self.log(f"lease lost: {exc}")
                self.lost.set()
                return
            except LeaderboardError as exc:  # the hub is down: try again next beat; the lease may expire
                self.log(f"heartbeat failed (will retry): {exc}")
