"""Cross-encoder rerankers through sentence_transformers.CrossEncoder (hub id or local folder)."""

from __future__ import annotations

from typing import Sequence

from leaderboard import hookimpl
from leaderboard.errors import BadInput
from leaderboard.model import ModelKind, ModelMetadata, ModelRequest, Reranker

from .sentence_transformers import hub_revision, load_from_source, local_revision


class CrossEncoderModel(Reranker):
    def __init__(self, source: str, request: ModelRequest, revision: str | None = None):
        from sentence_transformers import CrossEncoder

        self.batch_size = request.batch_size
        self.model, folder, is_local = load_from_source(CrossEncoder, source, "cross-encoder", revision,
                                                        device=request.device, max_length=request.max_length)
        self.metadata = ModelMetadata(
            name=folder.resolve().name if is_local else source,
            kind=ModelKind.RERANKER,
            revision=local_revision(folder) if is_local else hub_revision(source, revision),
            n_parameters=sum(p.numel() for p in self.model.model.parameters()),
            max_length=self.model.max_length,
            similarity="cross-encoder",
            reference=None if is_local else f"https://huggingface.co/{source}",
        )
        self.dtype = str(next(self.model.model.parameters()).dtype).removeprefix("torch.")

    def settings(self) -> dict:
        return {"max_length": self.model.max_length, "activation": type(getattr(self.model, "activation_fn", None)).__name__}

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        scores = self.model.predict([list(p) for p in pairs], batch_size=self.batch_size, show_progress_bar=False, convert_to_numpy=True)
        return [float(s) for s in scores]


def from_argument(request: ModelRequest) -> CrossEncoderModel:
    model_id, _, revision = (request.argument or "").partition("@")
    if not model_id:
        raise BadInput("Expected a model after 'ce:', e.g. ce:cross-encoder/ms-marco-MiniLM-L6-v2 or ce:/path/to/model[@revision].")
    return CrossEncoderModel(model_id, request, revision or None)


@hookimpl
def register_models(register):
    register("ce:", from_argument, description="Any sentence-transformers CrossEncoder reranker: ce:<hub id or local folder>[@revision]")
