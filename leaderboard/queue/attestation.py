"""Attestations: a queue worker's signed word that it computed a result file, checkable by any reader.

A worker holding the queue's ed25519 private key signs, for each result it publishes, the file's
sha256, the request id, the plugin spec, the worker id and the file's path in the results dataset.
The signature goes into a sidecar, ``<task>.attestation.json`` beside ``<task>.json``: the result
file itself (and its per-query seal) stays byte for byte what the run wrote, so the sha256 that is
signed is the sha256 of the file readers download, and a pushed result needs no new field.

The public key is published in the requests dataset as ``queue-public-key.pem``: whoever can write
the results dataset (and so replace a result and its sidecar) cannot also choose the key readers
check it with. Readers take the key from there (``hf://ORG/NAME`` of the requests dataset) or from
a PEM file, never from the results folder they check.

``cryptography`` does the signing (ed25519); nothing here is hand-written cryptography.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from leaderboard.errors import BadInput
from leaderboard.records.listing import ATTESTATION_SUFFIX, attestation_path

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

    from leaderboard.hub.store import Upload
    from leaderboard.queue.dataset import RequestsDataset

FORMAT = "leaderboard-attestation/1"
SUFFIX = ATTESTATION_SUFFIX
PUBLIC_KEY_FILE = "queue-public-key.pem"  # at the root of the requests dataset
PRIVATE_KEY_ENV = "LEADERBOARD_QUEUE_KEY_FILE"  # the worker's private key: a path to a PEM file (never its text)
PUBLIC_KEY_ENV = "LEADERBOARD_QUEUE_PUBLIC_KEY"  # readers: a PEM file, or hf://ORG/NAME (the requests dataset)
MAX_ATTESTATION_BYTES = 16 * 1024
MAX_KEY_BYTES = 16 * 1024
EVALUATED_BY_THE_QUEUE = "evaluated by the queue"

Status = Literal["attested", "not attested", "unchecked", "invalid"]


class Attestation(BaseModel):
    model_config = ConfigDict(extra="forbid")
    format: Literal["leaderboard-attestation/1"] = "leaderboard-attestation/1"
    result: Annotated[str, Field(min_length=1, max_length=1000)]  # the file's path in the results dataset
    sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
    request: Annotated[str, Field(min_length=1, max_length=200)]
    plugin: Annotated[str, Field(min_length=1, max_length=2000)]
    worker: Annotated[str, Field(min_length=1, max_length=200)]
    key_id: Annotated[str, Field(pattern=r"^[0-9a-f]{16}$")]
    signature: Annotated[str, Field(min_length=1, max_length=200)]  # base64 of the 64-byte ed25519 signature

    def signed_bytes(self) -> bytes:
        """What the signature covers: every other field, as canonical JSON (sorted keys, no spaces)."""
        fields = self.model_dump(mode="json", exclude={"signature"})
        return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")

    def to_bytes(self) -> bytes:
        return (json.dumps(self.model_dump(mode="json"), indent=2, sort_keys=True) + "\n").encode()


@dataclass(frozen=True)
class QueueKey:
    """The queue's public key as a reader holds it, and where it came from (said in every verdict)."""

    public: Ed25519PublicKey
    key_id: str
    source: str


@dataclass(frozen=True)
class Verdict:
    status: Status
    detail: str
    attestation: Attestation | None = None

    @property
    def attested(self) -> bool:
        return self.status == "attested"


# -- keys -----------------------------------------------------------------------------------------
def key_id(public: Ed25519PublicKey) -> str:
    """The first 16 hex digits of the sha256 of the raw public key: names a key in messages."""
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    return hashlib.sha256(public.public_bytes(Encoding.Raw, PublicFormat.Raw)).hexdigest()[:16]


def public_pem(private: Ed25519PrivateKey) -> bytes:
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    return private.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)


