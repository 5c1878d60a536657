"""Bounded memory: the on-disk corpus, the encode plan (dedup, global length order), embedding
shards (resume, float16) and shard-by-shard search equal to brute force."""

import json
import pickle

import numpy as np
import pytest
from conftest import similarity_matrix
from scale_fixtures import HashEncoder, write_beir

import leaderboard
from leaderboard.data.beir import load_beir
from leaderboard.data.corpus import JsonlCorpus
from leaderboard.engine import corpus_store as shards
from leaderboard.engine import dense, search
from leaderboard.engine.cache import EmbeddingCache
from leaderboard.errors import BadInput

WORDS = [
    "apple",
    "pear",
    "plum",
    "fig",
    "kiwi",
    "lime",
    "lemon",
    "grape",
    "melon",
    "peach",
    "mango",
    "olive",
    "cherry",
    "date",
    "guava",
]


def synthetic_corpus(n: int, seed: int = 0) -> dict[str, str]:
    rng = np.random.default_rng(seed)
    texts = {f"d{i}": " ".join(rng.choice(WORDS, size=rng.integers(1, 12))) for i in range(n)}
    texts["dup-a"] = texts["dup-b"] = "a repeated text about figs"  # identical texts: encoded once
    return texts


def brute_force(model, corpus, queries, k):
    ids = list(corpus)
    docs = model.encode([corpus[d] for d in ids], "document")
    q = model.encode(list(queries.values()), "query")
    scores = similarity_matrix(q, docs, "cosine")
    out = {}
    for qid, row in zip(queries, scores):
        best = np.argsort(-row, kind="stable")[:k]
        out[qid] = {ids[j]: float(row[j]) for j in best}
    return out


def assert_same_run(run, expected, k):
    assert run.keys() == expected.keys()
    for qid in expected:
        got, want = sorted(run[qid].values(), reverse=True), sorted(expected[qid].values(), reverse=True)
        assert np.allclose(got, want, atol=1e-5)
        kth = want[k - 1]
        # the same documents, apart from exact ties at the cut
        above = [{d for d, s in ranking.items() if s > kth + 1e-5} for ranking in (run[qid], expected[qid])]
        assert above[0] == above[1]
        for d, s in run[qid].items():
            assert s == pytest.approx(expected[qid].get(d, s), abs=1e-5)


@pytest.fixture
def beir_dir(tmp_path):
    corpus = synthetic_corpus(60)
    queries = {f"q{i}": " ".join(WORDS[i : i + 3]) for i in range(8)}
    return write_beir(tmp_path / "beir", corpus, queries, {q: {"d1": 1} for q in queries})


def test_corpus_on_disk_reads_like_the_dict(beir_dir):
    data = load_beir(beir_dir)
    corpus = data.corpus
    assert isinstance(corpus, JsonlCorpus)
    expected = {json.loads(line)["_id"]: json.loads(line)["text"] for line in (beir_dir / "corpus.jsonl").open()}
    assert len(corpus) == len(expected) and list(corpus) == list(expected)
    assert dict(corpus.items()) == expected and list(corpus.values()) == list(expected.values())
    assert corpus["d7"] == expected["d7"] and "d7" in corpus and "nope" not in corpus
    with pytest.raises(KeyError):
        corpus["nope"]
    copy = pickle.loads(pickle.dumps(corpus))  # what a Ray worker receives
    assert copy["dup-b"] == expected["dup-b"] and copy.offsets.nbytes == 8 * len(expected)


def test_corpus_lookup_survives_hash_collisions(beir_dir, monkeypatch):
    from leaderboard.data import corpus as corpus_module

    monkeypatch.setattr(corpus_module, "id_hash", lambda doc_id: 7)  # every id collides
    corpus = JsonlCorpus(beir_dir / "corpus.jsonl", "_id", lambda r: r["text"], ("_id", "text"), "a record")
    assert corpus["d3"] == load_beir(beir_dir).corpus["d3"] and "x" not in corpus


def test_duplicate_corpus_id_names_the_line(tmp_path):
    root = write_beir(tmp_path / "b", {"a": "x", "b": "y"}, {"q": "x"}, {"q": {"a": 1}})
    with open(root / "corpus.jsonl", "a") as handle:
        handle.write("\n" + json.dumps({"_id": "a", "text": "again"}) + "\n")
    with pytest.raises(BadInput, match=r"corpus.jsonl, line 4: duplicate '_id' 'a'"):
        load_beir(root)


def test_plan_dedups_and_orders_all_texts_longest_first(monkeypatch):
    corpus = synthetic_corpus(50)
    texts = shards.DocumentTexts(corpus)
    plan = shards.make_plan(texts)
    ids = list(corpus)
    assert plan.n_unique == len(set(corpus.values()))
    lengths = [len(corpus[ids[r]]) for r in plan.position_row]
    assert lengths == sorted(lengths, reverse=True)
    for row, position in enumerate(plan.doc_position):  # every document points at its own text
        assert corpus[ids[plan.position_row[position]]] == corpus[ids[row]]
    monkeypatch.setattr(shards, "text_hash", lambda text: 1)  # all hashes collide: texts still decide
    collided = shards.make_plan(texts)
    assert collided.n_unique == plan.n_unique
    assert np.array_equal(collided.position_row, plan.position_row)


