"""BM25 exactly as ``rank_bm25.BM25Okapi`` computes it (the BM25 of MultiConIR's released code).

rank_bm25 0.2.2 (https://github.com/dorianbrown/rank_bm25), reproduced here with numpy:

* IDF(t) = log(N - n_t + 0.5) - log(n_t + 0.5)  (Okapi IDF; negative for terms in over half the documents)
* every negative IDF is replaced by epsilon * average IDF, where the average is taken over ALL
  corpus terms *before* the replacement. On tiny corpora the average itself can be <= 0 (two
  documents: a shared term has log(0.5/2.5) < 0 and a term in one document has exactly 0), and
  then the "floor" is negative too, exactly as rank_bm25 leaves it.
* score(q, d) = sum over query tokens (repeats count again) of
  IDF(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * |d| / avgdl)); a token unseen in the corpus adds 0.

rank_bm25 itself is not imported here (it scores a query by walking every document's dict); it is
a test dependency that checks this module score for score.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from leaderboard import hookimpl
from leaderboard.contract.model import ModelMetadata, ModelRequest, ProtocolVariant, Run, SparseModel
from leaderboard.toolkit import step

Tokenizer = Callable[[str], list[str]]
IMPLEMENTATION = "bm25-okapi (rank_bm25 BM25Okapi formula)"
REFERENCE = "https://github.com/dorianbrown/rank_bm25"
# MultiConIR's own BM25 (its code scores each row's candidates with rank_bm25.BM25Okapi): on that benchmark's board
# this model is the paper's protocol, shown beside bm25 with the difference. Elsewhere it is rank_bm25's BM25.
MULTICONIR_PROTOCOL = "MultiConIR's rank_bm25 BM25Okapi (Lu et al., 2025)"
DIFFERENCES = (
    "Okapi IDF with rank_bm25's epsilon floor",
    "text.lower().split() tokens",
    "no stopwords or stemmer",
)


def lower_split(text: str) -> list[str]:
    """MultiConIR's reference tokenisation: lower-case, then split on whitespace."""
    return text.lower().split()


@dataclass(frozen=True)
class OkapiIndex:
    """An inverted index whose postings already hold each (term, document) contribution to the score."""

    vocab: dict[str, int]  # term -> term id, in rank_bm25's order (first appearance in the corpus)
    idf: np.ndarray  # per term id, after the epsilon floor
    average_idf: float  # over all terms, before the floor (rank_bm25's ``average_idf``)
    starts: np.ndarray  # postings of term t are [starts[t], starts[t + 1])
    docs: np.ndarray  # document index of each posting
    weights: np.ndarray  # IDF(t) * saturated tf of each posting
    n_docs: int

    def scores(self, tokens: Sequence[str]) -> np.ndarray:
        out = np.zeros(self.n_docs)
        for token in tokens:  # in query order, as rank_bm25 adds them: the sums agree to the last bit
            term = self.vocab.get(token)
            if term is not None:
                lo, hi = self.starts[term], self.starts[term + 1]
                out[self.docs[lo:hi]] += self.weights[lo:hi]
        return out


def build_index(tokenized: Sequence[Sequence[str]], k1: float, b: float, epsilon: float) -> OkapiIndex:
    vocab: dict[str, int] = {}
    doc_freq: list[int] = []
    terms: list[int] = []
    docs: list[int] = []
    tfs: list[int] = []
    doc_len = np.array([len(tokens) for tokens in tokenized], dtype=np.int64)
    for d, tokens in enumerate(tokenized):
        counts: dict[str, int] = {}
        for token in tokens:
            counts[token] = counts.get(token, 0) + 1
        for token, tf in counts.items():
            term = vocab.setdefault(token, len(vocab))
            if term == len(doc_freq):
                doc_freq.append(0)
            doc_freq[term] += 1
            terms.append(term)
            docs.append(d)
            tfs.append(tf)
    n_docs = len(tokenized)
    raw = [math.log(n_docs - n + 0.5) - math.log(n + 0.5) for n in doc_freq]
    idf_sum = 0.0
    for value in raw:  # a plain running sum like rank_bm25's (Python's sum() compensates since 3.12)
        idf_sum += value
    average_idf = idf_sum / len(raw) if raw else 0.0
    floor = epsilon * average_idf
    idf = np.array([floor if value < 0 else value for value in raw], dtype=float)
    if not terms:  # no tokens at all: rank_bm25 divides by zero here; every score is 0
        empty = np.zeros(0, dtype=np.int64)
        return OkapiIndex(vocab, idf, average_idf, np.zeros(1, dtype=np.int64), empty, np.zeros(0), n_docs)
    term_arr, doc_arr, tf_arr = np.array(terms), np.array(docs), np.array(tfs, dtype=np.int64)
    avgdl = int(doc_len.sum()) / n_docs
    dl = doc_len[doc_arr]
    # The same expression, in the same order, as rank_bm25's get_scores.
    weights = idf[term_arr] * (tf_arr * (k1 + 1) / (tf_arr + k1 * (1 - b + b * dl / avgdl)))
    order = np.argsort(term_arr, kind="stable")
    starts = np.concatenate([[0], np.cumsum(np.bincount(term_arr, minlength=len(vocab)))])
    return OkapiIndex(vocab, idf, average_idf, starts, doc_arr[order].astype(np.int32), weights[order], n_docs)


