"""How a metric is named in tables: "nDCG@10", "p-MRR", "LSNC@10 (lexical-v1)", not ``ndcg_at_10``.

A task declares the label with the metric (``Metric.label``). Results written before labels
existed still name their metrics well: the label a view of the task gives the metric, else, for the
ranked-retrieval metrics this package computes (``metrics.retrieval``), the label they are
declared with today, else the metric's name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# The ranked-retrieval measures metrics.retrieval computes, by the prefix of their names.
RETRIEVAL_LABELS = {"ndcg": "nDCG", "map": "MAP", "recall": "Recall", "precision": "P", "mrr": "MRR"}
_RETRIEVAL_NAME = re.compile(rf"^({'|'.join(RETRIEVAL_LABELS)})_at_(\d+)$")


def retrieval_label(name: str) -> str | None:
    """ "nDCG@10" for ndcg_at_10 (and MAP, Recall, P, MRR at any k); None for any other name."""
    match = _RETRIEVAL_NAME.match(name)
    return f"{RETRIEVAL_LABELS[match.group(1)]}@{match.group(2)}" if match else None


def metric_label(task: Mapping[str, Any] | None, metric: str) -> str:
    """The label of ``metric`` in a task declaration as results and the index store it (plain JSON)."""
    declared = task or {}
    for entry in declared.get("metrics") or []:
        if isinstance(entry, Mapping) and entry.get("name") == metric and _text(entry.get("label")):
            return str(entry["label"])
    for view in declared.get("views") or []:
        if not isinstance(view, Mapping) or not isinstance(labels := view.get("labels"), Mapping):
            continue
        # a view's labels name metrics when its axis runs over metrics, subsets otherwise (View.label)
        over_subsets = len(view.get("subsets") or ()) > 1
        if not over_subsets and _text(labels.get(metric)):
            return str(labels[metric])
    return retrieval_label(metric) or metric


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())
