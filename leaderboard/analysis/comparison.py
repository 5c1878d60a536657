"""Is model A better than model B on these tasks? Paired tests over the same queries, Holm across tasks.

For each task the two results' per-query values of the task's main score (stored in the result's
``per_query`` field) are paired by query id. The difference is mean(A - B) with a 95% percentile
bootstrap interval over queries resampled as pairs (``significance.paired_bootstrap``), and its
two-sided p-value is a paired randomization (sign-flip) test (``significance.randomization_test``):
the statistics of scipy's ``stats.bootstrap`` (the same resamples) and ``stats.permutation_test``
(the same test), vectorised (see ``leaderboard.metrics.significance``). The p-values of all tasks
are then Holm-adjusted (family-wise error over the tasks compared). A score that is a macro mean
over subsets (MultiConIR's over its domains, ``ScoreReport.macro_over``) is compared as one: the
mean over subsets of each subset's mean difference, each subset resampled on its own
(``significance.stratified_paired``).

Per subset (``compare_cells``), each row compares exactly what its label names: one metric on one
subset's queries (``comparison_cells``: the main score on every subset both results name, then
every other (subset, metric) the task's views draw: ComLQ's LSNC on its negation queries,
NegConstraint's violation metrics, MultiConIR's Decline). A metric computed on some queries only
(LSNC, on the queries each result's judge labelled) is compared on the queries both labelled, and
the row says how many each result's own score covers (``queries_a``, ``queries_b``). The rows of a
task are Holm-adjusted as one family.

One implementation for every caller: ``leaderboard compare`` calls ``compare_task`` per task and
``with_holm`` on the list, and ``compare_results(..., per_subset=True)`` for ``--per-subset``; the
app's comparison view calls ``compare_values`` / ``compare_cells`` on the columns its index holds
(``records.per_query_columns``, the same form ``of_result`` builds from a result file) and
``with_holm`` the same way. ``format_p`` writes a p-value for both. Signatures are stable; add
keywords at the end.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from leaderboard.analysis.p_value_text import at_floor as at_floor
from leaderboard.analysis.p_value_text import format_p as format_p
from leaderboard.errors import BadInput
from leaderboard.metrics.bootstrap import N_RESAMPLES
from leaderboard.metrics.significance import holm, stratified_paired
from leaderboard.records.natural_order import natural_key as natural_key
from leaderboard.records.per_query_columns import of_result, strata, subset_ids
from leaderboard.records.result import Result, decode_per_query

Cell = tuple[str, str]  # (subset, metric)


@dataclass
class TaskComparison:
    task: str
    metric: str
    direction: str  # "higher" or "lower" is better, for reading the sign of the difference
    queries: int
    mean_a: float
    mean_b: float
    difference: float  # mean over queries of A - B (a macro-averaged score: the mean over its subsets)
    ci_low: float
    ci_high: float
    p_value: float  # randomization test, two-sided
    p_holm: float  # Holm-adjusted across the compared tasks
    exact: bool  # every sign flip enumerated
    resamples: int
    subset: str = "default"  # the queries compared: all ("default") or one subset's (e.g. "type=2p")
    # Queries each result's own score of this metric on this subset covers; more than ``queries`` where
    # the metric exists on some queries only and the two results differ on which (LSNC: each run's judge
    # labels other passages), so the row compares the queries both have, not the two scores as shown.
    queries_a: int | None = None
    queries_b: int | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def at_floor(self) -> bool:
        return at_floor(self.p_value, self.resamples, self.exact)


def per_query_values(result: Result, metric: str, where: str) -> dict[str, float]:
    """query id -> value of ``metric`` from the result's per-query field; BadInput naming the file otherwise."""
    if result.per_query is None:
        raise BadInput(
            f"{where} has no per-query values (written before they were stored?): re-run it with --overwrite."
        )
    try:
        rows = decode_per_query(result.per_query)
    except ValueError as exc:
        raise BadInput(f"{where}: {exc}") from None
    values = {qid: row[metric] for qid, row in rows.items() if isinstance(row, dict) and metric in row}
    if not values:
        raise BadInput(f"{where}: the per-query values do not include the main score {metric!r}.")
    return values


