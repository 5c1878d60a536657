"""Receipts: which result files a request's evaluation published, kept in the results dataset beside them.

A worker pushes a request's results and its receipt, ``queue/<request id>.json``, in one commit, so
the receipt is on the hub exactly when the results are. Publishing and marking the request finished
are two commits on two datasets; a worker can die (kill -9, a lost network) between them, leaving
the results published and the request running under a lease that expires. The retry (the next
claim, attempt 2) then finds the receipt and, when every file it names is still in the dataset with
the content it lists, marks the request finished with those paths: nothing is installed, run or
pushed again, and no result file is replaced. A receipt naming another request, another model or
plugin, or files that were changed or removed since, fails the request instead; result files
without a receipt are another run's, and the push never replaces them (``results_check``).

Anyone with write access to the results dataset can write a receipt, as they can write results:
a receipt is read as hostile input (``read_record``: bounded, ``safe_json``, validated) and never
trusted beyond the files it names.
"""

from __future__ import annotations

import json
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from leaderboard.errors import BadInput
from leaderboard.hub.store import HubStore, Upload, git_blob_sha1
from leaderboard.queue.requests import REQUEST_ID, EvalRequest, Lease, read_record
from leaderboard.queue.results_check import RequestFailed

RECEIPTS_PREFIX = "queue"
MAX_RECEIPT_BYTES = 256 * 1024


class FileHashes(BaseModel):
    """A file's content ids as the hub lists them: sha256 (an LFS file) and git blob sha1 (a regular one)."""

    model_config = ConfigDict(extra="forbid")
    sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
    git_blob: Annotated[str, Field(pattern=r"^[0-9a-f]{40}$")]

    def matches(self, remote_oid: str | None) -> bool:
        return remote_oid is not None and remote_oid in (self.sha256, self.git_blob)


class Receipt(BaseModel):
    model_config = ConfigDict(extra="forbid")
    schema_version: Literal["1"] = "1"
    request: Annotated[str, Field(pattern=REQUEST_ID)]
    requests_repo: str
    attempt: Annotated[int, Field(ge=1)]
    worker: Annotated[str, Field(min_length=1, max_length=200)]
    plugin: str
    model: str
    revision: str | None = None
    files: Annotated[dict[str, FileHashes], Field(min_length=1)]  # the request's result files

    def to_bytes(self) -> bytes:
        return (json.dumps(self.model_dump(mode="json"), indent=2, sort_keys=True) + "\n").encode()


def receipt_path(request_id: str) -> str:
    return f"{RECEIPTS_PREFIX}/{request_id}.json"


def receipt_upload(request: EvalRequest, lease: Lease, requests_repo: str, results: list[Upload]) -> Upload:
    """The receipt for ``results`` (the request's result files), pushed in their commit."""
    receipt = Receipt(
        request=request.id,
        requests_repo=requests_repo,
        attempt=lease.attempt,
        worker=lease.worker,
        plugin=request.plugin,
        model=request.model,
        revision=request.revision,
        files={u.path_in_repo: FileHashes(sha256=u.sha256, git_blob=git_blob_sha1(u.data)) for u in results},
    )
    return Upload(receipt_path(request.id), receipt.to_bytes())


def published(
    store: HubStore, request: EvalRequest, listing: dict[str, str | None], head: str | None
) -> Receipt | None:
    """The receipt of this request's results in ``store`` at ``head`` (``listing``: its files), None when none.

    RequestFailed when a receipt is there but does not hold: unreadable, for another request, model
    or plugin, or a file it names is missing or has other content now (the results are no longer
    the ones this request published, and re-running could only be refused at the push).
    """
    path = receipt_path(request.id)
    if path not in listing:
        return None
    where = f"{store.repo_id}: {path}"
    receipt = _read(store.read(path, head), where)
    if (receipt.request, receipt.model, receipt.plugin, receipt.revision) != (
        request.id,
        request.model,
        request.plugin,
        request.revision,
    ):
        raise RequestFailed(
            f"{where} is a receipt for request {receipt.request} ({receipt.model}, {receipt.plugin}), "
            f"not for this request ({request.model}, {request.plugin}); its results are not taken"
        )
    changed = sorted(p for p, hashes in receipt.files.items() if not hashes.matches(listing.get(p)))
    if changed:
        raise RequestFailed(
            f"attempt {receipt.attempt} ({receipt.worker}) published this request's results to {store.repo_id}, "
            f"but {len(changed)} of them were changed or removed since ({', '.join(changed[:3])}); "
            "they are not this request's results any more, and are never replaced"
        )
    return receipt


def _read(data: bytes, where: str) -> Receipt:
    try:
        return read_record(Receipt, data, where, "receipt", MAX_RECEIPT_BYTES)
    except BadInput as exc:
        raise RequestFailed(str(exc).rstrip(".")) from None
