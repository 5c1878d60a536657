"""Loader for BEIR-format directories: corpus.jsonl, queries.jsonl, qrels/<split>.tsv.

The corpus is a ``JsonlCorpus``: a read-only mapping whose texts stay in the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from leaderboard.contract.task import DataSource, RetrievalData
from leaderboard.data.corpus import JsonlCorpus
from leaderboard.data.hashing import content_hash
from leaderboard.data.jsonl import read_jsonl, read_qrels_tsv
from leaderboard.errors import BadInput

CORPUS_WHAT = "a BEIR corpus record"
QUERIES_WHAT = "a BEIR query record"


def corpus_text(record: dict[str, Any]) -> str:
    """BEIR convention: the title, when present, is prepended to the passage text."""
    title = str(record.get("title") or "").strip()
    text = str(record["text"])
    return f"{title} {text}" if title else text


def load_beir(root: Path, split: str = "test", source: DataSource | None = None) -> RetrievalData:
    """A BEIR folder (corpus.jsonl, queries.jsonl, qrels/<split>.tsv) as RetrievalData; BadInput names file and line."""
    root = Path(root)
    if not root.is_dir():
        raise BadInput(
            f"BEIR data directory {root} does not exist; expected a folder with corpus.jsonl, queries.jsonl "
            f"and qrels/{split}.tsv."
        )
    corpus_path, queries_path, qrels_path = (
        root / "corpus.jsonl",
        root / "queries.jsonl",
        root / "qrels" / f"{split}.tsv",
    )
    # The corpus stays on disk (ids and texts read on demand): memory does not grow with its texts.
    corpus = JsonlCorpus(corpus_path, "_id", corpus_text, ("_id", "text"), CORPUS_WHAT)
    queries: dict[str, str] = {}
    query_records: dict[str, dict[str, Any]] = {}
    for line_no, record in read_jsonl(queries_path, ("_id", "text"), QUERIES_WHAT):
        query_id = str(record["_id"])
        if query_id in queries:
            raise BadInput(f"{queries_path}, line {line_no}: duplicate '_id' {query_id!r}.")
        queries[query_id] = str(record["text"])
        query_records[query_id] = record
    qrels = read_qrels_tsv(qrels_path)
    for query_id, judged in qrels.items():
        if query_id not in queries:
            raise BadInput(f"{qrels_path}: query-id {query_id!r} is not in {queries_path}.")
        missing = [d for d in judged if d not in corpus]  # one verified lookup each
        if missing:
            raise BadInput(
                f"{qrels_path}: query-id {query_id!r} judges corpus-id {missing[0]!r}, which is not in {corpus_path}."
            )
    # BEIR evaluates the queries that have judgments.
    queries = {qid: text for qid, text in queries.items() if qid in qrels}
    source = source or DataSource(kind="local", uri=str(root.resolve()))
    source.content_hash = content_hash([corpus_path, queries_path, qrels_path], root)
    return RetrievalData(
        corpus=corpus,
        queries=queries,
        qrels=qrels,
        source=source,
        extra={"query_records": {qid: query_records[qid] for qid in queries}},
    )


def write_beir(
    root: Path,
    corpus: Mapping[str, str | tuple[str, str]],
    queries: Mapping[str, str],
    qrels: Mapping[str, Mapping[str, int]],
) -> Path:
    """Write a BEIR folder (corpus.jsonl, queries.jsonl, qrels/test.tsv), each file atomically.

    A corpus value is the text, or (title, text). The one writer behind the demo data, test
    fixtures and benchmarks.
    """
    import json

    from leaderboard.fileio import write_bytes_atomic

    def document(doc_id: str, value: str | tuple[str, str]) -> dict[str, str]:
        if isinstance(value, tuple):
            return {"_id": doc_id, "title": value[0], "text": value[1]}
        return {"_id": doc_id, "text": value}

    root = Path(root)
    files = {
        root / "corpus.jsonl": "".join(json.dumps(document(d, v)) + "\n" for d, v in corpus.items()),
        root / "queries.jsonl": "".join(json.dumps({"_id": q, "text": t}) + "\n" for q, t in queries.items()),
        root / "qrels" / "test.tsv": "query-id\tcorpus-id\tscore\n"
        + "".join(f"{q}\t{d}\t{s}\n" for q, judged in qrels.items() for d, s in judged.items()),
    }
    for path, text in files.items():
        write_bytes_atomic(path, text.encode("utf-8"))
    return root
