"""Per-query values of an mteb task's main score, recomputed from the rankings mteb saved, and checked.

mteb reports only means. ``mteb.evaluate(..., prediction_folder=DIR)`` saves each subset's and
split's run (query id -> document id -> score) to ``DIR/<Task>_predictions.json``; from that run
and the qrels mteb scored against (its loaded dataset, already filtered of queries without any
judged document), each main score is computed per unit with the implementation our own tasks use:

* nDCG/MAP/Recall/P@k (BRIGHT, IFIR, plain retrieval): pytrec_eval per query (``per_query_scores``);
  the unit is the query.
* p-MRR (FollowIR, mFollowIR): per og/changed pair (``pmrr_per_pair``); the unit is the pair.
* robustness@10 (InstructIR): per base query, min nDCG@10 over its instructions; unit: base query.
* paired accuracy (NevIR): per q1/q2 pair; unit: the pair.

The mean of the values must equal mteb's reported score before anything is written; a mismatch is
an error naming the task, subset and metric (``PerQueryMismatch``). mteb rounds its retrieval means
(nDCG/MAP/Recall/P) to 5 decimals (``parse_metrics_from_scores``), so those are compared within
that rounding (5e-6) plus 1e-6; p-MRR, robustness@10 and paired accuracy are unrounded: 1e-6.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from leaderboard.toolkit import (
    drop_identical_ids,
    paired_accuracy_per_pair,
    per_query_scores,
    pmrr_per_pair,
    robustness_per_query,
)

TOLERANCE = 1e-6
MTEB_ROUNDING = 5e-6  # half a unit in the 5th decimal, mteb's rounding of retrieval means
_RETRIEVAL = re.compile(r"^(ndcg|map|recall|precision)_at_(\d+)$")
UNITS = {
    "p-MRR": "og/changed query pair (id without -og/-changed); value = mean p-MRR term over its changed documents",
    "robustness_at_10": "base query (id before '_'); value = lowest nDCG@10 over its instruction variants",
    "paired_accuracy": "q1/q2 query pair (id before '_'); value = 1 when both rank their own passage first",
}


class PerQueryMismatch(Exception):
    """The mean of the recomputed per-query values differs from the score mteb reported."""


class NotPerQuery(Exception):
    """This main score has no per-query definition here (any ``mteb:<Task>`` may declare one we lack)."""


@dataclass
class SubsetValues:
    values: dict[str, float]  # unit id -> value of the main score
    texts: dict[str, str] = field(default_factory=dict)  # unit id -> raw query text (for complexity strata)


def supported(main: str) -> bool:
    return main in UNITS or _RETRIEVAL.match(main) is not None


def unit_of(main: str) -> str:
    return UNITS.get(main, "query")


def read_predictions(folder: Path, handle: Any) -> dict[str, dict[str, dict[str, dict[str, float]]]]:
    """subset -> split -> run, as mteb saved them (``AbsTask._save_task_predictions``)."""
    path = Path(folder) / handle.prediction_file_name
    saved = json.loads(path.read_text("utf-8"))
    return {subset: splits for subset, splits in saved.items() if subset != "mteb_model_meta"}


def scored_run(handle: Any, run: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
    """The run as mteb's evaluator scores it: identical ids dropped / first result skipped where the task says."""
    out = {q: {d: float(s) for d, s in ranking.items()} for q, ranking in run.items()}
    if getattr(handle, "ignore_identical_ids", False):
        out, _ = drop_identical_ids(out)
    if getattr(handle, "skip_first_result", False):  # mteb: a stable sort on score alone, then [1:]
        out = {q: dict(sorted(r.items(), key=lambda x: x[1], reverse=True)[1:]) for q, r in out.items()}
    return out


def changed_documents(handle: Any, subset: str) -> dict[str, list[str]]:
    """FollowIR's qrel_diff, loaded as the task's own ``task_specific_scores`` loads it."""
    loader = getattr(sys.modules[type(handle).__module__], "load_qrel_diff", None)
    if loader is not None:  # mFollowIR: one qrel_diff config per language
        return dict(loader(handle.metadata, subset))
    from datasets import load_dataset

    dataset = handle.metadata.dataset
    rows = load_dataset(dataset["path"], "qrel_diff", split="qrel_diff", revision=dataset.get("revision"))
    return {row["query-id"]: list(row["corpus-ids"]) for row in rows}


def query_texts(handle: Any, subset: str, split: str) -> dict[str, str]:
    queries = handle.dataset[subset][split]["queries"]
    return {str(q): str(t) for q, t in zip(queries["id"], queries["text"])}


def subset_values(
    handle: Any, main: str, subset: str, split: str, run: Mapping[str, Mapping[str, float]]
) -> SubsetValues:
    """Per-unit values of ``main`` for one subset and split of an evaluated mteb task."""
    judged = handle.dataset[subset][split][
        "relevant_docs"
    ]  # as mteb scored them: queries without any judged doc dropped
    qrels = {str(q): {str(d): int(g) for d, g in docs.items()} for q, docs in judged.items()}
    scored = scored_run(handle, run)
    texts = query_texts(handle, subset, split)
    if main == "p-MRR":
        values = pmrr_per_pair(scored, changed_documents(handle, subset))
        return SubsetValues(values, {q: texts[q + "-og"] for q in values if q + "-og" in texts})
    retrieval = _RETRIEVAL.match(main)
    if retrieval:
        rows = per_query_scores(qrels, scored, k_values=(int(retrieval.group(2)),))
        return SubsetValues({q: row[main] for q, row in rows.items()}, {q: texts[q] for q in rows if q in texts})
    if main == "robustness_at_10":
        rows = per_query_scores(qrels, scored, k_values=(10,))
        values = robustness_per_query({q: r["ndcg_at_10"] for q, r in rows.items()}, qrels)
        base_text = {q.split("_")[0]: texts[q] for q in reversed(list(qrels)) if q in texts}  # first variant's
        return SubsetValues(values, {b: base_text[b] for b in values if b in base_text})
    if main == "paired_accuracy":
        rows = per_query_scores(qrels, scored, k_values=(1,))
        # the two questions of a pair differ by design, so a pair has no one query text to stratify by
        return SubsetValues(paired_accuracy_per_pair({q: r["recall_at_1"] for q, r in rows.items()}, qrels))
    raise NotPerQuery(f"no per-query definition of {main!r}")


def check_mean(task: str, subset: str, main: str, values: Mapping[str, float], reported: float) -> float:
    """The mean of ``values``, after checking it against mteb's ``reported`` score (raises on a mismatch)."""
    if not values:
        raise PerQueryMismatch(f"mteb task {task}, subset {subset}: no per-query values of {main} to check")
    mean = sum(values.values()) / len(values)
    allowed = TOLERANCE + (MTEB_ROUNDING if _RETRIEVAL.match(main) else 0.0)
    if not abs(mean - reported) <= allowed:
        raise PerQueryMismatch(
            f"mteb task {task}, subset {subset}: the mean of {len(values)} per-query {main} values is {mean:.9f}, "
            f"mteb reported {reported:.9f} (allowed difference {allowed:g}); no result was written"
        )
    return mean
