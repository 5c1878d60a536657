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

    # explicit re-exports ("X as X"): what `mypy --strict` accepts from a plugin's imports
    from leaderboard.data.beir import (
        load_beir as load_beir,
    )
    from leaderboard.data.beir import (
        write_beir as write_beir,
    )
    from leaderboard.data.hashing import (
        content_hash as content_hash,
    )
    from leaderboard.data.hashing import (
        sha256_file as sha256_file,
    )
    from leaderboard.data.jsonl import (
        grade_value as grade_value,
    )
    from leaderboard.data.jsonl import (
        read_jsonl as read_jsonl,
    )
    from leaderboard.data.remote import (
        fetch_files as fetch_files,
    )
    from leaderboard.data.remote import (
        fetch_zip as fetch_zip,
    )
    from leaderboard.data.remote import (
        local_dir as local_dir,
    )
    from leaderboard.fileio import (
        atomic_open as atomic_open,
    )
    from leaderboard.fileio import (
        cache_home as cache_home,
    )
    from leaderboard.judgments import (
        JudgmentStore as JudgmentStore,
    )
    from leaderboard.judgments import (
        judge_slug as judge_slug,
    )
    from leaderboard.judgments import (
        labels_sha256 as labels_sha256,
    )
    from leaderboard.judgments import (
        read_judgments as read_judgments,
    )
    from leaderboard.metrics.agreement import (
        cohen_kappa as cohen_kappa,
    )
    from leaderboard.metrics.bootstrap import (
        N_RESAMPLES as N_RESAMPLES,
    )
    from leaderboard.metrics.bootstrap import (
        macro_mean as macro_mean,
    )
    from leaderboard.metrics.bootstrap import (
        stratified_bootstrap as stratified_bootstrap,
    )
    from leaderboard.metrics.bounds import (
        bounds as bounds,
    )
    from leaderboard.metrics.breakdown import (
        subset_means as subset_means,
    )
    from leaderboard.metrics.breakdown import (
        subset_members as subset_members,
    )
    from leaderboard.metrics.negation import (
        lsnc as lsnc,
    )
    from leaderboard.metrics.negation import (
        lsnc_per_query as lsnc_per_query,
    )
    from leaderboard.metrics.negation import (
        paired_wins as paired_wins,
    )
    from leaderboard.metrics.negation import (
        rank_of as rank_of,
    )
    from leaderboard.metrics.negation import (
        top_k_ids as top_k_ids,
    )
    from leaderboard.metrics.pmrr import (
        pmrr_per_pair as pmrr_per_pair,
    )
    from leaderboard.metrics.retrieval import (
        HEADLINE as HEADLINE,
    )
    from leaderboard.metrics.retrieval import (
        K_VALUES as K_VALUES,
    )
    from leaderboard.metrics.retrieval import (
        drop_identical_ids as drop_identical_ids,
    )
    from leaderboard.metrics.retrieval import (
        mean_scores as mean_scores,
    )
    from leaderboard.metrics.retrieval import (
        metric_definitions as metric_definitions,
    )
    from leaderboard.metrics.retrieval import (
        metric_names as metric_names,
    )
    from leaderboard.metrics.retrieval import (
        per_query_scores as per_query_scores,
    )
    from leaderboard.metrics.retrieval import (
        select as select,
    )
    from leaderboard.metrics.retrieval import (
        trec_order as trec_order,
    )
    from leaderboard.metrics.retrieval import (
        truncate as truncate,
    )
    from leaderboard.metrics.variants import (
        paired_accuracy_per_pair as paired_accuracy_per_pair,
    )
    from leaderboard.metrics.variants import (
        robustness_per_query as robustness_per_query,
    )
    from leaderboard.metrics.violations import (
        violation_in_top_k as violation_in_top_k,
    )
    from leaderboard.metrics.violations import (
        violations_per_query as violations_per_query,
    )
    from leaderboard.metrics.violations import (
        violator_relative_rank as violator_relative_rank,
    )
    from leaderboard.model_weights import (
        check_source as check_source,
    )
    from leaderboard.model_weights import (
        dtype_kwargs as dtype_kwargs,
    )
    from leaderboard.model_weights import (
        hub_revision as hub_revision,
    )
    from leaderboard.model_weights import (
        load_from_source as load_from_source,
    )
    from leaderboard.model_weights import (
        local_revision as local_revision,
    )
    from leaderboard.model_weights import (
        weights_dtype as weights_dtype,
    )
    from leaderboard.progress import (
        step as step,
    )
    from leaderboard.records.files import (
        slug as slug,
    )
    from leaderboard.security.redaction import (
        redact as redact,
    )

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
    "leaderboard.security.redaction": ("redact",),
}
_LAZY = {name: module for module, names in _MODULES.items() for name in names}
_DEFINED_HERE = ("build_judge", "encode_texts", "mteb_model_meta", "rerank", "retrieve")

# Written out, not computed, so type checkers see every public name (tests/test_facades.py keeps it equal to
# _LAZY and _DEFINED_HERE).
__all__ = [
    "atomic_open",
    "bounds",
    "build_judge",
    "cache_home",
    "check_source",
    "cohen_kappa",
    "content_hash",
    "drop_identical_ids",
    "dtype_kwargs",
    "encode_texts",
    "fetch_files",
    "fetch_zip",
    "grade_value",
    "HEADLINE",
    "hub_revision",
    "judge_slug",
    "JudgmentStore",
    "K_VALUES",
    "labels_sha256",
    "load_beir",
    "load_from_source",
    "local_dir",
    "local_revision",
    "lsnc",
    "lsnc_per_query",
    "macro_mean",
    "mean_scores",
    "metric_definitions",
    "metric_names",
    "mteb_model_meta",
    "N_RESAMPLES",
    "paired_accuracy_per_pair",
    "paired_wins",
    "per_query_scores",
    "pmrr_per_pair",
    "rank_of",
    "read_jsonl",
    "read_judgments",
    "redact",
    "rerank",
    "retrieve",
    "robustness_per_query",
    "select",
    "sha256_file",
    "slug",
    "step",
    "stratified_bootstrap",
    "subset_means",
    "subset_members",
    "top_k_ids",
    "trec_order",
    "truncate",
    "violation_in_top_k",
    "violations_per_query",
    "violator_relative_rank",
    "weights_dtype",
    "write_beir",
]


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
