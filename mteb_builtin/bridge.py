"""Both directions between our model contract and mteb's model protocols.

* ``to_mteb(model)``: one of our models as an mteb ``EncoderProtocol`` (bi-encoders) or
  ``CrossEncoderProtocol`` (rerankers), so it can be handed to ``mteb.evaluate``.
* ``MtebDenseModel`` / ``MtebReranker``: a model from mteb's registry (``--model mteb:<name>``)
  behind our contract, with its metadata taken from mteb's ``ModelMeta``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from leaderboard.contract.model import DenseModel, Model, ModelKind, ModelMetadata, Reranker, Role
from leaderboard.toolkit import encode_texts, mteb_model_meta


def _texts(inputs: Any) -> list[str]:
    return [text for batch in inputs for text in batch["text"]]


class MtebEncoder:
    """Our DenseModel as an mteb EncoderProtocol."""

    def __init__(self, model: DenseModel, batch_size: int = 32):
        self.model, self.batch_size = model, batch_size
        self.mteb_model_meta = mteb_model_meta(model.metadata, "dense")

    def encode(
        self, inputs, *, task_metadata=None, hf_split=None, hf_subset=None, prompt_type=None, **kwargs
    ) -> np.ndarray:
        role: Role = "query" if str(getattr(prompt_type, "value", prompt_type)) == "query" else "document"
        prompt = self.model.metadata.query_prompt if role == "query" else self.model.metadata.document_prompt
        return encode_texts(self.model, [prompt + t for t in _texts(inputs)], role, self.batch_size)

    def _prepare(self, x) -> torch.Tensor:
        t = torch.as_tensor(np.asarray(x, dtype=np.float32))
        t = t.unsqueeze(0) if t.dim() == 1 else t
        return (
            torch.nn.functional.normalize(t, dim=-1) if (self.model.metadata.similarity or "cosine") == "cosine" else t
        )

    def similarity(self, embeddings1, embeddings2) -> torch.Tensor:
        return self._prepare(embeddings1) @ self._prepare(embeddings2).T

    def similarity_pairwise(self, embeddings1, embeddings2) -> torch.Tensor:
        return (self._prepare(embeddings1) * self._prepare(embeddings2)).sum(dim=-1)


class MtebCrossEncoder:
    """Our Reranker as an mteb CrossEncoderProtocol."""

    def __init__(self, model: Reranker):
        self.model = model
        self.mteb_model_meta = mteb_model_meta(model.metadata, "cross-encoder")

    def predict(
        self, inputs1, inputs2, *, task_metadata=None, hf_split=None, hf_subset=None, prompt_type=None, **kwargs
    ) -> np.ndarray:
        return np.asarray(self.model.score_pairs(list(zip(_texts(inputs1), _texts(inputs2)))), dtype=np.float32)


def to_mteb(model: Model, batch_size: int = 32) -> MtebEncoder | MtebCrossEncoder:
    if isinstance(model, DenseModel):
        return MtebEncoder(model, batch_size)
    if isinstance(model, Reranker):
        return MtebCrossEncoder(model)
    pipeline_reranker = getattr(model, "reranker", None)
    if isinstance(pipeline_reranker, Reranker):  # mteb's reranking tasks supply the first stage
        return MtebCrossEncoder(pipeline_reranker)
    raise TypeError(
        f"{model.metadata.name} ({type(model).__name__}) has no mteb counterpart: only bi-encoders and rerankers do"
    )


# -- the reverse: mteb registry models behind our contract --------------------------------------


def harness_task_metadata(name: str = "RetrievalLeaderboardHarness", description: str = "retrieval-leaderboard") -> Any:
    """A neutral retrieval TaskMetadata: mteb encoders pick prompts from it."""
    from mteb.abstasks.task_metadata import TaskMetadata

    return TaskMetadata(
        name=name,
        type="Retrieval",
        main_score="ndcg_at_10",
        description=description,
        reference=None,
        dataset={"path": "NA", "revision": "NA"},
        category="t2t",
        eval_splits=["test"],
        eval_langs=["eng-Latn"],
        date=None,
        dialect=[],
        domains=[],
        task_subtypes=[],
        license=None,
        annotations_creators=None,
        modalities=["text"],
        sample_creation=None,
        bibtex_citation="",
    )


def metadata_from_mteb(meta: Any, kind: ModelKind) -> ModelMetadata:
    similarity = getattr(meta.similarity_fn_name, "value", meta.similarity_fn_name)
    return ModelMetadata(
        name=meta.name,
        kind=kind,
        revision=meta.revision,
        n_parameters=meta.n_parameters,
        max_length=int(meta.max_tokens) if meta.max_tokens else None,
        similarity=str(similarity) if similarity else ("cross-encoder" if kind == ModelKind.RERANKER else "cosine"),
        takes_instructions=bool(meta.use_instructions),
        license=str(meta.license) if meta.license else None,
        reference=str(meta.reference) if meta.reference else None,
    )


class _FromMteb:
    """What both mteb-backed model kinds share: the loaded mteb model, its metadata, a task context."""

    kind: ModelKind

    def __init__(self, meta: Any, loaded: Any, batch_size: int):
        self.meta, self.inner, self.batch_size = meta, loaded, batch_size
        self.metadata = metadata_from_mteb(meta, self.kind)
        self._task = harness_task_metadata()

    def settings(self) -> dict[str, Any]:
        return {
            "mteb_model": self.meta.name,
            "mteb_revision": self.meta.revision,
            "mteb_loader": getattr(self.meta.loader, "__name__", str(self.meta.loader)),
        }


class MtebDenseModel(_FromMteb, DenseModel):
    kind = ModelKind.DENSE

    def encode(self, texts: Sequence[str], role: Role) -> np.ndarray:
        from mteb._create_dataloaders import _create_dataloader_from_texts
        from mteb.types import PromptType

        prompt = PromptType.query if role == "query" else PromptType.document
        out = self.inner.encode(
            _create_dataloader_from_texts(list(texts), batch_size=self.batch_size),
            task_metadata=self._task,
            hf_split="test",
            hf_subset="default",
            prompt_type=prompt,
            batch_size=self.batch_size,
            show_progress_bar=False,
        )
        return np.asarray(out.cpu() if hasattr(out, "cpu") else out, dtype=np.float32)


class MtebReranker(_FromMteb, Reranker):
    kind = ModelKind.RERANKER

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        from mteb._create_dataloaders import _create_dataloader_from_texts

        queries = _create_dataloader_from_texts([q for q, _ in pairs], batch_size=self.batch_size)
        docs = _create_dataloader_from_texts([d for _, d in pairs], batch_size=self.batch_size)
        out = self.inner.predict(
            queries, docs, task_metadata=self._task, hf_split="test", hf_subset="default", batch_size=self.batch_size
        )
        return [float(x) for x in np.asarray(out.cpu() if hasattr(out, "cpu") else out).reshape(-1)]


class MtebSearch:
    """Any of our models as an mteb SearchProtocol: our own retrieval path inside mteb's loop.

    Used for models mteb has no protocol for (BM25, custom retrievers, pipelines on retrieval
    tasks). On reranking tasks (``top_ranked`` given) a pipeline's reranker scores the given list;
    any other model retrieves its top-k and keeps the given candidates, as mteb's own BM25 does.
    """

    def __init__(self, model: Model, batch_size: int = 32):
        self.model, self.batch_size = model, batch_size
        self.mteb_model_meta = mteb_model_meta(model.metadata, "dense")
        self.corpus: dict[str, str] = {}

    def index(
        self, corpus, *, task_metadata=None, hf_split=None, hf_subset=None, encode_kwargs=None, num_proc=None, **kwargs
    ) -> None:
        self.corpus = {str(r["id"]): f"{r.get('title') or ''} {r['text']}".strip() for r in corpus}

    def search(
        self,
        queries,
        *,
        task_metadata=None,
        hf_split=None,
        hf_subset=None,
        top_k=1000,
        encode_kwargs=None,
        top_ranked=None,
        num_proc=None,
        **kwargs,
    ):
        from mteb._create_dataloaders import _combine_queries_with_instruction_text

        from leaderboard.toolkit import rerank, retrieve

        texts = {str(i): t for i, t in zip(queries["id"], _combine_queries_with_instruction_text(queries)["text"])}
        reranker = getattr(self.model, "reranker", None)
        if top_ranked and isinstance(reranker, Reranker):
            pairs = [(qid, d) for qid in texts for d in top_ranked.get(qid, []) if d in self.corpus]
            scores = rerank(reranker, [(texts[q], self.corpus[d]) for q, d in pairs], self.batch_size)
            run: dict[str, dict[str, float]] = {qid: {} for qid in texts}
            for (qid, doc), score in zip(pairs, scores):
                run[qid][doc] = score
            return run
        run = retrieve(self.model, self.corpus, texts, min(top_k, len(self.corpus)), self.batch_size)
        if top_ranked:
            run = {
                qid: {d: s for d, s in ranking.items() if d in set(top_ranked.get(qid, []))}
                for qid, ranking in run.items()
            }
        return run


def mteb_adapter(model: Model, batch_size: int = 32) -> Any:
    """The best mteb-facing form of one of our models: encoder, cross-encoder, else search."""
    if isinstance(model, (DenseModel, Reranker)):
        return to_mteb(model, batch_size)
    return MtebSearch(model, batch_size)
