"""Overall: a rank-based aggregate (mean rank, as MTEB's) over a set of benchmarks the reader chooses.

Scores of different benchmarks use different metrics and scales, so they are never averaged;
ranks are. A model's rank in a benchmark is its rank among the models ranked there (complete
results on every aggregated task; equal aggregates share a rank). Its Overall score is the mean of
those ranks over the chosen benchmarks (lower is better), as the "mean rank" of MTEB's leaderboard.
Only models ranked in every chosen benchmark are ranked Overall; the others are listed with their
coverage (how many of the chosen benchmarks rank them), so a reader sees who is missing where.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from leaderboard.app.data.ranking import Line, Ranking, competition_ranks
from leaderboard.app.data.values import ModelKey
from leaderboard.contract.benchmark import Benchmark


class Rankings(Protocol):
    """What Overall reads of a board (``board.Board`` is one): its benchmarks and their rankings."""

    benchmarks: list[Benchmark]

    @property
    def overall_benchmarks(self) -> list[str]: ...

    def ranking(self, name: str, with_stats: bool = True, all_revisions: bool = False) -> Ranking | None: ...


@dataclass
class OverallRow:
    line: Line  # the model's row in the first chosen benchmark that ranks it (name, revision, metadata)
    ranks: dict[str, int]  # benchmark -> the model's rank there (only benchmarks that rank it)
    mean_rank: float | None = None  # over the chosen benchmarks; None unless ranked in all of them
    rank: int | None = None  # Overall position (equal mean ranks share it)

    @property
    def name(self) -> str:
        return self.line.name

    @property
    def coverage(self) -> int:
        """How many of the chosen benchmarks rank this model."""
        return len(self.ranks)


@dataclass
class Overall:
    benchmarks: list[str]  # the chosen set, in the board's order
    default: bool  # the chosen set is the default (public benchmarks with ranked models)
    ranked: list[OverallRow] = field(default_factory=list)
    unranked: list[OverallRow] = field(default_factory=list)  # ranked in some chosen benchmarks, not all
    unknown: list[str] = field(default_factory=list)  # asked-for names that are not benchmarks on this board
    others: list[str] = field(default_factory=list)  # the default set's left-out benchmarks with ranked models

    @property
    def note(self) -> str:
        """The method and the set, stated on the page."""
        which = "the benchmarks most models share" if self.default else "the benchmarks you chose"
        return (
            f"Overall = mean rank over {len(self.benchmarks)} benchmark{'s' if len(self.benchmarks) != 1 else ''} "
            f"({which}: {', '.join(self.benchmarks) or 'none'}), {self.method}"
        )

    @property
    def method(self) -> str:
        """How the mean rank is made (the summary line names the set before it)."""
        return (
            "as MTEB's mean rank: a model's rank in each benchmark among the models ranked there, averaged; "
            "lower is better. Scores of different benchmarks are never averaged. Only models ranked in every "
            "chosen benchmark are ranked; the others are listed with their coverage."
        )


EXHAUSTIVE = 12  # up to this many benchmarks with ranked models, every subset is tried (4,096 at most)


def default_set(board: Rankings, all_revisions: bool = False) -> list[str]:
    """The public benchmarks most models share: of the sets of two or more benchmarks with ranked models, the
    one with the most ranks behind its mean ranks (models ranked in all of them x benchmarks; ties: the larger
    set, then the board's order). All of them when every model is ranked in all; [] when no two benchmarks
    rank a common model (the page then asks the reader to pick)."""
    ranked: dict[str, frozenset[ModelKey]] = {}
    for name in board.overall_benchmarks:
        ranking = board.ranking(name, with_stats=False, all_revisions=all_revisions)
        if ranking is not None and ranking.ranked:
            ranked[name] = frozenset(line.key for line in ranking.ranked + ranking.copied)
    names = sorted(ranked, key=lambda n: -len(ranked[n]))[:EXHAUSTIVE]  # the busiest, when there are more
    # Each model as the bit mask of the benchmarks that rank it, counted once: a set of benchmarks is then
    # scored over the distinct masks (a few hundred), not over every model's rows (thousands, per subset).
    masks: Counter[int] = Counter()
    for key in set().union(*ranked.values()) if ranked else ():
        masks[sum(1 << bit for bit, name in enumerate(names) if key in ranked[name])] += 1
    order = {name: position for position, name in enumerate(board.overall_benchmarks)}
    best: tuple[int, int, tuple[int, ...]] | None = None
    chosen: list[str] = []
    for size in range(2, len(names) + 1):
        for subset in itertools.combinations(range(len(names)), size):
            wanted = sum(1 << bit for bit in subset)
            shared = sum(count for mask, count in masks.items() if mask & wanted == wanted)
            if not shared:
                continue
            picked = sorted((names[bit] for bit in subset), key=order.__getitem__)
            score = (shared * size, size, tuple(-order[n] for n in picked))
            if best is None or score > best:
                best, chosen = score, picked
    if not chosen and len(ranked) == 1:  # one benchmark with ranked models: Overall is its ranks
        chosen = list(ranked)
    return sorted(chosen, key=order.__getitem__)


def with_ranked_models(board: Rankings, all_revisions: bool = False) -> list[str]:
    """The public benchmarks that rank at least one model, in the board's order (what a reader may add)."""
    names = []
    for name in board.overall_benchmarks:
        ranking = board.ranking(name, with_stats=False, all_revisions=all_revisions)
        if ranking is not None and ranking.ranked:
            names.append(name)
    return names


def overall_ranking(board: Rankings, chosen: Iterable[str] | None = None, all_revisions: bool = False) -> Overall:
    """Mean rank over ``chosen`` benchmarks (None: ``default_set``); unknown names are reported, not used.

    Call as ``overall_ranking(board, ["BRIGHT", "ComLQ"])``; ``all_revisions`` ranks each revision of
    a model as its own row (default: each model's newest revision, as the benchmarks' own rankings).
    """
    known = [b.name for b in board.benchmarks]
    others: list[str] = []
    if chosen is None:
        names, unknown, default = default_set(board, all_revisions), [], True
        others = [n for n in with_ranked_models(board, all_revisions) if n not in names]
    else:
        wanted = list(dict.fromkeys(chosen))
        names = [n for n in known if n in wanted]  # the board's order, whatever order the URL had
        unknown = [n for n in wanted if n not in known]
        default = False
    ranks: dict[ModelKey, dict[str, int]] = {}
    lines: dict[ModelKey, Line] = {}
    for name in names:
        ranking = board.ranking(name, with_stats=False, all_revisions=all_revisions)
        for line in ranking.ranked + ranking.copied if ranking else []:  # a copy has its row's rank
            ranks.setdefault(line.key, {})[name] = line.rank or 0
            lines.setdefault(line.key, line)
    result = Overall(names, default, unknown=unknown, others=others)
    for key, got in ranks.items():
        row = OverallRow(lines[key], got)
        if names and len(got) == len(names):
            row.mean_rank = sum(got.values()) / len(names)
            result.ranked.append(row)
        else:
            result.unranked.append(row)
    result.ranked.sort(key=lambda r: (r.mean_rank, r.name))
    for row, position in zip(result.ranked, competition_ranks([row.mean_rank for row in result.ranked])):
        row.rank = position  # equal mean ranks share a position
    result.unranked.sort(key=lambda r: (-r.coverage, r.name))
    _label_shared_names(result.ranked + result.unranked)
    return result


def _label_shared_names(rows: list[OverallRow]) -> None:
    """Rows that share a model name show their revision (the benchmarks' labels may not, each alone)."""
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.name] = counts.get(row.name, 0) + 1
    for row in rows:
        if counts[row.name] > 1 and "@" not in row.line.label:
            row.line = _relabelled(row.line, f"{row.name} @ {row.line.revision or 'no revision'}")


def _relabelled(line: Line, label: str) -> Line:
    import copy

    copied = copy.copy(line)  # the benchmark's cached line stays as it is
    copied.label = label
    return copied
