"""Model weights from a Hugging Face hub id or a local folder: where they are, which revision, which dtype.

Any plugin that loads transformers-style weights (bi-encoders, cross-encoders, a third party's model)
needs the same answers, so they live here and reach plugins through ``leaderboard.toolkit``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from leaderboard.errors import BadInput, DataUnavailable

WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")  # ORG/NAME, as the hub spells repository ids


def local_revision(folder: Path) -> str | None:
    """A local model's revision: the sha256 of its weights (there is no commit to point to)."""
    from leaderboard.data.hashing import sha256_file

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


def load_from_source(
    loader: Callable[..., Any] | str, source: str, what: str, revision: str | None, **kwargs: Any
) -> Any:
    """Load a hub id or a local folder with ``loader``; a load that fails is bad input (exit 2).

    ``loader`` may be named as ``"module:attribute"`` (``"sentence_transformers:SentenceTransformer"``):
    it is then imported only after the source is found, so a model missing from an offline cache fails
    in a second, not after torch's import."""
    folder, is_local = check_source(source, what)
    if not is_local:
        check_hub(source, revision, what)
    if isinstance(loader, str):
        from importlib import import_module

        module, _, attribute = loader.partition(":")
        load: Callable[..., Any] = getattr(import_module(module), attribute)
    else:
        load = loader
    from transformers.utils import logging as hf_logging

    disable_progress_bar: Callable[[], None] = hf_logging.disable_progress_bar  # transformers leaves it untyped
    disable_progress_bar()  # the runner draws its own progress bars
    try:
        return load(str(folder) if is_local else source, revision=None if is_local else revision, **kwargs)
    except OSError as exc:
        raise BadInput(f"Could not load {what} {source!r}: {exc}") from None


def dtype_kwargs(dtype: str | None) -> dict[str, Any]:
    """Load the weights in ``dtype`` (--dtype); none given keeps the checkpoint's own (float32 for most)."""
    if dtype is None:
        return {}
    import torch

    return {"model_kwargs": {"dtype": getattr(torch, dtype)}}


def weights_dtype(module: Any) -> str:
    """The dtype a torch module's weights are in, as --dtype names it ("float16", not "torch.float16")."""
    return str(next(module.parameters()).dtype).removeprefix("torch.")
