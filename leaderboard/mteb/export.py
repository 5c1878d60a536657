"""MTEB result files: export ours in the embeddings-benchmark/results layout.

Export:  <out>/<org>__<model>/<revision>/<Task>.json (mteb TaskResult) + model_meta.json (ModelMeta).
Importing theirs is ``leaderboard.mteb.importer``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from leaderboard.contract.model import ModelKind, ModelMetadata
from leaderboard.errors import BadInput
from leaderboard.records.files import read_result
from leaderboard.records.listing import result_files

_SIMILARITIES = {"cosine": "cosine", "dot": "dot"}


def mteb_model_meta(meta: ModelMetadata, model_type: str) -> Any:
    """An ``mteb.ModelMeta`` describing one of our models (needs the mteb extra)."""
    from mteb.models.model_meta import ModelMeta

    name = meta.name if "/" in meta.name else f"retrieval-leaderboard/{meta.name}"  # mteb expects org/name
    return ModelMeta.create_empty(
        {
            "name": name,
            "revision": meta.revision or "no_revision_available",
            "n_parameters": meta.n_parameters,
            "max_tokens": meta.max_length,
            "similarity_fn_name": _SIMILARITIES.get(meta.similarity or ""),
            "use_instructions": meta.takes_instructions,
            "model_type": [model_type],
            "framework": ["PyTorch"],
            "languages": ["eng-Latn"],
        }
    )


def _model_metadata(result: dict[str, Any]) -> ModelMetadata:
    meta = dict(result["model"]["metadata"])
    meta["kind"] = ModelKind(meta["kind"])
    return ModelMetadata(**{k: v for k, v in meta.items() if k in ModelMetadata.__dataclass_fields__})


def to_task_result(result: dict[str, Any]) -> Any:
    from mteb import __version__ as mteb_version
    from mteb.results import TaskResult

    details = result.get("task_details", {})
    main = result["task"]["main_score"]
    # mteb's hf_subsets are dataset subsets (languages) that its get_score averages over; our
    # breakdowns (query types, categories, complexity strata) are not, so only "default" goes out
    # unless mteb itself produced the subsets.
    exported = set(result["task"]["subsets"]) if details.get("framework") == "mteb" else {"default"}
    # An mteb task's stored main score is the mean of its per-query values, which may differ from the
    # (rounded) value mteb reported by at most the tolerance checked when it ran; the file mteb would
    # have written carries mteb's own value, kept in task_details["mteb_reported"].
    reported = details.get("mteb_reported", {})
    scores: dict[str, list[Mapping[str, Any]]] = {}
    for split, subsets in result["scores"].items():
        entries: list[Mapping[str, Any]] = []
        for subset, values in subsets.items():
            if main not in values or subset not in exported:
                continue
            values = values | reported.get(split, {}).get(subset, {})
            entries.append({"hf_subset": subset, "languages": ["eng-Latn"], "main_score": values[main], **values})
        if entries:
            scores[split] = entries
    return TaskResult(
        dataset_revision=result["task"]["source"].get("revision") or result["task"]["source"]["content_hash"],
        task_name=details.get("export_names", {}).get("mteb") or result["task"]["name"],
        mteb_version=details.get("mteb_version") or mteb_version,
        scores=scores,
        evaluation_time=result["timings"].get("total"),
    )


def export_mteb(results_dir: Path, out: Path) -> list[Path]:
    written = []
    for path in result_files(results_dir):
        result = read_result(path).to_json()
        meta = mteb_model_meta(
            _model_metadata(result), "cross-encoder" if result["model"]["kind"] == "reranker" else "dense"
        )
        folder = Path(out) / meta.model_name_as_path() / (meta.revision or "no_revision_available")
        folder.mkdir(parents=True, exist_ok=True)
        task_result = to_task_result(result)
        target = folder / f"{task_result.task_name}.json"
        task_result.to_disk(target)
        (folder / "model_meta.json").write_text(json.dumps(meta.to_dict(), default=str))
        written.append(target)
    if not written:
        raise BadInput(f"{results_dir}: no result files to export.")
    return written
