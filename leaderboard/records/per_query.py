"""The per-query field of a result: per-query values and subset membership, compact and checksummed.

The field's models and its encoding; decoding needs no pydantic and lives in ``per_query_codec``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

# Re-exported (``X as X``): the decoders live beside the packing, free of pydantic.
from leaderboard.records.per_query_codec import decode_per_query as decode_per_query
from leaderboard.records.per_query_codec import decode_subset_queries as decode_subset_queries
from leaderboard.records.per_query_codec import pack


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


def encode_per_query(
    values: dict[str, dict[str, float]], subset_queries: dict[str, list[str]] | None = None
) -> PerQuery:
    """Per-query values (and which queries form each subset) as a compact, checksummed field."""
    sha256, data = pack(values)
    metrics = sorted({m for row in values.values() for m in row})
    subsets = None
    if subset_queries:
        members = {name: sorted(ids) for name, ids in subset_queries.items()}
        subsets_sha256, subsets_data = pack(members)
        subsets = SubsetQueries(count=len(members), sha256=subsets_sha256, data=subsets_data)
    return PerQuery(metrics=metrics, count=len(values), sha256=sha256, data=data, subsets=subsets)