def comparable(a: Result, b: Result, where_a: str, where_b: str) -> None:
    """BadInput naming both files and the field unless the two results are of the same task, data and scoring."""
    for field, value_a, value_b in (
        ("task.version", a.task.version, b.task.version),
        ("task.main_score", a.task.main_score, b.task.main_score),
    ):
        if value_a != value_b:
            raise BadInput(
                f"{where_a} and {where_b} differ in {field} ({value_a!r} vs {value_b!r}): their scores are not "
                "comparable; compare results of the same task version."
            )
    hash_a, hash_b = a.task.source.content_hash, b.task.source.content_hash
    if hash_a and hash_b and hash_a != hash_b:
        raise BadInput(
            f"{where_a} and {where_b} were computed on different data ({hash_a} vs {hash_b}): "
            "compare results on the same data."
        )


def _columns(result: Result, where: str) -> dict[str, Any]:
    if result.per_query is None:
        raise BadInput(
            f"{where} has no per-query values (written before they were stored?): re-run it with --overwrite."
        )
    stored = of_result(result)
    if stored is None:
        raise BadInput(f"{where}: the per-query values are damaged (they do not match their sha256).")
    return stored


def compare_task(
    task: str, a: Result, b: Result, where_a: str, where_b: str, *, n_resamples: int = N_RESAMPLES, seed: int = 0
) -> TaskComparison:
    """One task's paired comparison on its main score, all queries (p_holm is filled in by ``with_holm``)."""
    comparable(a, b, where_a, where_b)
    metric = a.task.main_score
    stored_a, stored_b = _columns(a, where_a), _columns(b, where_b)
    for stored, where in ((stored_a, where_a), (stored_b, where_b)):
        if isinstance(strata(stored, metric), str):
            raise BadInput(f"{where}: the per-query values do not include the main score {metric!r}.")
    got = compare_cell(task, metric, a.direction, stored_a, stored_b, n_resamples=n_resamples, seed=seed)
    if isinstance(got, str):
        raise BadInput(f"{task}: {got}; compare results on the same data.")
    return got


def compare_values(
    task: str,
    metric: str,
    direction: str,
    values_a: Mapping[str, float],
    values_b: Mapping[str, float],
    subset: str = "default",
    *,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
) -> TaskComparison:
    """The paired comparison of two systems' per-query values (query id -> value, the same ids).

    The statistics of ``leaderboard compare``: mean(A - B), its paired percentile bootstrap interval
    (``significance.paired_bootstrap``) and the two-sided sign-flip p-value
    (``significance.randomization_test``). ``p_holm`` equals ``p_value`` until ``with_holm``.
    """
    if set(values_a) != set(values_b):
        only = sorted(set(values_a) ^ set(values_b))
        where = task if subset == "default" else f"{task} ({subset})"
        raise BadInput(
            f"{where}: the two results were scored on different queries ({len(only)} differ, e.g. {only[:3]}); "
            "compare results on the same data."
        )
    return compare_strata(task, metric, direction, [values_a], [values_b], subset, n_resamples=n_resamples, seed=seed)


