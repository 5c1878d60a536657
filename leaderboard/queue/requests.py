"""The request record: one pydantic model for every file under ``requests/`` in a requests dataset.

Like the result record, it is the one place the shape is defined: the JSON Schema shipped in
``leaderboard/records/schema/eval-request-1.json`` is generated from it (``python -m
leaderboard.queue.requests``) and a test fails when the checked-in copy differs. A request file is
written by anyone with write access to the dataset, so it is read as hostile input: bounded in
size, parsed with ``safe_json``, validated here, and a file that fails is named and skipped.
"""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, model_validator

from leaderboard.records.bounded import read_record as read_record  # the queue's records are read through it

SCHEMA_VERSION = "1"
SCHEMA_FILE = f"eval-request-{SCHEMA_VERSION}.json"
REQUESTS_PREFIX = "requests"
LOGS_PREFIX = "logs"
MAX_REQUEST_BYTES = 256 * 1024  # a request is a few kB; its history grows by one line per state change

Status = Literal["pending", "running", "finished", "failed", "cancelled"]
OPEN: tuple[Status, ...] = ("pending", "running")
# A model id as `leaderboard run --model` takes it (plugin prefixes and hub ids: "st:org/name", "bm25").
MODEL_ID = r"^[A-Za-z0-9][A-Za-z0-9._:/@+=-]{0,199}$"
REVISION = r"^[A-Za-z0-9][A-Za-z0-9._/+-]{0,99}$"
REQUEST_ID = r"^[0-9]{8}T[0-9]{6}Z-[a-z0-9-]{1,48}-[0-9a-f]{6}$"
Text = Annotated[str, Field(min_length=1, max_length=2000)]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Lease(_Record):
    """Who runs the request now: a worker renews ``heartbeat`` while it works; an old one has expired."""

    worker: Annotated[str, Field(min_length=1, max_length=200)]
    attempt: Annotated[int, Field(ge=1)]
    claimed_at: AwareDatetime
    heartbeat: AwareDatetime


class Event(_Record):
    """One change of state, in the order they happened: the request's whole life."""

    at: AwareDatetime
    status: Status
    by: Annotated[str, Field(min_length=1, max_length=200)]  # "submit", or the worker's id
    note: Annotated[str, Field(max_length=2000)] = ""


class EvalRequest(_Record):
    schema_version: Literal["1"] = "1"
    id: Annotated[str, Field(pattern=REQUEST_ID)]
    plugin: Annotated[str, Field(min_length=1, max_length=500)]  # package==version or git+URL@<40-hex commit>
    model: Annotated[str, Field(pattern=MODEL_ID)]  # what the worker passes to `leaderboard run --model`
    revision: Annotated[str, Field(pattern=REVISION)] | None = None  # the model revision its results must carry
    benchmarks: Annotated[list[Annotated[str, Field(min_length=1, max_length=200)]], Field(min_length=1)]
    contact: Annotated[str, Field(min_length=3, max_length=200)]
    status: Status = "pending"
    attempts: Annotated[int, Field(ge=0)] = 0
    lease: Lease | None = None
    submitted_at: AwareDatetime
    started_at: AwareDatetime | None = None
    finished_at: AwareDatetime | None = None
    results_repo: str | None = None
    results: list[str] = Field(default_factory=list)  # paths of the pushed result files in results_repo
    pull_request: str | None = None  # with --create-pr: the pull request holding the results
    failure: Text | None = None
    log: str | None = None  # path of its log in the requests dataset (logs/<id>.txt)
    history: list[Event] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> EvalRequest:
        if self.status == "running" and self.lease is None:
            raise ValueError("a running request has a lease")
        if self.status == "failed" and not self.failure:
            raise ValueError("a failed request states its failure")
        if self.status == "finished" and not self.results:
            raise ValueError("a finished request names its result files")
        return self

    @property
    def path(self) -> str:
        return request_path(self.id)

    @property
    def submitter(self) -> str:
        """Who submitted it, for the per-submitter limit: the contact, compared case-insensitively."""
        return " ".join(self.contact.lower().split())

    def to_bytes(self) -> bytes:
        return (json.dumps(self.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n").encode()

    def moved(self, status: Status, by: str, note: str = "", at: datetime | None = None, **changes: Any) -> EvalRequest:
        """A copy in ``status`` with ``changes`` applied and the change appended to its history."""
        at = at or now()
        history = [*self.history, Event(at=at, status=status, by=by, note=note[:2000])]
        data = self.model_dump() | changes | {"status": status, "history": history}
        return EvalRequest.model_validate(data)


def now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def request_path(request_id: str) -> str:
    return f"{REQUESTS_PREFIX}/{request_id}.json"


def log_path(request_id: str) -> str:
    return f"{LOGS_PREFIX}/{request_id}.txt"


def new_id(model: str, at: datetime) -> str:
    """``<UTC time>-<model slug>-<6 hex>``: file names sort by submission time; the suffix keeps them unique."""
    slug = "".join(c if c.isalnum() else "-" for c in model.lower()).strip("-")
    slug = "-".join(part for part in slug.split("-") if part)[:48].strip("-") or "model"
    return f"{at.strftime('%Y%m%dT%H%M%SZ')}-{slug}-{secrets.token_hex(3)}"


def read_request(data: bytes, where: str) -> EvalRequest:
    """A request from a file's bytes, or BadInput naming the file and the first problems."""
    return read_record(EvalRequest, data, where, "request", MAX_REQUEST_BYTES)


def json_schema() -> dict[str, Any]:
    from leaderboard.records.result import model_schema

    return model_schema(EvalRequest, f"retrieval-leaderboard evaluation request, schema version {SCHEMA_VERSION}")


def schema_text() -> str:
    return json.dumps(json_schema(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":  # regenerate the checked-in schema
    from importlib import resources

    target = resources.files("leaderboard.records").joinpath("schema", SCHEMA_FILE)
    with open(str(target), "w", encoding="utf-8") as handle:
        handle.write(schema_text())
    print(f"wrote {SCHEMA_FILE}")
