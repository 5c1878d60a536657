"""BM25 through bm25s: Lucene-variant BM25 with English stopwords and a Snowball stemmer.

A good first-stage retriever, but not the BM25 of MultiConIR's paper: the authors score with
``rank_bm25.BM25Okapi`` (Okapi IDF with its epsilon floor, ``text.lower().split()`` tokens, no
stopwords or stemming). For the paper's baseline use ``bm25-okapi`` (``plugins/bm25_okapi.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.metadata import version

import bm25s
import numpy as np
import Stemmer

from leaderboard import hookimpl
from leaderboard.contract.model import ModelMetadata, Run, SparseModel
from leaderboard.toolkit import step

TOKEN_PATTERN = r"(?u)\b\w\w+\b"  # bm25s' default (scikit-learn's CountVectorizer pattern)


class BM25(SparseModel):
    uses_options = frozenset()  # no weights, no device: --device, --dtype and --max-length are noted as unused

    def __init__(
        self,
        k1: float = 1.5,
        b: float = 0.75,
        method: str = "lucene",
        stopwords: str = "en",
        stemmer: str | None = "english",
    ):
        self.k1, self.b, self.method, self.stopwords, self.stemmer_name = k1, b, method, stopwords, stemmer
        self._stemmer = Stemmer.Stemmer(stemmer) if stemmer else None
        self.metadata = ModelMetadata(
            name="bm25",
            revision=f"bm25s-{version('bm25s')}",
            similarity="bm25",
            license="MIT",
            reference="https://github.com/xhluca/bm25s",
            # mteb's BM25 baseline is the same method: bm25s, English stopwords, a Snowball stemmer
            mteb_name="mteb/baseline-bm25s",
        )

    def settings(self) -> dict:
        return {
            "implementation": f"bm25s {version('bm25s')}",
            "method": self.method,
            "k1": self.k1,
            "b": self.b,
            "tokenizer": {"pattern": TOKEN_PATTERN, "lowercase": True},
            "stopwords": self.stopwords,
            "stemmer": f"PyStemmer/snowball:{self.stemmer_name}" if self.stemmer_name else None,
            "zero_score_documents": "dropped (a document that shares no term with the query is not retrieved)",
        }

    def _index(self, documents: Sequence[str]) -> tuple[bm25s.BM25, bm25s.tokenization.Tokenizer]:
        """Index documents; the returned tokenizer maps later queries onto the same vocabulary."""
        tokenizer = bm25s.tokenization.Tokenizer(
            lower=True, splitter=TOKEN_PATTERN, stopwords=self.stopwords, stemmer=self._stemmer
        )
        index = bm25s.BM25(k1=self.k1, b=self.b, method=self.method)
        index.index(tokenizer.tokenize(list(documents), return_as="ids", show_progress=False), show_progress=False)
        return index, tokenizer

    @staticmethod
    def _query_ids(tokenizer: bm25s.tokenization.Tokenizer, queries: Sequence[str]) -> list[list[int]]:
        # update_vocab=False: words unseen in the corpus cannot match anything and are dropped
        return tokenizer.tokenize(list(queries), return_as="ids", update_vocab=False, show_progress=False)

    def search(self, corpus: dict[str, str], queries: dict[str, str], top_k: int) -> Run:
        # one pass over the items: a corpus read from disk serves them in sequence, not one lookup per id
        doc_ids, texts = map(list, zip(*corpus.items())) if corpus else ([], [])
        query_ids = list(queries)
        with step("indexing (bm25)"):
            index, tokenizer = self._index(texts)
        with step("tokenizing queries"):
            tokens = self._query_ids(tokenizer, [queries[q] for q in query_ids])
        k = min(top_k, len(doc_ids))
        run: Run = {}
        with step("searching (bm25)", total=len(query_ids)) as bar:
            for start in range(0, len(query_ids), 256):
                block = tokens[start : start + 256]
                rows, scores = index.retrieve(block, k=k, show_progress=False, n_threads=0)
                for qid, row, score in zip(query_ids[start : start + 256], rows, scores):
                    run[qid] = {doc_ids[r]: float(s) for r, s in zip(row, score) if s > 0}
                bar.advance(len(block))
        return run

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        # The candidate set is the BM25 corpus (as MultiConIR's code does; its scores are bm25-okapi's, not these).
        index, tokenizer = self._index(documents)
        return np.asarray(index.get_scores_from_ids(self._query_ids(tokenizer, [query])[0]), dtype=float).tolist()


@hookimpl
def register_models(register):
    register(
        "bm25",
        lambda request: BM25(),
        description="BM25 (bm25s, Lucene variant, k1=1.5, b=0.75, English stopwords + Snowball stemmer)",
    )
