"""What each MultiConIR task declares: its metrics (with the paper's definitions), main score and views."""

from __future__ import annotations

from leaderboard.contract.task import Metric, View

from .loading import DOMAINS, K
from .notation import MAPPING, PAIR_LABELS, PAIR_NAMES, PAIRS

REFERENCE = "https://github.com/EIT-NLP/MultiConIR"
CITATION = "Lu et al. MultiConIR: Towards Multi-Conditional Information Retrieval. arXiv:2503.08046 (2025)."
# The title as the paper prints it; the copy we read is the anonymous review version, so only the first
# author's name (from the arXiv listing the citation above names) is given.
BIBTEX = """@article{lu2025multiconir,
  title = {MultiConIR: Towards Multi-Conditional Information Retrieval},
  author = {Lu and others},
  journal = {arXiv preprint arXiv:2503.08046},
  year = {2025},
  url = {https://arxiv.org/abs/2503.08046}
}"""
INSTRUCTION = "Given a domain retrieval query, retrieve documents that meet the specified conditions."


def metrics(key: str) -> tuple[list[Metric], str]:
    """The task's metrics, in the order metrics.per_record fills its columns, and its main score."""
    if key == "task1":
        declared = [Metric(f"win_rate_k{k}", "higher", f"P[s(Query{k}, Positive) > s(Query{k}, HN{k})]") for k in K]
        declared += [  # score differences: unbounded
            Metric(f"margin_k{k}", "higher", f"mean s(Query{k}, Positive) - s(Query{k}, HN{k})", None, None) for k in K
        ]
        declared += [
            Metric("decline", "lower", "win_rate_k1 - win_rate_k10", -1.0, 1.0),
            Metric("mean_win_rate", "higher", "mean of win_rate_k1..k10", label="mean WR"),
        ]
        return declared, "mean_win_rate"
    if key == "task3":
        declared = [
            Metric(
                "flip_rate",
                "lower",
                "fraction of (record, adjacent pair) outcomes that differ between Query10 and Natural_Query10",
                label="Flip Rate",
            )
        ]
        declared += [
            Metric(
                f"flip_rate_{p}",
                "lower",
                f"pair {PAIR_LABELS[p]}: fraction of records whose outcome s({a}) > s({b}) differs between "
                "Query10 and Natural_Query10",
            )
            for p, (a, b) in zip(PAIR_NAMES, PAIRS)
        ]
        declared += [
            Metric(f"mean_adjacent_win_rate_{style}", "higher", f"mean of the ten adjacent win rates under {column}")
            for style, column in (("instruction", "Query10"), ("natural", "Natural_Query10"))
        ]
        return declared, "flip_rate"
    declared = [
        Metric(f"win_rate_{p}", "higher", f"pair {PAIR_LABELS[p]}: P[s(Query10, {a}) > s(Query10, {b})]")
        for p, (a, b) in zip(PAIR_NAMES, PAIRS)
    ]
    declared += [
        Metric("mean_adjacent_win_rate", "higher", "mean of the ten adjacent win rates", label="mean adjacent WR")
    ]
    return declared, "mean_adjacent_win_rate"


def views(key: str) -> list[View]:
    domains = {f"domain={d}": d for d in DOMAINS}
    if key == "task1":
        return [
            View(
                "curve",
                "Win rate vs number of conditions (WR_k)",
                metrics=tuple(f"win_rate_k{k}" for k in K),
                labels={f"win_rate_k{k}": str(k) for k in K},
                description="WR_k = P[s(Query_k, d⁺) > s(Query_k, HN_k)], macro average over the five domains; "
                "a tie is a loss.",
                y_range=(0.0, 1.0),
            ),
            View(
                "table",
                "Mean WR and Decline",
                metrics=("mean_win_rate", "decline"),
                labels={"mean_win_rate": "mean WR", "decline": "Decline (WR_1 - WR_10) ↓"},
            ),
            View(
                "table",
                "Mean WR per domain",
                subsets=tuple(domains),
                metrics=("mean_win_rate",),
                labels=domains,
            ),
        ]
    if key == "task3":
        return [
            View(
                "bars",
                "Flip rate per domain (lower is better)",
                subsets=("default", *domains),
                metrics=("flip_rate",),
                labels={"default": "all (macro)"} | domains,
                description="Fraction of adjacent-pair outcomes that change between the instruction-style "
                "Query10 and the descriptive Natural_Query10.",
                y_range=(0.0, 1.0),
            ),
            View(
                "curve",
                "Flip rate per adjacent pair",
                metrics=tuple(f"flip_rate_{p}" for p in PAIR_NAMES),
                labels={f"flip_rate_{p}": PAIR_LABELS[p] for p in PAIR_NAMES},
                description=f"Pairs d_k vs d_{{k-1}} in the order of the paper's Tables 18-20; {MAPPING}.",
                y_range=(0.0, 1.0),
            ),
        ]
    title = "Adjacent win rates (relevance monotonicity)"
    description = (
        "WR_{k,k-1} = P[s(Query10, d_k) > s(Query10, d_{k-1})], in the order of the paper's Tables 18-20 "
        f"(d₁ vs d₀ … d₁₀ vs d₉; Fig. 4); {MAPPING}."
    )
    if key.startswith("task4"):
        words = key.split("-")[1]
        title = f"Adjacent win rates on {words}-word documents"
        description += " Compare with multiconir-task2 (the same pairs on the original documents)."
    return [
        View(
            "curve",
            title,
            metrics=tuple(f"win_rate_{p}" for p in PAIR_NAMES),
            labels={f"win_rate_{p}": PAIR_LABELS[p] for p in PAIR_NAMES},
            description=description,
            y_range=(0.0, 1.0),
        ),
        View(
            "table",
            "Mean adjacent win rate per domain",
            subsets=tuple(domains),
            metrics=("mean_adjacent_win_rate",),
            labels=domains,
        ),
    ]
