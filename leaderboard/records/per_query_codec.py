"""Packing per-query values: gzip-compressed JSON in base64 with its sha256, and back.

Its own module, free of pydantic: the reader (``records.reader``) decodes the field from
the plain record, and the pydantic model (``records.per_query``) from its ``PerQuery``; both here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol


class PerQueryModel(Protocol):
    """``records.per_query.PerQuery``, named without importing pydantic."""

    def model_dump(self) -> dict[str, Any]: ...


Field = PerQueryModel | Mapping[str, Any]


def pack(value: Any) -> tuple[str, str]:
    """(sha256 of the sorted JSON, its gzip in base64): compact and checksummed."""
    import base64
    import gzip
    import hashlib

    payload = json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False).encode()
    return hashlib.sha256(payload).hexdigest(), base64.b64encode(gzip.compress(payload, mtime=0)).decode("ascii")


def unpack(data: str, sha256: str, what: str, max_bytes: int) -> Any:
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
    from pydantic_core import from_json  # the same values as json.loads, three times as fast (2,909 queries)

    return from_json(payload)


def _plain(field: Field) -> Mapping[str, Any]:
    """The field as the plain record holds it: both readers decode it."""
    return field if isinstance(field, Mapping) else field.model_dump()


def decode_per_query(field: Field, max_bytes: int = 256 * 2**20) -> dict[str, dict[str, float]]:
    """The per-query values back; ValueError when the data is damaged or does not match its checksum."""
    field = _plain(field)
    values = unpack(field["data"], field["sha256"], "per_query", max_bytes)
    if not isinstance(values, dict) or len(values) != field["count"]:
        raise ValueError("per_query data does not hold the declared number of queries")
    return values


def _named_ids(field: Field, key: str, what: str, max_bytes: int) -> dict[str, list[str]]:
    packed = _plain(field).get(key)
    if packed is None:
        return {}
    members = unpack(packed["data"], packed["sha256"], f"per_query {key}", max_bytes)
    if not isinstance(members, dict) or len(members) != packed["count"]:
        raise ValueError(f"per_query {key} data does not hold the declared number of {what}s")
    for name, ids in members.items():
        if not isinstance(ids, list) or not set(map(type, ids)) <= {str}:  # JSON: exactly str (map: C speed)
            raise ValueError(f"per_query {key}: {what} {name!r} is not a list of query ids")
    return members


def decode_subset_queries(field: Field, max_bytes: int = 256 * 2**20) -> dict[str, list[str]]:
    """Subset -> its query ids ({} when the file has no membership); ValueError when damaged or malformed."""
    return _named_ids(field, "subsets", "subset", max_bytes)


def decode_metric_queries(field: Field, max_bytes: int = 256 * 2**20) -> dict[str, list[str]]:
    """Metric -> the ids of the queries it is computed on, for the metrics the field lists ({} when it lists
    none, or was written before this was stored); ValueError when damaged or malformed."""
    return _named_ids(field, "metric_queries", "metric", max_bytes)


def macro_over(field: Field) -> list[str]:
    """The subsets whose means the default scores average ([]: the default scores are means over queries)."""
    found = _plain(field).get("macro_over")
    return [str(s) for s in found] if isinstance(found, list) else []
