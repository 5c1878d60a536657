"""Reading and checking the queue's attestations: which results the evaluation queue computed, for every reader.

A queue worker holding the queue's ed25519 private key signs, for each result it publishes, the file's
sha256, the request id, the plugin spec, the worker id and the file's whole path in the results dataset
(``results/<model>/<revision>/<task>.json``). The signature goes into a sidecar beside the result
(``<task>.attestation.json``); signing is the worker's (``leaderboard.queue.attestation``).

Readers check a sidecar against the queue's **keyring**, published in the requests dataset
(``queue-keyring.json``), like a list of SSH host keys: every key the queue has used, each with its
id and dates. The current key signs new results. A key the operator retires (a routine rotation)
still vouches for what it signed: such a result reads "attested by retired key K (retired on DATE)".
Only a key the operator revokes (it leaked) makes its results invalid. A keyring is read from a
file (``--queue-key keyring.json``), or a single PEM public key counts as a keyring of one current key.

Every check is a ``Verdict``, never an exception: any file may be hostile. ``cryptography`` verifies
the signatures (ed25519); nothing here is hand-written cryptography.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from leaderboard.errors import BadInput
from leaderboard.records.bounded import read_record
from leaderboard.records.listing import ATTESTATION_SUFFIX, attestation_path

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

FORMAT = "leaderboard-attestation/1"
KEYRING_FORMAT = "leaderboard-keyring/1"
SUFFIX = ATTESTATION_SUFFIX
PUBLIC_KEY_FILE = "queue-public-key.pem"  # at the root of the requests dataset: the current key alone
KEYRING_FILE = "queue-keyring.json"  # beside it: every key, current, retired and revoked
PRIVATE_KEY_ENV = "LEADERBOARD_QUEUE_KEY_FILE"  # the worker's private key: a path to a PEM file (never its text)
PUBLIC_KEY_ENV = "LEADERBOARD_QUEUE_PUBLIC_KEY"  # readers: a keyring or PEM file, or hf://ORG/NAME
MAX_ATTESTATION_BYTES = 16 * 1024
MAX_KEY_BYTES = 16 * 1024
MAX_KEYRING_BYTES = 256 * 1024
EVALUATED_BY_THE_QUEUE = "evaluated by the queue"
RESULTS_PREFIX = "results"

Status = Literal["attested", "not attested", "unchecked", "invalid"]
KeyStatus = Literal["current", "retired", "revoked"]
KEY_ID = r"^[0-9a-f]{16}$"


class Attestation(BaseModel):
    model_config = ConfigDict(extra="forbid")
    format: Literal["leaderboard-attestation/1"] = "leaderboard-attestation/1"
    result: Annotated[str, Field(min_length=1, max_length=1000)]  # the file's whole path in the results dataset
    sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
    request: Annotated[str, Field(min_length=1, max_length=200)]
    plugin: Annotated[str, Field(min_length=1, max_length=2000)]
    worker: Annotated[str, Field(min_length=1, max_length=200)]
    key_id: Annotated[str, Field(pattern=KEY_ID)]
    signature: Annotated[str, Field(min_length=1, max_length=200)]  # base64 of the 64-byte ed25519 signature

    def signed_bytes(self) -> bytes:
        """What the signature covers: every other field, as canonical JSON (sorted keys, no spaces)."""
        fields = self.model_dump(mode="json", exclude={"signature"})
        return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")

    def to_bytes(self) -> bytes:
        return (json.dumps(self.model_dump(mode="json"), indent=2, sort_keys=True) + "\n").encode()


# -- keys and the keyring -------------------------------------------------------------------------
class KeyEntry(BaseModel):
    """One key of the keyring file as published."""

    model_config = ConfigDict(extra="forbid")
    id: Annotated[str, Field(pattern=KEY_ID)]
    public_key: Annotated[str, Field(min_length=1, max_length=2000)]  # PEM (SubjectPublicKeyInfo)
    created: date | None = None  # None: in use before the keyring recorded dates
    retired: date | None = None
    revoked: date | None = None
    reason: Annotated[str, Field(max_length=500)] = ""  # why it was revoked


class KeyringFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    format: Literal["leaderboard-keyring/1"] = "leaderboard-keyring/1"
    keys: Annotated[list[KeyEntry], Field(min_length=1, max_length=200)]


@dataclass(frozen=True)
class QueueKey:
    """A public key of the queue as a reader holds it."""

    public: Ed25519PublicKey
    key_id: str
    created: date | None = None
    retired: date | None = None
    revoked: date | None = None
    reason: str = ""

    @property
    def status(self) -> KeyStatus:
        return "revoked" if self.revoked else "retired" if self.retired else "current"

    def described(self) -> str:
        if self.revoked:
            return f"revoked key {self.key_id} (revoked on {self.revoked}{': ' + self.reason if self.reason else ''})"
        if self.retired:
            return f"retired key {self.key_id} (retired on {self.retired})"
        return f"current key {self.key_id}"

    def entry(self) -> KeyEntry:
        pem = public_pem(self.public).decode("ascii")
        return KeyEntry(
            id=self.key_id,
            public_key=pem,
            created=self.created,
            retired=self.retired,
            revoked=self.revoked,
            reason=self.reason,
        )


@dataclass(frozen=True)
class Keyring:
    """Every key of the queue, and where the reader took them from (said in every verdict)."""

    keys: tuple[QueueKey, ...]
    source: str

    @property
    def current(self) -> QueueKey | None:
        return next((k for k in self.keys if k.status == "current"), None)

    @property
    def key_id(self) -> str:
        """The current key's id (what new results are signed with); "none" when every key is retired or revoked."""
        current = self.current
        return current.key_id if current else "none"

    def get(self, key_id: str) -> QueueKey | None:
        return next((k for k in self.keys if k.key_id == key_id), None)

    def described(self) -> str:
        counts = {s: sum(k.status == s for k in self.keys) for s in ("retired", "revoked")}
        extra = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
        return f"queue key {self.key_id}" + (f" and {extra}" if extra else "") + f", from {self.source}"

    def to_bytes(self) -> bytes:
        document = KeyringFile(keys=[key.entry() for key in self.keys])
        return (json.dumps(document.model_dump(mode="json"), indent=2) + "\n").encode()


