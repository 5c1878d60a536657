"""The requests dataset on the hub: read every request at one commit, write on the commit that was read.

Every change of a request (submit, claim, heartbeat, finish) is one hub commit made with
``parent_commit`` = the commit its decision was based on; the hub refuses it (HTTP 412) when
anything was committed since, and ``update`` then reads again and decides again. That is what makes
a claim atomic: of two workers that read the same pending request, exactly one commit lands.

Files are read by their content id (the hub's git blob sha1), so polling the dataset downloads only
the request files that changed since the last read. A file that is not a request is skipped and
reported (``Snapshot.unreadable``), never fatal: anyone with write access can put anything there.
That includes its path: only ``requests/<id>.json`` is read; any other path under ``requests/``, or
holding a ``..`` or ``.`` part anywhere, is named and skipped unread (downloading it could fail, or
write outside the download folder).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from leaderboard.errors import BadInput, LeaderboardError
from leaderboard.hub.store import HubStore, PushConflict
from leaderboard.queue.requests import REQUEST_ID, REQUESTS_PREFIX, EvalRequest, read_request

_REQUEST_FILE = re.compile(f"{REQUESTS_PREFIX}/{REQUEST_ID.strip('^$')}\\.json")
MAX_TRIES = 20  # commits lost to other writers before giving up: each loss means someone else progressed


class QueueBusy(LeaderboardError):
    """Other writers kept committing while we tried: nothing was written."""

    exit_code = 3
    label = "Queue busy"


@dataclass
class Snapshot:
    head: str | None
    requests: dict[str, EvalRequest] = field(default_factory=dict)  # id -> request
    unreadable: list[tuple[str, str]] = field(default_factory=list)  # (path, why)

    def ordered(self) -> list[EvalRequest]:
        """Oldest submission first (ids start with the submission time, so they break ties the same way)."""
        return sorted(self.requests.values(), key=lambda r: (r.submitted_at, r.id))


@dataclass
class Change:
    """What ``update`` commits: files by path, and the commit message."""

    files: dict[str, bytes]
    message: str


def repo_id(value: str, option: str) -> str:
    """ORG/NAME (also written hf://ORG/NAME), checked as every --repo is (``hub.repo_names``)."""
    from leaderboard.hub.repo_names import repo_id as checked

    return checked(value, option, "the dataset", prefixed=True)


def request_paths(listing: Iterable[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """(the request files to read, (path, why) for each listed path that is not one but looks meant as one)."""
    paths, strange = [], []
    for path in sorted(listing):
        parts = path.split("/")
        if _REQUEST_FILE.fullmatch(path):
            paths.append(path)
        elif parts[0] == REQUESTS_PREFIX or any(part in ("..", ".", "") for part in parts):
            strange.append((path, f"not a request file: expected {REQUESTS_PREFIX}/<request id>.json; skipped unread"))
    return paths, strange


class RequestsDataset:
    def __init__(self, repo: str, endpoint: str | None = None, token: str | None = None, option: str = "--requests"):
        self.store = HubStore(repo_id(repo, option), endpoint, token, option=option)
        self.option = option
        self._cache: dict[str, EvalRequest | str] = {}  # content id -> request, or why it is unreadable
        self._lock = threading.Lock()

    @property
    def repo_id(self) -> str:
        return self.store.repo_id

    def require_exists(self) -> None:
        """BadInput naming the option when the dataset is missing (submitting never creates one)."""
        if not self.store.exists():
            raise BadInput(
                f"{self.option} {self.repo_id}: no such dataset at {self.store.endpoint_shown}; "
                "the leaderboard's `leaderboard worker` creates it."
            )

    def ensure_exists(self) -> None:
        """Create the dataset when missing (the operator's worker does; submitting never creates one)."""
        self.store.create()

    def snapshot(self) -> Snapshot:
        head = self.store.head()
        listing = self.store.files(head)
        paths, strange = request_paths(listing)
        with self._lock:
            missing = [p for p in paths if listing[p] not in self._cache]
        with ThreadPoolExecutor(max_workers=8) as pool:
            for path, loaded in zip(missing, pool.map(lambda p: self._load(p, head), missing)):
                with self._lock:
                    self._cache[str(listing[path])] = loaded
        snapshot = Snapshot(head, unreadable=strange)
        for path in paths:
            loaded = self._cache[str(listing[path])]
            if isinstance(loaded, str):
                snapshot.unreadable.append((path, loaded))
            elif loaded.path != path:
                snapshot.unreadable.append((path, f"holds request {loaded.id}, whose file is {loaded.path}"))
            else:
                snapshot.requests[loaded.id] = loaded
        return snapshot

    def _load(self, path: str, head: str | None) -> EvalRequest | str:
        try:
            return read_request(self.store.read(path, head), path)
        except BadInput as exc:
            return str(exc)

    def update(self, decide: Callable[[Snapshot], Change | None]) -> tuple[Snapshot, Change | None]:
        """Read, decide, commit on the commit read; on a conflict read again and decide again.

        ``decide`` returns the change to commit, or None to write nothing (the state it wanted to
        change is gone). Returns the snapshot the committed (or declined) decision was made on.
        """
        for _ in range(MAX_TRIES):
            snapshot = self.snapshot()
            change = decide(snapshot)
            if change is None:
                return snapshot, None
            try:
                self.store.commit(change.files, change.message, snapshot.head)
            except PushConflict:
                continue
            return snapshot, change
        raise QueueBusy(f"{self.repo_id} kept changing while we wrote to it ({MAX_TRIES} tries); nothing was written.")
