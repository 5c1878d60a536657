"""The queue's keyring as readers take it: a file, or what the requests dataset publishes (``hf://ORG/NAME``).

The keyring is published in the requests dataset, not the results dataset: whoever can rewrite a
result and its attestation there cannot also choose the keys readers check them with. The dataset
holds ``queue-keyring.json`` (every key) and ``queue-public-key.pem`` (the current one, for readers of
earlier versions); a dataset with only the PEM file is read as a keyring of that one key.
"""

from __future__ import annotations

import os

from leaderboard.errors import BadInput
from leaderboard.hub.store import HubStore
from leaderboard.security.attestation import (
    KEYRING_FILE,
    MAX_KEYRING_BYTES,
    PUBLIC_KEY_ENV,
    PUBLIC_KEY_FILE,
    Keyring,
    parse_keyring,
    read_keyring_file,
)


def published_keyring(
    store: HubStore, head: str | None, listing: dict[str, str | None] | None = None
) -> Keyring | None:
    """The keyring a requests dataset publishes at ``head`` (None: it publishes no key)."""
    listing = store.files(head) if listing is None else listing
    for name in (KEYRING_FILE, PUBLIC_KEY_FILE):
        if name in listing:
            data = store.read(name, head)[: MAX_KEYRING_BYTES + 1]
            return parse_keyring(data, f"hf://{store.repo_id}/{name}")
    return None


def read_queue_key(spec: str, endpoint: str | None = None, option: str = "--queue-key") -> Keyring:
    """The queue's keyring from a file (JSON keyring or PEM) or from ``hf://ORG/NAME`` (the requests dataset)."""
    if spec.startswith("hf://"):
        store = requests_store(spec, endpoint, option)
        return required_keyring(store, store.head(), spec, option)
    return read_keyring_file(spec, option)


def requests_store(spec: str, endpoint: str | None, option: str) -> HubStore:
    """The requests dataset ``hf://ORG/NAME`` names (its name checked as the hub checks names)."""
    from leaderboard.hub.repo_names import repo_id

    return HubStore(repo_id(spec.removeprefix("hf://"), option, "the dataset", prefixed=True), endpoint, option=option)


def required_keyring(store: HubStore, head: str | None, spec: str, option: str) -> Keyring:
    """The keyring the requests dataset publishes at ``head``; a dataset that publishes none is named."""
    found = published_keyring(store, head)
    if found is None:
        raise BadInput(f"{option} {spec}: the requests dataset publishes no {KEYRING_FILE} or {PUBLIC_KEY_FILE}.")
    return found


def queue_key_option(spec: str | None, endpoint: str | None = None, option: str = "--queue-key") -> Keyring | None:
    """The keyring a reader command was given (--queue-key, else LEADERBOARD_QUEUE_PUBLIC_KEY), or None."""
    spec = spec or os.environ.get(PUBLIC_KEY_ENV) or None
    return read_queue_key(spec, endpoint, option) if spec else None