def load_private_key(path: str | Path) -> Ed25519PrivateKey:
    """The worker's key from a PEM file (PKCS#8, unencrypted: ``openssl genpkey -algorithm ed25519``).

    Errors name the file and what was expected, never a byte of it."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    where = f"queue key {path} ({PRIVATE_KEY_ENV} / --attestation-key)"
    try:
        data = Path(path).read_bytes()[: MAX_KEY_BYTES + 1]
    except OSError as exc:
        raise BadInput(f"{where}: cannot be read ({exc.strerror or type(exc).__name__}).") from None
    try:
        key = load_pem_private_key(data, password=None) if len(data) <= MAX_KEY_BYTES else None
    except (ValueError, TypeError):
        key = None
    if not isinstance(key, Ed25519PrivateKey):
        raise BadInput(
            f"{where}: expected an unencrypted ed25519 private key in PEM (openssl genpkey -algorithm ed25519)."
        )
    return key


def load_public_key(data: bytes, source: str) -> QueueKey:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    from cryptography.hazmat.primitives.serialization import load_pem_public_key

    try:
        key = load_pem_public_key(data) if len(data) <= MAX_KEY_BYTES else None
    except (ValueError, TypeError):
        key = None
    if not isinstance(key, Ed25519PublicKey):
        raise BadInput(f"{source}: expected the queue's ed25519 public key in PEM.")
    return QueueKey(key, key_id(key), source)


def read_queue_key(spec: str, endpoint: str | None = None, option: str = "--queue-key") -> QueueKey:
    """The queue's public key from a PEM file, or from ``hf://ORG/NAME`` (the requests dataset's PUBLIC_KEY_FILE)."""
    if spec.startswith("hf://"):
        from leaderboard.queue.dataset import RequestsDataset

        dataset = RequestsDataset(spec.removeprefix("hf://"), endpoint, option=option)
        store = dataset.store
        head = store.head()
        if PUBLIC_KEY_FILE not in store.files(head):
            raise BadInput(f"{option} {spec}: the requests dataset publishes no {PUBLIC_KEY_FILE}.")
        return load_public_key(store.read(PUBLIC_KEY_FILE, head)[: MAX_KEY_BYTES + 1], f"{spec}/{PUBLIC_KEY_FILE}")
    try:
        data = Path(spec).read_bytes()[: MAX_KEY_BYTES + 1]
    except OSError as exc:
        raise BadInput(f"--queue-key {spec}: cannot be read ({exc.strerror or type(exc).__name__}).") from None
    return load_public_key(data, spec)


def queue_key_option(spec: str | None, endpoint: str | None = None, option: str = "--queue-key") -> QueueKey | None:
    """The key a reader command was given (--queue-key, else LEADERBOARD_QUEUE_PUBLIC_KEY), or None."""
    spec = spec or os.environ.get(PUBLIC_KEY_ENV) or None
    return read_queue_key(spec, endpoint, option) if spec else None


# -- signing (the worker) -------------------------------------------------------------------------
def is_attestation(name: str) -> bool:
    return name.endswith(SUFFIX)


def sign(private: Ed25519PrivateKey, result: str, data: bytes, request: str, plugin: str, worker: str) -> bytes:
    """The sidecar file attesting ``data``, published at ``result`` for ``request``."""
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


# -- checking (every reader) ----------------------------------------------------------------------
def check(result_file: Path, key: QueueKey | None) -> Verdict:
    """Whether ``result_file`` is attested by the queue: its sidecar holds, for these very bytes, a signature
    by ``key``. Any file may be hostile: every failure is a verdict naming what is wrong, never an exception."""
    sidecar = Path(attestation_path(str(result_file)))
    if not sidecar.is_file():
        return Verdict("not attested", "pushed: no attestation by the queue")
    try:
        attestation = _read(sidecar.read_bytes()[: MAX_ATTESTATION_BYTES + 1], str(sidecar))
    except (OSError, BadInput) as exc:
        return Verdict("invalid", f"its attestation cannot be read ({exc})")
    if key is None:
        return Verdict(
            "unchecked",
            f"carries an attestation (key {attestation.key_id}) but no queue key was given to check it "
            f"(--queue-key or {PUBLIC_KEY_ENV})",
            attestation,
        )
    if attestation.key_id != key.key_id:
        return Verdict(
            "invalid",
            f"attested with another key ({attestation.key_id}), not the queue's ({key.key_id}, from {key.source})",
            attestation,
        )
    from cryptography.exceptions import InvalidSignature

    try:
        key.public.verify(base64.b64decode(attestation.signature, validate=True), attestation.signed_bytes())
    except (InvalidSignature, ValueError):
        return Verdict("invalid", f"its attestation's signature does not verify with the queue's key ({key.key_id})")
    try:
        digest = _sha256(result_file)
    except OSError as exc:
        return Verdict("invalid", f"cannot be read ({exc.strerror or type(exc).__name__})", attestation)
    if digest != attestation.sha256:
        return Verdict(
            "invalid",
            f"the file changed since the queue attested it (sha256 {digest[:12]}…, "
            f"attested {attestation.sha256[:12]}…)",
            attestation,
        )
    if Path(attestation.result).name != result_file.name:
        return Verdict("invalid", f"the attestation is for another file ({attestation.result})", attestation)
    return Verdict(
        "attested",
        f"{EVALUATED_BY_THE_QUEUE}: request {attestation.request}, worker {attestation.worker}",
        attestation,
    )


def _read(data: bytes, where: str) -> Attestation:
    from leaderboard.queue.requests import read_record

    return read_record(Attestation, data, where, "queue attestation", MAX_ATTESTATION_BYTES)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# -- the worker's side ----------------------------------------------------------------------------
def sidecars(private: Ed25519PrivateKey, results: list[Upload], request: str, plugin: str, worker: str) -> list[Upload]:
    """One attestation upload beside each result upload."""
    from leaderboard.hub.store import Upload

    return [
        Upload(attestation_path(u.path_in_repo), sign(private, u.path_in_repo, u.data, request, plugin, worker))
        for u in results
    ]


def publish_key(dataset: RequestsDataset, private: Ed25519PrivateKey) -> str:
    """Make sure the requests dataset publishes this worker's public key; what was done, for the log.

    A dataset that already publishes another key is refused (BadInput): two keys would make every
    reader's check depend on which one it read; the owner replaces the file on purpose, by hand."""
    from leaderboard.hub.store import PushConflict

    store = dataset.store
    where = f"{dataset.repo_id}/{PUBLIC_KEY_FILE}"
    mine = key_id(private.public_key())
    for _ in range(3):  # another worker may publish the same key at the same moment
        head = store.head()
        if PUBLIC_KEY_FILE in store.files(head):
            try:
                published = load_public_key(store.read(PUBLIC_KEY_FILE, head)[: MAX_KEY_BYTES + 1], where)
            except BadInput as exc:
                raise BadInput(f"{exc} Replace it with the queue's public key, or remove it.") from None
            if published.key_id != mine:
                raise BadInput(
                    f"{where} is the public key {published.key_id}, not this worker's ({mine}): its attestations "
                    "would not verify. Give the worker the queue's key, or replace the published one."
                )
            return f"queue key {mine} (published in {where})"
        try:
            store.commit({PUBLIC_KEY_FILE: public_pem(private)}, "The evaluation queue's public key", head)
        except PushConflict:
            continue
        return f"queue key {mine} published in {where}"
    raise BadInput(f"{dataset.repo_id} kept changing while the queue key was published; start the worker again.")


# -- what readers print ---------------------------------------------------------------------------
PROVENANCE = {
    "attested": EVALUATED_BY_THE_QUEUE,
    "not attested": "pushed",
    "unchecked": "attested, not checked (no queue key)",
    "invalid": "attestation INVALID",
}


def provenance(verdict: Verdict) -> str:
    """The short word a listing shows for a verdict."""
    return PROVENANCE[verdict.status]


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
