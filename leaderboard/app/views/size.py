"""The Size tab's points: each ranked model's parameter count against its score (``charts.size_chart`` draws them).

Models without a known size are named beside the chart instead of being dropped silently.
"""

from __future__ import annotations

import math

import pandas as pd

from leaderboard.app.data.ranking import Ranking
from leaderboard.app.data.values import finite


def size_frame(ranking: Ranking) -> tuple[pd.DataFrame, list[str]]:
    """Ranked models with a known size, and the names of those without one: computed once per ranking, not on
    every opening of the tab (a big board has thousands of points to gather)."""
    found = ranking.memo.get("size_frame")
    if found is None:
        found = ranking.memo["size_frame"] = _size_frame(ranking)
    return found


def _size_frame(ranking: Ranking) -> tuple[pd.DataFrame, list[str]]:
    from leaderboard.app.views.render import parameters

    rows, unsized = [], []
    for line in ranking.ranked:
        count = finite(line.info.get("n_parameters"))
        if count is None or count <= 0 or line.aggregate is None or not math.isfinite(line.aggregate):
            unsized.append(line.name)
            continue
        rows.append(
            {
                "model": line.name,
                "parameters": count,
                "size": parameters(count),
                "score": line.aggregate,
                "kind": line.info.get("kind"),
                "rank": line.rank,
            }
        )
    return pd.DataFrame(rows, columns=["model", "parameters", "size", "score", "kind", "rank"]), unsized
