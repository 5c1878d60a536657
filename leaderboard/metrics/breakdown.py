"""Mean per-query metrics over named subsets of queries (per type, per group, per category)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping


def subset_means(
    per_query: Mapping[str, Mapping[str, float]], groups: Mapping[str, Iterable[str]]
) -> tuple[dict[str, dict[str, float]], dict[str, int]]:
    """groups: query id -> subset names it belongs to. Returns (subset -> metric -> mean, subset -> size).

    A metric is averaged over the subset's queries that have it (LSNC exists only for negation queries).
    """
    sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    sizes: dict[str, int] = defaultdict(int)
    for qid, values in per_query.items():
        for subset in groups.get(qid, ()):
            sizes[subset] += 1
            for name, value in values.items():
                sums[subset][name] += value
                counts[subset][name] += 1
    means = {
        subset: {name: total / counts[subset][name] for name, total in metrics.items()}
        for subset, metrics in sums.items()
    }
    return means, dict(sizes)


def subset_members(groups: Mapping[str, Iterable[str]], queries: Iterable[str] | None = None) -> dict[str, list[str]]:
    """groups: query id -> subset names it belongs to. Returns subset -> its query ids (sorted).

    ``queries``: only these ids count (those that have per-query values), so membership matches the
    queries ``subset_means`` averaged over. This is ``ScoreReport.subset_queries``.
    """
    kept = None if queries is None else set(queries)
    members: dict[str, list[str]] = defaultdict(list)
    for qid, subsets in groups.items():
        if kept is None or qid in kept:
            for subset in subsets:
                if subset != "default":  # all queries: never listed
                    members[subset].append(qid)
    return {subset: sorted(ids) for subset, ids in members.items()}
