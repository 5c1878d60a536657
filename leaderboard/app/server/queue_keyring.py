"""The queue's keyring the board checks attestations with, followed like the results.

A board with a queue reads the keyring its requests dataset publishes. A board started before the
first worker run finds none, and a rotation changes it: each poll reads it again when the requests
dataset has a new commit, so results signed later are marked without a restart. A keyring given
as a file (``$LEADERBOARD_QUEUE_PUBLIC_KEY``) is read once. A hub that is down or a bad keyring
never stops the board: it keeps the keyring it holds, and says why once per commit.
"""

from __future__ import annotations

import os
import sys

from leaderboard.errors import LeaderboardError
from leaderboard.hub.queue_keys import requests_store, required_keyring
from leaderboard.hub.store import HubStore
from leaderboard.security.attestation import PUBLIC_KEY_ENV, Keyring, read_keyring_file

NOT_READ = "queue key not read, no result is marked as evaluated by the queue"


class LiveKeyring:
    def __init__(self, requests: str | None, endpoint: str | None):
        """``requests``: the queue's requests dataset (ORG/NAME); None: $LEADERBOARD_QUEUE_PUBLIC_KEY, if set."""
        self.spec = f"hf://{requests}" if requests else os.environ.get(PUBLIC_KEY_ENV) or None
        self.option = "--requests" if requests else "--queue-key"
        self.keyring: Keyring | None = None
        self._store: HubStore | None = None
        self._head: str | None = None  # the requests dataset's commit the keyring was read at
        if self.spec is None:
            return
        try:
            if self.spec.startswith("hf://"):
                self._store = requests_store(self.spec, endpoint, self.option)
                self._head = self._store.head()
                self.keyring = required_keyring(self._store, self._head, self.spec, self.option)
            else:
                self.keyring = read_keyring_file(self.spec, self.option)
        except LeaderboardError as exc:
            print(f"{NOT_READ}: {exc}", file=sys.stderr)

    def refresh(self) -> bool:
        """Read the keyring again if the requests dataset has a new commit; True when the keyring changed."""
        if self._store is None or self.spec is None:
            return False
        try:
            head = self._store.head()
        except LeaderboardError:
            return False  # the hub is down or the dataset is not there yet: the next poll tries again
        if head == self._head:
            return False
        self._head = head  # a keyring that cannot be read is said once per commit, not at every poll
        try:
            found = required_keyring(self._store, head, self.spec, self.option)
        except LeaderboardError as exc:
            kept = " (the last one read is kept)" if self.keyring else ""
            print(f"{NOT_READ}{kept}: {exc}", file=sys.stderr)
            return False
        if self.keyring is not None and found.to_bytes() == self.keyring.to_bytes():
            return False
        self.keyring = found
        print(f"read {found.described()}: the results it signed are marked as evaluated by the queue", file=sys.stderr)
        return True
