"""Ranking a benchmark by another of its declared aggregates (FollowIR: its score, or the mean p-MRR).

A benchmark declares one aggregate it is ranked by and, in ``also``, other means over its tasks
(``contract.benchmark.SideAggregate``). The reader may rank by any of them: the board's default is the
declared aggregate, and the choice is a URL parameter (``by``). Nothing here names a benchmark: the choices
are the declaration's own labels.

A ranking by another aggregate is derived from the declared one (computed once per ranking, kept in its
``memo``): the same rows, as copies that share their per-column values and intervals, so the statistics
computed for the declared ranking's rows fill the derived rows' cells too. Its Score column is the chosen
mean, and the declared aggregate becomes a column beside it. Only rows ranked by the declared aggregate
(complete on every task it averages) are ranked, among them those with the chosen mean; a mean over other
tasks has no interval and no test against #1 here (the rows say so with †).
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass

from leaderboard.app.data.ranking import Line, Ranking, aggregate_title, by_aggregate, competition_ranks, set_ranks
from leaderboard.contract.benchmark import SideAggregate

NOT_TESTED = "no interval or test for this mean: it is ranked by its value only (†)"


def choices(ranking: Ranking) -> list[str]:
    """The aggregates a reader may rank by: the declared one first, then the benchmark's other means."""
    declared = aggregate_title(base(ranking))
    sides = [side.label for side in getattr(base(ranking).benchmark, "also", ()) or ()]
    return [declared, *(label for label in sides if label != declared)]


def base(ranking: Ranking) -> Ranking:
    """The declared ranking a derived one was made from (itself when it is the declared one)."""
    found: Ranking = ranking.memo.get("base", ranking)
    return found


def ranked_by(ranking: Ranking, label: str | None) -> Ranking:
    """The ranking by ``label`` (one of ``choices``); the declared ranking for its own label, None or unknown."""
    sides = {side.label: side for side in getattr(ranking.benchmark, "also", ()) or ()}
    if not label or label not in sides or label == choices(ranking)[0]:
        return ranking
    key = f"by:{label}"
    found = ranking.memo.get(key)
    if found is None:
        found = ranking.memo[key] = _derive(ranking, sides[label])
    return found


def _derive(ranking: Ranking, side: SideAggregate) -> Ranking:
    declared_label = aggregate_title(ranking)
    aggregated = [c.spec for c in ranking.columns if c.spec.in_aggregate]
    declared = SideAggregate(declared_label, ranking.benchmark.formula, tuple(aggregated))
    others = tuple(s for s in ranking.benchmark.also if s.label != side.label)
    benchmark = dataclasses.replace(
        ranking.benchmark, aggregate_label=side.label, formula=side.formula, also=(declared, *others)
    )
    direction = side.tasks[0].direction if side.tasks else "higher"
    ranked: list[Line] = []
    unranked: list[Line] = []
    for line in ranking.ranked:
        row = _copy(line, side.label, declared_label)
        (ranked if row.aggregate is not None else unranked).append(row)
        if row.aggregate is None:
            row.missing = [*line.missing, f"no {side.label}: a task of it has no value"]
    for line in ranking.unranked:
        row = _copy(line, side.label, declared_label)
        row.aggregate = None  # not complete on the declared aggregate's tasks: not comparable
        unranked.append(row)
    ranked = by_aggregate(ranked, direction == "lower")
    set_ranks(ranked)  # equal means share a rank
    unranked.sort(key=lambda line: (-line.covered, line.name))
    shown = {line.name: line for line in ranked}
    copied = []
    for line in ranking.copied:  # a copy of a row ranked by this mean too: that row's rank (else not ranked)
        row = _copy(line, side.label, declared_label)
        row.rank = shown[line.copy_of].rank if line.copy_of in shown else None
        copied.append(row)
    found = Ranking(
        benchmark,
        ranking.columns,
        ranked,
        unranked,
        ranking.aggregated,
        interval_note=ranking.interval_note,
        test_note=f"Ranked by {side.label}: {NOT_TESTED}.",
        by_direction=direction,
        copied=copied,
    )
    found.memo["base"] = ranking
    return found


def _copy(line: Line, label: str, declared_label: str) -> Line:
    row = copy.copy(line)  # shares values and intervals with the declared row: its statistics fill both
    row.aggregate = line.side.get(label)
    row.aggregate_interval = None
    row.p_value = None
    row.rank = None
    row.side = {**{k: v for k, v in line.side.items() if k != label}, declared_label: line.aggregate}
    return row


def originals(ranking: Ranking, lines: list[Line]) -> list[Line]:
    """The declared ranking's rows behind derived rows (whose statistics the page computes)."""
    source = base(ranking)
    if source is ranking:
        return lines
    by_key = {line.key: line for line in source.lines}
    return [by_key[line.key] for line in lines if line.key in by_key]


@dataclass(frozen=True)
class AggregateValue:
    """One of a benchmark's declared aggregates for one model: its value, interval, and rank among the models ranked
    by it (None: not ranked by it)."""

    label: str
    value: float | None
    interval: tuple[float, float] | None
    rank: int | None
    ranked: int  # how many models it ranks
    direction: str
    default: bool  # the benchmark's own ranking (the others are ranked by when a reader picks them)
    formula: str = ""