def key_id(public: Ed25519PublicKey) -> str:
    """The first 16 hex digits of the sha256 of the raw public key: names a key in messages."""
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    return hashlib.sha256(public.public_bytes(Encoding.Raw, PublicFormat.Raw)).hexdigest()[:16]


def public_pem(public: Ed25519PublicKey) -> bytes:
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    return public.public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)


def load_public_key(data: bytes, source: str) -> QueueKey:
    """A PEM public key (an ed25519 one), as the current key of the queue."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    from cryptography.hazmat.primitives.serialization import load_pem_public_key

    try:
        key = load_pem_public_key(data) if len(data) <= MAX_KEY_BYTES else None
    except (ValueError, TypeError):
        key = None
    if not isinstance(key, Ed25519PublicKey):
        raise BadInput(f"{source}: expected the queue's ed25519 public key in PEM.")
    return QueueKey(key, key_id(key))


def parse_keyring(data: bytes, source: str) -> Keyring:
    """A keyring from a file's bytes: the JSON keyring, or a single PEM public key (one current key)."""
    if data.lstrip().startswith(b"-----BEGIN"):
        return Keyring((load_public_key(data, source),), source)
    document = read_record(KeyringFile, data, source, "queue keyring", MAX_KEYRING_BYTES)
    keys = []
    for entry in document.keys:
        key = load_public_key(entry.public_key.encode("ascii", "replace"), f"{source}: key {entry.id}")
        if key.key_id != entry.id:
            raise BadInput(f"{source}: key {entry.id} is the public key {key.key_id}; an id names its key.")
        keys.append(replace(key, created=entry.created, retired=entry.retired, revoked=entry.revoked,
                            reason=entry.reason))  # fmt: skip
    ids = [k.key_id for k in keys]
    if len(set(ids)) != len(ids):
        raise BadInput(f"{source}: a key is listed twice; each key appears once.")
    if sum(k.status == "current" for k in keys) > 1:
        raise BadInput(f"{source}: more than one current key; retire all but one (leaderboard queue-key rotate).")
    return Keyring(tuple(keys), source)


def read_keyring_file(path: str | Path, option: str = "--queue-key") -> Keyring:
    try:
        data = Path(path).read_bytes()[: MAX_KEYRING_BYTES + 1]
    except OSError as exc:
        raise BadInput(f"{option} {path}: cannot be read ({exc.strerror or type(exc).__name__}).") from None
    return parse_keyring(data, str(path))


