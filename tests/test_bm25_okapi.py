"""BM25Okapi against rank_bm25.BM25Okapi, score for score, and on MultiConIR Task 1's win rates."""

from __future__ import annotations

import math

import numpy as np
import pytest
from leaderboard_plugins.bm25_okapi import BM25Okapi, build_index, lower_split, register_models

from leaderboard.contract.model import ModelKind, ModelRequest

rank_bm25 = pytest.importorskip("rank_bm25", reason="rank_bm25 is the reference implementation (pip install rank_bm25)")

CORPUS = {
    "d1": "The quick brown fox jumps over the lazy dog",
    "d2": "A quick brown dog outpaces a quick fox",
    "d3": "Lazy dogs sleep all day; the fox does not",
    "d4": "Completely unrelated text about databases and indexes",
    "d5": "the THE the fox",
}
QUERIES = {
    "q1": "quick fox",
    "q2": "lazy dog the",
    "q3": "databases databases indexes",  # a repeated query token counts twice in rank_bm25
    "q4": "nothing matches here",
    "q5": "the",  # in 4 of 5 documents: a negative IDF replaced by the epsilon floor
}


def reference(documents: list[str], query: str) -> np.ndarray:
    return rank_bm25.BM25Okapi([lower_split(d) for d in documents]).get_scores(lower_split(query))


@pytest.mark.parametrize("query", list(QUERIES.values()))
def test_scores_equal_rank_bm25(query):
    documents = list(CORPUS.values())
    ours = BM25Okapi().score(query, documents)
    np.testing.assert_allclose(ours, reference(documents, query), rtol=0, atol=1e-9)


def test_two_document_candidate_set_negative_idf_floor():
    # N=2: a shared term has IDF log(0.5/2.5) < 0, a term in one document has IDF log(1.5/1.5) = 0,
    # so the average IDF is negative and the "floor" epsilon * average is negative as well.
    documents = ["red apple pie", "red apple tart with cream"]
    index = build_index([lower_split(d) for d in documents], 1.5, 0.75, 0.25)
    shared_raw = math.log(0.5) - math.log(2.5)
    average = (2 * shared_raw + 4 * 0.0) / 6  # 6 distinct terms, 2 of them shared
    assert index.average_idf == pytest.approx(average, abs=1e-15)
    assert index.idf[index.vocab["red"]] == pytest.approx(0.25 * average, abs=1e-15)
    assert index.idf[index.vocab["pie"]] == 0.0
    ref = rank_bm25.BM25Okapi([lower_split(d) for d in documents])
    assert ref.idf["red"] == pytest.approx(0.25 * average, abs=1e-15)  # the case the floor is about
    for query in ("red apple", "pie", "red tart cream", "apple apple", "unseen"):
        np.testing.assert_allclose(BM25Okapi().score(query, documents), reference(documents, query), rtol=0, atol=1e-9)
    # By hand: "red" in document 1 (tf 1, |d| 3, avgdl 4).
    weight = 0.25 * average * (1 * 2.5 / (1 + 1.5 * (1 - 0.75 + 0.75 * 3 / 4)))
    assert BM25Okapi().score("red", documents)[0] == pytest.approx(weight, abs=1e-12)


def test_search_matches_rank_bm25_ranking():
    doc_ids, documents = list(CORPUS), list(CORPUS.values())
    run = BM25Okapi().search(CORPUS, QUERIES, top_k=3)
    assert set(run) == set(QUERIES)
    for qid, query in QUERIES.items():
        scores = reference(documents, query)
        positive = sorted(((s, d) for s, d in zip(scores, doc_ids, strict=True) if s > 0), reverse=True)[:3]
        assert list(run[qid]) == [d for _, d in positive]
        for score, doc in positive:
            assert run[qid][doc] == pytest.approx(score, abs=1e-9)
    assert run["q4"] == {}  # no shared term: every document scores 0 and none is returned


def test_search_top_k_larger_than_corpus_and_zero():
    run = BM25Okapi().search(CORPUS, {"q": "fox"}, top_k=100)
    assert set(run["q"]) == {"d1", "d2", "d3", "d5"}
    assert BM25Okapi().search(CORPUS, {"q": "fox"}, top_k=0) == {"q": {}}


def test_empty_inputs():
    assert BM25Okapi().score("fox", []) == []
    assert BM25Okapi().score("fox", ["", ""]) == [0.0, 0.0]


