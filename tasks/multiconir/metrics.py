"""MultiConIR's metrics from the scores of each record's candidates (strict >: a tie is a loss).

Cross-domain numbers are macro averages over the five domains; every rate has a 95% bootstrap
interval over records, stratified by domain.
"""

from __future__ import annotations

import numpy as np

from leaderboard import BadInput
from leaderboard.contract.task import CandidateData, ScoreReport
from leaderboard.toolkit import N_RESAMPLES, macro_mean, stratified_bootstrap

from .loading import K
from .notation import INDEX, PAIRS

# What a result keeps per record (for paired significance tests): the main metrics of each task.
PER_RECORD = {
    "task1": ("mean_win_rate", "decline"),
    "task2": ("mean_adjacent_win_rate",),
    "task3": ("flip_rate",),
    "task4": ("mean_adjacent_win_rate",),
}


def adjacent_wins(scores: list[float]) -> list[float]:
    """1.0 where the pair's first document outscores the second, in the order of PAIRS."""
    return [1.0 if scores[INDEX[a]] > scores[INDEX[b]] else 0.0 for a, b in PAIRS]


def task1_row(pairs: list[list[float]]) -> list[float]:
    """WR_k wins, margins, decline and mean WR of one record (pairs[k-1] = [s(Positive), s(HN_k)])."""
    wins = [1.0 if p[0] > p[1] else 0.0 for p in pairs]  # strict: a tie is a loss
    margins = [p[0] - p[1] for p in pairs]
    return wins + margins + [wins[0] - wins[-1], float(np.mean(wins))]


def per_record(
    key: str, data: CandidateData, scores: dict[str, list[float]]
) -> tuple[dict[str, np.ndarray], dict[str, list[str]]]:
    """Per domain, a (records x metrics) array whose column means are the metrics (in the order the task
    declares them), and the row keys "<domain>/<row>". Records cut by --limit are left out."""
    per_domain: dict[str, np.ndarray] = {}
    keys: dict[str, list[str]] = {}
    for domain, n in data.extra["records"].items():
        rows, ids = [], []
        for i in range(n):
            if key == "task1":
                found = [scores.get(f"{domain}/{i}/k{k}") for k in K]
                pairs = [p for p in found if p is not None]
                if len(pairs) < len(found):
                    continue
                rows.append(task1_row(pairs))
            else:
                inst = scores.get(f"{domain}/{i}/instruction")
                nat = scores.get(f"{domain}/{i}/natural") if key == "task3" else None
                if inst is None or (key == "task3" and nat is None):
                    continue
                w_inst = adjacent_wins(inst)
                if nat is not None:
                    w_nat = adjacent_wins(nat)
                    flips = [float(a != b) for a, b in zip(w_inst, w_nat)]
                    rows.append([float(np.mean(flips))] + flips + [float(np.mean(w_inst)), float(np.mean(w_nat))])
                else:
                    rows.append(w_inst + [float(np.mean(w_inst))])
            ids.append(f"{domain}/{i}")
        if rows:
            per_domain[domain] = np.asarray(rows, dtype=float)
            keys[domain] = ids
    return per_domain, keys


def score_report(
    task_name: str, key: str, names: list[str], data: CandidateData, scores: dict[str, list[float]], seed: int
) -> ScoreReport:
    per_domain, keys = per_record(key, data, scores)
    if not per_domain:
        raise BadInput(
            f"{task_name}: no complete record was scored (is --limit smaller than one record's candidate sets?)."
        )
    out, intervals, sizes = {}, {}, {}
    strata = {"default": list(per_domain.values())} | {f"domain={d}": [x] for d, x in per_domain.items()}
    for subset, groups in strata.items():
        means = macro_mean(groups)
        low, high = stratified_bootstrap([g.T for g in groups], seed=seed)  # rows: metrics, items: records
        out[subset] = dict(zip(names, means.tolist()))
        intervals[subset] = {n: [float(lo), float(hi)] for n, lo, hi in zip(names, low, high)}
        sizes[subset] = sum(g.shape[0] for g in groups)
    details = {
        "ties": "a tie counts as a loss (strict >)",
        "average": "macro over domains",
        "bootstrap": f"{N_RESAMPLES} resamples over records, stratified by domain, seed {seed}",
    }
    kept = [names.index(n) for n in PER_RECORD[key.split("-")[0]]]
    per_query = {
        record: {names[j]: float(row[j]) for j in kept}
        for domain, table in per_domain.items()
        for record, row in zip(keys[domain], table)
    }
    return ScoreReport(
        {"test": out},
        confidence_intervals={"test": intervals},
        subset_sizes={"test": sizes},
        details=details,
        per_query=per_query,  # per record "<domain>/<row>"; the main score is their macro mean over domains
        subset_queries={f"domain={domain}": ids for domain, ids in keys.items()},
        # cross-domain numbers are macro averages over the domains (the paper's Tables 1-2 average the five
        # domains' rates), so readers resample each domain on its own and weigh it 1/5
        macro_over=[f"domain={domain}" for domain in keys],
    )