def rotated(keyring: Keyring | None, new: QueueKey, today: date, source: str) -> Keyring:
    """The keyring after a rotation: the current key retired today, ``new`` current from today."""
    keys = list(keyring.keys) if keyring else []
    known = next((k for k in keys if k.key_id == new.key_id), None)
    if known is not None:
        if known.status == "current":
            raise BadInput(f"{new.key_id} is already the queue's current key; make a new one to rotate to.")
        raise BadInput(f"{new.key_id} is a {known.status} key of the queue; a key never becomes current again.")
    keys = [replace(k, retired=today) if k.status == "current" else k for k in keys]
    return Keyring((*keys, replace(new, created=today, retired=None, revoked=None, reason="")), source)


def revoked(keyring: Keyring, key: str, today: date, reason: str) -> Keyring:
    """The keyring with ``key`` (an id) revoked today: every result it attested reads invalid from now on."""
    found = keyring.get(key)
    if found is None:
        raise BadInput(f"no key {key} in {keyring.source}; its keys: {', '.join(k.key_id for k in keyring.keys)}.")
    if found.status == "revoked":
        raise BadInput(f"key {key} was revoked on {found.revoked} already.")
    keys = tuple(replace(k, revoked=today, reason=reason) if k.key_id == key else k for k in keyring.keys)
    return Keyring(keys, keyring.source)


# -- checking (every reader) ----------------------------------------------------------------------
@dataclass(frozen=True)
class Verdict:
    status: Status
    detail: str
    attestation: Attestation | None = None
    retired: str = ""  # "attested by retired key K (retired on DATE)" when a retired key vouches for it

    @property
    def attested(self) -> bool:
        return self.status == "attested"


def is_attestation(name: str) -> bool:
    return name.endswith(SUFFIX)


def dataset_path(result_file: Path) -> str:
    """The path a result file has in the results dataset: ``results/<model>/<revision>/<task>.json`` from its
    last three parts (a pulled folder, or any folder in that layout)."""
    parts = Path(result_file).absolute().parts[-3:]
    return "/".join((RESULTS_PREFIX, *parts))


def check(result_file: Path, keyring: Keyring | None) -> Verdict:
    """Whether ``result_file`` is attested by the queue: its sidecar holds, for these very bytes at this very
    path (model, revision and task), a signature by a key of ``keyring`` that was not revoked. Any file may be
    hostile: every failure is a verdict naming what is wrong, never an exception."""
    sidecar = Path(attestation_path(str(result_file)))
    if not sidecar.is_file():
        return Verdict("not attested", "pushed: no attestation by the queue")
    try:
        attestation = read_record(
            Attestation, sidecar.read_bytes()[: MAX_ATTESTATION_BYTES + 1], str(sidecar), "queue attestation",
            MAX_ATTESTATION_BYTES,
        )  # fmt: skip
    except (OSError, BadInput) as exc:
        return Verdict("invalid", f"its attestation cannot be read ({exc})")
    if keyring is None:
        return Verdict(
            "unchecked",
            f"carries an attestation (key {attestation.key_id}) but no queue key was given to check it "
            f"(--queue-key or {PUBLIC_KEY_ENV})",
            attestation,
        )
    key = keyring.get(attestation.key_id)
    if key is None:
        return Verdict(
            "invalid",
            f"attested with another key ({attestation.key_id}), not one of the queue's ({keyring.described()})",
            attestation,
        )
    if key.status == "revoked":
        return Verdict("invalid", f"attested by {key.described()}; its results are not vouched for", attestation)
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
    here = dataset_path(result_file)
    if attestation.result != here:
        return Verdict(
            "invalid",
            f"the attestation is for {attestation.result}, not for this file's place ({here}): a result is "
            "attested for its model, revision and task",
            attestation,
        )
    by = f"request {attestation.request}, worker {attestation.worker}"
    if key.status == "retired":
        said = f"attested by {key.described()}"
        return Verdict("attested", f"{said}: {by}", attestation, retired=said)
    return Verdict("attested", f"{EVALUATED_BY_THE_QUEUE}: {by}", attestation)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# -- what readers print ---------------------------------------------------------------------------
PROVENANCE = {
    "attested": EVALUATED_BY_THE_QUEUE,
    "not attested": "pushed",
    "unchecked": "attested, not checked (no queue key)",
    "invalid": "attestation INVALID",
}


def provenance(verdict: Verdict) -> str:
    """The short words a listing shows for a verdict."""
    return verdict.retired or PROVENANCE[verdict.status]
