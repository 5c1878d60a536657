"""How much of a task a run covers, and where a run that covers only part of it is written.

A result is complete only when it scored every query on the whole corpus; ``--limit``,
``--corpus-sample``, a task that stopped part-way or scores missing a declared split make it
partial. This module owns that verdict (the result's ``coverage``), the counts a result records,
and the separate file name a partial run gets, so a partial result never replaces or is taken for
the full one (``records.files.result_path`` names it ``<task>.partial-<tag>.json``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from leaderboard.contract.model import Model
from leaderboard.contract.task import CandidateData, RetrievalData
from leaderboard.engine.options import RunOptions
from leaderboard.errors import BadInput
from leaderboard.records import files

if TYPE_CHECKING:
    from leaderboard.engine.evaluation import Context


def limit_queries(data: Any, limit: int | None) -> Any:
    """Keep only the first ``limit`` queries (retrieval) or candidate sets (``--limit``)."""
    if limit is None:
        return data
    if isinstance(data, RetrievalData):
        keep = list(data.queries)[:limit]
        data.queries = {q: data.queries[q] for q in keep}
        data.qrels = {q: data.qrels[q] for q in keep if q in data.qrels}
    elif isinstance(data, CandidateData):
        data.sets = data.sets[:limit]
    return data


def query_count(data: Any) -> int | None:
    """The queries (or candidate sets) the task's data holds; None for an external task."""
    if isinstance(data, RetrievalData):
        return len(data.queries)
    if isinstance(data, CandidateData):
        return len(data.sets)
    return None


def apply_corpus_sample(data: Any, options: RunOptions) -> int | None:
    """Apply --corpus-sample to a retrieval task's corpus; the full corpus size (None when not asked)."""
    if options.corpus_sample is None:
        return None
    if not isinstance(data, RetrievalData):
        raise BadInput("--corpus-sample applies to retrieval tasks (a corpus to search); this task has none.")
    from leaderboard.engine.sampling import sample_corpus

    return sample_corpus(data, options.corpus_sample, options.seed)


def coverage_of(data: Any, options: RunOptions, total: int | None, corpus_total: int | None = None) -> dict[str, Any]:
    """A result's ``coverage`` as the data stands after --limit and --corpus-sample (scoring may add reasons)."""
    queries = (
        len(data.queries)
        if isinstance(data, RetrievalData)
        else len(data.sets)
        if isinstance(data, CandidateData)
        else None
    )
    limited = options.limit is not None and total is not None and queries is not None and queries < total
    reasons = [f"--limit {options.limit}"] if limited else []
    if corpus_total is not None and len(data.corpus) < corpus_total:
        reasons.append(f"--corpus-sample {options.corpus_sample}: {len(data.corpus)} of {corpus_total} documents")
    return {
        "complete": not reasons,
        "queries": queries,
        "total_queries": total,
        "reason": "; ".join(reasons) or None,
    }


def counts_of(data: Any, ctx: Context) -> dict[str, int]:
    """A result's ``counts``: texts encoded, pairs scored, and the size of the data evaluated."""
    found = {
        "texts_requested": ctx.stats.requested,
        "texts_encoded": ctx.stats.unique,
        "pairs_scored": ctx.pairs_scored,
    }
    if ctx.first_stage_reused is not None:
        found["first_stage_reused"] = int(ctx.first_stage_reused)
    if isinstance(data, RetrievalData):
        found.update(queries=len(data.queries), documents=len(data.corpus))
    elif isinstance(data, CandidateData):
        found.update(candidate_sets=len(data.sets), candidates=sum(len(s.candidates) for s in data.sets))
    return found


def missing_parts(splits: list[str], subsets: list[str], scores: Mapping[str, Any]) -> str:
    """The declared splits (and subsets within each) that the scores lack, as 'split/subset, ...'."""
    missing = []
    for split in splits:
        if split not in scores:
            missing.append(split)
            continue
        missing.extend(f"{split}/{subset}" for subset in subsets if subset not in scores[split])
    return ", ".join(missing)


def partial_tag(options: RunOptions) -> str:
    """The name part that keeps a partial result apart from the full one (and from other partial runs)."""
    parts = [f"limit{options.limit}"] if options.limit is not None else []
    if options.corpus_sample is not None:
        parts.append(f"sample{options.corpus_sample}-seed{options.seed}")
    return "-".join(parts) or "partial"


def partial_path(path: Path, options: RunOptions, record: dict[str, Any], model: Model, meta: Any, tag: str) -> Path:
    """Where a result found partial only after scoring goes; an existing different run there is kept."""
    target = files.result_path(options.output, model.metadata.name, model.metadata.revision, meta.name, partial=tag)
    if target == path:
        return target
    # An identical earlier run there is replaced (this one is newer); a different one needs --overwrite.
    target, _ = files.destination(options.output, record, overwrite=options.overwrite, partial=tag)
    return target
