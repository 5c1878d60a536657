"""The per-query field of a result: per-query values and subset membership, compact and checksummed.

The field's models and its encoding; decoding needs no pydantic and lives in ``per_query_codec``.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

# Re-exported (``X as X``): the decoders live beside the packing, free of pydantic.
from leaderboard.records.per_query_codec import decode_metric_queries as decode_metric_queries
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


class MetricQueries(SubsetQueries):
    """Metric name -> the ids of the queries it is computed on, packed the same way.

    Its own class (not the same model twice) keeps the generated core schema free of shared
    definitions, which the plain reader's conversion (``records.core_schema``) does not take."""


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
    # Which queries each metric is computed on, for the metrics computed on some queries only
    # (``ScoreReport.metric_queries``: ComLQ's LSNC exists for the negation queries its judge labelled).
    # A metric not listed has a value for every query. Absent in files written before it was stored:
    # there a metric's queries are those that have a value of it (the same reading, not checked).
    metric_queries: MetricQueries | None = None
    # How the main split's "default" scores aggregate these values (``ScoreReport.macro_over``): the mean
    # over these subsets of each subset's mean (MultiConIR: over its five domains). Absent: the mean over
    # the queries. Readers resample each listed subset on its own (stratified) and weigh it 1/len.
    macro_over: list[str] | None = None


Packed = TypeVar("Packed", bound=SubsetQueries)


def _packed(named: dict[str, list[str]] | None, model: type[Packed]) -> Packed | None:
    if not named:
        return None
    members = {name: sorted(ids) for name, ids in named.items()}
    sha256, data = pack(members)
    return model(count=len(members), sha256=sha256, data=data)


def encode_per_query(
    values: dict[str, dict[str, float]],
    subset_queries: dict[str, list[str]] | None = None,
    metric_queries: dict[str, list[str]] | None = None,
    macro_over: list[str] | None = None,
) -> PerQuery:
    """Per-query values (which queries form each subset, which each metric is computed on) as a compact,
    checksummed field. ``metric_queries`` lists only metrics not computed on every query."""
    sha256, data = pack(values)
    metrics = sorted({m for row in values.values() for m in row})
    return PerQuery(
        metrics=metrics,
        count=len(values),
        sha256=sha256,
        data=data,
        subsets=_packed(subset_queries, SubsetQueries),
        metric_queries=_packed(metric_queries, MetricQueries),
        macro_over=list(macro_over) if macro_over else None,
    )


def partial_metrics(values: dict[str, dict[str, float]]) -> dict[str, list[str]]:
    """Metric -> the ids of the queries that have a value of it, for each metric some query lacks."""
    having: dict[str, list[str]] = {}
    for qid, row in values.items():
        for metric in row:
            having.setdefault(metric, []).append(qid)
    return {metric: sorted(ids) for metric, ids in having.items() if len(ids) < len(values)}
