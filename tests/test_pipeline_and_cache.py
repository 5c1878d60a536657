"""Two-stage pipelines (first stage shared across rerankers) and the on-disk embedding cache.

The cross-encoders here are tiny BERTs with RANDOM weights built in a temporary folder: they
exercise the code path only, and their scores mean nothing.
"""

import json
import sqlite3

import numpy as np
import pytest
from conftest import run_cli
from tiny_models import build_random_cross_encoder

from leaderboard.engine.cache import EmbeddingCache
from leaderboard.engine.pipeline import PipelineSpec, parse
from leaderboard.errors import BadInput


def test_pipeline_syntax():
    assert parse("bm25") is None
    assert parse("bm25 >> ce:x") == PipelineSpec("bm25", "ce:x", 100)
    assert parse("st:/m >>20 ce:/r") == PipelineSpec("st:/m", "ce:/r", 20)
    for bad in ("bm25 >>", ">> ce:x", "a >> b >> c", "bm25 >>0 ce:x"):
        with pytest.raises(BadInput):
            parse(bad)


@pytest.fixture(scope="module")
def two_random_rerankers(tmp_path_factory):
    root = tmp_path_factory.mktemp("ce")
    return build_random_cross_encoder(root / "random-ce-a", seed=1), build_random_cross_encoder(
        root / "random-ce-b", seed=2
    )


def test_pipeline_end_to_end_reuses_the_first_stage(tmp_path, two_random_rerankers):
    a, b = two_random_rerankers
    ran = run_cli("run", "-m", f"bm25 >>10 ce:{a}", "-m", f"bm25 >>10 ce:{b}", "-t", "demo", "--output", str(tmp_path))
    assert ran.returncode == 0, ran.stderr
    assert "first-stage runs: 1 computed, 1 reused" in ran.stdout
    results = {
        json.loads(p.read_text())["model"]["name"]: json.loads(p.read_text()) for p in tmp_path.rglob("demo.json")
    }
    first, second = results["bm25 >>10 random-ce-a"], results["bm25 >>10 random-ce-b"]
    assert first["counts"]["first_stage_reused"] == 0 and second["counts"]["first_stage_reused"] == 1
    assert first["model"]["kind"] == "pipeline"
    # both stages' plugins and versions are recorded, not only the first stage's
    stages = {c["role"]: c for c in first["model"]["components"]}
    assert stages["first_stage"]["plugin"] == "bm25" and stages["first_stage"]["name"] == "bm25"
    assert stages["reranker"]["plugin"] == "cross-encoder" and stages["reranker"]["name"] == "random-ce-a"
    assert stages["reranker"]["plugin_version"] == stages["first_stage"]["plugin_version"] is not None
    assert first["model"]["plugin"] == "bm25 >> cross-encoder"
    assert first["settings"]["model_settings"]["depth"] == 10
    assert first["settings"]["model_settings"]["first_stage"]["settings"]["k1"] == 1.5
    assert first["settings"]["model_settings"]["reranker"]["settings"]["max_length"] == 128
    # the reranker scored BM25's top 10 for every query (fewer where BM25 matched fewer documents)
    assert 0 < first["counts"]["pairs_scored"] <= 12 * 10


def test_reranker_alone_cannot_retrieve(tmp_path, two_random_rerankers):
    a, _ = two_random_rerankers
    ran = run_cli("run", "-m", f"ce:{a}", "-t", "demo", "--output", str(tmp_path))
    assert ran.returncode == 2 and "is a reranker" in ran.stderr and "bm25 >> random-ce-a" in ran.stderr


def test_pipeline_needs_a_reranker_second(tmp_path):
    ran = run_cli("run", "-m", "bm25 >> bm25", "-t", "demo", "--output", str(tmp_path))
    assert ran.returncode == 2 and "second stage must be a reranker" in ran.stderr


def test_cache_round_trip_and_corruption(tmp_path):
    cache = EmbeddingCache("m", "r1", {"normalize": True}, root=tmp_path)
    vectors = np.arange(12, dtype=np.float32).reshape(3, 4)
    cache.put_many("document", ["a", "b", "c"], vectors)
    found = cache.get_many("document", ["a", "b", "c", "d"])
    assert np.array_equal(found["b"], vectors[1]) and "d" not in found
    assert (cache.stats.hits, cache.stats.misses) == (3, 1)
    assert cache.get_many("query", ["a"]) == {}  # the role is part of the key
    db = sqlite3.connect(cache.path)
    db.execute("UPDATE vectors SET data = substr(data, 1, 8) WHERE rowid = 1")  # truncated
    db.execute("UPDATE vectors SET data = zeroblob(16) WHERE rowid = 2")  # corrupt bytes, right length
    db.commit()
    cache.stats.hits = cache.stats.misses = 0
    found = cache.get_many("document", ["a", "b", "c"])
    assert list(found) == ["c"] and cache.stats.corrupt == 2 and cache.stats.misses == 2
    other = EmbeddingCache("m", "r2", {"normalize": True}, root=tmp_path)  # another revision: another file
    assert other.path != cache.path and other.get_many("document", ["c"]) == {}


def test_unreadable_cache_file_is_set_aside(tmp_path):
    path = EmbeddingCache("m", None, {}, root=tmp_path).path
    path.write_bytes(b"this is not a database" * 100)
    cache = EmbeddingCache("m", None, {}, root=tmp_path)
    assert cache.get_many("query", ["x"]) == {}
    assert any(p.name.startswith(path.stem) and "corrupt" in p.name for p in tmp_path.iterdir())


def test_second_run_is_served_from_the_cache(tmp_path):
    from tiny_models import build_random_bi_encoder

    bi = build_random_bi_encoder(tmp_path / "tiny-random-bi")  # random weights: the cache is what is tested
    env = {"LEADERBOARD_CACHE_DIR": str(tmp_path / "cache")}
    args = ["run", "-m", f"st:{bi}", "-t", "demo", "--output", str(tmp_path / "out"), "--overwrite"]
    first = run_cli(*args, env=env)
    second = run_cli(*args, env=env)
    assert "0 hits, 44 misses" in first.stdout and "44 hits, 0 misses" in second.stdout
    result = json.loads(next((tmp_path / "out").rglob("demo.json")).read_text())
    assert result["counts"]["cache_hits"] == 44 and result["counts"]["texts_encoded"] == 0
    bypass = run_cli(*args, "--no-cache", env=env)
    assert "hits" not in bypass.stdout
    assert json.loads(next((tmp_path / "out").rglob("demo.json")).read_text())["counts"]["texts_encoded"] == 44
    # corrupt every stored vector: the next run detects it and recomputes the same scores
    (db_path,) = (tmp_path / "cache").glob("*.sqlite")
    db = sqlite3.connect(db_path)
    db.execute("UPDATE vectors SET data = substr(data, 1, 100)")
    db.commit()
    db.close()
    healed = run_cli(*args, env=env)
    assert "44 corrupt entries recomputed" in healed.stdout
    assert json.loads(next((tmp_path / "out").rglob("demo.json")).read_text())["main_score"] == result["main_score"]
