"""Tiny, deterministic models and tasks for the scale tests (runner strata, shards, dtype, Ray).

``HashEncoder`` is a hashing-trick bag-of-words bi-encoder in NumPy: it costs nothing to load, gives
the same vectors in every process, and ranks documents sharing words with the query first.
"""

from __future__ import annotations

import hashlib
import re
import time
from pathlib import Path

import numpy as np

from leaderboard.contract.model import DenseModel, ModelKind, ModelMetadata
from leaderboard.contract.task import RetrievalData, RetrievalTask, ScoreReport, TaskMetadata
from leaderboard.data.beir import load_beir
from leaderboard.metrics.retrieval import mean_scores, metric_definitions, per_query_scores
from leaderboard.registry import PluginInfo, Registration, Registry, get_registry

_WORD = re.compile(r"\w+")


class HashEncoder(DenseModel):
    """Each word adds a fixed pseudo-random vector (seeded by the word's hash); optionally slow."""

    def __init__(self, dim: int = 32, name: str = "hash-encoder", delay: float = 0.0):
        self.dim, self.delay = dim, delay
        self.metadata = ModelMetadata(name, ModelKind.DENSE, revision="1", similarity="cosine")
        self.calls: list[int] = []  # texts per encode call, in this process

    def settings(self) -> dict:
        return {"dim": self.dim}

    def _word(self, word: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
        return np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)

    def encode(self, texts, role):
        self.calls.append(len(texts))
        if self.delay:
            time.sleep(self.delay)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                out[i] += self._word(word)
            out[i, 0] += 1e-3 * len(text)  # no all-zero rows
        return out


class PerQueryBeirTask(RetrievalTask):
    """A BEIR folder scored with pytrec_eval that also reports per-query values (main split)."""

    def __init__(self, root: Path, subsets: tuple[str, ...] = ("default",), name: str = "tiny-cw"):
        self.root = Path(root)
        self.metadata = TaskMetadata(
            name=name,
            family="test",
            description="test fixture",
            reference="tests/scale_fixtures.py",
            metrics=metric_definitions(),
            main_score="ndcg_at_10",
            subsets=list(subsets),
            top_k=10,
        )

    def load(self) -> RetrievalData:
        return load_beir(self.root)

    def compute_scores(self, data: RetrievalData, run) -> ScoreReport:
        per_query = per_query_scores(data.qrels, run)
        return ScoreReport(
            {"test": {"default": mean_scores(per_query)}},
            per_query={q: {"ndcg_at_10": v["ndcg_at_10"]} for q, v in per_query.items()},
        )


def write_beir(root: Path, corpus: dict[str, str], queries: dict[str, str], qrels: dict[str, dict[str, int]]) -> Path:
    from leaderboard.data.beir import write_beir as write

    return write(root, corpus, queries, qrels)


def registry_with(name: str, factory) -> Registry:
    """The installed plugins plus one test task."""
    registry = get_registry()
    registry.plugins.setdefault("tests", PluginInfo("tests"))
    registry.add(Registration("task", name, factory, "test fixture", "tests"))
    return registry
