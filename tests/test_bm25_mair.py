"""``bm25:mair``: MAIR's own BM25 (``eval_bm25`` in github.com/sunnweiwei/MAIR ``mair.py``) as a named variant of bm25.

Checked two ways on a small MAIR-layout fixture: against numbers worked out by hand, and against a
re-implementation of MAIR's ``eval_bm25`` loop (its bm25s calls and its pytrec_eval ``trec_eval``), query
by query. The default ``bm25`` runs beside it, to show where the two protocols differ.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from conftest import read_result_dict, run_cli

from leaderboard.records.result import Result, decode_per_query

TASK = "DD_2015"
# Three-word documents (every document the same length), so BM25's order follows from term counts alone.
DOCS = {
    "m1": "running shoes review",
    "m2": "marathon marathon daily",
    "m3": "apple orchard harvest",
    "m4": "apple pie recipe",
    "m5": "none seemed right",
    "m6": "unrelated text one",
    "m7": "unrelated text two",
    "m8": "unrelated text three",
}
QUERIES = [
    # (qid, instruction, query, relevant document)
    ("q1", "Ignore orchards.", "apple recipe", "m4"),  # m4 holds two query terms, m3 one ("orchards" unstemmed)
    ("q2", "Marathon runners.", "shoes", "m2"),  # only the instruction names m2's word (twice: above m1's "shoes")
    ("q3", "Any.", "runs", "m1"),  # unstemmed "runs" is in no document: every score is 0
    ("q4", "Of", "the", "m5"),  # only stopwords: MAIR searches "NONE"
]
# By hand, nDCG@10 with one relevant document (gain 1) at rank r is 1 / log2(r + 1):
# bm25:mair: q1 m4 first (1.0); q2 m2 first (1.0); q3 all eight documents score 0 and trec_eval orders
# ties by document id, descending: m1 last, rank 8: 1 / log2(9); q4 "none" is m5's first word: m5 first.
MAIR_BY_HAND = {"q1": 1.0, "q2": 1.0, "q3": 1 / math.log2(9), "q4": 1.0}
# bm25 (no instruction, Snowball stems, zero-score documents dropped): q1 m4 first; q2 "shoes" only m1:
# m2 not retrieved (0); q3 "runs" -> "run" = m1's "running": first; q4 no term left: nothing retrieved.
BM25_BY_HAND = {"q1": 1.0, "q2": 0.0, "q3": 1.0, "q4": 0.0}


def write_fixture(root: Path, task: str = TASK) -> Path:
    queries = [
        {"qid": q, "instruction": i, "query": text, "labels": [{"id": doc, "score": 1}]} for q, i, text, doc in QUERIES
    ]
    docs = [{"id": d, "doc": text} for d, text in DOCS.items()]
    for repo, name, rows in (("MAIR-Queries", "queries.jsonl", queries), ("MAIR-Docs", "docs.jsonl", docs)):
        folder = root / repo / task
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return root


def mair_eval_bm25(root: Path) -> tuple[dict[str, float], float]:
    """MAIR's ``eval_bm25`` for one split and its ``trec_eval``, statement for statement (the hub's
    ``load_dataset`` replaced by reading the same jsonl files): per-query nDCG@10 and the rounded mean."""
    import bm25s
    import pytrec_eval

    data = [json.loads(line) for line in (root / "MAIR-Queries" / TASK / "queries.jsonl").open()]
    docs = [json.loads(line) for line in (root / "MAIR-Docs" / TASK / "docs.jsonl").open()]
    doc_content = [item["doc"] for item in docs]
    doc_ids = [item["id"] for item in docs]
    corpus_tokens = bm25s.tokenize(doc_content, stopwords="en", show_progress=False)
    retriever = bm25s.BM25()
    retriever.index(corpus_tokens, show_progress=False)
    results: dict[str, dict[str, float]] = {}
    for item in data:
        query = item["instruction"] + " " + item["query"]
        query_tokens = bm25s.tokenize(query, show_progress=False)
        if len(query_tokens.vocab) == 0:
            query_tokens = bm25s.tokenize("NONE", stopwords=[], show_progress=False)
        hits, scores = retriever.retrieve(query_tokens, corpus=doc_ids, k=min(100, len(doc_ids)), show_progress=False)
        results[item["qid"]] = {hits[0, i]: float(scores[0, i]) for i in range(len(hits[0]))}
    qrels = {item["qid"]: {str(x["id"]): int(x["score"]) for x in item["labels"]} for item in data}
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(results)
    values = {q: v["ndcg_cut_10"] for q, v in per_query.items()}
    return values, round(sum(values.values()) / len(values), 5)  # MAIR rounds each split's mean


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mair-bm25")
    root = write_fixture(tmp / "mair")
    out = tmp / "out"
    ran = run_cli(
        "run", "-m", "bm25:mair", "-m", "bm25", "-t", "mair-dd-2015", "--output", str(out),
        env={"LEADERBOARD_MAIR_DIR": str(root)},
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    found = {}
    for path in out.rglob("mair-dd-2015.json"):
        record = read_result_dict(path)
        found[record["model"]["name"]] = record
    return root, found


def per_query(record: dict) -> dict[str, float]:
    return {q: v["ndcg_at_10"] for q, v in decode_per_query(Result.model_validate(record).per_query).items()}


def test_bm25_mair_equals_mairs_eval_bm25_and_the_hand_computation(runs):
    root, found = runs
    record = found["bm25:mair"]
    ours = per_query(record)
    theirs, rounded = mair_eval_bm25(root)
    assert ours == pytest.approx(theirs, abs=1e-12)
    assert ours == pytest.approx(MAIR_BY_HAND, abs=1e-12)
    main = record["scores"]["test"]["default"]["ndcg_at_10"]
    assert main == pytest.approx(sum(MAIR_BY_HAND.values()) / 4, abs=1e-12)
    assert abs(main - rounded) <= 5e-6  # MAIR prints the mean rounded to 5 decimals; the harness does not round
    settings = record["settings"]
    assert settings["query_instructions"]["applied"] is True  # the instruction reached the query
    variant = record["model"]["metadata"]["variant"]  # the declaration: a variant of bm25 for MAIR's benchmark
    assert variant["of"] == "bm25" and variant["protocol"] == "MAIR's eval_bm25 (Sun et al., EMNLP 2024)"
    assert variant["benchmarks"] == ["MAIR"] and not variant["runs_anywhere"]
    model = settings["model_settings"]
    assert model["stemmer"] is None and "kept" in model["zero_score_documents"]


def test_the_default_bm25_differs_where_the_protocols_do(runs):
    _, found = runs
    assert per_query(found["bm25"]) == pytest.approx(BM25_BY_HAND, abs=1e-12)
    assert found["bm25"]["settings"]["query_instructions"]["applied"] is False
    assert found["bm25"]["model"]["metadata"]["variant"] is None


def test_candidate_scores_use_the_same_tokens():
    from leaderboard_plugins.bm25 import MairBM25

    model = MairBM25()
    scores = model.score("Marathon runners. shoes", [DOCS["m1"], DOCS["m2"], DOCS["m6"]])
    assert scores[1] > scores[0] > 0 == scores[2]
    assert model.score("the", [DOCS["m5"], DOCS["m6"]])[0] > 0  # "NONE" finds m5
    assert model.score("x", []) == []
