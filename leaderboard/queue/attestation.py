"""Signing: a queue worker's signed word that it computed a result file, and the keyring it publishes.

A worker holding the queue's ed25519 private key signs, for each result it publishes, the file's
sha256, the request id, the plugin spec, the worker id and the file's whole path in the results
dataset (``results/<model>/<revision>/<task>.json``: model, revision and task). The signature goes into a
sidecar, ``<task>.attestation.json`` beside ``<task>.json``: the result file itself stays byte for byte
what the run wrote. Readers check it with ``leaderboard.security.attestation``.

The private key is handled like an SSH key: a file readable by group or others is refused, with the
``chmod 600`` to run. The public keys are published in the requests dataset as a keyring
(``queue-keyring.json``, with ``queue-public-key.pem`` holding the current key alone): a worker publishes
its key when the dataset has none, and refuses to start with a key that is not the keyring's current
one. ``leaderboard queue-key rotate`` retires the current key and makes a new one current;
``leaderboard queue-key revoke`` revokes a key (``publish_keyring``).
"""

from __future__ import annotations

import base64
import hashlib
import os
import stat
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from leaderboard.errors import BadInput
from leaderboard.hub.queue_keys import published_keyring
from leaderboard.records.listing import attestation_path
from leaderboard.security.attestation import (
    KEYRING_FILE,
    MAX_KEY_BYTES,
    PRIVATE_KEY_ENV,
    PUBLIC_KEY_FILE,
    Attestation,
    Keyring,
    QueueKey,
    key_id,
    public_pem,
    rotated,
)

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from leaderboard.hub.store import HubStore, Upload
    from leaderboard.queue.dataset import RequestsDataset


def today() -> date:
    return datetime.now(UTC).date()


# -- the private key ------------------------------------------------------------------------------
def check_private_key_file(path: str | Path, where: str) -> None:
    """BadInput when the key file is readable or writable by anyone but its owner (as ssh refuses a key)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise BadInput(f"{where}: cannot be read ({exc.strerror or type(exc).__name__}).") from None
    if mode & 0o077:
        raise BadInput(
            f"{where}: permissions {stat.filemode(mode)} ({mode & 0o777:03o}) let others read it; a private key "
            f"must be readable by its owner only. Run: chmod 600 {path}"
        )


def load_private_key(path: str | Path, check_permissions: bool = True) -> Ed25519PrivateKey:
    """The worker's key from a PEM file (PKCS#8, unencrypted: ``leaderboard queue-key new`` or ``openssl genpkey
    -algorithm ed25519``), readable by its owner only. Errors name the file and what was expected, never a byte."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    where = f"queue key {path} ({PRIVATE_KEY_ENV} / --attestation-key)"
    if check_permissions:
        check_private_key_file(path, where)
    try:
        data = Path(path).read_bytes()[: MAX_KEY_BYTES + 1]
    except OSError as exc:
        raise BadInput(f"{where}: cannot be read ({exc.strerror or type(exc).__name__}).") from None
    try:
        key = load_pem_private_key(data, password=None) if len(data) <= MAX_KEY_BYTES else None
    except (ValueError, TypeError):
        key = None
    if not isinstance(key, Ed25519PrivateKey):
        raise BadInput(f"{where}: expected an unencrypted ed25519 private key in PEM (leaderboard queue-key new PATH).")
    return key