def compare_strata(
    task: str,
    metric: str,
    direction: str,
    parts_a: Sequence[Mapping[str, float]],
    parts_b: Sequence[Mapping[str, float]],
    subset: str = "default",
    *,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
    queries_a: int | None = None,
    queries_b: int | None = None,
) -> TaskComparison:
    """``compare_values`` of a score averaged over strata (one mapping per stratum, the same ids in A and B):
    the mean over strata of each stratum's mean, as ``significance.stratified_paired`` (one stratum:
    ``paired_bootstrap`` and ``randomization_test`` exactly)."""
    ids = [sorted(part) for part in parts_a]
    xs = [np.asarray([part[q] for q in order], dtype=float) for part, order in zip(parts_a, ids)]
    ys = [np.asarray([part[q] for q in order], dtype=float) for part, order in zip(parts_b, ids)]
    interval, test = stratified_paired(xs, ys, n_resamples=n_resamples, seed=seed)
    n = interval.n
    return TaskComparison(
        task=task,
        metric=metric,
        direction=direction,
        queries=n,
        mean_a=float(np.mean([x.mean() for x in xs])),
        mean_b=float(np.mean([y.mean() for y in ys])),
        difference=interval.estimate,
        ci_low=interval.low,
        ci_high=interval.high,
        p_value=test.p_value,
        p_holm=test.p_value,
        exact=test.exact,
        resamples=test.n_resamples,
        subset=subset,
        queries_a=n if queries_a is None else queries_a,
        queries_b=n if queries_b is None else queries_b,
    )


def compare_cell(
    task: str,
    metric: str,
    direction: str,
    stored_a: Mapping[str, Any] | None,
    stored_b: Mapping[str, Any] | None,
    subset: str = "default",
    *,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
) -> TaskComparison | str:
    """A vs B on ``metric`` over ``subset``'s queries, from two results' per-query columns; or why not.

    The subset must be the same queries in both results. A metric computed on some queries only is
    compared on those both results have it on (``queries_a``/``queries_b``: how many each has)."""
    if subset != "default":
        ids_a, ids_b = subset_ids(stored_a, subset), subset_ids(stored_b, subset)
        if isinstance(ids_a, str) or isinstance(ids_b, str):
            return ids_a if isinstance(ids_a, str) else str(ids_b)
        if ids_a != ids_b:
            return f"the two results disagree on which queries form {subset}"
    elif stored_a and stored_b and stored_a.get("ids") != stored_b.get("ids"):
        only = sorted(set(stored_a.get("ids") or ()) ^ set(stored_b.get("ids") or ()))
        return f"the two results were scored on different queries ({len(only)} differ, e.g. {only[:3]})"
    parts_a, parts_b = strata(stored_a, metric, subset), strata(stored_b, metric, subset)
    if isinstance(parts_a, str) or isinstance(parts_b, str):
        return parts_a if isinstance(parts_a, str) else str(parts_b)
    if len(parts_a) != len(parts_b):
        return f"the two results average {metric} over different subsets"
    shared_a, shared_b = [], []
    for (ids_a, values_a), (ids_b, values_b) in zip(parts_a, parts_b):
        both = set(ids_a) & set(ids_b)
        if not both:
            return f"no query has {metric} in both results"
        shared_a.append({q: v for q, v in zip(ids_a, values_a) if q in both})
        shared_b.append({q: v for q, v in zip(ids_b, values_b) if q in both})
    return compare_strata(
        task,
        metric,
        direction,
        shared_a,
        shared_b,
        subset,
        n_resamples=n_resamples,
        seed=seed,
        queries_a=sum(len(ids) for ids, _ in parts_a),
        queries_b=sum(len(ids) for ids, _ in parts_b),
    )


def comparison_cells(declaration: Mapping[str, Any], named_a: Iterable[str], named_b: Iterable[str]) -> list[Cell]:
    """The (subset, metric) of each per-subset row, in order: the main score on every subset both results
    name (those the task declares in its order, then the others, such as content-word strata, in natural
    order), then every other (subset, metric) the task's views draw, in the order they are declared.

    ``declaration``: the task as a result declares it (``Result.task``, JSON); ``named_*``: the subsets
    whose queries each result names."""
    main = str(declaration.get("main_score"))
    both = set(named_a) & set(named_b)
    declared = [str(s) for s in declaration.get("subsets") or () if s in both]
    ordered = declared + sorted(both - set(declared), key=natural_key)
    cells: dict[Cell, None] = {(subset, main): None for subset in ordered}
    for view in declaration.get("views") or []:
        for subset, metric in _axis(view):
            if (subset, metric) != ("default", main) and (subset == "default" or subset in both):
                cells.setdefault((subset, metric), None)
    return list(cells)