def aggregate_values(ranking: Ranking, line: Line) -> list[AggregateValue]:
    """Every declared aggregate of ``line``, a row of the declared ranking (statistics computed for it first, where
    intervals are wanted): the declared one first, then each other declared mean, with its rank under ``ranked_by``."""
    declared = base(ranking)
    labels = choices(declared)
    found = [
        AggregateValue(
            labels[0],
            line.aggregate,
            line.aggregate_interval,
            line.rank,
            len(declared.ranked),
            declared.direction,
            True,
            declared.benchmark.formula,
        )
    ]
    sides = {side.label: side for side in getattr(declared.benchmark, "also", ()) or ()}
    for label in labels[1:]:
        by = ranked_by(declared, label)
        rows = by.memo.get("by_key")
        if rows is None:
            rows = by.memo["by_key"] = {row.key: row for row in by.lines}
        row = rows.get(line.key)
        found.append(
            AggregateValue(
                label,
                line.side.get(label),
                line.side_intervals.get(label),
                row.rank if row is not None else None,
                len(by.ranked),
                by.direction,
                False,
                sides[label].formula,
            )
        )
    return found


# -- a subset of the benchmark's tasks ---------------------------------------------------------------------------


def task_choices(ranking: Ranking) -> list[str]:
    """The labels of the columns the declared aggregate averages: the tasks a reader may rank over (two or more)."""
    return [c.label for c in base(ranking).columns if c.spec.in_aggregate]


def chosen_tasks(ranking: Ranking, labels: list[str] | tuple[str, ...] | None) -> tuple[str, ...]:
    """The valid ``labels`` in the board's order; () for none, or for all of them (the declared ranking)."""
    offered = task_choices(ranking)
    wanted = set(labels or ())
    kept = tuple(label for label in offered if label in wanted)
    return () if len(kept) in (0, len(offered)) else kept


def over_tasks(ranking: Ranking, labels: tuple[str, ...]) -> Ranking:
    """The declared ranking recomputed over a subset of its tasks, as Overall ranks over benchmarks: each model
    complete on every chosen task is ranked on each (ties share the better rank), and ranked by the mean of those
    ranks (lower is better). The mean of its chosen tasks' scores is shown beside it; neither has an interval or a
    test (†). ``labels``: ``chosen_tasks``' (empty: the declared ranking itself)."""
    declared = base(ranking)
    labels = chosen_tasks(declared, labels)
    if not labels:
        return declared
    key = "tasks:" + "\x1f".join(labels)
    found = declared.memo.get(key)
    if found is None:
        found = declared.memo[key] = _over_tasks(declared, labels)
    return found


def _over_tasks(ranking: Ranking, labels: tuple[str, ...]) -> Ranking:
    columns = [c for c in ranking.columns if c.spec.in_aggregate and c.label in labels]
    total = len([c for c in ranking.columns if c.spec.in_aggregate])
    label = f"mean rank over {len(columns)} of {total} tasks"
    mean_label = f"mean score over the {len(columns)} tasks"
    declared_label = choices(ranking)[0]

    def complete(line: Line) -> bool:
        return not str(line.imported or "").startswith("reported") and all(
            line.values.get(c.key) is not None and c.key not in line.other_data for c in columns
        )

    candidates = [line for line in ranking.ranked + ranking.unranked if complete(line)]
    ranks: dict[tuple[str, str], list[int]] = {line.key: [] for line in candidates}
    for column in columns:
        lower = column.direction == "lower"
        scores = {line.key: float(line.values[column.key] or 0.0) for line in candidates}  # complete: none is None
        ordered = sorted(scores.values(), reverse=not lower)
        first = dict(zip(ordered, competition_ranks(ordered)))  # ties share the better rank
        for line in candidates:
            ranks[line.key].append(first[scores[line.key]])
    rows: list[Line] = []
    for line in candidates:
        row = copy.copy(line)  # shares values and intervals with the declared row
        row.aggregate = sum(ranks[line.key]) / len(columns)
        row.aggregate_interval = row.p_value = row.rank = None
        row.missing = []
        mean = sum(line.values[c.key] for c in columns) / len(columns)  # type: ignore[misc]
        row.side = {mean_label: mean, declared_label: line.aggregate}
        rows.append(row)
    rows = by_aggregate(rows, lower=True)  # the mean rank: lower is better
    set_ranks(rows)
    kept = {line.key for line in candidates}
    others = []
    for line in ranking.ranked + ranking.unranked:
        if line.key in kept:
            continue
        row = copy.copy(line)
        row.aggregate = row.aggregate_interval = row.p_value = row.rank = None
        row.side = {mean_label: None, declared_label: line.aggregate}
        row.missing = [*line.missing, f"not complete on the {len(columns)} chosen tasks"]
        others.append(row)
    others.sort(key=lambda line: (-line.covered, line.name))
    names = ", ".join(c.label for c in columns)
    sides = (
        SideAggregate(mean_label, f"mean of {names}", tuple(c.spec for c in columns)),
        SideAggregate(
            declared_label, ranking.benchmark.formula, tuple(c.spec for c in ranking.columns if c.spec.in_aggregate)
        ),
    )
    benchmark = dataclasses.replace(
        ranking.benchmark,
        aggregate_label=label,
        formula=f"mean over {names} of each model's rank on that task among the models complete on all "
        f"{len(columns)} (ties share the better rank); lower is better",
        also=sides,
    )
    found = Ranking(
        benchmark,
        ranking.columns,
        rows,
        others,
        ranking.aggregated,
        interval_note=ranking.interval_note,
        test_note=f"Ranked by {label}: {NOT_TESTED}.",
        by_direction="lower",
    )
    found.memo["base"] = ranking
    found.memo["tasks"] = tuple(c.label for c in columns)
    return found
