"""The Overall view: mean rank over the chosen benchmarks, ranked models first, the others with their coverage."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from leaderboard.app.data.filters import Filters
from leaderboard.app.data.values import MISSING
from leaderboard.app.views.render import Cell, empty, esc, model_cell, plural, table

if TYPE_CHECKING:
    import pandas as pd

    from leaderboard.app.data.overall import Overall, OverallRow


def _label(row: OverallRow) -> dict[str, Any]:
    info = dict(row.line.info)
    label = getattr(row.line, "label", "") or row.name
    info["name"] = label  # carries the revision where two rows share a name
    return info


def overall_html(found: Overall, filters: Filters) -> str:
    names = found.benchmarks
    if not names and found.default and found.others:  # said plainly: the default found nothing to rank over
        return empty(
            "No two benchmarks rank a common model, so Overall has no default: tick the benchmarks to rank over "
            f"above (with ranked models: {', '.join(found.others)})."
        )
    if not names:
        return empty("No benchmark with ranked models is chosen: tick at least one benchmark above.")
    ranked = [r for r in found.ranked if filters.keep(r.line.info)]
    unranked = [r for r in found.unranked if filters.keep(r.line.info)]
    if not ranked and not unranked:
        return empty("No model is ranked in any of the chosen benchmarks yet.")
    headers = [
        ("Rank", "Overall position by mean rank", "c-rank"),
        ("Model", "", "c-model"),
        (
            f'<span class="h">Mean rank</span><span class="m">over {len(names)} benchmark'
            f"{'s' if len(names) != 1 else ''} ↓</span>",
            "mean of the model's ranks in the chosen benchmarks (lower is better)",
            "c-agg",
        ),
        ('<span class="h">Coverage</span><span class="m">ranked in</span>', "", ""),
    ] + [(f'<span class="h">{esc(n)}</span><span class="m">rank ↓</span>', n, "") for n in names]
    best = min((r.mean_rank for r in ranked if r.mean_rank is not None), default=None)

    def row(r: OverallRow) -> list[Cell]:
        mean = r.mean_rank
        cells = [
            Cell(str(r.rank) if r.rank else MISSING, r.rank, "c-rank"),
            model_cell(_label(r), page=r.name),
            Cell(
                f'<span class="v">{mean:.2f}</span>' if mean is not None else MISSING,
                mean,
                "c-agg" + (" best" if mean is not None and mean == best else ""),
            ),
            Cell(f"{r.coverage}/{len(names)}", r.coverage),
        ]
        cells += [
            Cell(str(r.ranks[n]) if n in r.ranks else MISSING, r.ranks.get(n), "best" if r.ranks.get(n) == 1 else "")
            for n in names
        ]
        return cells

    bodies = [("ranked", "", [row(r) for r in ranked])]
    if unranked:
        heading = (
            f"Not ranked Overall: ranked in some of the chosen benchmarks, not all ({len(unranked)} "
            f"model{'s' if len(unranked) != 1 else ''}); coverage says in how many."
        )
        bodies.append(("unranked", esc(heading), [row(r) for r in unranked]))
    return table(headers, bodies, "board-table")


def overall_frame(found: Overall, filters: Filters) -> pd.DataFrame:
    import pandas as pd

    records = [
        {
            "rank": r.rank,
            "model": r.name,
            "revision": r.line.key[1],
            "mean_rank": r.mean_rank,
            "benchmarks_ranked_in": r.coverage,
            "benchmarks_chosen": len(found.benchmarks),
        }
        | {f"rank:{n}": r.ranks.get(n) for n in found.benchmarks}
        for r in found.ranked + found.unranked
        if filters.keep(r.line.info)
    ]
    return pd.DataFrame(records)


def overall_summary(found: Any) -> str:
    """Overall: the method and the chosen set, stated on the page (the set is also in the URL)."""
    unknown = getattr(found, "unknown", [])
    extra = f" Not on this board (ignored): {esc(', '.join(unknown))}." if unknown else ""
    names = ", ".join(found.benchmarks) or "none"
    short = f"mean rank over {plural(len(found.benchmarks), 'benchmark')} ({names})"
    others = getattr(found, "others", [])
    if getattr(found, "default", False) and found.benchmarks and others:  # the default, and what it left out
        shared = len(found.ranked)
        short = (
            f"mean rank over the {plural(len(found.benchmarks), 'benchmark')} most models share ({names}: "
            f"{plural(shared, 'model')} ranked in all; tick others above to add them: {', '.join(others)})"
        )
    # On a phone only the short form shows (the table stays near the top); the full method is beside it.
    return (
        f'<div class="summary" id="overall-summary"><b>Overall</b>: {esc(short)}'
        f'<span class="desc">, {esc(getattr(found, "method", ""))}{extra}</span></div>'
    )
