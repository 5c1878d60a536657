"""Query complexity as content words (CW), eq. 1 of "Complexity-Aware Training for OOD Generalization
in Dense Retrieval" (seed paper 002):

    CW(q) = |{w in tok(q) : w not in S and |w| > 1}|

the number of UNIQUE tokens of the query that are not stopwords and are longer than one character.
tok is a regex tokeniser on Unicode word boundaries, ``(?u)\\b\\w+\\b`` on the lower-cased text (the
paper's regex tokeniser for space-delimited languages, its Table 27); the paper names no English
stopword list, so S is bm25s' English list (the one the BM25 plugin uses). Both are module constants
and ``describe()`` returns them, so a result records exactly how CW was computed.

The paper reports CW at the level of a benchmark: the mean CW of its queries (Appendix E, Table 19)
and correlations across benchmarks and training conditions (Table 8). ``mean_cw`` is that number. The
per-query buckets and the per-query correlation below are this project's own analysis, not the paper's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
from bm25s.stopwords import STOPWORDS_EN
from scipy import stats

TOKEN_PATTERN = r"(?u)\b\w+\b"
STOPWORDS_NAME = "bm25s.stopwords.STOPWORDS_EN"
STOPWORDS: frozenset[str] = frozenset(STOPWORDS_EN)
DEFINITION = "CW(q) = |{w in tok(q) : w not in S and |w| > 1}|: unique non-stopword tokens longer than one character"
SOURCE = "Complexity-Aware Training for OOD Generalization in Dense Retrieval, eq. 1"
BUCKET_METHOD = (
    "numpy linear quantiles at i/n_buckets give right-closed buckets (cut_(i-1) < CW <= cut_i); empty buckets "
    "are dropped; while fewer than min(n_buckets, distinct CW values) remain, the bucket with the most queries "
    "that spans several CW values is split where its two halves are closest in size"
)
_TOKEN = re.compile(TOKEN_PATTERN)


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def content_words(text: str) -> int:
    """CW of one query (eq. 1): a set, so a repeated word counts once."""
    return len({token for token in tokens(text) if token not in STOPWORDS and len(token) > 1})


def mean_cw(texts: Iterable[str]) -> float | None:
    """The mean CW of a task's queries: the paper's complexity of a benchmark (None without queries)."""
    values = [content_words(text) for text in texts]
    return float(np.mean(values)) if values else None


def _split_largest(groups: list[list[int]], counts: dict[int, int]) -> bool:
    """Split the most populous multi-value group into two contiguous halves; False if none can split."""
    splittable = [i for i, group in enumerate(groups) if len(group) > 1]
    if not splittable:
        return False
    i = max(splittable, key=lambda j: sum(counts[v] for v in groups[j]))  # first one on ties
    group = groups[i]
    sizes = [counts[v] for v in group]
    total = sum(sizes)
    cut = min(range(1, len(group)), key=lambda c: abs(2 * sum(sizes[:c]) - total))
    groups[i : i + 1] = [group[:cut], group[cut:]]
    return True


def cw_buckets(cw_by_query: Mapping[str, int], n_buckets: int = 4) -> tuple[dict[str, str], list[tuple[int, int]]]:
    """Quantile buckets of CW. Returns (query id -> label such as "cw=3-5", inclusive (low, high) per bucket).

    Labels name the smallest and largest CW actually in the bucket ("cw=4" when they agree), so every
    bucket is non-empty and the ranges do not overlap; boundaries are in increasing CW order.
    """
    if n_buckets < 1:
        raise ValueError(f"n_buckets must be >= 1, got {n_buckets}")
    if not cw_by_query:
        return {}, []
    values = np.array(list(cw_by_query.values()), dtype=float)
    distinct, counts_arr = np.unique(values.astype(int), return_counts=True)
    counts = dict(zip(distinct.tolist(), counts_arr.tolist(), strict=True))
    cuts = np.quantile(values, np.arange(1, n_buckets) / n_buckets)
    bucket_of = np.searchsorted(cuts, distinct, side="left")  # v <= cuts[0] -> 0, cuts[0] < v <= cuts[1] -> 1, ...
    groups = [distinct[bucket_of == i].tolist() for i in range(n_buckets)]
    groups = [g for g in groups if g]  # ties make quantile cut points coincide and leave buckets empty
    while len(groups) < min(n_buckets, len(distinct)) and _split_largest(groups, counts):
        pass
    boundaries = [(int(g[0]), int(g[-1])) for g in groups]
    label_of = {v: _label(lo, hi) for (lo, hi), g in zip(boundaries, groups, strict=True) for v in g}
    return {qid: label_of[int(cw)] for qid, cw in cw_by_query.items()}, boundaries


def _label(low: int, high: int) -> str:
    return f"cw={low}" if low == high else f"cw={low}-{high}"


def cw_correlation(cw_by_query: Mapping[str, int], score_by_query: Mapping[str, float]) -> tuple[float, float] | None:
    """Pearson r between CW and a per-query score, and its two-sided p, over the queries both cover.

    None when fewer than 3 queries are shared or either variable is constant (r is undefined).
    """
    shared = sorted(set(cw_by_query) & set(score_by_query))
    if len(shared) < 3:
        return None
    x = np.array([cw_by_query[q] for q in shared], dtype=float)
    y = np.array([score_by_query[q] for q in shared], dtype=float)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return None
    result = stats.pearsonr(x, y)
    return float(result.statistic), float(result.pvalue)


def describe() -> dict[str, Any]:
    """How CW was computed: recorded in every result beside the numbers."""
    return {
        "measure": DEFINITION,
        "source": SOURCE,
        "tokenizer": {"pattern": TOKEN_PATTERN, "lowercase": True},
        "stopwords": {"name": STOPWORDS_NAME, "size": len(STOPWORDS)},
    }


def describe_strata() -> dict[str, Any]:
    """How the per-query strata and correlation were computed (this project's analysis)."""
    return {
        "buckets": BUCKET_METHOD,
        "correlation": "scipy.stats.pearsonr over queries with both CW and a score; None below 3 or if constant",
    }
