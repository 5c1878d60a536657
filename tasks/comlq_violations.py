"""Materialise ComLQ violation judgments for LSNC, for one data content hash.

    python -m leaderboard_tasks.comlq_violations --data ../shared/data/comlq [--out FILE]

Writes tasks/judgments/comlq-<judge>.json.gz (versioned in the repository), which the ComLQ task
loads when the data's content hash matches; otherwise it recomputes with the same judge.
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

from leaderboard.data.beir import load_beir
from leaderboard.fileio import atomic_open

from .negation_judge import LexicalJudge

JUDGMENTS_DIR = Path(__file__).resolve().parent / "judgments"
NEGATION_TYPES = ("2in", "3in", "inp", "pin", "pni")


def base_type(query_type: str) -> str:
    """'2in_1' -> '2in': the suffix is not the evidence count (that is the number of qrels)."""
    return query_type.split("_", 1)[0]


def judgments_path(judge_name: str) -> Path:
    return JUDGMENTS_DIR / f"comlq-{judge_name}.json.gz"


def compute_judgments(data, judge) -> dict:
    records = data.extra["query_records"]
    postings = judge.build_postings(data.corpus)
    queries = {}
    for qid, text in data.queries.items():
        if base_type(str(records[qid].get("type", ""))) not in NEGATION_TYPES:
            continue
        j = judge.judge(text, postings, set(data.qrels.get(qid, {})))
        queries[qid] = {
            "cue": j.cue,
            "condition": j.condition,
            "keywords": j.keywords,
            "violating": j.violating if j.keywords else None,
        }
    return {
        "judge": judge.name,
        "judge_version": judge.version,
        "data_content_hash": data.source.content_hash,
        "queries": queries,
    }


def write_judgments(payload: dict, path: Path) -> None:
    with atomic_open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as handle:
        # mtime=0 and no file name: identical bytes for identical content
        handle.write(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode("utf-8"))


def read_judgments(path: Path) -> dict | None:
    if not path.is_file():
        return None
    with gzip.open(path, "rb") as handle:
        return json.loads(handle.read().decode("utf-8"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="ComLQ directory (BEIR layout)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    judge = LexicalJudge()
    payload = compute_judgments(load_beir(args.data), judge)
    out = args.out or judgments_path(judge.name)
    write_judgments(payload, out)
    judged = [q for q in payload["queries"].values() if q["violating"] is not None]
    print(
        f"{out}: {len(payload['queries'])} negation queries, {len(judged)} judged, "
        f"{sum(len(q['violating']) for q in judged)} violating passages in all, data {payload['data_content_hash']}"
    )


if __name__ == "__main__":
    main()
