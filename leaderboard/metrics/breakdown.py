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
