"""p-MRR per og/changed query pair, exactly as mteb computes it for FollowIR and mFollowIR.

p-MRR ("pairwise MRR") is FollowIR's measure of instruction following (Weller et al. 2024,
arXiv:2403.15246; InF-IR, paper 003, "Evaluation Metrics", uses it as its main metric and defines
it by citing FollowIR, so mteb's code is the reference). A query ``q`` is run twice: with its
original instruction (run ``q-og``) and with a changed one (run ``q-changed``); ``qrel_diff[q]``
lists the documents the change made non-relevant. For each such document d, with R_og and R_new
its 1-based ranks in the two runs:

    change(d) = (1/R_og) / (1/R_new) - 1    if R_og >= R_new   (d moved up or stayed: <= 0)
              = 1 - (1/R_new) / (1/R_og)    otherwise          (d moved down, as asked: > 0)

p-MRR(q) = the mean of change(d) over q's documents; p-MRR = the mean over queries. Ranks follow
trec_eval's order (score descending, ties by document id descending) and a document missing from a
run ranks len(run) + 1 with score 0, as mteb's ``get_rank_from_dict``; a query without both runs is
skipped, as mteb's ``calculate_pmrr`` does (it logs a warning), and so is one without changed
documents (mteb has no row to average for it). mteb averages the per-document values with pandas
``groupby(qid).mean()`` and then over queries: this module keeps the per-query step, so the mean of
its values is mteb's p-MRR (tested against ``mteb._evaluators.retrieval_metrics.calculate_pmrr``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from leaderboard.metrics.retrieval import trec_order

OG_SUFFIX, CHANGED_SUFFIX = "-og", "-changed"


def rank_in(ranking: Mapping[str, float], doc: str) -> int:
    """1-based rank of ``doc`` in trec_eval's order; ``len(ranking) + 1`` when it is not there."""
    for rank, (candidate, _score) in enumerate(trec_order(dict(ranking)), start=1):
        if candidate == doc:
            return rank
    return len(ranking) + 1


def rank_change(og_rank: int, new_rank: int) -> float:
    """One document's p-MRR term; the expressions are mteb's ``rank_score``, kept as written for equal floats."""
    if og_rank >= new_rank:
        return ((1 / og_rank) / (1 / new_rank)) - 1
    return 1 - ((1 / new_rank) / (1 / og_rank))


def pmrr_per_pair(runs: Mapping[str, Mapping[str, float]], changed: Mapping[str, Sequence[str]]) -> dict[str, float]:
    """query id (without -og/-changed) -> p-MRR of that og/changed pair, for each pair both runs have."""
    out: dict[str, float] = {}
    for qid, docs in changed.items():
        og, new = runs.get(qid + OG_SUFFIX), runs.get(qid + CHANGED_SUFFIX)
        if og is None or new is None or not docs:
            continue
        terms = [rank_change(rank_in(og, doc), rank_in(new, doc)) for doc in docs]
        out[qid] = sum(terms) / len(terms)
    return out
