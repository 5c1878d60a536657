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

from typing import TYPE_CHECKING, Any

from leaderboard.lazy_names import listed, resolve

# The public names, each once (``leaderboard.lazy_names`` reads this block; it imports nothing at run time).
if TYPE_CHECKING:
    from leaderboard.data.beir import load_beir as load_beir, write_beir as write_beir
    from leaderboard.data.hashing import content_hash as content_hash, sha256_file as sha256_file
    from leaderboard.data.jsonl import grade_value as grade_value, read_jsonl as read_jsonl
    from leaderboard.data.remote import fetch_files as fetch_files, fetch_zip as fetch_zip, local_dir as local_dir
    from leaderboard.engine.plugin_calls import (
        build_judge as build_judge,
        encode_texts as encode_texts,
        rerank as rerank,
        retrieve as retrieve,
    )
    from leaderboard.fileio import atomic_open as atomic_open, cache_home as cache_home
    from leaderboard.security.redaction import redact as redact
    from leaderboard.judgments import (
        JudgmentStore as JudgmentStore,
        judge_slug as judge_slug,
        labels_sha256 as labels_sha256,
        read_judgments as read_judgments,
    )
    from leaderboard.metrics.agreement import cohen_kappa as cohen_kappa
    from leaderboard.metrics.bootstrap import (
        N_RESAMPLES as N_RESAMPLES,
        macro_mean as macro_mean,
        stratified_bootstrap as stratified_bootstrap,
    )
    from leaderboard.metrics.bounds import bounds as bounds
    from leaderboard.metrics.breakdown import subset_means as subset_means, subset_members as subset_members
    from leaderboard.metrics.negation import (
        lsnc as lsnc,
        lsnc_per_query as lsnc_per_query,
        paired_wins as paired_wins,
        rank_of as rank_of,
        top_k_ids as top_k_ids,
    )
    from leaderboard.metrics.pmrr import pmrr_per_pair as pmrr_per_pair
    from leaderboard.metrics.retrieval import (
        HEADLINE as HEADLINE,
        K_VALUES as K_VALUES,
        drop_identical_ids as drop_identical_ids,
        mean_scores as mean_scores,
        metric_definitions as metric_definitions,
        metric_names as metric_names,
        per_query_scores as per_query_scores,
        select as select,
        trec_order as trec_order,
        truncate as truncate,
    )
    from leaderboard.metrics.variants import (
        paired_accuracy_per_pair as paired_accuracy_per_pair,
        robustness_per_query as robustness_per_query,
    )
    from leaderboard.metrics.violations import (
        violation_in_top_k as violation_in_top_k,
        violations_per_query as violations_per_query,
        violator_relative_rank as violator_relative_rank,
    )
    from leaderboard.model_weights import (
        check_source as check_source,
        dtype_kwargs as dtype_kwargs,
        hub_revision as hub_revision,
        load_from_source as load_from_source,
        local_revision as local_revision,
        weights_dtype as weights_dtype,
    )
    from leaderboard.mteb.export import mteb_model_meta as mteb_model_meta
    from leaderboard.progress import step as step
    from leaderboard.records.files import slug as slug


def __getattr__(name: str) -> Any:
    return resolve(__name__, name, globals())


def __dir__() -> list[str]:
    return listed(__name__, globals())
