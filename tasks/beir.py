"""Any BEIR-format directory as a retrieval task, scored with pytrec_eval."""

from __future__ import annotations

from pathlib import Path

from leaderboard import hookimpl
from leaderboard.contract.model import Run
from leaderboard.contract.task import DataSource, RetrievalData, RetrievalTask, Scores, TaskMetadata, TaskRequest
from leaderboard.data.beir import load_beir
from leaderboard.errors import BadInput
from leaderboard.metrics.retrieval import mean_scores, metric_definitions, per_query_scores
from leaderboard.records.files import slug

BEIR_REFERENCE = "https://github.com/beir-cellar/beir"


def beir_metadata(name: str, description: str, family: str = "beir", reference: str = BEIR_REFERENCE) -> TaskMetadata:
    return TaskMetadata(
        name=name,
        family=family,
        description=description,
        reference=reference,
        metrics=metric_definitions(),
        main_score="ndcg_at_10",
        top_k=100,
    )


class BeirTask(RetrievalTask):
    def __init__(self, root: Path, metadata: TaskMetadata | None = None, source: DataSource | None = None):
        self.root = Path(root)
        self.source = source
        self.metadata = metadata or beir_metadata(
            f"beir-{slug(self.root.resolve().name)}",
            f"BEIR-format retrieval on the local directory {self.root.resolve()}",
        )

    def load(self) -> RetrievalData:
        return load_beir(self.root, source=self.source)

    def compute_scores(self, data: RetrievalData, run: Run) -> Scores:
        return {"test": {"default": mean_scores(per_query_scores(data.qrels, run))}}


def from_argument(request: TaskRequest) -> BeirTask:
    if not request.argument:
        raise BadInput(
            "Expected a directory after 'beir:', e.g. --task beir:../shared/data/comlq (a bare directory path works too)."
        )
    return BeirTask(Path(request.argument).expanduser())


@hookimpl
def register_tasks(register):
    register(
        "beir:",
        from_argument,
        description="Any BEIR-format directory: beir:<path> or just <path> (corpus.jsonl, queries.jsonl, qrels/test.tsv)",
        claims_directory=lambda path: (
            True
        ),  # the generic fallback: any folder may be BEIR (the loader says what is missing)
        directory_priority=0,
    )
