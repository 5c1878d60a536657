"""Reciprocal rank fusion: score(d) = sum over rankings r of 1 / (k + rank_r(d)), ranks from 1."""

from __future__ import annotations

RRF_K = 60  # the constant from the original paper


def ranks(scores: dict[str, float]) -> dict[str, int]:
    """1-based ranks, score descending, ties broken by id descending (trec_eval's order)."""
    ordered = sorted(scores.items(), key=lambda item: (item[1], item[0]), reverse=True)
    return {doc: position for position, (doc, _) in enumerate(ordered, start=1)}


def rrf(rankings: list[dict[str, float]], k: int = RRF_K, top_k: int | None = None) -> dict[str, float]:
    fused: dict[str, float] = {}
    for ranking in rankings:
        for doc, rank in ranks(ranking).items():
            fused[doc] = fused.get(doc, 0.0) + 1.0 / (k + rank)
    ordered = sorted(fused.items(), key=lambda item: (item[1], item[0]), reverse=True)
    return dict(ordered[:top_k] if top_k else ordered)