class BM25Okapi(SparseModel):
    uses_options = frozenset()  # no weights, no device: --device, --dtype and --max-length are noted as unused

    def __init__(
        self,
        k1: float = 1.5,
        b: float = 0.75,
        epsilon: float = 0.25,
        tokenizer: Tokenizer = lower_split,
        tokenizer_name: str | None = None,
    ):
        self.k1, self.b, self.epsilon, self.tokenizer = k1, b, epsilon, tokenizer
        # Settings must name the tokenizer: a different one changes every score.
        self.tokenizer_name = tokenizer_name or (
            "text.lower().split()" if tokenizer is lower_split else f"{tokenizer.__module__}.{tokenizer.__qualname__}"
        )
        self.metadata = ModelMetadata(
            name="bm25-okapi",
            revision="okapi-1",  # bump when this module's scores change
            similarity="bm25",
            reference=REFERENCE,
        )
        if (k1, b, epsilon, tokenizer) == (1.5, 0.75, 0.25, lower_split):  # MultiConIR's settings exactly
            self.metadata.variant = ProtocolVariant(
                of="bm25",
                protocol=MULTICONIR_PROTOCOL,
                benchmarks=("MultiConIR",),
                differences=DIFFERENCES,
                runs_anywhere=True,  # rank_bm25's BM25 is a baseline of its own on any task
            )

    def settings(self) -> dict[str, Any]:
        return {
            "implementation": IMPLEMENTATION,
            "k1": self.k1,
            "b": self.b,
            "epsilon": self.epsilon,
            "idf": "log(N - n + 0.5) - log(n + 0.5); negative values replaced by epsilon * mean IDF over all terms",
            "tokenizer": self.tokenizer_name,
            "zero_score_documents": "only documents with a score > 0 are returned by search "
            "(the prefix of rank_bm25's full ranking that scores above 0)",
        }

    def index(self, documents: Sequence[str]) -> OkapiIndex:
        return build_index([self.tokenizer(text) for text in documents], self.k1, self.b, self.epsilon)

    def search(self, corpus: dict[str, str], queries: dict[str, str], top_k: int) -> Run:
        # one pass over the items: a corpus read from disk serves them in sequence, not one lookup per id
        doc_ids, texts = map(list, zip(*corpus.items())) if corpus else ([], [])
        with step("indexing (bm25-okapi)"):
            index = self.index(texts)
        run: Run = {}
        with step("searching (bm25-okapi)", total=len(queries)) as bar:
            for qid, text in queries.items():
                run[qid] = _top_positive(index.scores(self.tokenizer(text)), doc_ids, top_k)
                bar.advance()
        return run

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        # The candidate set is the BM25 corpus, as MultiConIR's reference implementation does.
        if not documents:
            return []
        scores: list[float] = self.index(documents).scores(self.tokenizer(query)).tolist()
        return scores


def _top_positive(scores: np.ndarray, doc_ids: list[str], top_k: int) -> dict[str, float]:
    """The top_k documents scoring > 0, ties at the cut broken as trec_eval orders (id descending).

    A document sharing no term with the query scores exactly 0 in rank_bm25 as well. Scores <= 0
    from shared terms happen only when the average IDF is <= 0 (corpora of a few documents); they
    are dropped too, so the run is always a prefix of rank_bm25's full ranking.
    """
    hits = np.flatnonzero(scores > 0)
    if top_k <= 0 or hits.size == 0:
        return {}
    if hits.size > top_k:
        kth = np.partition(scores[hits], hits.size - top_k)[hits.size - top_k]
        hits = hits[scores[hits] >= kth]  # everything tied with the k-th score, sorted out below
    ranked = sorted(((float(scores[i]), doc_ids[i]) for i in hits), reverse=True)[:top_k]
    return {doc: score for score, doc in ranked}


def _factory(request: ModelRequest) -> BM25Okapi:
    return BM25Okapi()


@hookimpl
def register_models(register: Callable[..., None]) -> None:
    register(
        "bm25-okapi",
        _factory,
        description="BM25 Okapi exactly as rank_bm25.BM25Okapi (k1=1.5, b=0.75, "
        "epsilon=0.25), text.lower().split() tokens, no stopwords or stemming",
    )
