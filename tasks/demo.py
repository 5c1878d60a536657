"""The offline demo task: a tiny BEIR dataset that the project writes itself."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from leaderboard import hookimpl
from leaderboard.contract.benchmark import Benchmark, BenchmarkTask
from leaderboard.contract.task import DataSource, RetrievalData
from leaderboard.toolkit import cache_home, write_beir

from .beir import BeirTask, beir_metadata
from .demo_data import PASSAGES, QRELS, QUERIES


def write_demo(root: Path) -> Path:
    """Write the demo dataset to ``root`` in BEIR format (corpus.jsonl, queries.jsonl, qrels/test.tsv)."""
    return write_beir(root, PASSAGES, QUERIES, QRELS)


def default_location() -> Path:
    return cache_home() / "demo"


class DemoTask(BeirTask):
    def __init__(self, root: Path | None = None):
        super().__init__(
            root or default_location(),
            beir_metadata(
                "demo",
                "Embedded demo: 32 hand-written passages, 12 queries (multi-condition and negation among them)",
                family="demo",
            ),
            DataSource(kind="embedded", uri="leaderboard_tasks.demo_data"),
        )

    def load(self) -> RetrievalData:
        write_demo(self.root)
        return super().load()


@hookimpl
def register_tasks(register: Callable[..., None]) -> None:
    register(
        "demo",
        lambda request: DemoTask(Path(request.data_dir) if request.data_dir else None),
        description="Embedded offline demo (BEIR format, 32 passages, 12 queries)",
    )


def demo_benchmark() -> Benchmark:
    return Benchmark(
        name="demo",
        description="The embedded offline demo (12 hand-written queries). Not a benchmark of record.",
        reference="https://github.com/beir-cellar/beir",
        tasks=(BenchmarkTask("demo", "ndcg_at_10", "higher", "nDCG@10"),),
        aggregate_label="nDCG@10",
        formula="score = nDCG@10 on the demo task.",
        public=False,
    )


@hookimpl
def register_benchmarks(register: Callable[..., None]) -> None:
    register("demo", demo_benchmark, description="nDCG@10 on the embedded demo (not public)")
