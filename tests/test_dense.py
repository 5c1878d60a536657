"""Dense search helpers: each unique text encoded once; chunked exact top-k equals brute force."""

import numpy as np
import pytest
from conftest import similarity_matrix

from leaderboard.contract.model import DenseModel, ModelKind, ModelMetadata
from leaderboard.engine import dense, search


class CountingEncoder(DenseModel):
    """A deterministic toy encoder that records what it was asked to encode."""

    metadata = ModelMetadata("counting", ModelKind.DENSE, similarity="dot")

    def __init__(self):
        self.seen = []

    def encode(self, texts, role):
        self.seen.extend(texts)
        return np.array([[len(t), t.count("a"), 1.0] for t in texts], dtype=np.float32)


def test_each_unique_text_is_encoded_once():
    model = CountingEncoder()
    stats = dense.EncodeStats()
    texts = ["aa", "b", "aa", "ccc", "b", "aa"]
    embeddings = dense.encode_unique(model, texts, "document", batch_size=2, stats=stats)
    assert sorted(model.seen) == ["aa", "b", "ccc"]
    assert (stats.requested, stats.unique) == (6, 3)
    assert np.array_equal(embeddings[0], embeddings[2]) and embeddings.shape == (6, 3)


@pytest.mark.parametrize("similarity", ["cosine", "dot"])
def test_chunked_top_k_equals_brute_force(monkeypatch, similarity):
    rng = np.random.default_rng(0)
    queries, docs = rng.normal(size=(23, 8)).astype(np.float32), rng.normal(size=(101, 8)).astype(np.float32)
    monkeypatch.setattr(search, "QUERY_CHUNK", 5)
    monkeypatch.setattr(search, "CORPUS_CHUNK", 7)  # many chunks, k larger than a chunk
    rows, scores = dense.exact_top_k(queries, docs, 10, similarity)
    full = similarity_matrix(queries, docs, similarity)
    expected_rows = np.argsort(-full, axis=1, kind="stable")[:, :10]
    assert np.array_equal(rows, expected_rows)
    assert np.allclose(scores, np.take_along_axis(full, expected_rows, axis=1), atol=1e-6)


def test_k_larger_than_corpus():
    rows, scores = dense.exact_top_k(np.ones((2, 3), np.float32), np.eye(3, dtype=np.float32), 50, "dot")
    assert rows.shape == (2, 3)


def test_dense_search_returns_ids():
    model = CountingEncoder()
    run = dense.dense_search(model, {"d1": "aaaa", "d2": "b"}, {"q": "aa"}, 1, batch_size=4)
    assert run == {"q": {"d1": pytest.approx(4 * 2 + 4 * 2 + 1)}}
