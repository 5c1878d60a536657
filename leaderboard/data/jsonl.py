"""Strict JSONL and TSV readers whose errors name the file, line and field."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from leaderboard.errors import BadInput


def require_file(path: Path, what: str) -> Path:
    if not path.is_file():
        raise BadInput(f"Missing data file {path}: expected {what}.")
    return path


def read_jsonl(path: Path, required: tuple[str, ...], what: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, record) for each non-blank line, checking the required fields."""
    with open(require_file(path, what), encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise BadInput(f"{path}, line {line_no}: not valid JSON ({exc.msg}); expected {what}.") from None
            if not isinstance(record, dict):
                raise BadInput(f"{path}, line {line_no}: expected a JSON object ({what}), got {type(record).__name__}.")
            for key in required:
                if key not in record:
                    raise BadInput(
                        f"{path}, line {line_no}: missing field {key!r}; expected {what} "
                        f"with fields {', '.join(repr(k) for k in required)}."
                    )
                if not isinstance(record[key], (str, int)) or str(record[key]) == "":
                    raise BadInput(f"{path}, line {line_no}: field {key!r} must be a non-empty string.")
            yield line_no, record


def read_qrels_tsv(path: Path) -> dict[str, dict[str, int]]:
    """BEIR qrels: a header line, then query-id <TAB> corpus-id <TAB> integer score."""
    what = "a BEIR qrels file: header 'query-id<TAB>corpus-id<TAB>score', then one judgment per line"
    qrels: dict[str, dict[str, int]] = {}
    with open(require_file(path, what), encoding="utf-8", newline="") as handle:
        rows = csv.reader(handle, delimiter="\t")
        header = next(rows, None)
        if header is None or [h.strip().lower() for h in header[:3]] != ["query-id", "corpus-id", "score"]:
            raise BadInput(f"{path}, line 1: expected the header 'query-id<TAB>corpus-id<TAB>score', got {header!r}.")
        for line_no, row in enumerate(rows, start=2):
            if not row or not "".join(row).strip():
                continue
            if len(row) != 3:
                raise BadInput(f"{path}, line {line_no}: expected 3 tab-separated fields, got {len(row)}: {row!r}.")
            query_id, doc_id, score = (cell.strip() for cell in row)
            try:
                value = int(float(score))
                if value != float(score):
                    raise ValueError
            except ValueError:
                raise BadInput(
                    f"{path}, line {line_no}: field 'score' must be an integer grade, got {score!r}."
                ) from None
            if not query_id or not doc_id:
                raise BadInput(f"{path}, line {line_no}: empty 'query-id' or 'corpus-id'.")
            qrels.setdefault(query_id, {})[doc_id] = value
    if not qrels:
        raise BadInput(f"{path}: no judgments found; expected {what}.")
    return qrels