def new_private_key(path: Path) -> Ed25519PrivateKey:
    """A fresh ed25519 key written to ``path`` (PKCS#8 PEM), created readable by its owner only."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

    private = Ed25519PrivateKey.generate()
    data = private.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise BadInput(f"{path} exists; a key is never overwritten. Choose another path.") from None
    except OSError as exc:
        raise BadInput(f"{path}: cannot be written ({exc.strerror or type(exc).__name__}).") from None
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)
    return private


def as_queue_key(private: Ed25519PrivateKey) -> QueueKey:
    public = private.public_key()
    return QueueKey(public, key_id(public))


# -- signing (the worker) -------------------------------------------------------------------------
def sign(private: Ed25519PrivateKey, result: str, data: bytes, request: str, plugin: str, worker: str) -> bytes:
    """The sidecar file attesting ``data``, published at ``result`` (its whole path) for ``request``."""
    unsigned = Attestation(
        result=result,
        sha256=hashlib.sha256(data).hexdigest(),
        request=request,
        plugin=plugin,
        worker=worker,
        key_id=key_id(private.public_key()),
        signature="-",
    )
    signature = base64.b64encode(private.sign(unsigned.signed_bytes())).decode("ascii")
    return unsigned.model_copy(update={"signature": signature}).to_bytes()


def sidecars(private: Ed25519PrivateKey, results: list[Upload], request: str, plugin: str, worker: str) -> list[Upload]:
    """One attestation upload beside each result upload."""
    from leaderboard.hub.store import Upload

    return [
        Upload(attestation_path(u.path_in_repo), sign(private, u.path_in_repo, u.data, request, plugin, worker))
        for u in results
    ]


# -- the keyring in the requests dataset ----------------------------------------------------------
def keyring_files(keyring: Keyring) -> dict[str, bytes]:
    """What the requests dataset publishes of a keyring: the keyring, and the current key alone (if any)."""
    files = {KEYRING_FILE: keyring.to_bytes()}
    if keyring.current is not None:
        files[PUBLIC_KEY_FILE] = public_pem(keyring.current.public)
    return files


def publish_keyring(store: HubStore, change: Callable[[Keyring | None], Keyring], message: str) -> Keyring:
    """Read the dataset's keyring, apply ``change`` (keyring or None -> new keyring), commit both files on the
    commit read; retried when another writer commits in between. The new keyring."""
    from leaderboard.hub.store import PushConflict

    for _ in range(3):
        head = store.head()
        current = published_keyring(store, head)
        updated = change(current)
        try:
            store.commit(keyring_files(updated), message, head)
        except PushConflict:
            continue
        return updated
    raise BadInput(f"{store.repo_id} kept changing while the queue's keyring was written; run the command again.")


def publish_key(dataset: RequestsDataset, private: Ed25519PrivateKey) -> str:
    """Make sure the requests dataset's keyring has this worker's key as its current key; what was done, for the log.

    A dataset without a key gets a keyring with this key current (a dataset of an earlier version, with the
    PEM file alone, gets the keyring of that key). A keyring whose current key is another one is refused
    (BadInput): a retired or revoked key signs nothing new, and another key would make readers' checks depend
    on which one they read; the operator rotates on purpose (``leaderboard queue-key rotate``)."""
    store = dataset.store
    mine = as_queue_key(private)
    where = f"{dataset.repo_id}/{KEYRING_FILE}"

    def change(found: Keyring | None) -> Keyring:
        if found is None:
            return rotated(None, mine, today(), where)
        known = found.get(mine.key_id)
        if known is None or known.status != "current":
            said = known.described() if known is not None else "not in it"
            raise BadInput(
                f"{where}: this worker's key {mine.key_id} is {said}; the queue's current key is {found.key_id}. "
                "Give the worker the current key, or make this one current with `leaderboard queue-key rotate "
                f"--requests {dataset.repo_id} --new-key PATH`."
            )
        return found

    head = store.head()
    listing = store.files(head)
    try:
        found = published_keyring(store, head, listing)
    except BadInput as exc:
        raise BadInput(f"{exc} Replace it (leaderboard queue-key rotate), or remove it.") from None
    if found is not None and KEYRING_FILE in listing:
        change(found)
        return f"queue key {mine.key_id} (current in {where})"
    publish_keyring(store, change, "The evaluation queue's keyring")
    return f"queue key {mine.key_id} (current; keyring published in {where})"


def hidden_from_runs(key_file: Path | None) -> list[Path]:
    """What a sandboxed run must not see: the worker's usual credential folders, the queue key's folder
    (bubblewrap mounts an empty folder over it; the run's own paths are bound back on top) and the key file
    itself (masked after those, in case a folder the run reads holds it)."""
    from leaderboard.queue.sandbox import hidden_by_default

    key = [Path(key_file).resolve().parent, Path(key_file).resolve()] if key_file else []
    return [*hidden_by_default(), *key]


def refuse_unisolated_key(key_file: Path | None, isolation: str) -> None:
    """Under isolation "process" a plugin runs as the worker's user: it could read the key file (or the
    worker's memory) and sign anything. The worker refuses to hold the queue key there."""
    if key_file and isolation != "bwrap":
        raise BadInput(
            f"--attestation-key with --isolation {isolation}: a plugin would run as this user and could read "
            "the queue's key and attest anything. Use --isolation bwrap, or run this worker without the key "
            "(its results are then published as pushed, not as evaluated by the queue)."
        )
