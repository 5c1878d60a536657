"""The default ``bm25`` is the ComLQ authors' protocol: their ``evaluate_bm25.py`` (llama_index's BM25Retriever).

That retriever (llama-index-retrievers-bm25 0.8.0, ``llama_index/retrievers/bm25/base.py``) indexes
``bm25s.tokenize(texts, stopwords="english", stemmer=Stemmer("english"))`` with ``bm25s.BM25()`` (Lucene,
k1 1.5, b 0.75) and retrieves ``bm25s.tokenize(query, stemmer=...)`` with k = 10; nDCG@10 by pytrec_eval.
``authors_bm25`` below is that sequence of bm25s calls. Run through llama_index itself
(``docs/checks/comlq_bm25_llama_index.py``), it gives 69.09 against the harness's 69.07 with 21 queries
apart: llama-index-retrievers-bm25 0.8.0 pins PyStemmer < 3 (Snowball 2.2), whose English stemmer folds
"organism", "organization" and "organic" into "organ" and "international" into "intern"; this harness
installs PyStemmer 3 (Snowball 3), which keeps them apart. With PyStemmer 3.1.0 in the llama_index
environment, all 2,909 queries are identical (69.07).
"""

from __future__ import annotations

import json
import math

import pytest
from conftest import COMLQ, REPO, needs_comlq


def authors_bm25(corpus: dict[str, str], queries: dict[str, str], k: int = 10) -> dict[str, dict[str, float]]:
    """The bm25s calls of llama_index's BM25Retriever, as the ComLQ authors' evaluate_bm25.py makes them."""
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    ids = list(corpus)
    retriever = bm25s.BM25()
    tokens = bm25s.tokenize([corpus[d] for d in ids], stopwords="english", stemmer=stemmer, show_progress=False)
    retriever.index(tokens, show_progress=False)
    run = {}
    for qid, text in queries.items():
        query = bm25s.tokenize(text, stemmer=stemmer, show_progress=False)
        hits, scores = retriever.retrieve(query, k=min(k, len(ids)), show_progress=False)
        run[qid] = {ids[int(i)]: float(s) for i, s in zip(hits[0], scores[0])}
    return run


def ndcg_at_10(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> dict[str, float]:
    import pytrec_eval

    found = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(run)
    return {q: v["ndcg_cut_10"] for q, v in found.items()}


CORPUS = {
    "p1": "Organisms with genomic imprinting",
    "p2": "An organ transplant by surgery",
    "p3": "The International Space Station",
    "p4": "Internal combustion engines",
}
QUERIES = {"a": "Which organisms show imprinting?", "b": "international stations"}
QRELS = {"a": {"p1": 1}, "b": {"p3": 2}}


def test_a_small_fixture_by_hand_both_ways():
    """By hand: under Snowball 3 "organisms" -> "organism" (p1 only) and "international" -> "internat" (p3
    only), so each query finds its one relevant passage first: nDCG@10 = 1 for both. Under Snowball 2.2
    (PyStemmer < 3) "organisms" and "organ" share "organ", and "international" and "internal" "intern"."""
    import Stemmer
    from leaderboard_plugins.bm25 import BM25

    stem = Stemmer.Stemmer("english").stemWord
    assert (stem("organisms"), stem("organ"), stem("international"), stem("internal")) == (
        "organism",
        "organ",
        "internat",
        "internal",
    )  # PyStemmer 3 (Snowball 3): the 21 ComLQ queries that differ from a PyStemmer 2 run hinge on these
    theirs = authors_bm25(CORPUS, QUERIES)
    ours = BM25().search(CORPUS, QUERIES, 10)
    assert list(theirs["a"])[0] == list(ours["a"])[0] == "p1" and set(ours["a"]) == {"p1"}
    assert list(theirs["b"])[0] == list(ours["b"])[0] == "p3"
    for qid in QUERIES:
        assert ours[qid] == pytest.approx({d: s for d, s in theirs[qid].items() if s > 0}, rel=1e-6)
    assert ndcg_at_10(QRELS, ours) == ndcg_at_10(QRELS, theirs) == {"a": 1.0, "b": 1.0}


@needs_comlq
def test_the_published_bm25_result_is_the_authors_protocol_query_by_query():
    from leaderboard.records.result import Result, decode_per_query

    corpus = {d["_id"]: d["text"] for d in map(json.loads, (COMLQ / "corpus.jsonl").open())}
    queries = {q["_id"]: q["text"] for q in map(json.loads, (COMLQ / "queries.jsonl").open())}
    qrels: dict[str, dict[str, int]] = {}
    for line in (COMLQ / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        qid, doc, grade = line.split("\t")
        qrels.setdefault(qid, {})[doc] = int(grade)
    theirs = ndcg_at_10(qrels, authors_bm25(corpus, queries))
    path = REPO / "submissions" / "bm25" / "results" / "bm25" / "bm25s-0.3.16" / "comlq.json"
    result = Result.model_validate(json.loads(path.read_text()))
    ours = {q: v["ndcg_at_10"] for q, v in decode_per_query(result.per_query).items()}
    assert len(ours) == len(theirs) == 2909
    apart = [q for q in ours if not math.isclose(ours[q], theirs[q], abs_tol=1e-12)]
    assert apart == []  # all 2,909 queries: the authors' protocol under the harness's PyStemmer
    assert round(100 * sum(theirs.values()) / len(theirs), 2) == 69.07
