"""MTEB result files: export ours in the embeddings-benchmark/results layout, import theirs.

Export:  <out>/<org>__<model>/<revision>/<Task>.json (mteb TaskResult) + model_meta.json (ModelMeta)
Import:  mteb TaskResult files for tasks we also run become our result JSON, marked with
         ``imported_from`` (format, file, mteb version) so the leaderboard can show their provenance.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from leaderboard.contract.model import ModelKind, ModelMetadata
from leaderboard.errors import BadInput
from leaderboard.records.files import build_result, read_result, result_path, write_result
from leaderboard.records.listing import result_files
from leaderboard.records.result import SCHEMA_VERSION

_SIMILARITIES = {"cosine": "cosine", "dot": "dot"}


def mteb_meta(meta: ModelMetadata, model_type: str) -> Any:
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
        meta = mteb_meta(_model_metadata(result), "cross-encoder" if result["model"]["kind"] == "reranker" else "dense")
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


def import_mteb(source: Path, output: Path, main_score_of: Callable[[str], str | None]) -> tuple[list[Path], list[str]]:
    """Convert mteb TaskResult files for tasks we also run; others are skipped and reported.

    ``main_score_of(task name)`` is the main score our task declares (None: not one of ours), so the
    main score is taken from the task's metadata, never guessed from values.
    """
    from mteb.results import TaskResult

    written, skipped = [], []
    for path in sorted(Path(source).rglob("*.json")):
        if path.name == "model_meta.json":
            continue
        try:
            task_result = TaskResult.from_disk(path)
        except Exception as exc:
            skipped.append(f"{path}: not an mteb TaskResult ({type(exc).__name__})")
            continue
        main_name = main_score_of(task_result.task_name)
        if main_name is None:
            skipped.append(f"{path}: task {task_result.task_name} is not one of ours")
            continue
        meta_file = path.parent / "model_meta.json"
        meta = json.loads(meta_file.read_text()) if meta_file.is_file() else {}
        record = from_task_result(task_result, meta, path, main_name)
        target = result_path(output, record["model"]["name"], record["model"]["revision"], record["task"]["name"])
        write_result(target, build_result(record, f"the import of {path}"))
        written.append(target)
    return written, skipped


def from_task_result(task_result: Any, meta: dict[str, Any], path: Path, main_name: str) -> dict[str, Any]:
    name = meta.get("name") or f"{path.parent.parent.name.replace('__', '/')}"
    revision = meta.get("revision") or path.parent.name
    scores: dict[str, dict[str, dict[str, float]]] = {}
    for split, entries in task_result.scores.items():
        scores[split] = {}
        for entry in entries:
            values = {
                k: float(v)
                for k, v in entry.items()
                if isinstance(v, (int, float)) and not isinstance(v, bool) and k != "main_score"
            }
            scores[split][str(entry.get("hf_subset", "default"))] = values
            values.setdefault(main_name, float(entry["main_score"]))  # mteb stores the main score under its own key too
    first = next(iter(scores.values()))
    main = first.get("default", next(iter(first.values())))[main_name]
    kind = "reranker" if meta.get("is_cross_encoder") else "dense"
    return {
        "schema_version": SCHEMA_VERSION,
        "harness": {"name": "mteb", "version": task_result.mteb_version or "unknown", "git_commit": None},
        "task": {
            "name": task_result.task_name,
            "family": "mteb",
            "version": "1",
            "description": "imported from an mteb result file",
            "reference": "https://github.com/embeddings-benchmark/results",
            "evaluation": "external",
            "source": {"kind": "hub", "uri": "mteb", "revision": task_result.dataset_revision, "content_hash": None},
            "metrics": [
                {"name": n, "direction": "higher"}
                for n in sorted({k for s in scores.values() for v in s.values() for k in v})
            ],
            "main_score": main_name,
            "splits": list(scores),
            "subsets": sorted({s for v in scores.values() for s in v}),
        },
        "model": {
            "name": name,
            "kind": kind,
            "revision": revision,
            "plugin": "mteb",
            "plugin_version": task_result.mteb_version,
            "metadata": {
                k: meta.get(k)
                for k in ("n_parameters", "max_tokens", "similarity_fn_name", "use_instructions", "license")
            },
        },
        "settings": {
            "batch_size": None,
            "device": None,
            "seed": 0,
            "limit": None,
            "model_settings": {},
            "libraries": {"mteb": task_result.mteb_version},
        },
        "scores": scores,
        "main_score": main,
        "timings": {"total": float(task_result.evaluation_time or 0.0)},
        "hardware": {},
        "created_at": (task_result.date or dt.datetime.now(dt.UTC)).isoformat(timespec="seconds"),
        "imported_from": {"format": "mteb", "file": str(path), "mteb_version": task_result.mteb_version},
    }