@pytest.mark.parametrize("on_disk", [False, True])
def test_sharded_search_equals_brute_force(tmp_path, beir_dir, on_disk, monkeypatch):
    data = load_beir(beir_dir)
    model = HashEncoder()
    options = dense.SearchOptions(shard_rows=7, shard_dir=tmp_path / "shards", always_on_disk=on_disk)
    monkeypatch.setattr(search, "QUERY_CHUNK", 3)  # many blocks inside a shard too
    monkeypatch.setattr(search, "CORPUS_CHUNK", 5)
    stats = dense.EncodeStats()
    run = dense.dense_search(model, data.corpus, data.queries, 10, batch_size=4, stats=stats, options=options)
    assert_same_run(run, brute_force(model, dict(data.corpus.items()), data.queries, 10), 10)
    assert stats.unique == len(set(dict(data.corpus.items()).values())) + len(data.queries)
    assert not any((tmp_path / "shards").glob("*/shard-*"))  # work files removed after the search


def test_encoding_is_globally_length_sorted(beir_dir):
    model = HashEncoder()
    seen = []
    original = model.encode
    model.encode = lambda texts, role: seen.extend(texts if role == "document" else []) or original(texts, role)
    data = load_beir(beir_dir)
    dense.dense_search(model, data.corpus, data.queries, 5, batch_size=2, options=dense.SearchOptions(shard_rows=9))
    assert len(model.calls) > 5  # many model calls ...
    assert [len(t) for t in seen] == sorted((len(t) for t in seen), reverse=True)  # ... one global order


class Crash(Exception):
    pass


def test_resume_reuses_finished_shards_and_float16_storage(tmp_path, beir_dir):
    data = load_beir(beir_dir)
    options = dense.SearchOptions(shard_rows=8, shard_dir=tmp_path / "shards", dtype="float16", keep_shards=True)
    crashing = HashEncoder()
    original = crashing.encode

    def encode_then_crash(texts, role):
        if len(crashing.calls) == 3:
            raise Crash
        return original(texts, role)

    crashing.encode = encode_then_crash
    with pytest.raises(Crash):  # a crash after three shards (batch_size 1 -> 8 texts per call = one shard)
        dense.dense_search(crashing, data.corpus, data.queries, 10, batch_size=1, options=options)
    (folder,) = (tmp_path / "shards").iterdir()
    finished = sorted(folder.glob("shard-*.npy"))
    assert len(finished) == 3 and not list(folder.glob(".*.tmp"))
    assert np.load(finished[0]).dtype == np.float16  # --dtype float16 stores float16 shards

    fresh = HashEncoder()
    stats = dense.EncodeStats()
    resumed = dense.dense_search(fresh, data.corpus, data.queries, 10, batch_size=1, stats=stats, options=options)
    n_unique = len(set(dict(data.corpus.items()).values()))
    assert stats.unique == n_unique - 3 * 8 + len(data.queries)  # only the unfinished shards were encoded
    clean = dense.dense_search(HashEncoder(), dict(data.corpus.items()), data.queries, 10, batch_size=1)
    for qid in clean:  # float16 storage: the same scores to float16 precision
        assert np.allclose(sorted(resumed[qid].values()), sorted(clean[qid].values()), atol=2e-3)


def test_disk_cache_serves_a_sharded_corpus(tmp_path, beir_dir):
    data = load_beir(beir_dir)
    options = dense.SearchOptions(shard_rows=8, shard_dir=tmp_path / "shards")
    runs, encoded = [], []
    for _ in range(2):
        memo = dense.EmbeddingMemo(EmbeddingCache("hash", "1", {}, root=tmp_path / "cache"))
        stats = dense.EncodeStats()
        runs.append(
            dense.dense_search(HashEncoder(), data.corpus, data.queries, 10, 4, stats, memo=memo, options=options)
        )
        encoded.append(stats.unique)
    assert encoded[0] > 0 and encoded[1] == 0 and runs[0] == runs[1]


def test_torch_search_equals_numpy(tmp_path):
    pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    docs, queries = rng.normal(size=(50, 6)).astype(np.float32), rng.normal(size=(7, 6)).astype(np.float32)
    plan = shards.EncodePlan(np.arange(50, dtype=np.int32), np.arange(50, dtype=np.int32), "x")
    store = shards.ShardStore.open({}, plan, 16, "float32", tmp_path, memory=False)
    for s in range(store.count):
        a, b = store.bounds(s)
        store.write(s, docs[a:b])
    numpy_cols, numpy_scores = dense.search_store(queries, store, 10, "cosine")
    torch_cols, torch_scores = search._search_store_torch(queries, store, 10, "cosine", "cpu")
    assert np.allclose(numpy_scores, torch_scores, atol=1e-6) and np.array_equal(numpy_cols, torch_cols)


def test_corpus_sample_keeps_judged_documents_and_is_partial(tmp_path, beir_dir):
    from leaderboard.engine.sampling import sample_corpus

    runs = []
    for _ in range(2):
        data = load_beir(beir_dir)
        assert sample_corpus(data, 10, seed=3) == 62
        runs.append(sorted(data.corpus))
    assert runs[0] == runs[1] and len(runs[0]) == 10 and "d1" in runs[0]  # seeded; the judged one kept
    (outcome,) = leaderboard.evaluate(["bm25"], [str(beir_dir)], output=tmp_path / "out", limit=3, corpus_sample=10)
    result = outcome.result
    assert not result.coverage.complete and "--corpus-sample 10: 10 of 62 documents" in result.coverage.reason
    assert result.settings.corpus_sample == 10 and result.counts["documents"] == 10
    assert outcome.path.name == f"{result.task.name}.partial-limit3-sample10-seed0.json"
