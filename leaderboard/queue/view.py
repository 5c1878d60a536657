"""The queue as rows: what `leaderboard queue` prints and the board's Queue section shows.

Open requests first (running, then pending, oldest first), then the most recent settled ones.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from leaderboard.queue.dataset import Snapshot
from leaderboard.queue.requests import EvalRequest

COLUMNS = ("id", "model", "plugin", "benchmarks", "status", "attempts", "submitted", "time", "detail")
SETTLED_SHOWN = 100
_ORDER = {"running": 0, "pending": 1}


def duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}h {minutes:02d}m" if hours else f"{minutes}m {seconds:02d}s"


def row(request: EvalRequest, at: datetime) -> dict[str, Any]:
    if request.status == "running" and request.lease is not None:
        time = f"running for {duration((at - (request.started_at or request.lease.claimed_at)).total_seconds())}"
        detail = f"attempt {request.lease.attempt} on {request.lease.worker}"
    elif request.status == "pending":
        time = f"waiting for {duration((at - request.submitted_at).total_seconds())}"
        detail = f"retry after attempt {request.attempts}" if request.attempts else ""
    else:
        took = (
            (request.finished_at - request.started_at).total_seconds()
            if request.finished_at and request.started_at
            else None
        )
        time = f"took {duration(took)}" if took is not None else ""
        detail = request.failure or (f"{len(request.results)} result(s)" if request.results else "")
        if request.pull_request:
            detail += f"; pull request {request.pull_request}"
    return {
        "id": request.id,
        "model": request.model + (f"@{request.revision}" if request.revision else ""),
        "plugin": request.plugin,
        "benchmarks": request.benchmarks,
        "status": request.status,
        "attempts": request.attempts,
        "submitted": f"{request.submitted_at:%Y-%m-%d %H:%M} UTC",
        "time": time,
        "detail": detail,
    }


def rows(snapshot: Snapshot, at: datetime) -> list[dict[str, Any]]:
    ordered = snapshot.ordered()
    open_requests = sorted((r for r in ordered if r.status in _ORDER), key=lambda r: _ORDER[r.status])
    settled = [r for r in ordered if r.status not in _ORDER]
    settled.sort(key=lambda r: (r.finished_at or r.submitted_at, r.id), reverse=True)
    return [row(r, at) for r in [*open_requests, *settled[:SETTLED_SHOWN]]]


def history_rows(request: EvalRequest) -> list[dict[str, Any]]:
    return [
        {"at": f"{event.at:%Y-%m-%d %H:%M:%S} UTC", "status": event.status, "by": event.by, "note": event.note}
        for event in request.history
    ]
