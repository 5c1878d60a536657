"""The offline demo task: a tiny BEIR dataset that the project writes itself."""

from __future__ import annotations

import json
from pathlib import Path

from leaderboard import hookimpl
from leaderboard.contract.task import DataSource, RetrievalData
from leaderboard.fileio import cache_home, write_bytes_atomic

from .beir import BeirTask, beir_metadata
from .demo_data import PASSAGES, QRELS, QUERIES


def write_demo(root: Path) -> Path:
    """Write the demo dataset to ``root`` in BEIR format (corpus.jsonl, queries.jsonl, qrels/test.tsv)."""
    root = Path(root)
    (root / "qrels").mkdir(parents=True, exist_ok=True)
    files = {
        root / "corpus.jsonl": "".join(
            json.dumps({"_id": i, "title": t, "text": x}) + "\n" for i, (t, x) in PASSAGES.items()
        ),
        root / "queries.jsonl": "".join(json.dumps({"_id": i, "text": x}) + "\n" for i, x in QUERIES.items()),
        root / "qrels" / "test.tsv": "query-id\tcorpus-id\tscore\n"
        + "".join(f"{q}\t{d}\t{s}\n" for q, judged in QRELS.items() for d, s in judged.items()),
    }
    for path, text in files.items():
        write_bytes_atomic(path, text.encode("utf-8"))
    return root


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
def register_tasks(register):
    register(
        "demo",
        lambda request: DemoTask(Path(request.data_dir) if request.data_dir else None),
        description="Embedded offline demo (BEIR format, 32 passages, 12 queries)",
    )
