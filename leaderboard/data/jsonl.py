"""Strict JSONL and TSV readers whose errors name the file, line and field.

Any byte sequence gives records or BadInput, never another exception: lines are decoded one by
one (so non-UTF-8 bytes are reported with their line), JSON nesting is bounded before parsing
(``safe_json``), and numbers are checked before use.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from leaderboard import safe_json
from leaderboard.errors import BadInput


def require_file(path: Path, what: str) -> Path:
    if not path.is_file():
        raise BadInput(f"Missing data file {path}: expected {what}.")
    return path


def text_lines(path: Path, what: str) -> Iterator[tuple[int, str]]:
    """(line number, text) for each line of a UTF-8 file; BadInput naming the line for other bytes."""
    try:
        handle = open(require_file(path, what), "rb")  # noqa: SIM115 - closed below, also when the reader stops early
    except OSError as exc:
        raise BadInput(f"{path}: cannot be read ({exc.strerror or exc}); expected {what}.") from None
    with handle:
        for line_no, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise BadInput(
                    f"{path}, line {line_no}: not UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1}); "
                    f"expected {what}."
                ) from None
            yield line_no, text


def read_jsonl(path: Path, required: tuple[str, ...], what: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, record) for each non-blank line, checking the required fields."""
    for line_no, line in text_lines(path, what):
        if not line.strip():
            continue
        try:
            record = safe_json.loads(line)
        except safe_json.UnsafeJSON as exc:
            raise BadInput(f"{path}, line {line_no}: {exc}; expected {what}.") from None
        if not isinstance(record, dict):
            raise BadInput(f"{path}, line {line_no}: expected a JSON object ({what}), got {type(record).__name__}.")
        for key in required:
            if key not in record:
                raise BadInput(
                    f"{path}, line {line_no}: missing field {key!r}; expected {what} "
                    f"with fields {', '.join(repr(k) for k in required)}."
                )
            value = record[key]
            if isinstance(value, bool) or not isinstance(value, (str, int)) or str(value) == "":
                raise BadInput(f"{path}, line {line_no}: field {key!r} must be a non-empty string.")
        yield line_no, record


MAX_GRADE = 2**31 - 1  # pytrec_eval keeps grades in a C int


def grade_value(value: object) -> int:
    """An integer relevance grade from JSON (2, 2.0) or TSV ("2", "2.0"); ValueError for anything else
    (1.7, "inf", "nan", "high", null, true, a number beyond a C int)."""
    if isinstance(value, str):
        if not value.isascii() or "_" in value:  # int() would also take "1_0" and non-ASCII digits
            raise ValueError(value)
        try:
            value = int(value)
        except ValueError:
            value = float(value)  # ValueError for words
    if isinstance(value, float) and value.is_integer():  # False for inf and nan
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) > MAX_GRADE:
        raise ValueError(value)
    return value


def read_qrels_tsv(path: Path) -> dict[str, dict[str, int]]:
    """BEIR qrels: a header line, then query-id <TAB> corpus-id <TAB> integer score."""
    what = "a BEIR qrels file: header 'query-id<TAB>corpus-id<TAB>score', then one judgment per line"
    qrels: dict[str, dict[str, int]] = {}
    lines = text_lines(path, what)
    rows = csv.reader((text for _, text in lines), delimiter="\t")
    try:
        header = next(rows, None)
        if header is None or [h.strip().lower() for h in header[:3]] != ["query-id", "corpus-id", "score"]:
            raise BadInput(f"{path}, line 1: expected the header 'query-id<TAB>corpus-id<TAB>score', got {header!r}.")
        for row in rows:
            line_no = rows.line_num
            if not row or not "".join(row).strip():
                continue
            if len(row) != 3:
                raise BadInput(f"{path}, line {line_no}: expected 3 tab-separated fields, got {len(row)}: {row!r}.")
            query_id, doc_id, score = (cell.strip() for cell in row)
            try:
                value = grade_value(score)
            except ValueError:
                raise BadInput(
                    f"{path}, line {line_no}: field 'score' must be an integer grade, got {score[:40]!r}."
                ) from None
            if not query_id or not doc_id:
                raise BadInput(f"{path}, line {line_no}: empty 'query-id' or 'corpus-id'.")
            qrels.setdefault(query_id, {})[doc_id] = value
    except csv.Error as exc:  # e.g. a field over csv's size limit
        raise BadInput(f"{path}, line {rows.line_num}: {exc}; expected {what}.") from None
    if not qrels:
        raise BadInput(f"{path}: no judgments found; expected {what}.")
    return qrels
