"""The model contract: what a model plugin declares and the one or two methods it implements.

Pick the base class that matches your model and implement its abstract method(s):

* ``DenseModel``   -> ``encode(texts, role)``; the harness does dedup, batching, caching, search.
* ``SparseModel``  -> ``search(corpus, queries, top_k)`` and ``score(query, documents)``.
* ``Reranker``     -> ``score_pairs(pairs)``.

Models never read files, draw progress bars or write results: the runner does.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar, Literal

if TYPE_CHECKING:  # numpy is only named in annotations: importing the contract stays cheap
    import numpy as np

Run = dict[str, dict[str, float]]  # query id -> document id -> score (higher is better)
Role = Literal["query", "document"]

# The run's defaults, declared here once: the runner's options, the CLI and ModelRequest all read them.
DEFAULT_BATCH_SIZE = 32
DTYPES = ("float32", "float16", "bfloat16")  # what --dtype accepts for the weights


class ModelKind(str, Enum):
    SPARSE = "sparse"
    DENSE = "dense"
    RERANKER = "reranker"
    PIPELINE = "pipeline"


@dataclass(frozen=True)
class ModelRequest:
    """What the runner asks a model factory for."""

    name: str  # the full name the user typed
    argument: str | None = None  # the part after a registered prefix ("st:<argument>")
    batch_size: int = DEFAULT_BATCH_SIZE
    device: str | None = None
    max_length: int | None = None
    dtype: str | None = None  # one of DTYPES for the weights; None keeps the model's own; apply it in load()


@dataclass(frozen=True)
class ProtocolVariant:
    """A model that is a paper's own protocol for another (default) model, such as ``bm25:mair`` for ``bm25``.

    The board shows it on its paper's benchmark beside the default model, with the protocol's name, how it
    differs and its score minus the default's (Δ). It runs only on the tasks of ``benchmarks``: elsewhere
    the protocol is not the paper's, and ``run`` refuses it (exit 2) naming them. A model that is also a
    model in its own right (``bm25-okapi``: rank_bm25's BM25 anywhere, MultiConIR's protocol on MultiConIR)
    sets ``runs_anywhere``: it runs on every task and is shown as the protocol on ``benchmarks`` only.
    """

    of: str  # the default model's name, e.g. "bm25"
    protocol: str  # the paper's name for the setup, e.g. "MAIR's eval_bm25 (Sun et al., EMNLP 2024)"
    benchmarks: tuple[str, ...]  # the benchmark(s) whose paper this protocol reproduces, by name
    differences: tuple[str, ...] = ()  # what it does otherwise than the default, in short phrases
    runs_anywhere: bool = False

    def __post_init__(self) -> None:
        if not self.of or not self.protocol or not self.benchmarks:
            raise ValueError("ProtocolVariant needs of=, protocol= and at least one benchmark (benchmarks=)")


@dataclass
class ModelMetadata:
    name: str
    # Follows from the model's base class (DenseModel: dense, SparseModel: sparse, Reranker: reranker), which
    # fills it in when the metadata is attached to the model: leave it out. A kind that contradicts the base
    # class is refused before the model is used.
    kind: ModelKind | None = None
    revision: str | None = None  # a commit hash or package version that pins the weights
    n_parameters: int | None = None
    max_length: int | None = None  # max input tokens; None for unbounded (BM25)
    embedding_dim: int | None = None  # width of a dense model's embeddings (the board's Dimension column)
    similarity: str | None = None  # "cosine", "dot", "bm25", "cross-encoder", ...
    takes_instructions: bool = False
    # How an instruction reaches the model: a template over {instruction} and {query}.
    instruction_template: str = "{instruction} {query}"
    query_prompt: str = ""  # prepended to every query, e.g. "query: " (E5); recorded in results
    document_prompt: str = ""  # prepended to every document, e.g. "passage: "
    license: str | None = None
    reference: str | None = None
    # The dtype the weights actually run in ("float32", "float16", ...), set by load(): recorded in results,
    # next to the dtype the run asked for. None for models without weights (BM25).
    dtype: str | None = None
    # The name mteb's results repository lists this same model under (e.g. "mteb/baseline-bm25s"), when it is
    # not this name: the board shows an imported mteb run of it beside this one, with their difference.
    mteb_name: str | None = None
    # A paper's own protocol for another model (``ProtocolVariant``): shown beside it on the paper's benchmark
    # with the difference, and run only there (unless it runs anywhere).
    variant: ProtocolVariant | None = None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["kind"] = self.kind.value if self.kind is not None else None
        if data.get("variant") is not None:  # tuples as the lists JSON holds
            data["variant"] = {k: list(v) if isinstance(v, tuple) else v for k, v in data["variant"].items()}
        return data


class Model(ABC):
    """Factories build models cheaply; weights load in ``load()``, which the runner calls just before
    first use, so a run whose results already exist loads nothing. ``metadata.name``,
    ``metadata.revision`` and ``settings()`` must be known before ``load()``; other metadata
    (parameter count, ``dtype``) may be filled in by it. ``metadata.kind`` follows from the base
    class (``DenseModel``: dense, ``SparseModel``: sparse, ``Reranker``: reranker), which decides how
    the model is evaluated: it is filled in as the metadata is attached, and the runner refuses a
    model whose metadata declares another kind.
    """

    metadata: ModelMetadata
    # Which of the run's model options (ModelRequest's batch_size, device, dtype, max_length) this model
    # applies. A model that declares them gets a one-line note for an option it ignores (--device for
    # BM25) and a checked --device; None (the default) declares nothing.
    uses_options: ClassVar[frozenset[str] | None] = None

    def __setattr__(self, name: str, value: Any) -> None:
        # The base class decides the kind: metadata without one gets it the moment it is attached, so every
        # reader (the runner, a result, a test) sees the kind without the author declaring it.
        if name == "metadata" and isinstance(value, ModelMetadata) and value.kind is None:
            value.kind = kind_of(self)
        super().__setattr__(name, value)

    def load(self) -> None:
        """Load weights (idempotent). The default does nothing: for models with nothing to load."""

    def settings(self) -> dict[str, Any]:
        """Every setting that can change scores (recorded in results and part of their identity)."""
        return {}


class DenseModel(Model):
    """A bi-encoder. Implement ``encode``; the harness derives search and scoring from it."""

    @abstractmethod
    def encode(self, texts: Sequence[str], role: Role) -> np.ndarray:
        """Embed texts; the harness deduplicates, sorts by length, batches and caches before calling this.

        Args:
            texts: The texts of one batch.
            role: ``"query"`` or ``"document"``, for models that embed the two differently.

        Returns:
            One embedding row per text: a float32 array of shape ``[len(texts), dim]``.
        """


class SparseModel(Model):
    """A lexical retriever such as BM25."""

    @abstractmethod
    def search(self, corpus: dict[str, str], queries: dict[str, str], top_k: int) -> Run:
        """Retrieve each query's best documents from the corpus.

        Args:
            corpus: Document id to text (a mapping that may read texts from disk as they are asked for).
            queries: Query id to text.
            top_k: How many documents to return per query.

        Returns:
            Query id to {document id: score}, at most ``top_k`` documents each; higher scores are better.
        """

    @abstractmethod
    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        """Score one query against a small candidate set (the candidates form the corpus).

        Args:
            query: The query text.
            documents: The candidates' texts.

        Returns:
            One score per document, in their order; higher is more relevant.
        """


class Reranker(Model):
    """A cross-encoder: scores (query, document) pairs."""

    @abstractmethod
    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """Score (query, document) pairs.

        Args:
            pairs: (query text, document text) pairs of one batch.

        Returns:
            One score per pair, in their order; higher is more relevant.
        """


def kind_of(model: Model) -> ModelKind | None:
    """The kind the base class makes a model (None for a ``Model`` that is none of the three)."""
    for base, kind in ((DenseModel, ModelKind.DENSE), (SparseModel, ModelKind.SPARSE), (Reranker, ModelKind.RERANKER)):
        if isinstance(model, base):
            return kind
    return None
