"""Any model in mteb's registry, as ``--model mteb:<name>[@revision]``; metadata from mteb's ModelMeta."""

from __future__ import annotations

from collections.abc import Callable

from leaderboard import BadInput, hookimpl
from leaderboard.contract.model import ModelRequest


def from_argument(request: ModelRequest):
    import mteb

    from .bridge import MtebDenseModel, MtebReranker

    name, _, revision = (request.argument or "").partition("@")
    if not name:
        raise BadInput("Expected a model after 'mteb:', e.g. mteb:sentence-transformers/all-MiniLM-L6-v2.")
    try:
        meta = mteb.get_model_meta(name, revision or None)
    except Exception as exc:
        raise BadInput(f"mteb does not know the model {name!r}: {exc}") from None
    try:
        loaded = meta.load_model(device=request.device)
    except Exception as exc:
        raise BadInput(
            f"mteb could not load {name!r} at revision {meta.revision} ({type(exc).__name__}: {exc}). "
            "Its weights come from the Hugging Face hub; offline, they must already be in the local hub cache."
        ) from None
    if "cross-encoder" in (meta.model_type or []):
        return MtebReranker(meta, loaded, request.batch_size)
    return MtebDenseModel(meta, loaded, request.batch_size)


@hookimpl
def register_models(register: Callable[..., None]) -> None:
    register(
        "mteb:",
        from_argument,
        description="Any model in mteb's registry: mteb:<name>[@revision] (metadata from mteb's ModelMeta)",
        requires=("mteb", "torch"),
        install="pip install 'retrieval-leaderboard[mteb]'",
    )
