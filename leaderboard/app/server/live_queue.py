"""The evaluation queue as the app sees it: the requests dataset, read on the server, polled like the board.

The app writes to the requests dataset only through ``submit`` (the Submit tab), with the token
huggingface_hub finds on the server (a Space secret, HF_TOKEN): it lives in this object's hub
client, never in a component's value, so it never reaches the browser. Reading keeps the last good
snapshot; a failed poll (hub down) keeps it shown and says so.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime

from leaderboard.errors import LeaderboardError
from leaderboard.queue.dataset import RequestsDataset, Snapshot
from leaderboard.queue.requests import EvalRequest, now
from leaderboard.queue.submit import Submission, submit
from leaderboard.security.redaction import redact

STALE_SECONDS = 30.0  # opening the Queue reads the dataset again when what is shown is older than this


class LiveQueue:
    def __init__(self, repo: str, endpoint: str | None = None, poll_seconds: float | None = None):
        self.dataset = RequestsDataset(repo, endpoint)
        self.poll_seconds = poll_seconds
        self.snapshot: Snapshot | None = None
        self.read_at: datetime | None = None
        self.problem: str | None = None  # why the last read failed
        self.generation = 0
        self._read_monotonic = 0.0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def repo_id(self) -> str:
        return self.dataset.repo_id

    def refresh(self) -> None:
        """Read the dataset now; on failure keep the last snapshot and record why (redacted)."""
        try:
            snapshot = self.dataset.snapshot()
        except LeaderboardError as exc:
            self.problem = redact(exc, self.dataset.store.token)
            return
        with self._lock:
            self.snapshot, self.read_at, self.problem = snapshot, now(), None
            self._read_monotonic = time.monotonic()
            self.generation += 1

    def fresh(self) -> None:
        """Refresh when what is shown is older than STALE_SECONDS (a reader just opened the Queue)."""
        if self.snapshot is None or time.monotonic() - self._read_monotonic > STALE_SECONDS:
            self.refresh()

    def submit(self, submission: Submission, known_benchmarks: list[str]) -> EvalRequest:
        request = submit(self.dataset, submission, known_benchmarks=known_benchmarks, by="submit (Space)")
        self.refresh()
        return request

    def start(self) -> None:
        if not self.poll_seconds or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._loop, name="leaderboard-queue-poll", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _loop(self) -> None:
        while not self._stop.wait(self.poll_seconds):
            self.refresh()
