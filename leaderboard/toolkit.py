"""The plugin toolkit: the helpers a task or model plugin may use besides the contract.

Built-in plugins (``tasks/``, ``plugins/``, ``judges/``, ``benchmarks/``) and the ``new-plugin``
scaffolds import only ``leaderboard``, ``leaderboard.contract`` and this module
(``tests/test_layers.py`` parses them and fails on anything else), so a third-party author who
copies a built-in copies a supported import, and the core can move its modules freely.

Retrieval metrics (pytrec_eval; BEIR/mteb conventions):
  ``per_query_scores(qrels, run, k_values)``, ``mean_scores(per_query)``, ``select(per_query, names)``,
  ``metric_definitions(k_values)``, ``metric_names(k_values)``, ``drop_identical_ids(run)``,
  ``truncate(run, depth)``, ``trec_order(ranking)``, ``HEADLINE``, ``K_VALUES``, ``bounds(metric)``
Constraint and negation metrics:
  ``lsnc``, ``lsnc_per_query``, ``top_k_ids``, ``paired_wins``, ``rank_of``, ``violations_per_query``,
  ``violation_in_top_k``, ``violator_relative_rank``, ``subset_means``, ``subset_members``, ``cohen_kappa``
Instruction-following metrics per unit, as mteb defines them:
  ``pmrr_per_pair`` (FollowIR p-MRR), ``robustness_per_query`` (InstructIR), ``paired_accuracy_per_pair`` (NevIR)
The stratified bootstrap:
  ``stratified_bootstrap``, ``macro_mean``, ``N_RESAMPLES``
Data:
  ``load_beir``, ``write_beir``, ``read_jsonl``, ``grade_value``, ``fetch_zip``, ``fetch_files``,
  ``local_dir``, ``content_hash``, ``sha256_file``
Files, names, secrets and progress:
  ``cache_home()``, ``atomic_open(path)``, ``slug(name)``, ``redact(text, token)``, ``step(description, total)``
Running another framework's loop (the mteb bridge):
  ``encode_texts(model, texts, role, batch_size)``, ``retrieve(model, corpus, queries, top_k, batch_size)``,
  ``rerank(model, pairs, batch_size)``, ``mteb_model_meta(metadata, model_type)``
Model weights from a Hugging Face id or a local folder:
  ``check_source(source, what)``, ``load_from_source(loader, source, what, revision)``, ``local_revision(folder)``,
  ``hub_revision(model_id, revision)``, ``dtype_kwargs(dtype)``, ``weights_dtype(module)``
Plugins that use other plugins:
  ``build_judge(spec)``; a judge's labels materialised once per item: ``JudgmentStore(judge, data_content_hash)``,
  ``read_judgments(path)``, ``labels_sha256(labels)``, ``judge_slug(name)``

Names load on first use, like ``leaderboard``'s own, so importing a plugin stays cheap.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from leaderboard.contract.judge import Judge
    from leaderboard.contract.model import DenseModel, Model, ModelMetadata, Reranker, Role, Run
    from leaderboard.data.beir import load_beir, write_beir  # noqa: F401
    from leaderboard.data.hashing import content_hash, sha256_file  # noqa: F401
    from leaderboard.data.jsonl import grade_value, read_jsonl  # noqa: F401
    from leaderboard.data.remote import fetch_files, fetch_zip, local_dir  # noqa: F401
    from leaderboard.fileio import atomic_open, cache_home  # noqa: F401
    from leaderboard.judgments import JudgmentStore, judge_slug, labels_sha256, read_judgments  # noqa: F401
    from leaderboard.metrics.agreement import cohen_kappa  # noqa: F401
    from leaderboard.metrics.bootstrap import N_RESAMPLES, macro_mean, stratified_bootstrap  # noqa: F401
    from leaderboard.metrics.bounds import bounds  # noqa: F401
    from leaderboard.metrics.breakdown import subset_means, subset_members  # noqa: F401
    from leaderboard.metrics.negation import lsnc, lsnc_per_query, paired_wins, rank_of, top_k_ids  # noqa: F401
    from leaderboard.metrics.pmrr import pmrr_per_pair  # noqa: F401
    from leaderboard.metrics.retrieval import (  # noqa: F401
        HEADLINE,
        K_VALUES,
        drop_identical_ids,
        mean_scores,
        metric_definitions,
        metric_names,
        per_query_scores,
        select,
        trec_order,
        truncate,
    )
    from leaderboard.metrics.variants import paired_accuracy_per_pair, robustness_per_query  # noqa: F401
    from leaderboard.metrics.violations import (  # noqa: F401
        violation_in_top_k,
        violations_per_query,
        violator_relative_rank,
    )
    from leaderboard.model_weights import (  # noqa: F401
        check_source,
        dtype_kwargs,
        hub_revision,
        load_from_source,
        local_revision,
        weights_dtype,
    )
    from leaderboard.progress import step  # noqa: F401
    from leaderboard.records.files import slug  # noqa: F401
    from leaderboard.records.store import redact  # noqa: F401

_MODULES = {
    "leaderboard.metrics.retrieval": (
        "HEADLINE",
        "K_VALUES",
        "drop_identical_ids",
        "mean_scores",
        "metric_definitions",
        "metric_names",
        "per_query_scores",
        "select",
        "trec_order",
        "truncate",
    ),
    "leaderboard.metrics.bounds": ("bounds",),
    "leaderboard.metrics.pmrr": ("pmrr_per_pair",),
    "leaderboard.metrics.variants": ("paired_accuracy_per_pair", "robustness_per_query"),
    "leaderboard.metrics.negation": ("lsnc", "lsnc_per_query", "paired_wins", "rank_of", "top_k_ids"),
    "leaderboard.metrics.violations": ("violation_in_top_k", "violations_per_query", "violator_relative_rank"),
    "leaderboard.metrics.breakdown": ("subset_means", "subset_members"),
    "leaderboard.metrics.agreement": ("cohen_kappa",),
    "leaderboard.metrics.bootstrap": ("N_RESAMPLES", "macro_mean", "stratified_bootstrap"),
    "leaderboard.data.beir": ("load_beir", "write_beir"),
    "leaderboard.data.jsonl": ("grade_value", "read_jsonl"),
    "leaderboard.data.remote": ("fetch_files", "fetch_zip", "local_dir"),
    "leaderboard.data.hashing": ("content_hash", "sha256_file"),
    "leaderboard.fileio": ("atomic_open", "cache_home"),
    "leaderboard.records.files": ("slug",),
    "leaderboard.progress": ("step",),
    "leaderboard.judgments": ("JudgmentStore", "judge_slug", "labels_sha256", "read_judgments"),
    "leaderboard.model_weights": (
        "check_source",
        "dtype_kwargs",
        "hub_revision",
        "load_from_source",
        "local_revision",
        "weights_dtype",
    ),
    "leaderboard.records.store": ("redact",),
}
_LAZY = {name: module for module, names in _MODULES.items() for name in names}
_DEFINED_HERE = ("build_judge", "encode_texts", "mteb_model_meta", "rerank", "retrieve")

__all__ = sorted([*_LAZY, *_DEFINED_HERE])


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value  # later lookups are plain attribute reads
        return value
    raise AttributeError(f"module 'leaderboard.toolkit' has no attribute {name!r}")


def encode_texts(model: DenseModel, texts: Sequence[str], role: Role, batch_size: int) -> Any:
    """Embeddings of ``texts`` (a numpy array, rows in order), each distinct text encoded once."""
    from leaderboard.engine.dense import encode_unique

    return encode_unique(model, texts, role, batch_size)


def retrieve(model: Model, corpus: Mapping[str, str], queries: Mapping[str, str], top_k: int, batch_size: int) -> Run:
    """Top-``top_k`` documents per query, exactly as a ``RetrievalTask`` run gets them (pipelines included)."""
    from leaderboard.engine.evaluation import Context
    from leaderboard.engine.evaluation import retrieve as engine_retrieve

    return engine_retrieve(model, corpus, queries, top_k, Context(batch_size))


def rerank(model: Reranker, pairs: list[tuple[str, str]], batch_size: int) -> list[float]:
    """The reranker's score of each (query text, document text) pair, each distinct pair scored once."""
    from leaderboard.engine.evaluation import Context, rerank_pairs

    return rerank_pairs(model, pairs, Context(batch_size))


def mteb_model_meta(metadata: ModelMetadata, model_type: str) -> Any:
    """An ``mteb.ModelMeta`` describing one of our models (needs the mteb extra)."""
    from leaderboard.records.mteb_results import mteb_meta

    return mteb_meta(metadata, model_type)


def build_judge(spec: str) -> Judge:
    """The judge registered under ``spec`` (a name, or a prefix plus its argument), built now."""
    from leaderboard.contract.judge import Judge, JudgeRequest
    from leaderboard.errors import LeaderboardError
    from leaderboard.registry import get_registry

    resolved = get_registry().resolve("judge", spec)
    judge = resolved.registration.factory(JudgeRequest(spec, resolved.argument))
    if not isinstance(judge, Judge):
        raise LeaderboardError(
            f"judge plugin {resolved.registration.plugin!r} returned {type(judge).__name__} for {spec!r}, "
            "not a leaderboard.contract.judge.Judge"
        )
    return judge