def test_custom_tokenizer_is_used_and_recorded():
    def words_only(text: str) -> list[str]:
        return [w.strip(";.,").lower() for w in text.split()]

    model = BM25Okapi(tokenizer=words_only, tokenizer_name="split + strip punctuation")
    documents = list(CORPUS.values())
    expected = rank_bm25.BM25Okapi([words_only(d) for d in documents]).get_scores(words_only("day fox"))
    np.testing.assert_allclose(model.score("day fox", documents), expected, rtol=0, atol=1e-9)
    assert model.settings()["tokenizer"] == "split + strip punctuation"


def test_metadata_settings_and_registration():
    model = BM25Okapi()
    assert model.metadata.name == "bm25-okapi" and model.metadata.kind is ModelKind.SPARSE
    assert model.metadata.revision == "okapi-1" and model.metadata.similarity == "bm25"
    assert model.metadata.reference == "https://github.com/dorianbrown/rank_bm25"
    settings = model.settings()
    assert (settings["k1"], settings["b"], settings["epsilon"]) == (1.5, 0.75, 0.25)
    assert settings["tokenizer"] == "text.lower().split()"
    assert settings["implementation"] == "bm25-okapi (rank_bm25 BM25Okapi formula)"
    registered = []
    register_models(register=lambda name, factory, description="": registered.append((name, factory, description)))
    [(name, factory, description)] = registered
    assert name == "bm25-okapi" and description
    assert isinstance(factory(ModelRequest(name="bm25-okapi")), BM25Okapi)


def test_multiconir_task1_win_rates_match_rank_bm25(tmp_path):
    from leaderboard_tasks.multiconir import DOMAINS, DemoMultiConIRTask, K

    task = DemoMultiConIRTask("task1", data_dir=str(tmp_path))
    data = task.load()
    model = BM25Okapi()
    ours = {s.key: model.score(s.query, s.candidates) for s in data.sets}
    report = task.compute_scores(data, ours)

    # Directly from rank_bm25: WR_k per domain (strict >), then the macro average over domains.
    wins: dict[str, dict[int, list[float]]] = {d: {k: [] for k in K} for d in DOMAINS}
    outcomes = set()
    for s in data.sets:
        positive, hard_negative = reference(s.candidates, s.query)
        np.testing.assert_allclose(ours[s.key], [positive, hard_negative], rtol=0, atol=1e-9)
        domain, _, k = s.key.split("/")
        wins[domain][int(k[1:])].append(1.0 if positive > hard_negative else 0.0)
        outcomes.add("tie" if positive == hard_negative else "win" if positive > hard_negative else "loss")
    # With two candidates a term in one document has IDF exactly 0, so most pairs tie (a loss under
    # strict >); the fixture must exercise both ties and wins for this check to mean something.
    assert {"tie", "win"} <= outcomes
    for k in K:
        expected = float(np.mean([np.mean(wins[d][k]) for d in DOMAINS]))
        assert report.scores["test"]["default"][f"win_rate_k{k}"] == pytest.approx(expected, abs=1e-12)
        for d in DOMAINS:
            domain_rate = report.scores["test"][f"domain={d}"][f"win_rate_k{k}"]
            assert domain_rate == pytest.approx(np.mean(wins[d][k]), abs=1e-12)


def test_bm25_okapi_end_to_end_on_the_multiconir_demo(tmp_path):
    """Through leaderboard.evaluate: Task 1's win rates follow from rank_bm25's scores under strict >."""
    from leaderboard_tasks.multiconir import DOMAINS, DemoMultiConIRTask, K

    import leaderboard

    (outcome,) = leaderboard.evaluate(["bm25-okapi"], ["multiconir-demo-task1"], output=tmp_path / "out")
    result = outcome.result
    assert outcome.status == "written" and result.model.name == "bm25-okapi"
    assert result.settings.model_settings["tokenizer"] == "text.lower().split()"
    assert result.settings.model_settings["epsilon"] == 0.25

    data = DemoMultiConIRTask("task1", data_dir=str(tmp_path / "fixture")).load()
    wins: dict[str, dict[int, list[float]]] = {d: {k: [] for k in K} for d in DOMAINS}
    for s in data.sets:
        positive, hard_negative = reference(s.candidates, s.query)
        domain, _, k = s.key.split("/")
        wins[domain][int(k[1:])].append(1.0 if positive > hard_negative else 0.0)  # a tie is a loss
    for k in K:
        expected = float(np.mean([np.mean(wins[d][k]) for d in DOMAINS]))
        assert result.score(f"win_rate_k{k}") == pytest.approx(expected, abs=1e-12)
    mean_wr = float(np.mean([np.mean([np.mean(wins[d][k]) for d in DOMAINS]) for k in K]))
    assert result.main_score == pytest.approx(mean_wr, abs=1e-12)
