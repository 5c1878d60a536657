"""The offline demo task: a tiny BEIR dataset that the project writes itself."""

from __future__ import annotations

import json
import os
from pathlib import Path

from leaderboard import hookimpl
from leaderboard.data.beir import load_beir
from leaderboard.task import DataSource, RetrievalData

from .beir import BeirTask, beir_metadata
from .demo_data import PASSAGES, QRELS, QUERIES


def write_demo(root: Path) -> Path:
    """Write the demo dataset to ``root`` in BEIR format (corpus.jsonl, queries.jsonl, qrels/test.tsv)."""
    root = Path(root)
    (root / "qrels").mkdir(parents=True, exist_ok=True)
    files = {
        root / "corpus.jsonl": "".join(json.dumps({"_id": i, "title": t, "text": x}) + "\n" for i, (t, x) in PASSAGES.items()),
        root / "queries.jsonl": "".join(json.dumps({"_id": i, "text": x}) + "\n" for i, x in QUERIES.items()),
        root / "qrels" / "test.tsv": "query-id\tcorpus-id\tscore\n"
        + "".join(f"{q}\t{d}\t{s}\n" for q, judged in QRELS.items() for d, s in judged.items()),
    }
    for path, text in files.items():
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    return root


def default_location() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "retrieval-leaderboard" / "demo"


class DemoTask(BeirTask):
    def __init__(self, root: Path | None = None):
        super().__init__(
            root or default_location(),
            beir_metadata("demo", "Embedded demo: 32 hand-written passages, 12 queries (multi-condition and negation among them)", family="demo"),
            DataSource(kind="embedded", uri="leaderboard_tasks.demo_data"),
        )

    def load(self) -> RetrievalData:
        write_demo(self.root)
        return load_beir(self.root, source=DataSource(kind="embedded", uri="leaderboard_tasks.demo_data"))


@hookimpl
def register_tasks(register):
    register("demo", lambda request: DemoTask(Path(request.data_dir) if request.data_dir else None), description="Embedded offline demo (BEIR format, 32 passages, 12 queries)")
