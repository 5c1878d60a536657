"""Any BEIR-format directory as a retrieval task, scored with pytrec_eval, with BEIR's conventions.

Options (``--task-option KEY=VALUE``; each is recorded in the result and part of its identity):

* ``ignore_identical_ids`` (default ``true`` for ``beir:`` folders): drop a retrieved document whose
  id equals the query id before scoring, as BEIR's ``EvaluateRetrieval.evaluate`` does by default.
* ``relevance_level`` (default ``1``): the lowest grade the binary metrics count as relevant
  (pytrec_eval's ``relevance_level``; TREC-DL uses 2). nDCG keeps the graded gains.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from leaderboard import BadInput, hookimpl
from leaderboard.contract.model import Run
from leaderboard.contract.task import (
    DataSource,
    RetrievalData,
    RetrievalTask,
    ScoreReport,
    TaskMetadata,
    TaskRequest,
    View,
)
from leaderboard.toolkit import (
    HEADLINE,
    drop_identical_ids,
    load_beir,
    mean_scores,
    metric_definitions,
    per_query_scores,
    select,
    slug,
)

BEIR_REFERENCE = "https://github.com/beir-cellar/beir"
BEIR_OPTIONS = {
    "ignore_identical_ids": "drop a retrieved document whose id equals the query id, as BEIR's evaluator does "
    "(true/false; default true)",
    "relevance_level": "lowest qrels grade that MAP, Recall, P and MRR count as relevant, as pytrec_eval's "
    "relevance_level (integer >= 1; default 1; TREC-DL uses 2); nDCG keeps graded gains",
}
_TRUE, _FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off")
HEADLINE_LABELS = {
    "ndcg_at_10": "nDCG@10",
    "map_at_100": "MAP@100",
    "recall_at_100": "Recall@100",
    "mrr_at_10": "MRR@10",
}


def headline_view(title: str = "Retrieval metrics") -> View:
    return View(
        "table",
        title,
        metrics=HEADLINE,
        labels=dict(HEADLINE_LABELS),
        description="Mean over judged queries (pytrec_eval).",
    )


def beir_metadata(name: str, description: str, family: str = "beir", reference: str = BEIR_REFERENCE) -> TaskMetadata:
    return TaskMetadata(
        name=name,
        family=family,
        description=description,
        reference=reference,
        metrics=metric_definitions(),
        main_score="ndcg_at_10",
        top_k=100,
        views=[headline_view()],
    )


def parse_bool(option: str, value: str) -> bool:
    if value.strip().lower() in _TRUE:
        return True
    if value.strip().lower() in _FALSE:
        return False
    raise BadInput(f"--task-option {option}={value}: expected true or false.")


def parse_level(value: str) -> int:
    try:
        level = int(value)
    except ValueError:
        level = 0
    if level < 1:
        raise BadInput(f"--task-option relevance_level={value}: expected an integer >= 1 (a qrels grade).")
    return level


class BeirTask(RetrievalTask):
    def __init__(
        self,
        root: Path,
        metadata: TaskMetadata | None = None,
        source: DataSource | None = None,
        ignore_identical_ids: bool = False,
        relevance_level: int = 1,
    ):
        self.root = Path(root)
        self.source = source
        self.ignore_identical_ids, self.relevance_level = ignore_identical_ids, relevance_level
        self.metadata = metadata or beir_metadata(
            f"beir-{slug(self.root.resolve().name)}",
            f"BEIR-format retrieval on the local directory {self.root.resolve()}",
        )

    def load(self) -> RetrievalData:
        return load_beir(self.root, source=self.source)

    def compute_scores(self, data: RetrievalData, run: Run) -> ScoreReport:
        dropped = 0
        if self.ignore_identical_ids:
            run, dropped = drop_identical_ids(run)
        per_query = per_query_scores(data.qrels, run, relevance_level=self.relevance_level)
        details = {
            "ignore_identical_ids": self.ignore_identical_ids,
            "identical_ids_dropped": dropped,  # queries whose own id was among the retrieved documents
            "relevance_level": self.relevance_level,
        }
        return ScoreReport(
            {"test": {"default": mean_scores(per_query)}},
            subset_sizes={"test": {"default": len(per_query)}},
            details=details,
            per_query=select(per_query, HEADLINE),
        )


def from_argument(request: TaskRequest) -> BeirTask:
    if not request.argument:
        raise BadInput(
            "Expected a directory after 'beir:', e.g. --task beir:../shared/data/comlq "
            "(a bare directory path works too)."
        )
    options = request.options
    task = BeirTask(
        Path(request.argument).expanduser(),
        ignore_identical_ids=parse_bool("ignore_identical_ids", options.get("ignore_identical_ids", "true")),
        relevance_level=parse_level(options.get("relevance_level", "1")),
    )
    task.metadata.options = dict(BEIR_OPTIONS)
    return task


@hookimpl
def register_tasks(register: Callable[..., None]) -> None:
    register(
        "beir:",
        from_argument,
        description="Any BEIR-format directory: beir:<path> or just <path> "
        "(corpus.jsonl, queries.jsonl, qrels/test.tsv)",
        # the generic fallback: any folder may be BEIR (the loader says what is missing)
        claims_directory=lambda path: True,
        directory_priority=0,
    )
