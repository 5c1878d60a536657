"""BM25 through bm25s: Lucene-variant BM25 with English stopwords and a Snowball stemmer; and ``bm25:mair``.

``bm25`` is the ComLQ authors' protocol (their ``evaluate_bm25.py``: llama_index's BM25Retriever over
bm25s, English stopwords, PyStemmer's Snowball English stemmer) and mteb's BM25 baseline.

``bm25:mair`` is MAIR's own BM25 (``eval_bm25`` in github.com/sunnweiwei/MAIR ``mair.py``): the same
bm25s Lucene BM25 (k1 1.5, b 0.75), but the instruction prepended to the query ("{instruction}
{query}"), no stemmer, documents tokenized by ``bm25s.tokenize(docs, stopwords="en")`` and each query
by ``bm25s.tokenize(query)``, a query left without tokens searched as "NONE", and the top 100 kept
with their zero-score hits (``retrieve(k=min(100, len(docs)))``).

Neither is the BM25 of MultiConIR's paper: the authors score with ``rank_bm25.BM25Okapi`` (Okapi IDF
with its epsilon floor, ``text.lower().split()`` tokens, no stopwords or stemming). For the paper's
baseline use ``bm25-okapi`` (``plugins/bm25_okapi.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib.metadata import version
from typing import Any

import bm25s
import numpy as np
import Stemmer

from leaderboard import hookimpl
from leaderboard.contract.model import ModelMetadata, ProtocolVariant, Run, SparseModel
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

    def settings(self) -> dict[str, Any]:
        return {
            "implementation": f"bm25s {version('bm25s')}",
            "method": self.method,
            "k1": self.k1,
            "b": self.b,
            "tokenizer": {"pattern": TOKEN_PATTERN, "lowercase": True},
            "stopwords": self.stopwords,
            "stemmer": f"PyStemmer/snowball:{self.stemmer_name}" if self.stemmer_name else None,
            "zero_score_documents": "dropped (a document that shares no term with the query is not retrieved)",
            "ties_at_the_cut": "broken as trec_eval orders (id descending), the same on every machine",
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
        ids: list[list[int]] = tokenizer.tokenize(
            list(queries), return_as="ids", update_vocab=False, show_progress=False
        )
        return ids

    def search(self, corpus: dict[str, str], queries: dict[str, str], top_k: int) -> Run:
        # one pass over the items: a corpus read from disk serves them in sequence, not one lookup per id
        doc_ids, texts = map(list, zip(*corpus.items())) if corpus else ([], [])
        query_ids = list(queries)
        with step("indexing (bm25)"):
            index, tokenizer = self._index(texts)
        with step("tokenizing queries"):
            tokens = self._query_ids(tokenizer, [queries[q] for q in query_ids])
        k = min(top_k, len(doc_ids))
        if k <= 0:
            return {q: {} for q in query_ids}
        probe = min(k + 1, len(doc_ids))  # one past the cut: does a tie straddle it?
        run: Run = {}
        with step("searching (bm25)", total=len(query_ids)) as bar:
            for start in range(0, len(query_ids), 256):
                block = tokens[start : start + 256]
                rows, scores = index.retrieve(block, k=probe, show_progress=False, n_threads=0)
                for qid, ids, row, score in zip(query_ids[start : start + 256], block, rows, scores):
                    if probe > k and score[k] > 0 and score[k - 1] == score[k]:
                        run[qid] = _top_positive(np.asarray(index.get_scores_from_ids(ids)), doc_ids, k)
                    else:
                        run[qid] = {doc_ids[r]: float(s) for r, s in zip(row[:k], score[:k]) if s > 0}
                bar.advance(len(block))
        return run

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        # The candidate set is the BM25 corpus (as MultiConIR's code does; its scores are bm25-okapi's, not these).
        index, tokenizer = self._index(documents)
        scores: list[float] = np.asarray(
            index.get_scores_from_ids(self._query_ids(tokenizer, [query])[0]), dtype=float
        ).tolist()
        return scores


MAIR_NAME = "bm25:mair"
MAIR_PROTOCOL = "MAIR's eval_bm25 (Sun et al., EMNLP 2024)"
MAIR_REFERENCE = "https://github.com/sunnweiwei/MAIR/blob/main/mair.py"
# What bm25:mair does differently from bm25, as the board and the result state it.
MAIR_DIFFERENCES = (
    "the instruction prepended to the query",
    "no stemmer",
    "the top k kept with their zero-score hits",
    'a query without tokens searched as "NONE"',
)


class MairBM25(BM25):
    """MAIR's ``eval_bm25``, call for call: the same bm25s functions with MAIR's arguments."""

    def __init__(self) -> None:
        super().__init__(stemmer=None)
        self.metadata.name = MAIR_NAME
        self.metadata.takes_instructions = True
        self.metadata.instruction_template = "{instruction} {query}"  # MAIR: item['instruction'] + ' ' + query
        self.metadata.reference = MAIR_REFERENCE
        self.metadata.mteb_name = None  # mteb's baseline is bm25's protocol, not this one
        # MAIR's protocol, so it runs on MAIR's tasks only (elsewhere it is nobody's protocol)
        self.metadata.variant = ProtocolVariant(
            of="bm25", protocol=MAIR_PROTOCOL, benchmarks=("MAIR",), differences=MAIR_DIFFERENCES
        )

    def settings(self) -> dict[str, Any]:
        return {
            **super().settings(),
            "tokenizer": {"pattern": TOKEN_PATTERN, "lowercase": True, "calls": "bm25s.tokenize, as MAIR's eval_bm25"},
            "zero_score_documents": "kept (the top k of bm25s' ranking, zero scores included, as MAIR's eval_bm25)",
            "ties_at_the_cut": "as bm25s' top k keeps them (MAIR's eval_bm25)",
            "empty_query": 'searched as "NONE" (MAIR\'s eval_bm25)',
        }

    def search(self, corpus: dict[str, str], queries: dict[str, str], top_k: int) -> Run:
        doc_ids, texts = map(list, zip(*corpus.items())) if corpus else ([], [])
        query_ids = list(queries)
        if not doc_ids or top_k <= 0:
            return {q: {} for q in query_ids}
        with step("indexing (bm25:mair)"):
            retriever = bm25s.BM25()  # MAIR's defaults: lucene, k1 1.5, b 0.75
            retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
        with step("tokenizing queries"):
            tokens = [_mair_query_tokens(queries[q]) for q in query_ids]
        k = min(top_k, len(doc_ids))
        run: Run = {}
        with step("searching (bm25:mair)", total=len(query_ids)) as bar:
            for start in range(0, len(query_ids), 256):
                block = tokens[start : start + 256]
                rows, scores = retriever.retrieve(block, k=k, show_progress=False, n_threads=0)
                for qid, row, score in zip(query_ids[start : start + 256], rows, scores):
                    run[qid] = {doc_ids[r]: float(s) for r, s in zip(row, score)}
                bar.advance(len(block))
        return run

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        if not documents:
            return []
        retriever = bm25s.BM25()
        retriever.index(bm25s.tokenize(list(documents), stopwords="en", show_progress=False), show_progress=False)
        ids = retriever.get_tokens_ids(_mair_query_tokens(query))
        scores: list[float] = np.asarray(retriever.get_scores(ids), dtype=float).tolist()
        return scores


def _top_positive(scores: np.ndarray, doc_ids: list[str], top_k: int) -> dict[str, float]:
    """The top_k documents scoring > 0, ties at the cut broken as trec_eval orders (id descending).

    bm25s' own top k (``numpy.argpartition``) keeps an arbitrary few of the documents tied at the cut, and which
    ones depends on the CPU's vector instructions: the same run judged other passages on another machine."""
    hits = np.flatnonzero(scores > 0)
    if hits.size > top_k:
        kth = np.partition(scores[hits], hits.size - top_k)[hits.size - top_k]
        hits = hits[scores[hits] >= kth]  # everything tied with the k-th score, sorted out below
    ranked = sorted(((float(scores[i]), doc_ids[i]) for i in hits), reverse=True)[:top_k]
    return {doc: score for score, doc in ranked}


def _mair_query_tokens(query: str) -> list[str]:
    """MAIR's query tokens: ``bm25s.tokenize(query)`` (bm25s' defaults), "NONE" when none are left."""
    tokenized = bm25s.tokenize(query, show_progress=False)
    if len(tokenized.vocab) == 0:
        tokenized = bm25s.tokenize("NONE", stopwords=[], show_progress=False)
    words: list[str] = bm25s.tokenization.convert_tokenized_to_string_list(tokenized)[0]
    return words


@hookimpl
def register_models(register: Callable[..., None]) -> None:
    register(
        "bm25",
        lambda request: BM25(),
        description="BM25 (bm25s, Lucene variant, k1=1.5, b=0.75, English stopwords + Snowball stemmer)",
    )
    register(
        MAIR_NAME,
        lambda request: MairBM25(),
        description=f"BM25 as {MAIR_PROTOCOL}: bm25 with {', '.join(MAIR_DIFFERENCES)}; MAIR's tasks only",
    )
