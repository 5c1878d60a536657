"""One-off: bring a task-version-1 ComLQ/NegConstraint result to version 2 without re-encoding its corpus.

Version 2 changed only what the runner derives after scoring: the complexity strata (cw=... subsets, their
members, task_details.complexity and its view) and the task's declaration (metric labels, views). Every
other number comes from the model's run and is kept. This recomputes the strata with today's code
(leaderboard.engine.strata.add_complexity_strata, as the runner calls it) on the result's own per-query
values and the task's queries, and writes today's declaration. Checked against a real version-2 run
of bm25 (tests/test_baselines_reproduce.py's comparison: no difference but the run's circumstances).

    python docs/development/39edges_restrata.py OLD.json NEW.json TASK DATA_DIR
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from leaderboard.contract.task import ScoreReport
from leaderboard.engine.options import RunOptions
from leaderboard.engine.runner import make_task
from leaderboard.engine.strata import add_complexity_strata, complexity_view
from leaderboard.records import files
from leaderboard.records.per_query import encode_per_query, partial_metrics
from leaderboard.records.per_query_codec import (
    decode_metric_queries,
    decode_per_query,
    decode_subset_queries,
    macro_over,
)
from leaderboard.registry import get_registry


def restrata(old: Path, new: Path, task_name: str, data_dir: str) -> None:
    record = json.loads(old.read_text("utf-8"))
    task, _ = make_task(get_registry(), task_name, RunOptions(data_dirs={task_name: data_dir}))
    data = task.load()
    source = record["task"]["source"]
    if source["content_hash"] != data.source.content_hash:
        raise SystemExit(f"{old}: made on other data ({source['content_hash']}, here {data.source.content_hash})")
    meta = task.metadata
    split = meta.splits[0]
    stale = [s for s in record["scores"][split] if s.startswith("cw=")]
    for subset in stale:
        del record["scores"][split][subset]
        record["subset_sizes"][split].pop(subset, None)
    record["task_details"].pop("complexity", None)
    field = record["per_query"]
    subsets = {k: v for k, v in decode_subset_queries(field).items() if not k.startswith("cw=")}
    report = ScoreReport(
        scores=record["scores"],
        subset_sizes=record["subset_sizes"],
        details=record["task_details"],
        per_query=decode_per_query(field),
        subset_queries=subsets,
        metric_queries=decode_metric_queries(field),
        macro_over=macro_over(field),
    )
    add_complexity_strata(report, data.queries, meta.main_score, split)  # what the runner does after scoring
    described = {m["name"]: m["description"] for m in record["task"]["metrics"]}
    record["task"] = {**meta.to_json(task.evaluation), "source": source}
    for metric in record["task"]["metrics"]:  # a coverage the task states only once it has scored (ComLQ's LSNC)
        before = described.get(metric["name"], "")
        if "coverage: " in before and before.split("coverage: ")[0] == metric["description"].split("coverage: ")[0]:
            metric["description"] = before
    record["task"]["views"] = [*record["task"]["views"], complexity_view(report.details["complexity"])]
    metric_queries = partial_metrics(report.per_query) | report.metric_queries
    record["per_query"] = encode_per_query(
        report.per_query, report.subset_queries, metric_queries, report.macro_over
    ).model_dump(mode="json")
    record.update(scores=report.scores, subset_sizes=report.subset_sizes, task_details=report.details)
    files.write_result(new, files.build_result(record, where=str(old)))


if __name__ == "__main__":
    restrata(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4])
