"""The per-query field of a result: per-query values and subset membership, compact and checksummed.

Its own module so that ``records.result`` (which validates a result) and ``records.per_query_checks``
(which the validation calls) both read it without importing each other.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class SubsetQueries(_Record):
    """Subset name -> the ids of its queries (main split), gzip-compressed JSON in base64."""

    encoding: Literal["gzip+base64+json"] = "gzip+base64+json"
    count: Annotated[int, Field(ge=0)]  # subsets
    sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
    data: str


class PerQuery(_Record):
    """Per-query (per-record) values of the main metrics, gzip-compressed JSON in base64."""

    encoding: Literal["gzip+base64+json"] = "gzip+base64+json"
    metrics: list[str]
    count: Annotated[int, Field(ge=0)]
    sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
    data: str
    # Which queries form each subset of the main split (``ScoreReport.subset_queries``: subset -> query
    # ids), packed like ``data`` with its own checksum. Absent in files written before it was stored:
    # their subsets then get no per-query interval.
    subsets: SubsetQueries | None = None


def _pack(value: Any) -> tuple[str, str]:
    """(sha256 of the sorted JSON, its gzip in base64): compact and checksummed."""
    import base64
    import gzip
    import hashlib

    payload = json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False).encode()
    return hashlib.sha256(payload).hexdigest(), base64.b64encode(gzip.compress(payload, mtime=0)).decode("ascii")


def _unpack(data: str, sha256: str, what: str, max_bytes: int) -> Any:
    import base64
    import gzip
    import hashlib
    import io
    import zlib

    try:
        with gzip.GzipFile(fileobj=io.BytesIO(base64.b64decode(data, validate=True))) as handle:
            payload = handle.read(max_bytes + 1)  # bounded: a hostile file cannot inflate without limit
    except (ValueError, OSError, EOFError, zlib.error) as exc:
        raise ValueError(f"{what} data is damaged: {exc}") from None
    if len(payload) > max_bytes:
        raise ValueError(f"{what} data is larger than allowed")
    if hashlib.sha256(payload).hexdigest() != sha256:
        raise ValueError(f"{what} data does not match its sha256")
    return json.loads(payload)


def encode_per_query(
    values: dict[str, dict[str, float]], subset_queries: dict[str, list[str]] | None = None
) -> PerQuery:
    """Per-query values (and which queries form each subset) as a compact, checksummed field."""
    sha256, data = _pack(values)
    metrics = sorted({m for row in values.values() for m in row})
    subsets = None
    if subset_queries:
        members = {name: sorted(ids) for name, ids in subset_queries.items()}
        subsets_sha256, subsets_data = _pack(members)
        subsets = SubsetQueries(count=len(members), sha256=subsets_sha256, data=subsets_data)
    return PerQuery(metrics=metrics, count=len(values), sha256=sha256, data=data, subsets=subsets)


def decode_per_query(field: PerQuery, max_bytes: int = 256 * 2**20) -> dict[str, dict[str, float]]:
    """The per-query values back; ValueError when the data is damaged or does not match its checksum."""
    values = _unpack(field.data, field.sha256, "per_query", max_bytes)
    if not isinstance(values, dict) or len(values) != field.count:
        raise ValueError("per_query data does not hold the declared number of queries")
    return values


def decode_subset_queries(field: PerQuery, max_bytes: int = 256 * 2**20) -> dict[str, list[str]]:
    """Subset -> its query ids ({} when the file has no membership); ValueError when damaged or malformed."""
    if field.subsets is None:
        return {}
    members = _unpack(field.subsets.data, field.subsets.sha256, "per_query subsets", max_bytes)
    if not isinstance(members, dict) or len(members) != field.subsets.count:
        raise ValueError("per_query subsets data does not hold the declared number of subsets")
    for name, ids in members.items():
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise ValueError(f"per_query subsets: subset {name!r} is not a list of query ids")
    return members
