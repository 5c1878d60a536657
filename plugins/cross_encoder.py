"""Cross-encoder rerankers through sentence_transformers.CrossEncoder (hub id or local folder)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from leaderboard import BadInput, hookimpl
from leaderboard.contract.model import ModelMetadata, ModelRequest, Reranker
from leaderboard.toolkit import (
    check_source,
    dtype_kwargs,
    hub_revision,
    load_from_source,
    local_revision,
    weights_dtype,
)

# The dense extra, as the sentence-transformers plugin names it (each built-in stands alone).
DENSE_REQUIRES = ("sentence_transformers", "torch")
DENSE_INSTALL = "pip install 'retrieval-leaderboard[dense]'"


class CrossEncoderModel(Reranker):
    """Weights load in ``load()``: building the model downloads nothing."""

    uses_options = frozenset({"batch_size", "device", "dtype", "max_length"})

    def __init__(self, source: str, request: ModelRequest, revision: str | None = None):
        self.source, self.request, self.hub_revision = source, request, revision
        folder, is_local = check_source(source, "cross-encoder")
        self.model: Any = None  # loaded in load()
        self.metadata = ModelMetadata(
            name=folder.resolve().name if is_local else source,
            revision=local_revision(folder) if is_local else hub_revision(source, revision),
            max_length=request.max_length,
            similarity="cross-encoder",
            reference=None if is_local else f"https://huggingface.co/{source}",
        )

    def load(self) -> None:
        if self.model is not None:
            return
        self.model = load_from_source(
            "sentence_transformers:CrossEncoder",  # imported once the weights are found
            self.source,
            "cross-encoder",
            self.hub_revision,
            device=self.request.device,
            max_length=self.request.max_length,
            **dtype_kwargs(self.request.dtype),  # --dtype, as for bi-encoders
        )
        self.metadata.n_parameters = sum(p.numel() for p in self.model.model.parameters())
        self.metadata.max_length = max_length_of(self.model)
        self.metadata.dtype = weights_dtype(self.model.model)

    def settings(self) -> dict[str, Any]:
        self.load()  # the activation function is only known from the weights' config
        return {
            "max_length": max_length_of(self.model),
            "activation": type(getattr(self.model, "activation_fn", None)).__name__,
        }

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        self.load()
        scores = self.model.predict(
            [list(p) for p in pairs], batch_size=self.request.batch_size, show_progress_bar=False, convert_to_numpy=True
        )
        return [float(s) for s in scores]


def from_argument(request: ModelRequest) -> CrossEncoderModel:
    model_id, _, revision = (request.argument or "").partition("@")
    if not model_id:
        raise BadInput(
            "Expected a model after 'ce:', e.g. ce:cross-encoder/ms-marco-MiniLM-L6-v2 or ce:/path/to/model[@revision]."
        )
    return CrossEncoderModel(model_id, request, revision or None)


@hookimpl
def register_models(register: Callable[..., None]) -> None:
    register(
        "ce:",
        from_argument,
        description="Any sentence-transformers CrossEncoder reranker: ce:<hub id or local folder>[@revision]",
        requires=DENSE_REQUIRES,
        install=DENSE_INSTALL,
    )


def max_length_of(model: Any) -> int | None:
    """The cross-encoder's input limit: ``max_seq_length`` in sentence-transformers 6 (``max_length`` warns there)."""
    length: int | None = getattr(model, "max_seq_length", None) or model.max_length
    return length