def _axis(view: Mapping[str, Any]) -> list[Cell]:
    """A declared view's (subset, metric) entries (``contract.task.View.axis``, on its JSON form)."""
    subsets = [str(s) for s in view.get("subsets") or ("default",)]
    metrics = [str(m) for m in view.get("metrics") or ()]
    if not metrics:
        return []
    return [(s, metrics[0]) for s in subsets] if len(subsets) > 1 else [(subsets[0], m) for m in metrics]


def cell_labels(declaration: Mapping[str, Any], subset: str, metric: str) -> tuple[str, str]:
    """How the task's views name a row's subset and its metric (the names themselves where no view does)."""
    from leaderboard.metrics.labels import metric_label

    subset_label = "all queries" if subset == "default" else subset
    for view in declaration.get("views") or []:
        labels = view.get("labels") or {}
        subsets = view.get("subsets") or ("default",)
        if len(subsets) > 1 and subset in subsets and subset in labels and subset_label == subset:
            subset_label = str(labels[subset])
    # the metric as every table names it: its declared label, a view's, "nDCG@10" for ndcg_at_10
    return subset_label, metric_label(declaration, metric).rstrip(" ↑↓")


def direction_of(declaration: Mapping[str, Any], metric: str) -> str:
    for declared in declaration.get("metrics") or []:
        if isinstance(declared, Mapping) and declared.get("name") == metric:
            return "lower" if declared.get("direction") == "lower" else "higher"
    return "higher"


def compare_cells(
    task: str,
    declaration: Mapping[str, Any],
    stored_a: Mapping[str, Any] | None,
    stored_b: Mapping[str, Any] | None,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
) -> tuple[list[TaskComparison], list[tuple[str, str, str]]]:
    """Every per-subset row of a task (``comparison_cells``), Holm-adjusted as one family, and why the
    cells that could not be compared were left out (``skipped_text`` says it in one line)."""
    named_a = (stored_a or {}).get("subsets") or {}
    named_b = (stored_b or {}).get("subsets") or {}
    rows, skipped = [], []
    for subset, metric in comparison_cells(declaration, named_a, named_b):
        got = compare_cell(
            task,
            metric,
            direction_of(declaration, metric),
            stored_a,
            stored_b,
            subset=subset,
            n_resamples=n_resamples,
            seed=seed,
        )
        if isinstance(got, str):
            skipped.append((subset, metric, got))
        else:
            rows.append(got)
    return with_holm(rows), skipped


def skipped_text(skipped: Iterable[tuple[str, str, str]]) -> str:
    """The cells left out of a per-subset comparison, by reason: "why: subset · metric, ...; why: ..."."""
    by_reason: dict[str, list[str]] = {}
    for subset, metric, why in skipped:
        cell = metric if subset == "default" else f"{subset} · {metric}"
        by_reason.setdefault(why, []).append(cell)
    return "; ".join(f"{why}: {', '.join(cells)}" for why, cells in by_reason.items())


def compare_subsets(
    task: str, a: Result, b: Result, where_a: str, where_b: str, *, n_resamples: int = N_RESAMPLES, seed: int = 0
) -> list[TaskComparison]:
    """``compare_cells`` of two result files (Holm-adjusted per task; what ``compare --per-subset`` prints)."""
    comparable(a, b, where_a, where_b)
    rows, _ = compare_cells(
        task, a.task.model_dump(mode="json"), _columns(a, where_a), _columns(b, where_b), n_resamples, seed
    )
    return rows


def with_holm(comparisons: list[TaskComparison]) -> list[TaskComparison]:
    """Holm-adjust the p-values across the comparisons given (compare: each task once, all queries)."""
    adjusted = holm({f"{c.task}\0{c.subset}\0{c.metric}": c.p_value for c in comparisons})
    for comparison in comparisons:
        comparison.p_holm = adjusted[f"{comparison.task}\0{comparison.subset}\0{comparison.metric}"]
    return comparisons
